// A Kokkos tools library for the tests: the smallest one Kokkos accepts. It says on stderr
// that Kokkos loaded and initialised it, so a test can tell a run with the tool from a run
// where Kokkos dropped it.
#include <cstdint>
#include <cstdio>

extern "C" {
void kokkosp_init_library(int /*load_sequence*/, std::uint64_t /*interface_version*/, std::uint32_t /*devices*/,
                          void* /*device_info*/) {
  std::fputs("gpp test tool: initialised\n", stderr);
}
void kokkosp_finalize_library() {}
}
