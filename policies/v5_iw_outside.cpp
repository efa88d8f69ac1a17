// Step v5 of the paper: the frequency loop moved outside the kernel, one reduction of
// two complex sums per frequency (fewer registers, more occupancy, some recomputation);
// otherwise v4. Works for any number of frequencies.
#include "gpp_kernels.hpp"

namespace gpp {
template <class ExecSpace>
SigmaSums run_v5_iw_outside(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  SigmaSums s{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  for (int w = 0; w < d.nw; ++w) {
    store(kernels::collapse2<1>("gpp::v5_iw_outside", space, d, w, t, mode), s, w);
    if (mode == RunMode::Check) break;
  }
  return s;
}
GPP_INSTANTIATE_RUNNER(run_v5_iw_outside)
}  // namespace gpp
