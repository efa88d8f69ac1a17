// Step v8 of the paper: 512 threads per block with at most 128 registers per thread
// (Kokkos::LaunchBounds<512, 1>: 65536 registers / 512 threads); otherwise v7.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v8_bounded(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return kernels::blocked<kernels::BandContiguous, Kokkos::LaunchBounds<512, 1>, 512>("gpp::v8_bounded", space, d, t,
                                                                                      mode);
}
GPP_INSTANTIATE_RUNNER(run_v8_bounded)
}  // namespace gpp
