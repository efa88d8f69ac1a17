#pragma once
// Small helpers shared by the file readers (host code).
#include "gpp_error.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace gpp::files::io {

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

/// Physical memory of this host in bytes (0 if unknown).
inline std::int64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::int64_t(pages) * page : 0;
}

/// Memory this process can still allocate, in bytes (0 if unknown): MemAvailable of
/// /proc/meminfo, lowered to what the cgroup (container, batch job) still allows. Going
/// beyond it ends in the kernel's OOM killer (SIGKILL), so such allocations are refused.
inline std::int64_t available_host_memory_bytes() {
  std::int64_t avail = 0;
  if (std::ifstream meminfo("/proc/meminfo"); meminfo) {
    std::string key;
    std::int64_t kb = 0;
    std::string unit;
    while (meminfo >> key >> kb >> unit)
      if (key == "MemAvailable:") {
        avail = kb * 1024;
        break;
      }
  }
  if (avail <= 0) avail = host_memory_bytes();
  auto read_number = [](const char* path) -> std::int64_t {
    std::ifstream f(path);
    std::string v;
    if (!(f >> v) || v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return -1;
    try {
      return std::stoll(v);
    } catch (...) {
      return -1;
    }
  };
  std::int64_t limit = read_number("/sys/fs/cgroup/memory.max");  // cgroup v2 ("max": none)
  std::int64_t used = read_number("/sys/fs/cgroup/memory.current");
  if (limit < 0) {  // cgroup v1
    limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  if (limit > 0 && used >= 0 && limit < (std::int64_t(1) << 60)) {
    const std::int64_t left = limit > used ? limit - used : 0;
    if (avail <= 0 || left < avail) avail = left;
  }
  return avail;
}

/// "12.3 GB".
inline std::string gigabytes(long double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(bytes < 1e8L ? 3 : 1);
  os << (double)(bytes / 1e9L) << " GB";
  return os.str();
}

/// "" when `bytes` can be allocated here, else why not.
inline std::string too_large(long double bytes) {
  const std::int64_t mem = available_host_memory_bytes();
  if (mem > 0 && bytes > (long double)mem)
    return str("needs ", gigabytes(bytes), " (", (double)bytes, " bytes), more than the ", gigabytes(mem),
               " of host memory available");
  return "";
}

}  // namespace gpp::files::io
