// When a point is faster than the defaults (measure/gpp_decide.hpp): the exact one-sided
// Mann-Whitney p-value against a brute-force count over every split of the pooled values
// (an oracle that shares no code with the recurrence), and the decision rule's three
// outcomes on synthetic samples.
#include "gpp_decide.hpp"
#include "gpp_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

GPP_HOST_ONLY("Decide.*");

using gpp::measure::decide;
using gpp::measure::mann_whitney_p_lower;

// P(U >= observed) by enumerating every way of choosing which m of the m + n pooled
// values are "a" (each equally likely when both samples come from one distribution).
double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pool(a);
  pool.insert(pool.end(), b.begin(), b.end());
  auto u2 = [](const std::vector<double>& x, const std::vector<double>& y) {
    long u = 0;
    for (double p : x)
      for (double q : y) u += p < q ? 2 : p == q ? 1 : 0;
    return u;
  };
  const long observed = u2(a, b);
  const std::size_t n = pool.size(), m = a.size();
  std::vector<bool> pick(n, false);
  std::fill(pick.begin(), pick.begin() + long(m), true);
  long total = 0, tail = 0;
  do {
    std::vector<double> x, y;
    for (std::size_t i = 0; i < n; ++i) (pick[i] ? x : y).push_back(pool[i]);
    ++total;
    tail += u2(x, y) >= observed;
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return double(tail) / double(total);
}

TEST(Decide, MannWhitneyKnownValues) {
  // Every a below every b: one ordering of C(6, 3) = 20.
  EXPECT_NEAR(mann_whitney_p_lower({1, 2, 3}, {4, 5, 6}), 1.0 / 20, 1e-15);
  EXPECT_NEAR(mann_whitney_p_lower({4, 5, 6}, {1, 2, 3}), 1.0, 1e-15);
  // 8 and 8 fully separated: 1 / C(16, 8).
  std::vector<double> lo, hi;
  for (int i = 0; i < 8; ++i) {
    lo.push_back(1.0 + 0.01 * i);
    hi.push_back(2.0 + 0.01 * i);
  }
  EXPECT_NEAR(mann_whitney_p_lower(lo, hi), 1.0 / 12870, 1e-18);
}

TEST(Decide, MannWhitneyAgreesWithEveryOrdering) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.9, 1.1);
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + trial % 6, n = 1 + (trial / 6) % 6;
    std::vector<double> a(m), b(n);
    for (auto& x : a) x = u(rng) - 0.03 * (trial % 3);
    for (auto& x : b) x = u(rng);
    if (trial % 5 == 0) b[0] = a[0];  // a tie
    SCOPED_TRACE(trial);
    EXPECT_NEAR(mann_whitney_p_lower(a, b), brute_force_p(a, b), 1e-12);
  }
}

TEST(Decide, WinsOnlyBeyondTheNoiseAndByEnough) {
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0, 0.002);
  auto sample = [&](double centre) {
    std::vector<double> v(gpp::measure::kDecideRepeats);
    for (auto& x : v) x = centre * (1 + noise(rng));
    return v;
  };
  // 5% faster with 0.2% noise: wins.
  const auto win = decide(sample(0.95), sample(1.0));
  EXPECT_TRUE(win.candidate_wins) << win.summary();
  EXPECT_LT(win.p_value, 1e-3);
  EXPECT_NEAR(win.gain, 0.05, 0.01);
  // The same distribution: no win.
  const auto same = decide(sample(1.0), sample(1.0));
  EXPECT_FALSE(same.candidate_wins) << same.summary();
  // Clearly separated but only 0.3% faster: not worth a non-default setting.
  std::vector<double> a(8), b(8);
  for (int i = 0; i < 8; ++i) {
    a[i] = 0.997 + 1e-6 * i;
    b[i] = 1.0 + 1e-6 * i;
  }
  const auto small = decide(a, b);
  EXPECT_LT(small.p_value, gpp::measure::kAlpha);
  EXPECT_FALSE(small.candidate_wins) << small.summary();
  // Slower: never.
  EXPECT_FALSE(decide(sample(1.1), sample(1.0)).candidate_wins);
}

// Each verdict in its own words, with its evidence: both medians, the spreads, every time
// taken and, when the defaults stay, the rule; a tie is a lower median the test does not
// prove, never a slower one.
TEST(Decide, VerdictsSayWhyWithTheEvidence) {
  // Interleaved samples: the candidate's median 2% lower, but the two overlap (p > 0.01).
  const std::vector<double> a = {0.98, 1.10, 0.97, 1.02, 0.95, 1.08, 0.99, 0.96};
  const std::vector<double> b = {1.00, 0.97, 1.05, 0.99, 1.03, 1.01, 0.98, 1.06};
  const auto tie = decide(a, b);
  ASSERT_FALSE(tie.candidate_wins);
  ASSERT_GT(tie.gain, 0);
  ASSERT_GT(tie.p_value, gpp::measure::kAlpha);
  EXPECT_EQ(tie.verdict(), "tie within noise");
  const std::string s = tie.summary();
  EXPECT_EQ(s.rfind("tie within noise: median 0.985 s vs the defaults' 1.005 s (-2.0%), Mann-Whitney p = ", 0), 0u)
      << s;
  EXPECT_NE(s.find("over 8 interleaved repeats each (spread 15.2% and 9.0%); " + gpp::measure::decision_rule()),
            std::string::npos)
      << s;
  EXPECT_EQ(tie.times_text(),
            "point 0.98 1.1 0.97 1.02 0.95 1.08 0.99 0.96; defaults 1 0.97 1.05 0.99 1.03 1.01 0.98 1.06");
  EXPECT_NE(gpp::measure::decision_rule().find("p <= 0.01 and its median is at least 1% lower"), std::string::npos);
  // The same samples the other way round: slower is "not faster", never a tie.
  const auto slower = decide(b, a);
  EXPECT_EQ(slower.verdict(), "not faster");
  EXPECT_EQ(slower.summary().rfind("not faster: median 1.005 s", 0), 0u) << slower.summary();
  // Proven (every run lower) but by 0.3%: too small to be worth a setting.
  std::vector<double> c(8), d(8);
  for (int i = 0; i < 8; ++i) {
    c[i] = 0.997 + 1e-6 * i;
    d[i] = 1.0 + 1e-6 * i;
  }
  EXPECT_EQ(decide(c, d).verdict(), "faster by less than 1%");
  // A win says so, without the rule.
  for (auto& x : c) x -= 0.1;
  const auto win = decide(c, d);
  EXPECT_EQ(win.verdict(), "faster");
  EXPECT_EQ(win.summary().find(gpp::measure::decision_rule()), std::string::npos) << win.summary();
}

TEST(Decide, ClearlyFasterNeedsRangesApart) {
  EXPECT_TRUE(gpp::measure::clearly_faster({0.90, 0.91, 0.92}, {1.0, 1.01, 1.02}));
  EXPECT_FALSE(gpp::measure::clearly_faster({0.90, 0.91, 1.005}, {1.0, 1.01, 1.02}));  // overlap
  EXPECT_FALSE(gpp::measure::clearly_faster({0.995, 0.996}, {0.9999, 1.0}));           // apart, gain < 1%
  EXPECT_FALSE(gpp::measure::clearly_faster({}, {1.0}));
}

}  // namespace
