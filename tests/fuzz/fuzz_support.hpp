#pragma once
// What every fuzz target shares (docs/dev/testing.md, "Fuzzing"): the bytes of one input
// as a file (every reader of gpp takes a path and checks what it names before it reads),
// and the contract each target asserts on what the reader did with them.
//
// The contract: a reader either refuses the input with gpp::Error (the one exception type
// main turns into one line and exit 1) carrying a message, or returns a value that passes
// the reader's own checks, which each target restates as far as it can (a round trip
// through the matching writer where there is one). Anything else is a finding and aborts:
// another exception type (a std::out_of_range from a number conversion, a library's own
// exception: main would print it, but not say what in the file is wrong), a crash or
// undefined behaviour (AddressSanitizer, UndefinedBehaviorSanitizer), a hang (-timeout)
// or an allocation the input's size does not justify (-rss_limit_mb, -malloc_limit_mb).
#include "gpp_error.hpp"
#include "gpp_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <typeinfo>

#if defined(__has_include)
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

/// Runs `read` (the reader on one input) and `check` on what it returned: a refusal must
/// be a gpp::Error with a message; any other exception is a finding. Returns whether the
/// input was accepted.
template <class Read, class Check>
bool refused_or_valid(Read&& read, Check&& check) {
  bool accepted = false;
  try {
    auto value = read();
    accepted = true;
    check(value);
  } catch (const Error& e) {
    if (accepted) violated(std::string("the check of an accepted input threw: ") + e.what());
    expect(!files::one_line(e.what()).empty(), "a refusal without a message");
    return false;
  } catch (const std::exception& e) {
    violated(std::string("an exception other than gpp::Error (") + typeid(e).name() + "): " + e.what());
  }
  return true;
}

}  // namespace gpp::fuzz
