#pragma once
// The execution spaces one build offers. A CPU build (Serial or OpenMP) has one: the
// host. A GPU build (CUDA, HIP, SYCL) has two: the device, and the host backend Kokkos
// was built with beside it (OpenMP or Serial). Policies are templates on the execution
// space and are instantiated for each; `--space` picks one at run time.
#include "gpp_error.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL) || \
    defined(KOKKOS_ENABLE_OPENMPTARGET)
#define GPP_HAS_DEVICE_SPACE 1
#else
#define GPP_HAS_DEVICE_SPACE 0
#endif

namespace gpp {

using DeviceExec = Kokkos::DefaultExecutionSpace;    // the GPU in a GPU build, else the host
using HostExec = Kokkos::DefaultHostExecutionSpace;  // always the host

inline constexpr bool kHasDeviceSpace = GPP_HAS_DEVICE_SPACE;
static_assert(kHasDeviceSpace == !std::is_same_v<DeviceExec, HostExec>,
              "GPP_HAS_DEVICE_SPACE must say whether Kokkos' default space is a device");

/// Which space a run uses (`gpp run --space device|host`).
enum class SpaceKind { Device, Host };

/// "device" or "host".
inline const char* to_string(SpaceKind k) { return k == SpaceKind::Device ? "device" : "host"; }

/// The space a plain run uses: the device where there is one.
inline SpaceKind default_space() { return kHasDeviceSpace ? SpaceKind::Device : SpaceKind::Host; }

/// "device" or "host" (gpp::Error otherwise, or for "device" in a build without one).
inline SpaceKind parse_space(const std::string& s) {
  if (s == "host") return SpaceKind::Host;
  if (s == "device") {
    if (!kHasDeviceSpace)
      throw Error(std::string("--space device: this build has no device space (its only space is ") + HostExec::name() +
                  "); use --space host");
    return SpaceKind::Device;
  }
  throw Error("--space must be device or host (got '" + s + "')");
}

/// The space kind of an execution space type: Host for HostExec (in a CPU build, where
/// the two are one, that is every space).
template <class ExecSpace>
constexpr SpaceKind kind_of() {
  return std::is_same_v<ExecSpace, HostExec> ? SpaceKind::Host : SpaceKind::Device;
}

/// Calls f(space) with an instance of the execution space `k` names.
template <class F>
decltype(auto) with_space(SpaceKind k, F&& f) {
  if constexpr (kHasDeviceSpace) {
    if (k == SpaceKind::Device) return f(DeviceExec());
  } else {
    if (k == SpaceKind::Device) parse_space("device");  // throws: no device space
  }
  return f(HostExec());
}

/// Calls f(space) for every execution space of the build (host first).
template <class F>
void for_each_space(F&& f) {
  f(HostExec());
  if constexpr (kHasDeviceSpace) f(DeviceExec());
}

}  // namespace gpp
