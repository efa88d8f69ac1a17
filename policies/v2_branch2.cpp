// Step v2 of the paper: the 3-way branch reduced to 2-way (sch and ssx zero-initialised,
// the final else removed); otherwise v1.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v2_branch2(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::collapse3<physics::TwoWayForm, decltype(nw)::value>("gpp::v2_branch2", space, d, t, mode);
  });
}
GPP_INSTANTIATE_RUNNER(run_v2_branch2)
}  // namespace gpp
