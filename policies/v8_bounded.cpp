// Step v8 of the paper: 512 threads per block with at most 128 registers per thread
// (Kokkos::LaunchBounds<512, 1>: 65536 registers / 512 threads); otherwise v7.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v8_bounded(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return kernels::blocked<Kokkos::LaunchBounds<512, 1>>("gpp::v8_bounded", space, d, t, {true, 512}, mode);
}
}  // namespace gpp
