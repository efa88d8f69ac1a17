#pragma once
// A named range around work a profiler should find: a Kokkos profiling region (seen by
// Kokkos tools) and, in CUDA builds, an NVTX push/pop range (seen by Nsight Compute's
// --nvtx --nvtx-include "NAME/" without any Kokkos tool loaded). nvtx3 is header-only
// and ships with the CUDA toolkit.
#include <Kokkos_Core.hpp>

#include <string>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define GPP_HAVE_NVTX 1
#endif
#endif
#ifndef GPP_HAVE_NVTX
#define GPP_HAVE_NVTX 0
#endif

namespace gpp::profiling {

/// Whether ranges reach NVTX (a CUDA build with the nvtx3 headers).
inline constexpr bool kNvtx = GPP_HAVE_NVTX;

class Range {
 public:
  explicit Range(const std::string& name) {
    Kokkos::Profiling::pushRegion(name);
#if GPP_HAVE_NVTX
    nvtxRangePushA(name.c_str());
#endif
  }
  ~Range() {
#if GPP_HAVE_NVTX
    nvtxRangePop();
#endif
    Kokkos::Profiling::popRegion();
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

}  // namespace gpp::profiling
