// Step v6 of the paper: cache blocking of band and G (TeamPolicy: one team per G' and
// band block, threads over G); frequencies outside as in v5. 128 threads: OpenACC's
// default vector length, which the paper's v6 ran with.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v6_blocked(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return kernels::blocked<kernels::FortranOrder, Kokkos::LaunchBounds<>, 128>("gpp::v6_blocked", space, d, t, mode);
}
GPP_INSTANTIATE_RUNNER(run_v6_blocked)
}  // namespace gpp
