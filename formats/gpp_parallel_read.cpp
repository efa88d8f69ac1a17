#include "gpp_parallel_read.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace gpp::formats {

std::string parallel_pread(const int fd, const std::int64_t offset, void* dst, const std::int64_t n, const int asked) {
  const std::int64_t threads = asked > 0 ? asked
                               : n < kParallelReadBytes
                                   ? 1
                                   : std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  auto part = [&](const std::int64_t t) {
    // Parts aligned to 1 MiB (to a byte for small ranges): no two threads share a page
    // of the destination.
    const std::int64_t align = n >= (std::int64_t(64) << 20) ? std::int64_t(1) << 20 : 1;
    const std::int64_t lo = std::min(n, n * t / threads / align * align);
    const std::int64_t hi = t + 1 == threads ? n : std::min(n, n * (t + 1) / threads / align * align);
    char* p = static_cast<char*>(dst);
    for (std::int64_t at = lo; at < hi;) {
      // Linux transfers at most 2^31 - 4096 bytes per call.
      const ssize_t got =
          ::pread(fd, p + at, std::size_t(std::min<std::int64_t>(hi - at, std::int64_t(1) << 30)), off_t(offset + at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        errors[std::size_t(t)] = std::string("read failed: ") + std::strerror(errno);
        return;
      }
      if (got == 0) {
        errors[std::size_t(t)] = "the file ends at byte " + std::to_string(offset + at);
        return;
      }
      at += got;
    }
  };
  std::vector<std::thread> helpers;
  for (std::int64_t t = 1; t < threads; ++t) helpers.emplace_back(part, t);
  part(0);
  for (std::thread& h : helpers) h.join();
  for (const std::string& e : errors)
    if (!e.empty()) return e;
  return "";
}

}  // namespace gpp::formats
