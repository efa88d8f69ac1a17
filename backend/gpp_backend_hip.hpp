#pragma once
// The backend seam (gpp_backend.hpp) for AMD GPUs: the HIP runtime's answers, roctx ranges
// where ROCm's roctracer is installed (GPP_HAVE_ROCTX, set by backend/CMakeLists.txt when
// it finds <roctracer/roctx.h> and libroctx64) and the hardware's approximate reciprocal.
// Included by gpp_backend.hpp only, in builds with Kokkos_ENABLE_HIP.
//
// Compiled (hipcc 5.2.3 / clang 15 for gfx90a, ROCm 5.7.1 for gfx942), never run: no AMD
// GPU was available (docs/install.md).
#include "gpp_backend_types.hpp"
#include "gpp_newton.hpp"

#include <Kokkos_Core.hpp>

#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

#if defined(GPP_HAVE_ROCTX)
#include <roctracer/roctx.h>
#endif

namespace gpp::backend {

struct Hip {
  static constexpr const char* kName = "HIP";
#if defined(GPP_HAVE_ROCTX)
  static constexpr bool kMarkers = true;
#else
  static constexpr bool kMarkers = false;
#endif

  /// Page-locked host memory: the DMA engines read it at the link's speed.
  using PinnedSpace = Kokkos::HIPHostPinnedSpace;

  /// Two events on an instance's stream (Cuda::QueueTimer's counterpart).
  class QueueTimer {
   public:
    QueueTimer() {
      ok_ = hipEventCreate(&start_) == hipSuccess && hipEventCreate(&stop_) == hipSuccess;
      if (!ok_) (void)hipGetLastError();
    }
    ~QueueTimer() {
      if (start_) (void)hipEventDestroy(start_);
      if (stop_) (void)hipEventDestroy(stop_);
    }
    QueueTimer(const QueueTimer&) = delete;
    QueueTimer& operator=(const QueueTimer&) = delete;
    void start(const Kokkos::HIP& space) { record(start_, space); }
    void stop(const Kokkos::HIP& space) { record(stop_, space); }
    /// Seconds from start() to stop(); -1 when the runtime could not time them.
    double seconds() {
      float ms = 0;
      if (!ok_ || hipEventElapsedTime(&ms, start_, stop_) != hipSuccess) {
        (void)hipGetLastError();
        return -1;
      }
      return 1e-3 * double(ms);
    }

   private:
    void record(hipEvent_t e, const Kokkos::HIP& space) {
      if (ok_ && hipEventRecord(e, space.hip_stream()) != hipSuccess) {
        (void)hipGetLastError();
        ok_ = false;
      }
    }
    hipEvent_t start_ = nullptr, stop_ = nullptr;
    bool ok_ = false;
  };

  /// The GPU architecture Kokkos compiled for (its architecture option).
  static std::string target() {
#if defined(KOKKOS_ARCH_AMD_GFX906)
    return "gfx906";
#elif defined(KOKKOS_ARCH_AMD_GFX908)
    return "gfx908";
#elif defined(KOKKOS_ARCH_AMD_GFX90A)
    return "gfx90a";
#elif defined(KOKKOS_ARCH_AMD_GFX940)
    return "gfx940";
#elif defined(KOKKOS_ARCH_AMD_GFX942_APU)
    return "gfx942 APU";
#elif defined(KOKKOS_ARCH_AMD_GFX942)
    return "gfx942";
#elif defined(KOKKOS_ARCH_AMD_GFX1030)
    return "gfx1030";
#elif defined(KOKKOS_ARCH_AMD_GFX1100)
    return "gfx1100";
#elif defined(KOKKOS_ARCH_AMD_GFX1103)
    return "gfx1103";
#else
    return "";
#endif
  }

  static Visible visible() {
    int n = 0;
    const hipError_t e = hipGetDeviceCount(&n);
    if (e != hipSuccess) {
      (void)hipGetLastError();
      return {0, std::string(hipGetErrorString(e)) + " (hipGetDeviceCount)"};
    }
    if (n == 0) return {0, "hipGetDeviceCount found none (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES?)"};
    return {n, ""};
  }

  /// The device's properties, asked once per device of this process.
  static const hipDeviceProp_t& device_prop(int device) {
    static int cached = -1;
    static hipDeviceProp_t prop{};
    if (cached != device && hipGetDeviceProperties(&prop, device) == hipSuccess) cached = device;
    return prop;
  }

  static Properties properties(const Kokkos::HIP& space) {
    const hipDeviceProp_t& d = device_prop(space.hip_device());
    Properties p;
    p.name = d.name;
    p.memory_bytes = double(d.totalGlobalMem);
    // hipDeviceProp_t has no L1 size; the vector L1 of a compute unit, from AMD's CDNA
    // white papers: 16 KiB (CDNA 1 and 2: gfx908, gfx90a), 32 KiB (CDNA 3: gfx94x).
    const std::string arch = d.gcnArchName;
    if (arch.rfind("gfx94", 0) == 0) {
      p.l1_bytes = 32768;
    } else if (arch.rfind("gfx90", 0) == 0) {
      p.l1_bytes = 16384;
    }
    p.l2_bytes = double(d.l2CacheSize);
    p.units = d.multiProcessorCount;
    p.simd_width = d.warpSize;  // the wavefront: 64 on CDNA
    p.max_block_threads = d.maxThreadsPerBlock;
    p.clock_mhz = d.clockRate / 1000.0;
    p.source =
        std::string("hipDeviceProp_t (l2CacheSize, multiProcessorCount, clockRate); L1 ") +
        (p.l1_bytes > 0 ? "per compute unit of " + arch + " from AMD's CDNA white papers" : "unknown for " + arch);
    return p;
  }

  static Placement placement(const Kokkos::HIP& space) {
    const hipDeviceProp_t& d = device_prop(space.hip_device());
    char pci[32];
    std::snprintf(pci, sizeof pci, "%04x:%02x:%02x", d.pciDomainID, d.pciBusID, d.pciDeviceID);
    return {pci, "device " + std::to_string(space.hip_device()) + ": " + d.name + " (PCI " + pci + ")"};
  }

  /// Asked only once Kokkos started (it has made its device the current one).
  static Memory memory() {
    if (!Kokkos::is_initialized()) return {};
    std::size_t free_bytes = 0, total_bytes = 0;
    if (hipMemGetInfo(&free_bytes, &total_bytes) != hipSuccess) return {};
    return {(long long)free_bytes, (long long)total_bytes};
  }

  static void push_marker(const char* name) {
#if defined(GPP_HAVE_ROCTX)
    roctxRangePushA(name);
#else
    (void)name;
#endif
  }
  static void pop_marker() {
#if defined(GPP_HAVE_ROCTX)
    roctxRangePop();
#endif
  }
};

#if defined(__HIP_DEVICE_COMPILE__)
/// v_rcp_f64 (__builtin_amdgcn_rcp on a double: the f64 builtin; the float one is
/// __builtin_amdgcn_rcpf) refined by two Newton steps, as LLVM's fast f64 reciprocal on
/// AMD GPUs: within one ulp of 1.0/x in four FMAs from a seed of 14 or more correct bits.
/// Checked in the assembly (v_rcp_f64 and four FMAs, hipcc 5.2.3 for gfx90a); never run.
KOKKOS_FORCEINLINE_FUNCTION double hip_device_reciprocal(const double x) {
  return refine_reciprocal_quadratic2(x, __builtin_amdgcn_rcp(x));
}
#endif

}  // namespace gpp::backend
