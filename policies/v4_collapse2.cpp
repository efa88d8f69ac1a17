// Step v4 of the paper: collapse(2) over G' and G, the band loop sequential in each
// thread; otherwise v3.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v4_collapse2(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return kernels::collapse2<decltype(nw)::value>("gpp::v4_collapse2", space, d, t, mode); });
}
}  // namespace gpp
