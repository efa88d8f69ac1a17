#pragma once
// Helpers shared by the tests: numpy-style two-sided comparisons and small decks.
#include "gpp_input.hpp"
#include "gpp_result.hpp"
#include "gpp_spaces.hpp"

#include <gtest/gtest.h>
#include <sys/types.h>
#include <unistd.h>

#include <complex>
#include <iterator>
#include <fstream>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <string>
#include <vector>

namespace gpp::test {

/// A directory of one test process's own, made under `base` and removed with everything in
/// it when the object ends, by the process that made it only: a child it forks (a death
/// test, a writer of the shared-file tests) that exits leaves it to its parent.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& base) : owner_(::getpid()) {
    std::string t = base + (base.empty() || base.back() != '/' ? "/" : "") + "gpp_tests.XXXXXX";
    if (::mkdtemp(t.data()) == nullptr) throw std::runtime_error("cannot make a scratch directory in " + base);
    path_ = t + "/";
  }
  ~ScratchDir() {
    std::error_code ec;
    if (::getpid() == owner_) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// The directory, with a trailing '/'.
  const std::string& path() const { return path_; }

 private:
  pid_t owner_;
  std::string path_;
};

/// This test process's scratch directory under TMPDIR (else /tmp), with a trailing '/':
/// every file a test writes goes there, so that the suite leaves nothing behind. Made
/// before the tests run (the test main) and removed when the process ends.
inline const std::string& scratch_dir() {
  static const ScratchDir dir([] {
    const char* t = std::getenv("TMPDIR");
    return std::string(t && *t ? t : "/tmp");
  }());
  return dir.path();
}

/// A scratch directory in memory (/dev/shm where it is writable, else scratch_dir()): the
/// damage loops rewrite small files thousands of times, and truncating a file on a disk
/// mounted with `discard` costs milliseconds each time.
inline const std::string& memory_scratch_dir() {
  static const std::string dir = [] {
    if (::access("/dev/shm", W_OK) != 0) return scratch_dir();
    static const ScratchDir shm("/dev/shm");
    return shm.path();
  }();
  return dir;
}

/// A file's whole content ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

/// A test's time limit in seconds, times GPP_TEST_TIME_SCALE where set (a number >= 1): an
/// emulator (scripts/arm-build.sh runs the suite under qemu) is slower by a factor, and a
/// limit that tells n log n from n^2 must allow it.
inline double time_limit(const double seconds) {
  const char* s = std::getenv("GPP_TEST_TIME_SCALE");
  const double scale = s ? std::atof(s) : 1.0;
  return seconds * (scale >= 1.0 ? scale : 1.0);
}

/// Callbacks run by the test main before Kokkos::finalize (to free cached Views).
inline std::vector<std::function<void()>>& before_finalize() {
  static std::vector<std::function<void()>> hooks;
  return hooks;
}

/// The tests that run where the build's device is missing (a GPU build on a machine
/// without its GPU, or GPP_TEST_NO_DEVICE=1): there the test main does not start Kokkos,
/// runs only these and reports every other test as skipped (docs/install.md). Patterns
/// ("Suite.*", "Suite.Name"; gtest's * and ?), registered next to the tests they name:
///   GPP_HOST_ONLY("Suite.*");        needs neither Kokkos nor the device (no View at all;
///                                    gpp runs whose refusals need neither)
///   GPP_HOST_VIEWS_ONLY("Suite.*");  host Views and host loops, no kernel, no device: runs
///                                    without Kokkos where Kokkos allows (Kokkos 4;
///                                    runtime::kHostViewsWithoutKokkos), else skipped
enum class NoDevice { HostOnly, HostViews };
inline std::vector<std::pair<std::string, NoDevice>>& no_device_patterns() {
  static std::vector<std::pair<std::string, NoDevice>> patterns;
  return patterns;
}
inline bool register_no_device(const char* pattern, NoDevice kind) {
  no_device_patterns().emplace_back(pattern, kind);
  return true;
}
#define GPP_TEST_CONCAT2(a, b) a##b
#define GPP_TEST_CONCAT(a, b) GPP_TEST_CONCAT2(a, b)
#define GPP_HOST_ONLY(pattern)                                                   \
  [[maybe_unused]] static const bool GPP_TEST_CONCAT(gpp_no_device_, __LINE__) = \
      ::gpp::test::register_no_device(pattern, ::gpp::test::NoDevice::HostOnly)
#define GPP_HOST_VIEWS_ONLY(pattern)                                             \
  [[maybe_unused]] static const bool GPP_TEST_CONCAT(gpp_no_device_, __LINE__) = \
      ::gpp::test::register_no_device(pattern, ::gpp::test::NoDevice::HostViews)

/// |a - b| <= atol + rtol*|b| (numpy's isclose), for complex numbers.
inline ::testing::AssertionResult close(std::complex<double> a, std::complex<double> b, double rtol, double atol = 0) {
  const double diff = std::abs(a - b);
  if (diff <= atol + rtol * std::abs(b)) return ::testing::AssertionSuccess();
  std::ostringstream o;
  o.precision(17);
  o << a << " vs " << b << ": |diff| = " << diff << " > " << atol << " + " << rtol << " * " << std::abs(b);
  return ::testing::AssertionFailure() << o.str();
}

/// Normwise relative error of two results below tol.
inline ::testing::AssertionResult results_close(const SigmaResult& a, const SigmaResult& ref, double tol) {
  const double e = relative_error(a, ref);
  if (e <= tol) return ::testing::AssertionSuccess();
  std::ostringstream o;
  o.precision(3);
  o << "relative error " << e << " > " << tol;
  for (std::size_t w = 0; w < ref.achtemp.size(); ++w)
    o << "\n  w=" << w << " achtemp " << a.achtemp[w] << " ref " << ref.achtemp[w] << " asxtemp " << a.asxtemp[w]
      << " ref " << ref.asxtemp[w];
  return ::testing::AssertionFailure() << o.str();
}

/// Every execution space of the build, host first: the suite runs on each.
inline std::vector<SpaceKind> build_spaces() {
  if (kHasDeviceSpace) return {SpaceKind::Host, SpaceKind::Device};
  return {SpaceKind::Host};
}

/// Host data and, in a build with a device, its device copy, so that a test can run
/// the same problem on every space.
struct SpaceData {
  GppData<Kokkos::HostSpace> host;
  GppData<DeviceExec::memory_space> device;
  explicit SpaceData(GppData<Kokkos::HostSpace> h)
      : host(std::move(h)), device(to_memory_space<DeviceExec::memory_space>(host)) {}
  template <class ExecSpace>
  const GppData<typename ExecSpace::memory_space>& on(const ExecSpace&) const {
    if constexpr (std::is_same_v<ExecSpace, HostExec>)
      return host;
    else
      return device;
  }
};

/// A small non-uniform deck: permuted band and G' maps, one skipped G'.
inline DeckParams small_deck(int nbands = 24, int ngpown = 20, int ncouls = 150, int nvband = 10) {
  DeckParams p;
  p.name = "test";
  p.generator = "random";
  p.seed = 7;
  p.nbands = nbands;
  p.ngpown = ngpown;
  p.ncouls = ncouls;
  p.nvband = nvband;
  p.nstart = 2;
  p.nend = 3;
  return p;
}

}  // namespace gpp::test
