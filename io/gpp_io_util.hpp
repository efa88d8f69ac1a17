#pragma once
// Small helpers shared by the file readers (host code).
#include "gpp_types.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

namespace gpp::io {

template <class... Args>
std::string str(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

/// Throws gpp::Error unless `path` names a regular file that stat() can see.
inline void require_regular_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(str("cannot read ", path, ": ", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(str("cannot read ", path, ": it is a directory"));
  if (!S_ISREG(st.st_mode)) throw Error(str("cannot read ", path, ": not a regular file"));
}

/// Physical memory of this host in bytes (0 if unknown). A file that claims an array
/// larger than this is refused before anything is allocated.
inline std::int64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::int64_t(pages) * page : 0;
}

/// "" when `bytes` can be allocated here, else why not.
inline std::string too_large(long double bytes) {
  const std::int64_t mem = host_memory_bytes();
  if (mem > 0 && bytes > (long double)mem)
    return str("needs ", (double)bytes, " bytes, more than this host's memory (", mem, " bytes)");
  return "";
}

}  // namespace gpp::io
