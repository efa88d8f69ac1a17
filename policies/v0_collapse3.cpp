// Step v0 of the paper: collapse(3) over band, G', G (G innermost: MDRange<3> with G as
// dimension 0, see gpp_mdrange.hpp); the frequency loop unrolled inside; the literal
// physics (complex divide, abs, 3-way branch); every sum in one reduction.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v0_collapse3(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::collapse3<physics::LiteralForm, decltype(nw)::value>("gpp::v0_collapse3", space, d, t, mode);
  });
}
GPP_INSTANTIATE_RUNNER(run_v0_collapse3)
}  // namespace gpp
