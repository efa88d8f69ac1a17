#pragma once
// What the program reports about the hardware a space runs on: its name and, on GPUs,
// the device memory in use (sampled, so runs can report their peak).
#include "gpp_spaces.hpp"

#include <fstream>
#include <unistd.h>
#include <string>
#include <type_traits>

namespace gpp::device_info {

/// The host CPU's model name (/proc/cpuinfo), or "unknown host CPU".
inline std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && line.find_first_not_of(' ', colon + 1) != std::string::npos)
        return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown host CPU";
}

/// Name of the hardware `ExecSpace` runs on: the GPU's name, or the host CPU.
template <class ExecSpace>
std::string name(const ExecSpace& space = ExecSpace()) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return space.cuda_device_prop().name;
#endif
  (void)space;
  return host_cpu_name();
}

/// Bytes in use on the device (all processes and the context included), or -1 in a
/// build without a device space.
inline long long memory_in_use() {
#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return (long long)(total_bytes - free_bytes);
#endif
  return -1;
}

/// Bytes free on the device, or -1 in a build without a device space.
inline long long memory_free() {
#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return (long long)free_bytes;
#endif
  return -1;
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

/// What the ceilings' level rule needs to know about a space's caches (0: unknown).
struct Caches {
  double l1_bytes = 0;       // per multiprocessor (GPU: shared memory + L1 carve-out max) or per core
  double l2_bytes = 0;       // GPU: whole chip; host: per core
  double l3_bytes = 0;       // host: as sysconf reports it
  int units = 0;             // multiprocessors or host threads
  double clock_mhz = 0;      // GPU SM clock (max), 0 when unknown
  std::string source;        // where the sizes come from
};

template <class ExecSpace>
Caches caches(const ExecSpace& space = ExecSpace()) {
  Caches c;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    const cudaDeviceProp& p = space.cuda_device_prop();
    c.l1_bytes = double(p.sharedMemPerMultiprocessor);
    c.l2_bytes = double(p.l2CacheSize);
    c.units = p.multiProcessorCount;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, space.cuda_device()) == cudaSuccess) c.clock_mhz = khz / 1000.0;
    c.source = "cudaDeviceProp (sharedMemPerMultiprocessor, l2CacheSize, multiProcessorCount)";
    return c;
  }
#endif
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Host) {
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
               l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    c.l1_bytes = l1 > 0 ? double(l1) : 32768.0;
    c.l2_bytes = l2 > 0 ? double(l2) : 1048576.0;
    c.l3_bytes = l3 > 0 ? double(l3) : 0.0;
    c.units = space.concurrency();
    c.source = l1 > 0 && l2 > 0 ? "sysconf (_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE)"
                                : "fallback sizes (sysconf gave none): L1 32 KiB, L2 1 MiB per core";
    return c;
  }
  (void)space;
  c.source = "unknown for this backend";
  return c;
}

}  // namespace gpp::device_info
