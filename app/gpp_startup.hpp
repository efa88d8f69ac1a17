#pragma once
// What gpp checks before Kokkos starts: Kokkos reads its environment variables and
// --kokkos-* options in Kokkos::initialize, where a bad value throws or aborts outside
// any error handling. They are checked here first, so that a bad value ends
// in one line and exit 1 like any other bad input.
#include <string>

namespace gpp::app {

/// "" when the environment and the Kokkos options in argv look usable, else one line
/// naming the variable or option and what is wrong. Also makes writing past a file-size
/// limit an I/O error (SIGXFSZ ignored) instead of killing the process.
std::string check_startup(int argc, char* argv[]);

/// "" or a note for the provenance: a thread setting that does nothing with this build's host
/// backend (`host`, Kokkos's name of it: "Serial", "Threads", "OpenMP"). Serial runs one
/// thread whatever OMP_NUM_THREADS, KOKKOS_NUM_THREADS or --kokkos-num-threads say;
/// Threads reads KOKKOS_NUM_THREADS, not OMP_NUM_THREADS.
std::string thread_settings_note(int argc, char* argv[], const std::string& host);

/// body(argc, argv), on a thread with an 8 MiB stack where the stack limit (ulimit -s)
/// is smaller; threads started later (the OpenMP pool, the CUDA driver's) get that size
/// by default too. A small limit applies to the main thread and, through glibc's
/// default, to every thread: the CUDA runtime and driver need more than 32 KiB
/// (docs/reliability.md). Where the limit is 8 MiB or more, or unlimited, body runs here.
int run_with_stack(int (*body)(int, char**), int argc, char** argv);

}  // namespace gpp::app
