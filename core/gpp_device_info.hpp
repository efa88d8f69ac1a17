#pragma once
// What the program reports about the hardware a space runs on: its name and, on GPUs,
// the device memory in use (sampled, so runs can report their peak).
#include "gpp_spaces.hpp"

#include <fstream>
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

}  // namespace gpp::device_info
