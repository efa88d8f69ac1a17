// Step v7 of the paper: wx and the gathered G' matrix elements read from copies that
// are contiguous in band (wx(band, iw), aqsmtemp_local(band, igp)); otherwise v6.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v7_swapped(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return kernels::blocked<Kokkos::LaunchBounds<>>("gpp::v7_swapped", space, d, t, {true, 128}, mode);
}
}  // namespace gpp
