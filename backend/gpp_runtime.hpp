#pragma once
// When Kokkos starts. A command first checks everything it can check (options, the deck,
// input files, outputs) and starts Kokkos only when it needs it: Kokkos with a device
// backend starts that device too, and fails where there is none (a login node, a build
// host, CI), where gpp --help, --version, policies, convert and every refusal of bad
// input still work (docs/install.md, "Without a GPU").
//
// Host loops that do not need a device (generating and checking decks, host references)
// go through host_parallel_for: Kokkos's host space when Kokkos runs, or when it can start
// without a device (a CPU build: it is started then); a plain loop in a GPU build before
// its device is started, so reading a deck never touches the GPU.
#include <Kokkos_Core.hpp>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace gpp::runtime {

/// Splits a command line into gpp's arguments (returned) and Kokkos's (kept for start()):
/// every --kokkos-* word goes to Kokkos only; with Kokkos before 4.3 the unprefixed
/// spellings it also reads (--threads=N, --numa=N, --device-id=N, ...) go to both, as
/// Kokkos 3.4 left them in argv. args[0] is the program.
std::vector<std::string> take_kokkos_arguments(const std::vector<std::string>& args);

/// A note on thread settings this build's host backend does not read ("" for none; set
/// by main from its checks): the provenance of the commands that run work prints it, after
/// every check, so that a refusal stays one line.
void set_thread_note(std::string note);
const std::string& thread_note();

/// Whether the Kokkos arguments ask Kokkos to print its help (--kokkos-help,
/// --kokkos-tools-help): main then starts Kokkos at once, which prints it.
bool kokkos_help_requested();

/// Why this process cannot start Kokkos for lack of a device, one line: "" in a CPU build
/// or when the build's device is visible. Asks the device runtime, not Kokkos. With
/// GPP_TEST_NO_DEVICE=1 in the environment every build answers as a GPU build on a
/// machine without its GPU (the tests of that path, in every build).
std::string missing_device();

/// Starts Kokkos (every backend it was built with) with the arguments kept by
/// take_kokkos_arguments, unless it runs. Throws gpp::Error, one line, when the device
/// is missing (missing_device()) or Kokkos::initialize throws.
void start();

/// Whether Kokkos runs (started here or by a test main).
bool running();

/// Seconds since the program started (its static initialisation, before MPI and
/// Kokkos): the wall time a command's time to solution adds up to.
double seconds_since_start();

/// Finalises Kokkos if start() started it (the end of main, before MPI ends).
void stop();

/// Whether host loops may use Kokkos: it runs, or it was started now because starting
/// it needs no device (a CPU build; not under GPP_TEST_NO_DEVICE).
bool host_kokkos();

/// Whether host Views (allocated WithoutInitializing) may live and die while Kokkos has
/// not started: Kokkos 4 (to 4.7) refuses only to free them after Kokkos::finalize;
/// Kokkos 3.4 aborts when one is freed before Kokkos::initialize, and Kokkos 5 (from the
/// 4.7.99 development that became it: kokkos/kokkos#8567) when one is made before it
/// (Debian unstable's Kokkos 5.2.2: "View is being constructed before initialize()").
inline constexpr bool kHostViewsWithoutKokkos = KOKKOS_VERSION >= 40000 && KOKKOS_VERSION < 40799;

/// Called before the first host View of work that needs no device (reading or making a
/// deck): host_kokkos(), or nothing where kHostViewsWithoutKokkos; else (Kokkos 3 in a
/// GPU build) start(), which refuses in one line without the device.
void need_host_views();

/// A host View of `dims`, allocated without initialisation (every element is written by
/// the caller), that may be made before Kokkos starts (decks read, generated or derived).
/// Each such allocation makes an instance of the default host execution space, and Kokkos
/// 4's OpenMP backend says on stderr, for every one, that it has not started: harmless
/// (the memory is plain host memory), so it is not shown.
template <class View, class... Dims>
View host_view(const std::string& label, const Dims... dims) {
  if (Kokkos::is_initialized()) return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), dims...);
  struct Quiet {
    std::streambuf* saved = std::cerr.rdbuf(nullptr);
    ~Quiet() { std::cerr.rdbuf(saved); }  // also clears the failure of a write without a buffer
  } quiet;
  return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), dims...);
}

/// Where a deck's large host arrays may live in 2 MiB pages (GPP_HUGE_PAGES): "" when the
/// environment's value is one gpp reads (unset, auto, 0, off, 1, on), else why not, one line.
std::string check_huge_pages_setting();

/// Asks Linux for huge pages (madvise MADV_HUGEPAGE) under the whole 2 MiB pages of the
/// host ranges given, before their first touch: a deck of tens of GiB is then faulted in
/// 512 times fewer faults, which are most of its setup. By default (GPP_HUGE_PAGES unset or
/// auto) only where the memory Linux has available exceeds the ranges by a quarter, so that
/// finding the pages does not push a nearly full machine into reclaim. GPP_HUGE_PAGES=0
/// (off) asks for none: on a virtual machine whose host takes back the guest's free memory,
/// faulting huge pages in can cost more than the small pages it saves (docs/wall-time.md).
/// =1 (on) always asks. Returns whether it asked.
bool advise_huge_pages(const std::vector<std::pair<void*, std::size_t>>& ranges);

/// f(i) for i in [0, n) on the host: Kokkos's default host execution space (fenced) when
/// host_kokkos(), else a plain loop on this thread. f must not depend on the order.
template <class F>
void host_parallel_for(const char* label, long long n, const F& f) {
  if (host_kokkos()) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), f);
    Kokkos::DefaultHostExecutionSpace().fence();
  } else {
    for (long long i = 0; i < n; ++i) f(i);
  }
}

}  // namespace gpp::runtime
