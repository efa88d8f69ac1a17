#pragma once
// The input side of every command: a file gpp reads is known to be a regular file of
// bounded size before a byte of it is read. A FIFO would block the open or the read, a
// device such as /dev/zero never ends, a directory is not a file; a symlink counts as
// what it points to. One line (gpp::Error), before any work.
#include <sys/types.h>

#include <cstdint>
#include <string>

namespace gpp::files {

/// Most bytes of the small files gpp reads whole: tuning files and ceilings (JSON), a
/// resumed sweep CSV, a profiler's report.
inline constexpr std::int64_t kMaxJsonBytes = std::int64_t(16) << 20;
inline constexpr std::int64_t kMaxCsvBytes = std::int64_t(256) << 20;

/// Which file a path names (device and inode, through symlinks): two paths are one file
/// when these agree, however they are spelled (a symlink, a hard link, "./x", "../d/x").
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileIdentity& o) const { return dev == o.dev && ino == o.ino; }
};

/// Throws gpp::Error ("WHAT PATH: ...") unless `path` names an existing regular file of
/// at most `max_bytes` (no limit when negative); stat() only, nothing is opened.
void require_input_file(const std::string& what, const std::string& path, std::int64_t max_bytes = -1);

/// The whole content of the regular file `path`, at most `max_bytes`: opened without
/// blocking (O_NONBLOCK: a FIFO cannot hold the open), checked on the open descriptor
/// (fstat: what was checked is what is read), read to its end. gpp::Error "WHAT PATH: ..."
/// for anything else.
std::string read_input_file(const std::string& what, const std::string& path, std::int64_t max_bytes);

}  // namespace gpp::files
