// Step v5 of the paper: the frequency loop moved outside the kernel, one reduction of
// two complex sums per frequency (fewer registers, more occupancy, some recomputation);
// otherwise v4. Works for any number of frequencies.
#include "gpp_kernels.hpp"

namespace gpp {
SigmaSums run_v5_iw_outside(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  const kernels::Inputs in(d);
  SigmaSums s{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  if (mode == RunMode::Check) {
    make_mdrange<2>(space, {d.ncouls, d.ngpown}, t.tile);
    return s;
  }
  for (int w = 0; w < d.nw; ++w) store(kernels::collapse2_one_frequency("gpp::v5_iw_outside", space, in, w, t), s, w);
  return s;
}
}  // namespace gpp
