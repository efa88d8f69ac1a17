#pragma once
// Reading one large byte range of an input file with several threads (the .dat records
// and HDF5's contiguous datasets, formats/): the page cache, a local disk and a parallel
// file system all serve concurrent reads faster than one stream, and the destination's
// pages are first touched by many threads instead of one.
#include <cstdint>
#include <string>

namespace gpp::formats {

/// Ranges below this are read by one thread.
inline constexpr std::int64_t kParallelReadBytes = std::int64_t(64) << 20;

/// Reads bytes [offset, offset + n) of the open file `fd` into `dst` with pread, split
/// over `threads` threads (0: one below kParallelReadBytes, else up to 16), without
/// moving the file's position. "" on success; otherwise the first failure ("read failed:
/// REASON", or "the file ends at byte B" when it is shorter than the range, e.g. it
/// shrank while being read).
std::string parallel_pread(int fd, std::int64_t offset, void* dst, std::int64_t n, int threads = 0);

}  // namespace gpp::formats
