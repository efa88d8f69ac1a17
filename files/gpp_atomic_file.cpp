#include "gpp_atomic_file.hpp"

#include "gpp_error.hpp"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gpp {

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(::getpid())) {}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
  // No fsync: this protects against interrupted runs (the aim), not against power loss.
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) throw_write_error(path_, errno);
  committed_ = true;
}

void throw_write_error(const std::string& path, int errnum) {
  throw Error("cannot write " + path + ": " + std::strerror(errnum));
}

}  // namespace gpp
