// Step v7 of the paper: wx and the gathered G' matrix elements read from copies that
// are contiguous in band (wx(band, iw), aqsmtemp_local(band, igp)); otherwise v6.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v7_swapped(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return kernels::blocked<kernels::BandContiguous, Kokkos::LaunchBounds<>, 128>("gpp::v7_swapped", space, d, t, mode);
}
GPP_INSTANTIATE_RUNNER(run_v7_swapped)
}  // namespace gpp
