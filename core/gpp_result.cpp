#include "gpp_result.hpp"

#include <algorithm>
#include <cmath>

namespace gpp {

SigmaResult apply_start_values(const SigmaSums& sums, const std::vector<std::complex<double>>& asxtemp0,
                               const std::vector<std::complex<double>>& achtemp0) {
  SigmaResult r;
  const std::size_t nw = sums.sch_sum.size();
  r.achtemp.resize(nw);
  r.asxtemp.resize(nw);
  for (std::size_t w = 0; w < nw; ++w) {
    r.achtemp[w] = achtemp0.at(w) + sums.sch_sum[w];
    r.asxtemp[w] = asxtemp0.at(w) - sums.ssx_sum[w];
  }
  return r;
}

namespace {
double normwise(const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& r) {
  if (x.size() != r.size()) return INFINITY;
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = std::abs(x[i] - r[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    ref = std::max(ref, std::abs(r[i]));
  }
  return ref > 0 ? diff / ref : diff;
}
}  // namespace

double relative_error(const SigmaResult& x, const SigmaResult& ref) {
  return std::max(normwise(x.achtemp, ref.achtemp), normwise(x.asxtemp, ref.asxtemp));
}

double relative_error(std::complex<double> x, std::complex<double> ref) { return normwise({x}, {ref}); }

double closed_form_tolerance(double terms) { return std::max(kDefaultRtol, terms * 0x1.0p-53); }

}  // namespace gpp
