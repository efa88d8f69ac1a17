// Step v4 of the paper: collapse(2) over G' and G, the band loop sequential in each
// thread; every frequency in one reduction; otherwise v3.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v4_collapse2(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::to_sums(kernels::collapse2<decltype(nw)::value>("gpp::v4_collapse2", space, d, 0, t, mode));
  });
}
GPP_INSTANTIATE_RUNNER(run_v4_collapse2)
}  // namespace gpp
