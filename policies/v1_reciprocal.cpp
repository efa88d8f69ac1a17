// Step v1 of the paper: the complex divides replaced by one real reciprocal and
// multiplies (a/b = a*conj(b)*(1/|b|^2)); otherwise v0.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v1_reciprocal(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) {
    return kernels::collapse3<physics::ReciprocalForm, decltype(nw)::value>("gpp::v1_reciprocal", space, d, t, mode);
  });
}
GPP_INSTANTIATE_RUNNER(run_v1_reciprocal)
}  // namespace gpp
