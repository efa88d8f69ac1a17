// Each arm of the per-term physics, the cutoff and the clamp against values computed
// by hand (straight from spec section 1 in Python's complex arithmetic), and every
// optimised form against the literal one.
#include "gpp_physics.hpp"
#include "gpp_test_util.hpp"

#include <random>

namespace gpp::test {
namespace {

struct Expected {
  const char* name;
  complex_t wtilde, I_eps;
  double wxt;
  int branch;
  bool cut;
  std::complex<double> sch, ssx;
};

// limittwo = 0.25 (gamma 0.5), sexcut = 4.
const Expected kCases[] = {
    {"regular", {2.0, -0.1}, {0.3, -0.2}, 5.5, physics::kRegular, false,
     {0.16207177814029364, -0.1274877650897227}, {0.041993940972030935, -0.03559777518616956}},
    {"near_pole", {1.2, -0.05}, {-0.4, 0.25}, 1.0, physics::kNearPole, false, {0.0, 0.0},
     {0.1078471863706763, -0.07027620030975734}},
    {"zero", {1e-9, 0.0}, {0.7, 0.1}, 0.1, physics::kZero, false, {0.0, 0.0}, {0.0, 0.0}},
    {"cutoff_negative_wx", {1.05, 0.01}, {0.3, 0.1}, -1.0, physics::kRegular, true,
     {-0.15342407081330606, -0.051934516727739986}, {0.0, 0.0}},
    {"no_cutoff_positive_wx", {-1.05, 0.01}, {0.3, 0.1}, 1.0, physics::kRegular, false,
     {-0.15389996668728884, -0.05050682910579166}, {-2.9192576756513353, -1.6137149530144335}},
};

template <class F>
void check_case(const Expected& c) {
  complex_t sch(-99, -99), ssx(-99, -99);  // poisoned
  int branch = -1;
  bool cut = false;
  physics::sigma_term<F>(c.wtilde, c.I_eps, c.wxt, 0.25, 4.0, sch, ssx, branch, cut);
  SCOPED_TRACE(c.name);
  EXPECT_EQ(branch, c.branch);
  EXPECT_EQ(cut, c.cut);
  // About 20 rounded operations per value, each within half an ulp: 1e-14 relative
  // bounds the difference between evaluation orders; atol covers exact zeros.
  EXPECT_TRUE(close({sch.real(), sch.imag()}, c.sch, 1e-14, 1e-300));
  EXPECT_TRUE(close({ssx.real(), ssx.imag()}, c.ssx, 1e-14, 1e-300));
}

TEST(Physics, LiteralFormMatchesHandComputedValues) {
  for (const auto& c : kCases) check_case<physics::LiteralForm>(c);
}
TEST(Physics, ReciprocalFormMatchesHandComputedValues) {
  for (const auto& c : kCases) check_case<physics::ReciprocalForm>(c);
}
TEST(Physics, TwoWayFormMatchesHandComputedValues) {
  for (const auto& c : kCases) check_case<physics::TwoWayForm>(c);
}
TEST(Physics, OptimisedFormMatchesHandComputedValues) {
  for (const auto& c : kCases) check_case<physics::OptimisedForm>(c);
}

TEST(Physics, FormsAgreeOnRandomTerms) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> u(-3, 3);
  int taken[3] = {0, 0, 0};
  for (int i = 0; i < 20000; ++i) {
    const complex_t wtilde(u(gen), 0.2 * u(gen)), I_eps(u(gen), u(gen));
    const double wxt = u(gen);
    complex_t sch0, ssx0, sch3, ssx3;
    int b0, b3;
    bool c0, c3;
    physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wxt, 0.25, 4.0, sch0, ssx0, b0, c0);
    physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, wxt, 0.25, 4.0, sch3, ssx3, b3, c3);
    ASSERT_EQ(b0, b3);
    ++taken[b0];
    // A term within rounding of the cutoff may legitimately go either way.
    if (c0 != c3) continue;
    ASSERT_TRUE(close({sch3.real(), sch3.imag()}, {sch0.real(), sch0.imag()}, 1e-13, 1e-300));
    ASSERT_TRUE(close({ssx3.real(), ssx3.imag()}, {ssx0.real(), ssx0.imag()}, 1e-13, 1e-300));
  }
  EXPECT_GT(taken[physics::kRegular], 0);
  EXPECT_GT(taken[physics::kNearPole], 0);
}

TEST(Physics, Matngmatmgp) {
  const auto m = physics::matngmatmgp({1.0, 2.0}, {3.0, -1.0});
  // conj(1+2i)*(3-i) = (1-2i)(3-i) = 3 - i - 6i + 2i^2 = 1 - 7i
  EXPECT_EQ(m.real(), 1.0);
  EXPECT_EQ(m.imag(), -7.0);
}

// Derived arrays: the TOL_Zero clamp, the three occupations, the G' gather.
TEST(Derive, ClampOccupationsAndGather) {
  DeckParams p = small_deck(6, 4, 8, 3);
  p.skipped_gp = 1;
  InputDeck in = generate_random(p);
  in.peinf_indext_dist = {6, 5, 4, 3, 2, 1};  // reversed band map
  in.e_lk = 1.0;
  in.sig_dw = 0.5;
  in.nstart = 2;
  in.nend = 3;
  in.efermi = 0.0;
  in.tol = 1e-3;
  in.nvband = 3;
  // true bands 1..6: wx at iw=2 is e_lk - e
  in.wfnkq_ekq = {1.0, 1.0 - 5e-13, 1e-4, 1.0 + 5e-13, 1.0 - 2e-12, -3.0};
  const auto d = derive(in);
  // local band n1 -> true band 6 - n1 (0-based)
  auto wx = [&](int true_band, int w) { return d.wx_array_t(w, 6 - true_band); };
  EXPECT_EQ(wx(1, 0), physics::TOL_Zero);  // exactly 0 -> clamp
  EXPECT_EQ(wx(2, 0), physics::TOL_Zero);  // 5e-13 -> clamp
  EXPECT_EQ(wx(4, 0), physics::TOL_Zero);  // -5e-13 -> clamp to +TOL_Zero
  EXPECT_TRUE(close(wx(5, 0), 2e-12, 1e-3));  // 2e-12 stays
  EXPECT_EQ(wx(6, 0), 4.0);
  EXPECT_EQ(wx(6, 1), 4.5);  // iw = 3: + dw
  EXPECT_EQ(d.wx_array_bt(6 - 6, 1), 4.5);
  // occupations: true bands 1..3 occupied, band 3 at the Fermi level
  EXPECT_EQ(d.occ_array(6 - 1), 1.0);
  EXPECT_EQ(d.occ_array(6 - 2), 1.0);
  EXPECT_EQ(d.occ_array(6 - 3), 0.5);
  EXPECT_EQ(d.occ_array(6 - 4), 0.0);
  // gather: local G' -> indinv(inv_igp_index) ; the last one is skipped
  for (int my = 0; my < p.ngpown; ++my) {
    const int igp = in.indinv[in.inv_igp_index[my] - 1];
    if (my == p.ngpown - 1) {
      EXPECT_GT(igp, p.ncouls);
      EXPECT_EQ(d.vcoul_loc(my), 0.0);
      for (int n = 0; n < d.nbands; ++n) EXPECT_EQ(d.aqsmtemp_local(my, n), complex_t(0.0, 0.0));
    } else {
      ASSERT_GE(igp, 1);
      ASSERT_LE(igp, p.ncouls);
      EXPECT_EQ(d.vcoul_loc(my), in.vcoul[igp - 1]);
      for (int n = 0; n < d.nbands; ++n) {
        EXPECT_EQ(d.aqsmtemp_local(my, n), in.aqsmtemp(igp - 1, n));
        EXPECT_EQ(d.aqsmtemp_local_bt(n, my), in.aqsmtemp(igp - 1, n));
      }
    }
  }
}

}  // namespace
}  // namespace gpp::test

namespace gpp::test {
namespace {

// The fused form against the literal one, term by term: sch*mat and occ*ssx*mat.
template <bool Occupied>
void fused_case(const complex_t& wtilde, const complex_t& I_eps, double wx, const complex_t& mat, double occ,
                int* taken) {
  complex_t sch, ssx;
  int branch;
  bool cut;
  physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wx, 0.25, 4.0, sch, ssx, branch, cut);
  const auto p = physics::pair_terms(wtilde, I_eps, 4.0);
  complex_t sch_mat, ssx_mat;
  physics::fused_term<Occupied>(p, wx, I_eps * mat, occ * p.Omega2 * mat, 0.25, sch_mat, ssx_mat);
  ++taken[branch];
  const complex_t want_sch = sch * mat, want_ssx = occ * ssx * mat;
  // Scale for the absolute part: the size of the unsimplified products, so that a
  // term that cancels to ~0 is still compared meaningfully.
  const double scale = (compat::abs(sch) + compat::abs(ssx) + 1e-300) * compat::abs(mat);
  EXPECT_TRUE(close({sch_mat.real(), sch_mat.imag()}, {want_sch.real(), want_sch.imag()}, 1e-12, 1e-14 * scale))
      << "branch " << branch;
  EXPECT_TRUE(close({ssx_mat.real(), ssx_mat.imag()}, {want_ssx.real(), want_ssx.imag()}, 1e-12, 1e-14 * scale))
      << "branch " << branch << " cut " << cut;
}

TEST(Physics, FusedFormMatchesLiteralForm) {
  for (const auto& c : kCases) {
    int taken[3] = {0, 0, 0};
    fused_case<true>(c.wtilde, c.I_eps, c.wxt, {0.7, -0.2}, 1.0, taken);
    fused_case<true>(c.wtilde, c.I_eps, c.wxt, {0.7, -0.2}, 0.5, taken);
    fused_case<false>(c.wtilde, c.I_eps, c.wxt, {0.7, -0.2}, 0.0, taken);
  }
  std::mt19937_64 gen(4242);
  std::uniform_real_distribution<double> u(-3, 3);
  int taken[3] = {0, 0, 0};
  for (int i = 0; i < 20000; ++i) {
    const complex_t wtilde(u(gen), 0.2 * u(gen)), I_eps(u(gen), u(gen)), mat(u(gen), u(gen));
    fused_case<true>(wtilde, I_eps, u(gen), mat, i % 3 == 0 ? 0.5 : 1.0, taken);
  }
  EXPECT_GT(taken[physics::kRegular], 1000);
  EXPECT_GT(taken[physics::kNearPole], 100);
}

}  // namespace
}  // namespace gpp::test
