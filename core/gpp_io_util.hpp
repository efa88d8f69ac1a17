#pragma once
// Small helpers shared by the file readers (host code).
#include <unistd.h>
#include <cstdint>
#include <sstream>
#include <string>

namespace gpp::io {

template <class... Args>
std::string str(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
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
