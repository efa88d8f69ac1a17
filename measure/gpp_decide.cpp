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
  // The rank-sum form: with mid-ranks for ties (doubled, so they are integers), a's rank
  // sum R is small exactly when a's values are low, and U = m n + m (m + 1) / 2 - R. Its
  // exact distribution under the null (every choice of which m pooled values are a's
  // equally likely, ties kept as they are) comes from the groups of equal values one after
  // the other: k of a group of t go to a in C(t, k) ways and add k times its mid-rank.
  std::vector<std::pair<double, bool>> pool;  // value, from a
  for (double x : a) pool.push_back({x, true});
  for (double y : b) pool.push_back({y, false});
  std::sort(pool.begin(), pool.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
  const std::size_t total = m + n;
  const std::size_t rmax = total * (total + 1);  // doubled rank sum of everything
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(rmax + 1, 0.0)), next = ways;
  ways[0][0] = 1;
  long observed = 0;
  for (std::size_t s = 0; s < total;) {
    std::size_t e = s;
    std::size_t in_a = 0;
    while (e < total && pool[e].first == pool[s].first) in_a += pool[e++].second;
    const std::size_t t = e - s;
    const long mid2 = long(2 * s + t + 1);  // doubled mid-rank of ranks s+1 .. s+t
    observed += long(in_a) * mid2;
    for (auto& row : next) std::fill(row.begin(), row.end(), 0.0);
    double choose = 1;  // C(t, k)
    for (std::size_t k = 0; k <= t && k <= m; ++k) {
      for (std::size_t i = 0; i + k <= m; ++i)
        for (std::size_t r = 0; r + k * mid2 <= rmax; ++r)
          if (ways[i][r] != 0) next[i + k][r + k * mid2] += choose * ways[i][r];
      choose = choose * double(t - k) / double(k + 1);
    }
    std::swap(ways, next);
    s = e;
  }
  double all = 0, tail = 0;
  for (std::size_t r = 0; r <= rmax; ++r) {
    all += ways[m][r];
    if (long(r) <= observed) tail += ways[m][r];
  }
  return tail / all;
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
  d.candidate_times = candidate;
  d.baseline_times = baseline;
  return d;
}

std::string decision_rule() {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "a point replaces the defaults only when a one-sided Mann-Whitney test gives p <= %.2g and its "
                "median is at least %.0f%% lower",
                kAlpha, 100 * kMinGain);
  return buf;
}

std::string Decision::verdict() const {
  if (candidate_wins) return "faster";
  if (!(gain > 0)) return "not faster";
  return p_value <= kAlpha ? "faster by less than " + std::to_string(int(100 * kMinGain)) + "%" : "tie within noise";
}

std::string Decision::summary() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "median %.4g s vs the defaults' %.4g s (%+.1f%%), Mann-Whitney p = %.2g over %d interleaved repeats "
                "each (spread %.1f%% and %.1f%%)",
                candidate_median, baseline_median, -100 * gain, p_value, repeats, 100 * candidate_spread,
                100 * baseline_spread);
  return verdict() + ": " + buf + (candidate_wins ? "" : "; " + decision_rule());
}

std::string Decision::times_text() const {
  std::string s = "point";
  char buf[32];
  for (const double t : candidate_times) {
    std::snprintf(buf, sizeof buf, " %.4g", t);
    s += buf;
  }
  s += "; defaults";
  for (const double t : baseline_times) {
    std::snprintf(buf, sizeof buf, " %.4g", t);
    s += buf;
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
