#include "gpp_atomic_file.hpp"

#include "gpp_error.hpp"
#include "gpp_outputs.hpp"
#include "gpp_stop.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

namespace gpp::files {

std::string output_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(std::size_t(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
    std::string link(buf.data(), std::size_t(n));
    if (!link.empty() && link[0] != '/') {
      const auto slash = p.find_last_of('/');
      if (slash != std::string::npos) link = p.substr(0, slash + 1) + link;
    }
    p = link;
  }
  throw Error("cannot write " + path + ": too many levels of symbolic links");
}

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)), target_(output_target(path_)), temp_(target_ + ".tmp." + std::to_string(::getpid())) {
  remove_on_stop(temp_);  // Ctrl-C leaves no temporary file behind
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
  forget_on_stop(temp_);
}

void AtomicOutput::commit() {
  // The replaced file's permission bits (a file made read-only to others stays so); a
  // new file gets the default (0666 less the umask), as any program's would.
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0) {
    // Made read-only since the checks before the work: refused now, as then.
    require_replaceable("cannot write " + path_ + ": ", target_, st);
    if (::chmod(temp_.c_str(), st.st_mode & 07777) != 0) throw_write_error(path_, errno);
  }
  // No fsync: this protects against interrupted runs (the aim), not against power loss.
  int error = 0;
  if (!rename_unless_stopped(temp_, target_, error)) throw_write_error(path_, error);
  committed_ = true;
}

void throw_write_error(const std::string& path, int errnum) {
  throw Error("cannot write " + path + ": " + std::strerror(errnum));
}

}  // namespace gpp::files
