#pragma once
// Files that several gpp processes update at once: a tuning file two sweeps merge into, a
// sweep CSV two campaigns append their rows to (formats/gpp_csv.hpp). Each update holds an exclusive lock for
// the few milliseconds of read, merge and write, so the second writer merges into what
// the first wrote and no update is lost.
//
// The lock is an fcntl record lock on a lock file beside the target (`PATH.lock`), not on
// the target itself: the target is replaced by a rename (gpp_atomic_file.hpp), so a lock
// on it would be a lock on a file that is no longer there. The lock file is removed by
// whoever holds the lock when it is done; a process that waited checks, once it holds the
// lock, that the path still names the file it locked, and starts over when it does not.
// Where fcntl locks do not work (some network file systems without a lock manager), gpp
// refuses in one line before any work rather than risk losing a merge.
#include "gpp_stop.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gpp::files {

/// An exclusive lock on the file `path` (held from construction to destruction). Prints
/// one line on stderr when another process holds it and this one waits.
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
  std::optional<StopDeferred> section_;  // a stop waits until the lock file is removed
};

/// Throws gpp::Error ("OPTION PATH: ...") when the lock of `path` cannot be taken here:
/// the file system refuses fcntl locks, or the lock file cannot be created. Takes the
/// lock and releases it (nothing else is touched). For the checks before any work.
void check_lockable(const std::string& option, const std::string& path);

/// Under the lock of `path`: reads the file ("" when it does not exist; at most
/// `max_bytes`), calls `merge` with that text and writes what it returns, whole
/// (write_file_atomically), unless it is that text unchanged. Returns the merged text.
std::string update_shared_file(const std::string& what, const std::string& path, std::int64_t max_bytes,
                               const std::function<std::string(const std::string&)>& merge);

}  // namespace gpp::files
