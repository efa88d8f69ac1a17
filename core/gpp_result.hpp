#pragma once
// Final results (start values applied) and their verification.
#include "gpp_input.hpp"

#include <complex>
#include <string>
#include <vector>

namespace gpp {

struct SigmaResult {
  std::vector<std::complex<double>> achtemp;  // (nw) achtemp0 + sch_sum
  std::vector<std::complex<double>> asxtemp;  // (nw) asxtemp0 - ssx_sum
};

/// asxtemp = asxtemp0 - ssx_sum, achtemp = achtemp0 + sch_sum, as the benchmark does.
SigmaResult apply_start_values(const SigmaSums& sums, const std::vector<std::complex<double>>& asxtemp0,
                               const std::vector<std::complex<double>>& achtemp0);

/// Normwise relative error, the larger of ||a-r||inf/||r||inf over achtemp and asxtemp
/// (absolute where the reference vector is zero).
double relative_error(const SigmaResult& x, const SigmaResult& ref);

/// Relative error of one complex number (absolute where ref is 0).
double relative_error(std::complex<double> x, std::complex<double> ref);

struct Verification {
  std::string against;   // "closed form", "stored reference", "host reference" or "none"
  double rel_error = 0;  // see relative_error
  double tolerance = 0;
  bool passed = false;
  bool performed() const { return against != "none"; }
};

/// Default verification tolerance: order-of-summation differences are ~1e-12 relative
/// on 3e8-term decks (docs/guide/running.md, Verification); real bugs move results by far more than 1e-10.
inline constexpr double kDefaultRtol = 1e-10;

/// Tolerance for a closed-form (uniform) deck of `terms` equal terms: recursive
/// summation of n same-sign terms has a rigorous relative error bound of about n*u
/// (u = 2^-53), which exceeds 1e-10 beyond ~1e6 terms per accumulator.
double closed_form_tolerance(double terms);

}  // namespace gpp
