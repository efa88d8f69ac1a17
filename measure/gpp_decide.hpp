#pragma once
// When is one point of a sweep or a tune faster than another? Only when the difference
// is beyond the noise of repeated runs: timings on a shared or loaded machine move by a
// few percent from run to run, and the fastest of many noisy points is fast partly by
// luck. The rule, stated in the docs and in every tuning entry it produces:
//  - the two points are timed again, interleaved (A, B, A, B, ...), so that a machine
//    that speeds up or slows down during the comparison affects both alike;
//  - the candidate wins when a one-sided exact Mann-Whitney U test gives p <= kAlpha
//    (its times are lower than the baseline's beyond what chance ordering of identical
//    distributions gives) AND its median is at least kMinGain lower (a smaller gain is
//    not worth a non-default setting).
// Otherwise the baseline (the policy's defaults) stays.
#include <string>
#include <vector>

namespace gpp::measure {

inline constexpr double kAlpha = 0.01;
inline constexpr double kMinGain = 0.01;
/// Interleaved repeats of each point in a decision (with 8 each the smallest p is 1/12870).
inline constexpr int kDecideRepeats = 8;

/// The exact one-sided Mann-Whitney p-value for "a's values tend to be lower than b's":
/// the probability, when all a.size() + b.size() values come from one distribution, of a
/// U statistic (pairs a_i < b_j, ties counting one half) at least as large as observed.
/// Samples of at most 60 values each.
double mann_whitney_p_lower(const std::vector<double>& a, const std::vector<double>& b);

double median(std::vector<double> v);
/// (max - min) / median: how far the repeats of one point spread.
double relative_spread(const std::vector<double>& v);

/// The rule above in words, as every decision that keeps the defaults states it.
std::string decision_rule();

struct Decision {
  bool candidate_wins = false;
  double p_value = 1;
  double candidate_median = 0, baseline_median = 0;
  double gain = 0;  // 1 - candidate_median / baseline_median
  double candidate_spread = 0, baseline_spread = 0;
  int repeats = 0;                                      // of each
  std::vector<double> candidate_times, baseline_times;  // in the order they were taken
  /// What the rule concluded: "faster", "tie within noise" (a lower median that the noise
  /// does not prove), "faster by less than 1%" (proven, too small to be worth a setting),
  /// or "not faster" (the median was not lower when timed again).
  std::string verdict() const;
  /// "tie within noise: median 0.0473 s vs the defaults' 0.0489 s (-3.3%), Mann-Whitney p =
  /// 0.12 over 8 interleaved repeats each (spread 4.1% and 6.0%); RULE": the verdict and its
  /// evidence, and the rule where the defaults stay.
  std::string summary() const;
  /// "point 0.0471 0.0473 ...; defaults 0.0489 ...": every time, in seconds.
  std::string times_text() const;
};

/// The rule above, on the interleaved times of the candidate and the baseline.
Decision decide(const std::vector<double>& candidate, const std::vector<double>& baseline);

/// "Beyond the spread" for one step of a search, from the repeats already taken: every
/// run of the candidate was faster than every run of the incumbent (the ranges do not
/// overlap) and its median is at least kMinGain lower.
bool clearly_faster(const std::vector<double>& candidate, const std::vector<double>& incumbent);

}  // namespace gpp::measure
