#pragma once
// The backend seam: everything that differs per Kokkos backend, behind one interface.
// One file per backend answers it, as Kokkos keeps Cuda/, HIP/ and OpenMP/ apart:
//   gpp_backend_cuda.hpp  NVIDIA GPUs (CUDA runtime, NVTX, rcp.approx.ftz.f64)
//   gpp_backend_hip.hpp   AMD GPUs (HIP runtime, roctx where present, v_rcp_f64)
//   gpp_backend_host.hpp  the CPU (sysconf, /proc/cpuinfo), and what a build without a
//                         device answers
// A new backend (SYCL) is one more file with the same members and one line in the
// selection of `Device` below; nothing else in the project names a backend (no
// KOKKOS_ENABLE_CUDA, __CUDA_ARCH__, cuda*/hip* call or marker API outside these files).
//
// What every backend file provides (struct with these static members; each backend file
// includes the types it answers with, gpp_backend_types.hpp, and the Newton steps of the
// GPUs' fast 1/x, gpp_newton.hpp, and only this seam includes the backend files):
//   kName                              "CUDA", "HIP" ("" for no device)
//   target()                           the architecture compiled for ("sm_90", "gfx90a", "")
//   visible()                          how many devices this process sees, without Kokkos
//                                      (and why none, when none)
//   properties(space)                  name, memory, caches, clock, units, SIMD width,
//                                      most threads per block
//   placement(space)                   the device's place on the node (PCI address) and a
//                                      line naming it, for MPI placement
//   memory()                           free and total bytes of the device Kokkos drives
//   push_marker(name), pop_marker()    profiler ranges (NVTX, roctx), kMarkers says
//                                      whether they reach a profiler
//   PinnedSpace                        page-locked host memory the device copies from
//                                      at the link's speed (HostSpace without a device)
//   QueueTimer                         start(space), stop(space), seconds(): the device
//                                      time between two marks in an instance's queue
// and, for device code, `reciprocal(x)` below picks each backend's fast 1/x, `mul_add`
// makes a*b + c one fma in GPU code, and the warp functions (warp_all, warp_together,
// warp_exclusive_sum, warp_sync, prefetch_l1) say what a warp does together on each;
// GPP_CUDA_UNROLL(n) asks nvcc to unroll the next loop n times in device code.
#include "gpp_backend_types.hpp"
#include "gpp_spaces.hpp"

#include <string>
#include <type_traits>

#include "gpp_backend_host.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "gpp_backend_cuda.hpp"
#elif defined(KOKKOS_ENABLE_HIP)
#include "gpp_backend_hip.hpp"
#endif

namespace gpp::backend {

// The device backend of this build (NoDevice in a CPU build).
#if defined(KOKKOS_ENABLE_CUDA)
using Device = Cuda;
#elif defined(KOKKOS_ENABLE_HIP)
using Device = Hip;
#else
using Device = NoDevice;
#endif

/// "CUDA (sm_90)", "HIP (gfx90a)": what this build's device code is compiled for; "" in a
/// build without a device space.
inline std::string device_target() {
  if (!kHasDeviceSpace) return "";
  const std::string t = Device::target();
  return std::string(Device::kName) + (t.empty() ? "" : " (" + t + ")");
}

/// Devices of this build's backend this process sees, asked of the runtime without Kokkos
/// (the device count of a CPU build is 0, with no problem).
inline Visible visible_devices() { return Device::visible(); }

/// The hardware `space` runs on (Kokkos must have started for a device space).
template <class ExecSpace>
Properties properties(const ExecSpace& space = ExecSpace()) {
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Device)
    return Device::properties(space);
  else
    return Host::properties(space);
}

/// Name of the hardware `space` runs on: the GPU's, or the host CPU's.
template <class ExecSpace>
std::string name(const ExecSpace& space = ExecSpace()) {
  return properties(space).name;
}

/// Where the device of this process sits (empty key in a build without a device space).
inline Placement placement() {
  if constexpr (kHasDeviceSpace)
    return Device::placement(DeviceExec());
  else
    return Host::placement(HostExec());
}

/// Free and total bytes of the device Kokkos drives (after Kokkos started); -1 in a build
/// without a device space.
inline Memory device_memory() { return Device::memory(); }

/// Largest product of MDRangePolicy tile sizes `space` launches: one block's threads on a
/// GPU (Kokkos reports the threads per multiprocessor there), unlimited on the host.
template <class ExecSpace>
int max_tile_threads(const ExecSpace& space) {
  const int kokkos_max = Kokkos::Impl::get_tile_size_properties(space).max_threads;
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Device) {
    const int per_block = properties(space).max_block_threads;
    if (per_block > 0 && per_block < kokkos_max) return per_block;
  }
  return kokkos_max;
}

/// Bytes in use on the device (all processes and the context), or -1 without a device.
inline long long memory_in_use() {
  const Memory m = device_memory();
  return m.free >= 0 && m.total >= 0 ? m.total - m.free : -1;
}

/// Highest memory_in_use() seen by sample_memory().
inline long long& memory_peak() {
  static long long peak = -1;
  return peak;
}
inline void sample_memory() {
  const long long now = memory_in_use();
  if (now > memory_peak()) memory_peak() = now;
}

/// Page-locked host memory (HostSpace in a build without a device): the staging buffers
/// of the G' chunks' copies (session/gpp_chunks.hpp).
using PinnedSpace = Device::PinnedSpace;

/// Times asynchronous work of one execution space instance (a copy that overlaps kernels
/// of another): the device's own marks on a device space, the clock on the host (where
/// that work is synchronous). seconds() once the instance was fenced after stop().
template <class ExecSpace>
using QueueTimer = std::conditional_t<kind_of<ExecSpace>() == SpaceKind::Device, Device::QueueTimer, HostQueueTimer>;

/// Whether Range reaches a profiler of its own beyond Kokkos's tools (NVTX, roctx).
inline constexpr bool kMarkers = Device::kMarkers;

/// A named range around work a profiler should find: a Kokkos profiling region (seen by
/// Kokkos tools) and the backend's own marker (NVTX: Nsight Compute's --nvtx
/// --nvtx-include "NAME/"; roctx: rocprof --roctx-trace), without any Kokkos tool loaded.
class Range {
 public:
  explicit Range(const std::string& name) {
    Kokkos::Profiling::pushRegion(name);
    Device::push_marker(name.c_str());
  }
  ~Range() {
    Device::pop_marker();
    Kokkos::Profiling::popRegion();
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

/// 1/x for the fused physics form, within one ulp of 1.0/x: on a GPU the hardware's
/// approximate reciprocal refined by Newton steps (no slow-path branch of the IEEE
/// division, a branch in every term); elsewhere the division itself (the portable
/// fallback every CPU build and every host space runs). For x whose reciprocal is
/// subnormal a GPU may flush to zero; x = 0 or inf gives NaN where the division gives inf
/// or 0 (the physics has no such terms). Test: FusedReciprocal.* on every space.
KOKKOS_FORCEINLINE_FUNCTION double reciprocal(const double x) {
#if defined(__CUDA_ARCH__)
  return cuda_device_reciprocal(x);
#elif defined(__HIP_DEVICE_COMPILE__)
  return hip_device_reciprocal(x);
#else
  return 1.0 / x;
#endif
}

/// `#pragma unroll (n)` for the loop that follows, in CUDA device code only (n an integral
/// constant expression, which may depend on template parameters; 1: not unrolled); nothing
/// for a host compiler or HIP, where the loop is left to the compiler.
#if defined(__CUDA_ARCH__)
#define GPP_CUDA_UNROLL_STR(x) #x
#define GPP_CUDA_UNROLL(n) _Pragma(GPP_CUDA_UNROLL_STR(unroll(n)))
#else
#define GPP_CUDA_UNROLL(n)
#endif

/// a*b + c as one fused multiply-add on a GPU (fma: where c is itself a product, the
/// compiler may otherwise fuse c's product and leave a*b a multiplication of its own,
/// which it did in tuned's empty kernel: a DMUL a term more); elsewhere as written, which
/// the host compiler contracts where the target has FMA (a call to fma() would be a
/// library call on a target without it).
KOKKOS_FORCEINLINE_FUNCTION double mul_add(const double a, const double b, const double c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return fma(a, b, c);
#else
  return a * b + c;
#endif
}

/// Whether p holds for every thread of the calling thread's warp (wavefront) that runs
/// this call: a branch taken on it is never divergent. The thread's own p on a host
/// space (a thread is its own warp there). Test: WarpAll.* on every space.
KOKKOS_FORCEINLINE_FUNCTION bool warp_all(const bool p) {
#if defined(__CUDA_ARCH__)
  return __all_sync(__activemask(), p) != 0;
#elif defined(__HIP_DEVICE_COMPILE__)
  return __all(p) != 0;
#else
  return p;
#endif
}

/// A hint that the bytes at p will be read soon: CUDA prefetches their line into L1 (no
/// register waits on it); nothing elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void prefetch_l1(const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L1 [%0];" : : "l"(p));
#else
  (void)p;
#endif
}

/// Threads of a warp that may share work through the warp functions below: 32 in CUDA
/// device code; 1 elsewhere (a host thread is its own warp; HIP device code shares
/// nothing across a wavefront here: the cross-lane form has not run on an AMD GPU).
#if defined(__CUDA_ARCH__)
inline constexpr int kWarpLanes = 32;
#else
inline constexpr int kWarpLanes = 1;
#endif

/// Whether the kWarpLanes threads of team ranks first .. first + kWarpLanes - 1 (first =
/// rank rounded down to a multiple of kWarpLanes) are one warp, all running this call,
/// in lane order, where `all_here` (the same for all of them) says the caller's loop
/// runs them all: warp_exclusive_sum and warp_sync may then be called by all of them.
/// True on the host (kWarpLanes = 1).
KOKKOS_FORCEINLINE_FUNCTION bool warp_together(const int rank, const bool all_here) {
#if defined(__CUDA_ARCH__)
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return __all_sync(__activemask(), all_here && unsigned(rank % 32) == lane) != 0;
#else
  (void)rank;
  (void)all_here;
  return true;
#endif
}

/// Over the threads of a warp that warp_together found together: the sum of x over the
/// lanes below the calling one; `total` receives the sum over the warp. On the host x's
/// own warp: 0 and x.
KOKKOS_FORCEINLINE_FUNCTION int warp_exclusive_sum(const int x, int& total) {
#if defined(__CUDA_ARCH__)
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  int v = x;
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, v, d);
    if (int(lane) >= d) v += y;
  }
  total = __shfl_sync(0xffffffffu, v, 31);
  return v - x;
#else
  total = x;
  return 0;
#endif
}

/// Orders the shared-memory writes and reads of a warp that warp_together found together
/// (CUDA: __syncwarp); nothing on the host.
KOKKOS_FORCEINLINE_FUNCTION void warp_sync() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}

}  // namespace gpp::backend
