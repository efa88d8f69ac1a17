#include "gpp_runtime.hpp"

#include "gpp_backend.hpp"
#include "gpp_error.hpp"
#include "gpp_stderr.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gpp::runtime {
namespace {

struct State {
  std::vector<std::string> kokkos_args{"gpp"};
  bool started_here = false;
};

State& state() {
  static State s;
  return s;
}

const std::chrono::steady_clock::time_point program_start = std::chrono::steady_clock::now();

// The words Kokkos 3.x reads without the "kokkos-" prefix (and leaves in argv).
constexpr const char* kLegacyOptions[] = {"--threads",   "--numa",     "--device",
                                          "--device-id", "--ndevices", "--num-devices"};

bool test_no_device() {
  const char* v = std::getenv("GPP_TEST_NO_DEVICE");
  return v && *v && std::strcmp(v, "0") != 0;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::vector<std::string> take_kokkos_arguments(const std::vector<std::string>& args) {
  State& s = state();
  s.kokkos_args.assign(1, args.empty() ? std::string("gpp") : args.front());
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i > 0 && a.rfind("--kokkos-", 0) == 0) {
      s.kokkos_args.push_back(a);
      continue;
    }
    if (i > 0 && KOKKOS_VERSION < 40300) {
      const std::string name = a.substr(0, a.find('='));
      for (const char* legacy : kLegacyOptions)
        if (name == legacy) s.kokkos_args.push_back(a);
    }
    rest.push_back(a);
  }
  return rest;
}

namespace {
std::string& thread_note_text() {
  static std::string note;
  return note;
}
}  // namespace

void set_thread_note(std::string note) { thread_note_text() = std::move(note); }
const std::string& thread_note() { return thread_note_text(); }

bool kokkos_help_requested() {
  for (const std::string& a : state().kokkos_args)
    if (a == "--kokkos-help" || a == "--kokkos-tools-help") return true;
  return false;
}

std::string missing_device() {
  if (test_no_device()) {
    const std::string target = backend::device_target();
    return "this gpp was built for " + (target.empty() ? std::string("the host only") : target) +
           " and runs with GPP_TEST_NO_DEVICE set: it behaves as on a machine without its device, Kokkos never starts";
  }
  if (!kHasDeviceSpace) return "";
  const backend::Visible v = backend::visible_devices();
  if (v.count > 0) return "";
  return "this gpp was built for " + backend::device_target() + " and sees no " + backend::Device::kName + " device (" +
         one_line(v.problem) + ")";
}

void start() {
  if (running()) return;
  if (const std::string missing = missing_device(); !missing.empty())
    throw Error(missing +
                (kHostViewsWithoutKokkos
                     ? ": without it only --help, --version, policies, convert and the checks of the input work"
                     : ": without it only --help, --version, policies and the checks of options and decks work "
                       "(with Kokkos " +
                           std::to_string(KOKKOS_VERSION / 10000) +
                           ", reading or converting a deck needs Kokkos too)"));
  State& s = state();
  std::vector<char*> argv;
  for (std::string& a : s.kokkos_args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = int(s.kokkos_args.size());
  // What Kokkos writes on stderr as it starts (warnings) goes into the provenance, not
  // between gpp's lines: a refusal stays one line wherever Kokkos warns (gpp_stderr.hpp).
  std::string error;
  kokkos_warnings() = run_capturing_stderr([&] {
    try {
      Kokkos::initialize(argc, argv.data());
    } catch (const std::exception& e) {
      error = "Kokkos cannot start: " + one_line(e.what());
    }
  });
  if (!error.empty()) {
    for (const std::string& w : kokkos_warnings()) error += " [Kokkos: " + one_line(w) + "]";
    throw Error(error);
  }
  s.started_here = true;
}

bool running() { return Kokkos::is_initialized(); }

double seconds_since_start() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count();
}

void stop() {
  State& s = state();
  if (s.started_here && Kokkos::is_initialized()) Kokkos::finalize();
  s.started_here = false;
}

void need_host_views() {
  if (host_kokkos() || kHostViewsWithoutKokkos) return;
  start();
}

bool host_kokkos() {
  if (running()) return true;
  if (kHasDeviceSpace || test_no_device()) return false;
  start();
  return true;
}

namespace {
enum class HugePages { kAuto, kOff, kOn, kBad };

HugePages huge_pages_setting() {
  const char* v = std::getenv("GPP_HUGE_PAGES");
  if (!v) return HugePages::kAuto;
  const std::string s = v;
  if (s == "auto") return HugePages::kAuto;
  if (s == "0" || s == "off") return HugePages::kOff;
  if (s == "1" || s == "on") return HugePages::kOn;
  return HugePages::kBad;
}

#if defined(__linux__)
// The memory Linux says it can give without swapping (/proc/meminfo MemAvailable), in
// bytes; 0 where it cannot say.
double memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return 0;
}
#endif
}  // namespace

std::string check_huge_pages_setting() {
  if (huge_pages_setting() != HugePages::kBad) return "";
  std::string v = std::getenv("GPP_HUGE_PAGES");
  return "environment variable GPP_HUGE_PAGES=" + one_line(v.substr(0, 64)) + ": expected auto, 0, off, 1 or on";
}

bool advise_huge_pages(const std::vector<std::pair<void*, std::size_t>>& ranges) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const HugePages setting = huge_pages_setting();
  if (setting == HugePages::kOff || setting == HugePages::kBad) return false;
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  std::vector<std::pair<std::uintptr_t, std::size_t>> whole;  // the ranges' whole huge pages
  double bytes = 0;
  for (const auto& [p, n] : ranges) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t lo = (a + kHuge - 1) & ~(kHuge - 1), hi = (a + n) & ~(kHuge - 1);
    if (hi > lo) {
      whole.emplace_back(lo, std::size_t(hi - lo));
      bytes += double(hi - lo);
    }
  }
  if (whole.empty()) return false;
  if (setting == HugePages::kAuto && !(memory_available() > 1.25 * bytes)) return false;
  bool asked = false;
  for (const auto& [lo, n] : whole) asked = madvise(reinterpret_cast<void*>(lo), n, MADV_HUGEPAGE) == 0 || asked;
  return asked;
#else
  (void)ranges;
  return false;
#endif
}

}  // namespace gpp::runtime
