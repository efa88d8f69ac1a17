// Step v6 of the paper: cache blocking of band and G (TeamPolicy: one team per G' and
// band block, threads over G); frequencies outside as in v5.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v6_blocked(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  // 128 threads: OpenACC's default vector length, which the paper's v6 ran with.
  return kernels::blocked<Kokkos::LaunchBounds<>>("gpp::v6_blocked", space, d, t, {false, 128}, mode);
}
}  // namespace gpp
