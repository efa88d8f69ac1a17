#pragma once
// What every fuzz target shares (docs/dev/testing.md, "Fuzzing"), without gpp's own
// headers: the bytes of one input as a file (every reader of gpp takes a path and checks
// what it names before it reads), a private work directory, and the way a target stops
// on a broken contract. fuzz_support.hpp adds the readers' contract; the C interface's
// target (fuzz_c_api.cpp) calls only the public library and states its own.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace gpp::fuzz {

/// Stops the process with a message on stderr: libFuzzer and the replay see a crash and
/// keep the input that caused it.
[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "gpp fuzz contract violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Checks `ok`; aborts naming `what` when it does not hold.
inline void expect(bool ok, const std::string& what) {
  if (!ok) violated(what);
}

/// A private directory for this process's input files (under $TMPDIR, else /tmp),
/// removed with everything in it at exit (the static's destructor).
class WorkDir {
 public:
  static WorkDir& get() {
    static WorkDir d;
    return d;
  }
  const std::string& path() const { return path_; }
  /// `name` inside the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  WorkDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpp-fuzz.XXXXXX";
    if (!::mkdtemp(tmpl.data())) violated("cannot create a work directory under " + tmpl);
    path_ = tmpl;
  }
  ~WorkDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  std::string path_;
};

/// Writes `data` as the file `name` of the work directory (replacing it) and returns its
/// path: the input is read as a command reads a user's file, by name.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = WorkDir::get().file(name);
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) violated("cannot create " + path + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) violated("cannot write " + path + ": " + std::strerror(errno));
    done += std::size_t(n);
  }
  ::close(fd);
  return path;
}

/// The whole content of `path` (a file this process wrote).
inline std::string read_back(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[1 << 14];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    std::fclose(f);
  } else {
    violated("cannot read back " + path);
  }
  return out;
}

}  // namespace gpp::fuzz
