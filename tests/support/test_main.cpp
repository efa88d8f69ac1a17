// The project's own test main: Kokkos around GoogleTest. Where the build's device is
// missing (a GPU build on a machine without its GPU, or GPP_TEST_NO_DEVICE=1), Kokkos is
// not started: only the tests marked GPP_HOST_ONLY run, and every other test the filter
// selects is reported as skipped, one "[  SKIPPED ]" line each (ctest counts a discovered
// test with that line as skipped, not passed). The gpp runs of the tests keep their
// reference cache in a folder of the process's own (XDG_CACHE_HOME), never in the user's
// ~/.cache, removed at the end.
#include "gpp_runtime.hpp"
#include "gpp_test_util.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

// gtest's wildcard match: * any run of characters, ? one character.
bool glob(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return glob(p + 1, s) || (*s != '\0' && glob(p, s + 1));
  return *s != '\0' && (*p == '?' || *p == *s) && glob(p + 1, s + 1);
}

bool any_matches(const std::string& patterns, const std::string& name) {
  std::size_t start = 0;
  while (start <= patterns.size()) {
    const std::size_t end = std::min(patterns.find(':', start), patterns.size());
    if (glob(patterns.substr(start, end - start).c_str(), name.c_str())) return true;
    start = end + 1;
  }
  return false;
}

// Whether gtest's --gtest_filter (POSITIVE[-NEGATIVE]) selects `name`.
bool filter_selects(const std::string& filter, const std::string& name) {
  const std::size_t dash = filter.find('-');
  const std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? std::string() : filter.substr(dash + 1);
  return any_matches(positive.empty() ? std::string("*") : positive, name) &&
         (negative.empty() || !any_matches(negative, name));
}

// "" when the test runs without the device, else why it is skipped.
std::string skip_reason(const std::string& name, const std::string& missing) {
  for (const auto& [pattern, kind] : gpp::test::no_device_patterns()) {
    if (!glob(pattern.c_str(), name.c_str())) continue;
    if (kind == gpp::test::NoDevice::HostOnly || gpp::runtime::kHostViewsWithoutKokkos) return "";
    return "needs host arrays, which Kokkos " + std::to_string(KOKKOS_VERSION / 10000) +
           " cannot hold before it starts, and Kokkos needs the device: " + missing;
  }
  return "needs Kokkos and the device: " + missing;
}

// Narrows the filter to the tests it selects that run without the device; prints a skip
// line for the others and returns their number.
int run_host_only(const std::string& why) {
  std::string& filter = ::testing::GTEST_FLAG(filter);
  std::string kept;
  int skipped = 0;
  const ::testing::UnitTest& all = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < all.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *all.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const std::string name = std::string(suite.name()) + "." + suite.GetTestInfo(j)->name();
      if (!filter_selects(filter, name)) continue;
      const std::string reason = skip_reason(name, why);
      if (reason.empty()) {
        kept += (kept.empty() ? "" : ":") + name;
      } else {
        std::printf("[  SKIPPED ] %s (%s)\n", name.c_str(), reason.c_str());
        ++skipped;
      }
    }
  }
  if (skipped > 0)
    std::printf("[  SKIPPED ] %d test%s without the device: %s\n", skipped, skipped == 1 ? "" : "s", why.c_str());
  filter = kept.empty() ? std::string("-*") : kept;
  std::fflush(stdout);
  return skipped;
}

}  // namespace

// XDG_CACHE_HOME: a folder in this process's scratch directory, for this process and the
// gpp runs it starts, removed with that directory. A death test's child (gtest runs the
// binary again, and the child ends by the death it tests) keeps its parent's.
void use_test_cache() {
  const std::string path = gpp::test::scratch_dir() + "xdg_cache";
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    std::perror("gpp_tests: cannot make a folder for XDG_CACHE_HOME");
    std::exit(1);
  }
  ::setenv("XDG_CACHE_HOME", path.c_str(), 1);
}

int main(int argc, char* argv[]) {
  std::vector<std::string> args = gpp::runtime::take_kokkos_arguments(std::vector<std::string>(argv, argv + argc));
  std::vector<char*> pointers;
  for (std::string& a : args) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  argc = int(args.size());
  argv = pointers.data();
  const std::string missing = gpp::runtime::missing_device();
  if (missing.empty()) {
    try {
      gpp::runtime::start();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpp_tests: %s\n", e.what());
      return 1;
    }
  }
  // A death test's child of the "threadsafe" style is this program run again for one
  // statement, which may end in abort(): it makes no directories of its own.
  bool death_test_child = false;
  for (int i = 1; i < argc; ++i)
    death_test_child = death_test_child || std::string(argv[i]).rfind("--gtest_internal_run_death_test", 0) == 0;
  ::testing::InitGoogleTest(&argc, argv);
  // Made now, before any test forks: a child then writes into its parent's directories.
  if (!::testing::GTEST_FLAG(list_tests) && !death_test_child) {
    try {
      (void)gpp::test::scratch_dir();
      (void)gpp::test::memory_scratch_dir();
      use_test_cache();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpp_tests: %s\n", e.what());
      return 1;
    }
  }
  const int skipped = !missing.empty() && !::testing::GTEST_FLAG(list_tests) ? run_host_only(missing) : 0;
  const int rc = RUN_ALL_TESTS();
  if (skipped > 0)
    std::printf("[  SKIPPED ] %d test%s without the device (listed first)\n", skipped, skipped == 1 ? "" : "s");
  for (auto& hook : gpp::test::before_finalize()) hook();
  gpp::runtime::stop();
  return rc;
}
