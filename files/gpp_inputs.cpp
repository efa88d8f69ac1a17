#include "gpp_inputs.hpp"

#include "gpp_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpp::files {
namespace {

std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "it is a directory";
  if (S_ISFIFO(m)) return "it is a FIFO (a pipe), not a regular file";
  if (S_ISCHR(m) || S_ISBLK(m)) return "it is a device, not a regular file";
  if (S_ISSOCK(m)) return "it is a socket, not a regular file";
  return "not a regular file";
}

void check_stat(const std::string& what, const std::string& path, const struct stat& st, std::int64_t max_bytes) {
  if (!S_ISREG(st.st_mode)) throw Error(what + " " + path + ": " + kind_of(st.st_mode));
  if (max_bytes >= 0 && st.st_size > max_bytes)
    throw Error(what + " " + path + ": " + std::to_string(st.st_size) + " bytes, more than such a file can be (" +
                std::to_string(max_bytes) + ")");
}

}  // namespace

void require_input_file(const std::string& what, const std::string& path, std::int64_t max_bytes) {
  struct stat st;
  if (path.empty()) throw Error(what + ": empty file name");
  if (::stat(path.c_str(), &st) != 0) throw Error(what + " " + path + ": " + std::strerror(errno));
  check_stat(what, path, st, max_bytes);
}

std::string read_input_file(const std::string& what, const std::string& path, std::int64_t max_bytes) {
  if (path.empty()) throw Error(what + ": empty file name");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(what + " " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) throw Error(what + " " + path + ": " + std::strerror(errno));
  check_stat(what, path, st, max_bytes);
  std::string text;
  text.reserve(std::size_t(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(what + " " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    text.append(buf, std::size_t(n));
    // A file that grows while it is read is still bounded.
    if (max_bytes >= 0 && std::int64_t(text.size()) > max_bytes)
      throw Error(what + " " + path + ": more than " + std::to_string(max_bytes) + " bytes");
  }
  return text;
}

}  // namespace gpp::files
