// Step v3 of the paper: abs() replaced by squared magnitudes in the sexcut comparison
// (|x| > c <=> |x|^2 > c^2 for c >= 0); otherwise v2.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v3_noabs(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::collapse3<physics::OptimisedForm, decltype(nw)::value>("gpp::v3_noabs", space, d, t, mode);
  });
}
GPP_INSTANTIATE_RUNNER(run_v3_noabs)
}  // namespace gpp
