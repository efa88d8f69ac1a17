// Kokkos' start-up warnings: what Kokkos writes on stderr as it starts is kept
// in the provenance of a run (the text output, the JSON record), never between
// gpp's lines, so that a refusal is one line on stderr wherever Kokkos warns. On an H100
// running a V100 binary by JIT, Kokkos warns at every start ("running kernels compiled
// for compute capability 7.0 on device with compute capability 9.0"): 28 tests failed on
// that line before.
#include "gpp_io_test_util.hpp"
#include "gpp_test_util.hpp"
#include "gpp_stderr.hpp"

#include <Kokkos_Macros.hpp>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using gpp::runtime::run_capturing_stderr;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A setting that makes this Kokkos warn as it starts, on every backend, without changing
// what it runs, and a word of the warning. Kokkos 4.3 and later (through 5.x) warn that
// KOKKOS_MAP_DEVICE_ID_BY is ignored when KOKKOS_DEVICE_ID is set, even with warnings
// disabled; older ones (3.4) that --kokkos-ndevices is deprecated (from 4.3 on gpp refuses
// that option itself, before Kokkos sees it).
struct Trigger {
  std::string env, option, word;
};
Trigger kokkos_warns() {
#if KOKKOS_VERSION >= 40300
  return {"KOKKOS_DEVICE_ID=0 KOKKOS_MAP_DEVICE_ID_BY=mpi_rank", "", "KOKKOS_MAP_DEVICE_ID_BY"};
#else
  return {"", " --kokkos-ndevices=1", "--kokkos-ndevices"};
#endif
}

// gpp under `env`, its stdout and stderr apart.
struct Streams {
  int code = -1;
  std::string out, err;
};
Streams gpp_under(const std::string& env, const std::string& args) {
  const std::string err_path = gpp::test::scratch_dir() + "gpp_startup_err_" + std::to_string(::getpid());
  const std::string cmd = "env " + env + " OMP_PROC_BIND=false " + GPP_EXE + " " + args + " 2>" + err_path;
  Streams s;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return s;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) s.out += buf;
  const int status = pclose(p);
  s.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  s.err = slurp(err_path);
  std::remove(err_path.c_str());
  return s;
}

std::string small_deck() { return std::string(GPP_SOURCE_DIR) + "/inputs/small.toml"; }

// Lines of `text` that contain `word`.
std::vector<std::string> lines_with(const std::string& text, const std::string& word) {
  std::vector<std::string> found;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.find(word) != std::string::npos) found.push_back(line);
    start = end + 1;
  }
  return found;
}

TEST(KokkosWarnings, RefusalStaysOneLine) {
  const Trigger t = kokkos_warns();
  const Streams s = gpp_under(t.env, "run " + small_deck() + " --nbands 0" + t.option);
  SCOPED_TRACE("stdout:\n" + s.out + "stderr:\n" + s.err);
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.out, "");
  EXPECT_EQ(gpp::test::count_lines(s.err), 1);
  EXPECT_NE(s.err.find("nbands must be positive"), std::string::npos);
  EXPECT_EQ(s.err.find(t.word), std::string::npos);
}

// --version does not start Kokkos (it works on a machine without the build's device), so
// the setting that makes Kokkos warn leaves it as it is: no warning line, nothing on
// stderr. RecordedInTheRun below is the other side: the same setting, Kokkos started.
TEST(KokkosWarnings, NotStartedByVersion) {
  const Trigger t = kokkos_warns();
  const Streams s = gpp_under(t.env, "--version" + t.option);
  SCOPED_TRACE("stdout:\n" + s.out + "stderr:\n" + s.err);
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(s.err, "");
  EXPECT_EQ(s.out.rfind("gpp ", 0), 0u);
  EXPECT_TRUE(lines_with(s.out, t.word).empty());
  EXPECT_TRUE(lines_with(s.out, "kokkos warning").empty());
}

TEST(KokkosWarnings, RecordedInTheRun) {
  const Trigger t = kokkos_warns();
  const std::string json = gpp::test::scratch_dir() + "gpp_startup_" + std::to_string(::getpid()) + ".json";
  const Streams s = gpp_under(t.env, "run " + small_deck() +
                                         " --nbands 12 --ngpown 8 --ncouls 40 --nvband 5 --repeat 1 --warmup 0"
                                         " --no-branch-stats --json " +
                                         json + t.option);
  SCOPED_TRACE("stdout:\n" + s.out + "stderr:\n" + s.err);
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(s.err, "");
  const auto lines = lines_with(s.out, t.word);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("kokkos warning: ", 0), 0u) << lines[0];
  const std::string record = slurp(json);
  const auto key = record.find("\"kokkos_warnings\":[\"");
  ASSERT_NE(key, std::string::npos) << record;
  EXPECT_NE(record.find(t.word, key), std::string::npos);
  std::remove(json.c_str());
}

// The capture itself: std::cerr, C stdio and the descriptor alike; lines without their
// ends and blank lines; stderr is the same file afterwards.
TEST(StderrCapture, ReturnsTheLinesAndRestoresStderr) {
  struct stat before {
  }, after{};
  ASSERT_EQ(fstat(STDERR_FILENO, &before), 0);
  const std::vector<std::string> lines = run_capturing_stderr([] {
    std::cerr << "first warning" << std::endl;
    std::fprintf(stderr, "second\r\n\n   \n");
    ASSERT_EQ(::write(STDERR_FILENO, "third", 5), 5);
  });
  EXPECT_EQ(lines, (std::vector<std::string>{"first warning", "second", "third"}));
  ASSERT_EQ(fstat(STDERR_FILENO, &after), 0);
  EXPECT_EQ(before.st_dev, after.st_dev);
  EXPECT_EQ(before.st_ino, after.st_ino);
}

// If the start throws, what was captured is shown (nothing is lost) and the exception
// passes on.
TEST(StderrCapture, ShowsWhatItHeldWhenTheStartThrows) {
  const std::string path = gpp::test::scratch_dir() + "gpp_capture_" + std::to_string(::getpid());
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(file, 0);
  dup2(file, STDERR_FILENO);
  close(file);
  bool thrown = false;
  try {
    run_capturing_stderr([] {
      std::cerr << "said before throwing" << std::endl;
      throw std::runtime_error("start failed");
    });
  } catch (const std::runtime_error&) {
    thrown = true;
  }
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  EXPECT_TRUE(thrown);
  EXPECT_EQ(slurp(path), "said before throwing\n");
  std::remove(path.c_str());
}

// The capture itself needs neither Kokkos nor a device.
GPP_HOST_ONLY("StderrCapture.*");
GPP_HOST_ONLY("StderrCaptureDeathTest.*");

// Kokkos::abort (std::abort) or std::exit while Kokkos starts: the message reaches stderr.
// The child (threadsafe style: the test binary run again for this test alone) runs
// without Kokkos (GPP_TEST_NO_DEVICE=1: the test main starts no Kokkos and runs the tests
// registered GPP_HOST_ONLY): a process that exits while Kokkos 4.7's Threads backend is
// initialised, as the test main's Kokkos would be, dies of SIGSEGV in Kokkos' own
// teardown after the exit handlers, which would hide the exit code under test.
TEST(StderrCaptureDeathTest, AbortAndExitShowWhatItHeld) {
#ifdef GTEST_FLAG_SET
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#else
  ::testing::GTEST_FLAG(death_test_style) = "threadsafe";
#endif
  const char* was = std::getenv("GPP_TEST_NO_DEVICE");
  const std::string saved = was ? was : "";
  ::setenv("GPP_TEST_NO_DEVICE", "1", 1);
  struct Restore {
    bool had;
    std::string value;
    ~Restore() {
      had ? (void)::setenv("GPP_TEST_NO_DEVICE", value.c_str(), 1) : (void)::unsetenv("GPP_TEST_NO_DEVICE");
    }
  } restore{was != nullptr, saved};
  EXPECT_EXIT(run_capturing_stderr([] {
                std::cerr << "said before abort" << std::endl;
                std::abort();
              }),
              ::testing::KilledBySignal(SIGABRT), "said before abort");
  EXPECT_EXIT(run_capturing_stderr([] {
                std::cerr << "said before exit" << std::endl;
                std::exit(3);
              }),
              ::testing::ExitedWithCode(3), "said before exit");
}

}  // namespace
