#include "gpp_shared_file.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_inputs.hpp"
#include "gpp_outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace gpp::files {
namespace {

// Open file description locks where the kernel has them: they belong to the open file,
// not to the process, so closing another descriptor of the same file in this process
// cannot release them. Classic POSIX locks elsewhere (the same semantics across processes).
#ifdef F_OFD_SETLK
constexpr int kSetLock = F_OFD_SETLK, kSetLockWait = F_OFD_SETLKW;
#else
constexpr int kSetLock = F_SETLK, kSetLockWait = F_SETLKW;
#endif

int set_lock(int fd, int cmd) {
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // the whole file
  int rc;
  do {
    rc = ::fcntl(fd, cmd, &fl);
  } while (rc != 0 && errno == EINTR);
  return rc;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 || errno != ENOENT;
}

// The file's text under its lock: "" when it does not exist.
std::string read_locked(const std::string& what, const std::string& path, std::int64_t max_bytes) {
  return exists(path) ? read_input_file(what, path, max_bytes) : std::string();
}

}  // namespace

FileLock::FileLock(const std::string& path) : lock_path_(output_target(path) + ".lock") {
  bool told = false;
  for (;;) {
    {
      // From before the lock file may be created until it is held under section_: a stop
      // that came in between would end the process and leave the file behind. Where the
      // stop has begun already, this section never starts, and nothing was created.
      StopDeferred creating;
      fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd_ < 0) throw Error("cannot lock " + path + ": cannot create " + lock_path_ + ": " + std::strerror(errno));
      if (set_lock(fd_, kSetLock) == 0) {
        // The holder before us removes the lock file when it is done: the lock we hold is
        // then on a file nobody else will open. Only a lock on the file the path names counts.
        struct stat mine, named;
        if (::fstat(fd_, &mine) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && mine.st_dev == named.st_dev &&
            mine.st_ino == named.st_ino) {
          section_.emplace([this] {
            ::unlink(lock_path_.c_str());
            ::close(fd_);
          });
          return;
        }
        ::close(fd_);
        continue;
      }
      const int e = errno;
      if (e != EAGAIN && e != EACCES) {
        ::close(fd_);
        ::unlink(lock_path_.c_str());
        throw Error("cannot lock " + path + ": this file system refuses fcntl locks (" + std::strerror(e) +
                    "): several gpp processes could lose each other's updates; write it on a local file system");
      }
    }
    // Another process holds it: wait outside any section (a stop never waits for another
    // process), then take it again from the top, inside one.
    if (!told) {
      std::cerr << "gpp: waiting for " << lock_path_ << " (another process is updating " << path << ")\n";
      told = true;
    }
    const int waited = set_lock(fd_, kSetLockWait);
    const int e2 = errno;
    ::close(fd_);
    if (waited != 0) throw Error("cannot lock " + path + ": " + std::strerror(e2));
  }
}

FileLock::~FileLock() {
  // Removed while still held, so that no other process can lock this file after us
  // (it checks the path once it holds a lock, and starts over).
  ::unlink(lock_path_.c_str());
  ::close(fd_);
  section_.reset();
}

void check_lockable(const std::string& option, const std::string& path) {
  try {
    FileLock lock(path);
  } catch (const Error& e) {
    throw Error(option + " " + path + ": " + e.what());
  }
}

std::string update_shared_file(const std::string& what, const std::string& path, std::int64_t max_bytes,
                               const std::function<std::string(const std::string&)>& merge) {
  FileLock lock(path);
  const std::string old = read_locked(what, path, max_bytes);
  const std::string text = merge(old);
  if (text != old) write_file_atomically(path, text);
  return text;
}

}  // namespace gpp::files
