// Step v2 of the paper: the 3-way branch reduced to 2 ways (sch and ssx
// zero-initialised, the final else removed); otherwise v1.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v2_branch2(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::collapse3<physics::TwoWayForm, decltype(nw)::value>("gpp::v2_branch2", space, d, t, mode);
  });
}
}  // namespace gpp
