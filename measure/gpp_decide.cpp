#include "gpp_decide.hpp"

#include "gpp_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpp::measure {

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double relative_spread(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / median(v);
}

double mann_whitney_p_lower(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return 1;
  if (m > 60 || n > 60) throw Error("mann_whitney_p_lower: at most 60 values per sample");
  // U in half units: 2 per pair a_i < b_j, 1 per tie.
  long u2 = 0;
  for (double x : a)
    for (double y : b) u2 += x < y ? 2 : x == y ? 1 : 0;
  // The number of orderings of m a's among m + n places with each U (no ties): c[k][u] for
  // k a's so far, by the recurrence on where the last value came from. Doubles hold the
  // counts (at most C(120, 60) ~ 1e35) with ample relative precision.
  const std::size_t umax = m * n;
  // f[i][j][u]: sequences of i a's and j b's with U = u (pairs with the a before the b).
  // Rolling over j: g_j[i][u].
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(umax + 1, 0.0)), cur = prev;
  for (std::size_t i = 0; i <= m; ++i) prev[i][0] = 1;  // j = 0: only a's, U = 0
  for (std::size_t j = 1; j <= n; ++j) {
    for (std::size_t i = 0; i <= m; ++i) {
      for (std::size_t u = 0; u <= umax; ++u) {
        // The largest value is a b (then every a is before it: U gains i) or an a (no gain).
        double c = u >= i ? prev[i][u - i] : 0.0;
        if (i > 0) c += cur[i - 1][u];
        cur[i][u] = c;
      }
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& dist = prev[m];
  double total = 0, tail = 0;
  for (std::size_t u = 0; u <= umax; ++u) {
    total += dist[u];
    // Ties (half units) count toward the observed value's side conservatively.
    if (2 * long(u) >= u2) tail += dist[u];
  }
  return tail / total;
}

Decision decide(const std::vector<double>& candidate, const std::vector<double>& baseline) {
  Decision d;
  d.repeats = int(std::min(candidate.size(), baseline.size()));
  d.candidate_median = median(candidate);
  d.baseline_median = median(baseline);
  d.candidate_spread = relative_spread(candidate);
  d.baseline_spread = relative_spread(baseline);
  d.gain = 1 - d.candidate_median / d.baseline_median;
  d.p_value = mann_whitney_p_lower(candidate, baseline);
  d.candidate_wins = d.p_value <= kAlpha && d.gain >= kMinGain;
  return d;
}

std::string Decision::summary() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "median %.4g s vs the defaults' %.4g s (%+.1f%%), Mann-Whitney p = %.2g over %d interleaved repeats "
                "each (spread %.1f%% and %.1f%%)",
                candidate_median, baseline_median, -100 * gain, p_value, repeats, 100 * candidate_spread,
                100 * baseline_spread);
  std::string s = candidate_wins ? "faster than the defaults: " : "not faster than the defaults beyond the noise: ";
  s += buf;
  if (!candidate_wins) {
    char why[128];
    if (p_value > kAlpha)
      std::snprintf(why, sizeof why, "; p > %.2g", kAlpha);
    else
      std::snprintf(why, sizeof why, "; gain below %.0f%%", 100 * kMinGain);
    s += why;
  }
  return s;
}

bool clearly_faster(const std::vector<double>& candidate, const std::vector<double>& incumbent) {
  if (candidate.empty() || incumbent.empty()) return false;
  const double cmax = *std::max_element(candidate.begin(), candidate.end());
  const double imin = *std::min_element(incumbent.begin(), incumbent.end());
  return cmax < imin && median(candidate) <= (1 - kMinGain) * median(incumbent);
}

}  // namespace gpp::measure
