#include "gpp_shared_file.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_inputs.hpp"
#include "gpp_outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <set>

namespace gpp {
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
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd_ < 0) throw Error("cannot lock " + path + ": cannot create " + lock_path_ + ": " + std::strerror(errno));
    if (set_lock(fd_, kSetLock) != 0) {
      const int e = errno;
      if (e != EAGAIN && e != EACCES) {
        ::close(fd_);
        ::unlink(lock_path_.c_str());
        throw Error("cannot lock " + path + ": this file system refuses fcntl locks (" + std::strerror(e) +
                    "): several gpp processes could lose each other's updates; write it on a local file system");
      }
      if (!told) {
        std::cerr << "gpp: waiting for " << lock_path_ << " (another process is updating " << path << ")\n";
        told = true;
      }
      if (set_lock(fd_, kSetLockWait) != 0) {
        const int e2 = errno;
        ::close(fd_);
        throw Error("cannot lock " + path + ": " + std::strerror(e2));
      }
    }
    // The holder before us removes the lock file when it is done: the lock we hold is
    // then on a file nobody else will open. Only a lock on the file the path names counts.
    struct stat mine, named;
    if (::fstat(fd_, &mine) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && mine.st_dev == named.st_dev &&
        mine.st_ino == named.st_ino)
      return;
    ::close(fd_);
  }
}

FileLock::~FileLock() {
  // Removed while still held, so that no other process can lock this file after us
  // (it checks the path once it holds a lock, and starts over).
  ::unlink(lock_path_.c_str());
  ::close(fd_);
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

std::vector<std::string> csv_data_records(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = text.find('\n');
  if (i == std::string::npos) return out;
  ++i;
  std::string rec;
  bool quoted = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') quoted = !quoted;  // "" inside quotes toggles twice
    if (c == '\n' && !quoted) {
      if (!rec.empty() && rec.back() == '\r') rec.pop_back();
      if (!rec.empty()) out.push_back(rec);
      rec.clear();
    } else {
      rec += c;
    }
  }
  return out;  // `rec` left over: a record without its newline, cut off mid-write
}

SharedRows::SharedRows(std::string option, std::string path, std::string header)
    : option_(std::move(option)), path_(std::move(path)), header_(std::move(header)) {}

namespace {
std::string header_of(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string joined(const std::string& header, const std::vector<std::string>& rows) {
  std::string t = header + "\n";
  for (const auto& r : rows) t += r + "\n";
  return t;
}
}  // namespace

void SharedRows::start(const std::vector<std::string>& rows, bool replace) {
  FileLock lock(path_);
  const std::string text = replace ? std::string() : read_locked(option_, path_, kMaxCsvBytes);
  mine_ = rows;
  if (text.empty()) {
    write_file_atomically(path_, joined(header_, rows));
    return;
  }
  std::string h = header_of(text);
  if (!h.empty() && h.back() == '\r') h.pop_back();
  if (h != header_) throw Error(option_ + " " + path_ + ": its first line is not the header of this CSV");
  const std::vector<std::string> have = csv_data_records(text);
  const std::set<std::string> present(have.begin(), have.end());
  std::vector<std::string> all = have;
  for (const auto& r : rows)
    if (!present.count(r)) all.push_back(r);
  if (all.size() != have.size() || text.back() != '\n') write_file_atomically(path_, joined(header_, all));
}

std::vector<std::string> SharedRows::rows() const {
  FileLock lock(path_);
  return csv_data_records(read_locked(option_, path_, kMaxCsvBytes));
}

void SharedRows::append(const std::string& row) {
  FileLock lock(path_);
  const std::string text = read_locked(option_, path_, kMaxCsvBytes);
  if (text.empty()) {  // removed while we ran: made again with every row of ours
    mine_.push_back(row);
    write_file_atomically(path_, joined(header_, mine_));
    return;
  }
  std::string h = header_of(text);
  if (!h.empty() && h.back() == '\r') h.pop_back();
  if (h != header_)
    throw Error(option_ + " " + path_ + ": another program replaced it (its first line is no longer this CSV's header)");
  const std::vector<std::string> have = csv_data_records(text);
  const std::set<std::string> present(have.begin(), have.end());
  std::string add;
  for (const auto& r : mine_)
    if (!present.count(r)) add += r + "\n";
  add += row + "\n";
  // A writer killed mid-row left a tail without its newline: it is cut off first.
  const std::size_t keep = text.back() == '\n' ? text.size() : text.rfind('\n') + 1;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw_write_error(path_, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(option_ + " " + path_ + ": no longer a regular file");
  }
  auto fail = [&](int e) {
    // Back to what it was: no partial row is left behind.
    const int rc = ::ftruncate(fd, off_t(keep));
    (void)rc;
    ::close(fd);
    throw_write_error(path_, e);
  };
  if (::ftruncate(fd, off_t(keep)) != 0 || ::lseek(fd, off_t(keep), SEEK_SET) < 0) fail(errno);
  std::size_t done = 0;
  while (done < add.size()) {
    const ssize_t n = ::write(fd, add.data() + done, add.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC);
    done += std::size_t(n);
  }
  if (::fdatasync(fd) != 0) fail(errno);
  if (::close(fd) != 0) throw_write_error(path_, errno);
  mine_.push_back(row);
}

}  // namespace gpp
