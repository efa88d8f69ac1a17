#pragma once
// The few API differences between Kokkos 3.4 (Debian 12, CI) and Kokkos 4.x (GPU
// builds, spack). Nothing else in the project may test KOKKOS_VERSION.
#include <Kokkos_Core.hpp>

#include <fstream>
#include <string>
#include <type_traits>

namespace gpp::compat {

#if KOKKOS_VERSION >= 40000
KOKKOS_FORCEINLINE_FUNCTION double sqrt(double x) { return Kokkos::sqrt(x); }
KOKKOS_FORCEINLINE_FUNCTION double fabs(double x) { return Kokkos::fabs(x); }
#else
// Kokkos 3.4 keeps the real math functions in Kokkos::Experimental and has no
// Kokkos::abs(double).
KOKKOS_FORCEINLINE_FUNCTION double sqrt(double x) { return Kokkos::Experimental::sqrt(x); }
KOKKOS_FORCEINLINE_FUNCTION double fabs(double x) { return Kokkos::Experimental::fabs(x); }
#endif

/// |z| of a Kokkos complex, as the paper's literal abs() (a square root per call).
KOKKOS_FORCEINLINE_FUNCTION double abs(const Kokkos::complex<double>& z) {
  return sqrt(z.real() * z.real() + z.imag() * z.imag());
}

/// Largest product of MDRangePolicy tile sizes the backend launches (threads per block
/// on GPUs; unlimited on host backends).
template <class ExecutionSpace>
int max_tile_threads(const ExecutionSpace& space) {
  int max_threads = Kokkos::Impl::get_tile_size_properties(space).max_threads;
#if defined(KOKKOS_ENABLE_CUDA)
  // Kokkos reports threads per multiprocessor; a tile is one block.
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    const int per_block = space.cuda_device_prop().maxThreadsPerBlock;
    if (per_block < max_threads) max_threads = per_block;
  }
#endif
  return max_threads;
}

/// Name of the device the default execution space runs on (GPU name, or the host CPU).
inline std::string device_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>) {
    return Kokkos::Cuda().cuda_device_prop().name;
  }
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown host CPU";
}

/// Kokkos::Profiling::ScopedRegion (Kokkos 4.x) for Kokkos 3.4 as well.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

/// Bytes in use on the default execution space's device (all processes and the
/// context included), or -1 on host backends.
inline long long device_memory_in_use() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return (long long)(total_bytes - free_bytes);
  }
#endif
  return -1;
}

/// Highest device_memory_in_use() seen by sample_device_memory().
inline long long& device_memory_peak() {
  static long long peak = -1;
  return peak;
}
inline void sample_device_memory() {
  const long long now = device_memory_in_use();
  if (now > device_memory_peak()) device_memory_peak() = now;
}

/// "major.minor.patch" of the Kokkos the program was compiled against.
inline std::string kokkos_version_string() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace gpp::compat

namespace gpp {
/// Kokkos 3.4's OpenMP backend joins reduction values through volatile references
/// (FunctorValueJoin's `*(volatile T*)lhs += *(const volatile T*)rhs`) when a reducer's
/// join is not the volatile one it looks for; Kokkos 4 dropped volatile joins and never
/// calls this. It forwards a volatile += to the value type's own operator+= (SigmaAccum,
/// BranchCounts): the values are not volatile objects, only reached through volatile
/// pointers. Argument-dependent lookup finds it for gpp's types (a type in an unnamed
/// namespace needs `using gpp::operator+=;` there); a non-volatile += still calls the
/// member, the better match.
template <class T, class = std::enable_if_t<std::is_class_v<T>>>
KOKKOS_INLINE_FUNCTION volatile T& operator+=(volatile T& lhs, const volatile T& rhs) {
  const_cast<T&>(lhs) += const_cast<const T&>(rhs);
  return lhs;
}
}  // namespace gpp
