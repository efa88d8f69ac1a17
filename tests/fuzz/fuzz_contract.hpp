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

// The sanitizer runtime's interface, where one is linked: a replay build without a
// sanitizer (GPP_FUZZ_TARGETS=replay alone) has the header but not the runtime.
#if defined(__SANITIZE_ADDRESS__)
#define GPP_FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define GPP_FUZZ_SANITIZED 1
#endif
#endif
#if defined(GPP_FUZZ_SANITIZED) && defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define GPP_FUZZ_HAVE_SANITIZER_INTERFACE 1
#endif
#endif
#include <pthread.h>
#include <csignal>

namespace gpp::fuzz {

/// The HDF5 reader reads a file's structure first in a forked child, which may die of
/// what it finds there (formats/gpp_hdf5_io.cpp, preflight): gpp's contract is that the
/// parent then refuses the file in one line. In a child, libFuzzer's death callback and
/// alarm handler would still write the input out as a crash or a timeout of the target,
/// so a child dies as it does under gpp (a sanitizer still prints its report).
inline const bool kChildrenDieAsUnderGpp = [] {
  ::pthread_atfork(nullptr, nullptr, [] {
#ifdef GPP_FUZZ_HAVE_SANITIZER_INTERFACE
    __sanitizer_set_death_callback(nullptr);
#endif
    std::signal(SIGALRM, SIG_DFL);
  });
  return true;
}();

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
