#pragma once
// The backend seam (gpp_backend.hpp) for NVIDIA GPUs: the CUDA runtime's answers, NVTX
// ranges (nvtx3 is header-only and ships with the CUDA toolkit; it loads its injection
// library with dlopen) and the hardware's approximate reciprocal. Included by
// gpp_backend.hpp only, in builds with Kokkos_ENABLE_CUDA.
#include "gpp_backend_types.hpp"
#include "gpp_newton.hpp"

#include <Kokkos_Core.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define GPP_HAVE_NVTX 1
#endif
#endif
#ifndef GPP_HAVE_NVTX
#define GPP_HAVE_NVTX 0
#endif

namespace gpp::backend {

struct Cuda {
  static constexpr const char* kName = "CUDA";
  static constexpr bool kMarkers = GPP_HAVE_NVTX;

  /// Page-locked host memory: the DMA engines read it at the link's speed, and a copy from
  /// it returns at once (pageable memory is staged by the driver, synchronously).
  using PinnedSpace = Kokkos::CudaHostPinnedSpace;

  /// Two events on an instance's stream: the time the GPU spent between them (a copy that
  /// overlaps kernels of another stream), read once the stream was fenced. A failed call
  /// is cleared at once: Kokkos reads cudaGetLastError after its launches.
  class QueueTimer {
   public:
    QueueTimer() {
      ok_ = cudaEventCreate(&start_) == cudaSuccess && cudaEventCreate(&stop_) == cudaSuccess;
      if (!ok_) (void)cudaGetLastError();
    }
    ~QueueTimer() {
      if (start_) (void)cudaEventDestroy(start_);
      if (stop_) (void)cudaEventDestroy(stop_);
    }
    QueueTimer(const QueueTimer&) = delete;
    QueueTimer& operator=(const QueueTimer&) = delete;
    void start(const Kokkos::Cuda& space) { record(start_, space); }
    void stop(const Kokkos::Cuda& space) { record(stop_, space); }
    /// Seconds from start() to stop(); -1 when the runtime could not time them.
    double seconds() {
      float ms = 0;
      if (!ok_ || cudaEventElapsedTime(&ms, start_, stop_) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
      }
      return 1e-3 * double(ms);
    }

   private:
    void record(cudaEvent_t e, const Kokkos::Cuda& space) {
      if (ok_ && cudaEventRecord(e, space.cuda_stream()) != cudaSuccess) {
        (void)cudaGetLastError();
        ok_ = false;
      }
    }
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
    bool ok_ = false;
  };

  /// The compute capability Kokkos compiled for (its architecture option).
  static std::string target() {
#if defined(KOKKOS_ARCH_VOLTA70)
    return "sm_70";
#elif defined(KOKKOS_ARCH_VOLTA72)
    return "sm_72";
#elif defined(KOKKOS_ARCH_TURING75)
    return "sm_75";
#elif defined(KOKKOS_ARCH_AMPERE80)
    return "sm_80";
#elif defined(KOKKOS_ARCH_AMPERE86)
    return "sm_86";
#elif defined(KOKKOS_ARCH_ADA89)
    return "sm_89";
#elif defined(KOKKOS_ARCH_HOPPER90)
    return "sm_90";
#elif defined(KOKKOS_ARCH_BLACKWELL100)
    return "sm_100";
#elif defined(KOKKOS_ARCH_BLACKWELL120)
    return "sm_120";
#else
    return "";
#endif
  }

  static Visible visible() {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // not a sticky error: clear it for Kokkos
      return {0, std::string(cudaGetErrorString(e)) + " (cudaGetDeviceCount)"};
    }
    if (n == 0) return {0, "cudaGetDeviceCount found none (CUDA_VISIBLE_DEVICES?)"};
    return {n, ""};
  }

  /// The SM clock's rate in kHz, 0 where the runtime does not say. cudaDeviceProp::clockRate
  /// is gone in CUDA 13, and the attribute that replaces it is asked of the driver: about
  /// half a millisecond a call (docs/lab/gpu-tuned.md), where properties() is asked once per
  /// kernel call by policies that size their launch from it. Asked once per device.
  static int clock_khz(const int device) {
    static std::mutex guard;
    static std::map<int, int> known;
    const std::lock_guard<std::mutex> lock(guard);
    const auto found = known.find(device);
    if (found != known.end()) return found->second;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess) {
      (void)cudaGetLastError();  // not a sticky error: clear it for Kokkos
      khz = 0;
    }
    known.emplace(device, khz);
    return khz;
  }

  static Properties properties(const Kokkos::Cuda& space) {
    const cudaDeviceProp& d = space.cuda_device_prop();
    Properties p;
    p.name = d.name;
    p.memory_bytes = double(d.totalGlobalMem);
    p.l1_bytes = double(d.sharedMemPerMultiprocessor);  // the shared memory + L1 carve-out maximum
    p.l2_bytes = double(d.l2CacheSize);
    p.units = d.multiProcessorCount;
    p.simd_width = d.warpSize;
    p.max_block_threads = d.maxThreadsPerBlock;
    const int khz = clock_khz(space.cuda_device());
    if (khz > 0) p.clock_mhz = khz / 1000.0;
    p.source = "cudaDeviceProp (sharedMemPerMultiprocessor, l2CacheSize, multiProcessorCount)";
    return p;
  }

  static Placement placement(const Kokkos::Cuda& space) {
    const cudaDeviceProp& d = space.cuda_device_prop();
    char pci[32];
    std::snprintf(pci, sizeof pci, "%04x:%02x:%02x", d.pciDomainID, d.pciBusID, d.pciDeviceID);
    return {pci, "device " + std::to_string(space.cuda_device()) + ": " + d.name + " (PCI " + pci + ")"};
  }

  /// The device Kokkos chose is the runtime's current one once Kokkos started; before,
  /// asking would make a context on device 0.
  static Memory memory() {
    if (!Kokkos::is_initialized()) return {};
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return {};
    return {(long long)free_bytes, (long long)total_bytes};
  }

  static void push_marker(const char* name) {
#if GPP_HAVE_NVTX
    nvtxRangePushA(name);
#else
    (void)name;
#endif
  }
  static void pop_marker() {
#if GPP_HAVE_NVTX
    nvtxRangePop();
#endif
  }
};

#if defined(__CUDA_ARCH__)
/// rcp.approx.ftz.f64 (the upper 20 mantissa bits of x; subnormal results flushed to
/// zero) refined by one cubic Newton step: within one ulp of 1.0/x in three FMAs.
KOKKOS_FORCEINLINE_FUNCTION double cuda_device_reciprocal(const double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return refine_reciprocal_cubic(x, r);
}
#endif

}  // namespace gpp::backend
