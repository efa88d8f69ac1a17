// Each arm of the per-term physics, the cutoff and the clamp against values computed
// by hand (straight from the benchmark's formulas in Python's complex arithmetic), and every
// optimised form against the literal one.
#include "gpp_newton.hpp"
#include "gpp_physics.hpp"
#include "gpp_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gpp::test {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("HandTermForm/*");
GPP_HOST_ONLY("Physics.*");
GPP_HOST_ONLY("FusedReciprocal.RefinementStepsWithinOneUlpFromHardwareSeeds");
// Host arrays and host loops only: they run without Kokkos where Kokkos 4 allows it.
GPP_HOST_VIEWS_ONLY("Derive.ClampOccupationsAndGather");

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
    {"regular",
     {2.0, -0.1},
     {0.3, -0.2},
     5.5,
     physics::kRegular,
     false,
     {0.16207177814029364, -0.1274877650897227},
     {0.041993940972030935, -0.03559777518616956}},
    {"near_pole",
     {1.2, -0.05},
     {-0.4, 0.25},
     1.0,
     physics::kNearPole,
     false,
     {0.0, 0.0},
     {0.1078471863706763, -0.07027620030975734}},
    {"zero", {1e-9, 0.0}, {0.7, 0.1}, 0.1, physics::kZero, false, {0.0, 0.0}, {0.0, 0.0}},
    {"cutoff_negative_wx",
     {1.05, 0.01},
     {0.3, 0.1},
     -1.0,
     physics::kRegular,
     true,
     {-0.15342407081330606, -0.051934516727739986},
     {0.0, 0.0}},
    {"no_cutoff_positive_wx",
     {-1.05, 0.01},
     {0.3, 0.1},
     1.0,
     physics::kRegular,
     false,
     {-0.15389996668728884, -0.05050682910579166},
     {-2.9192576756513353, -1.6137149530144335}},
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
  EXPECT_EQ(wx(1, 0), physics::TOL_Zero);     // exactly 0 -> clamp
  EXPECT_EQ(wx(2, 0), physics::TOL_Zero);     // 5e-13 -> clamp
  EXPECT_EQ(wx(4, 0), physics::TOL_Zero);     // -5e-13 -> clamp to +TOL_Zero
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
  const auto p = physics::pair_terms(wtilde, I_eps, 4.0, 0.25);
  // fused_term adds to its accumulators: start them away from zero and take the start off
  const complex_t start_sch(0.375, -1.25), start_ssx(-0.625, 2.5);
  complex_t sch_mat = start_sch, ssx_mat = start_ssx;
  // The regular arm under masks, the near-pole arm where it is due, ssx as h (sch - Y).
  physics::fused_term<Occupied>(p, mat, occ, 1.0, wx, 16.0 * 4.0 * 4.0, sch_mat, ssx_mat);
  sch_mat -= start_sch;
  ssx_mat -= start_ssx;
  ++taken[branch];
  const complex_t want_sch = sch * mat, want_ssx = occ * ssx * mat;
  // Scale for the absolute part: the size of the unsimplified products, so that a
  // term that cancels to ~0 is still compared meaningfully.
  // The start values (size ~2.5) add an absolute rounding of about 4e-16 (ulp(2.5)).
  const double scale = (compat::abs(sch) + compat::abs(ssx) + 1e-300) * compat::abs(mat) + 0.25;
  EXPECT_TRUE(close({sch_mat.real(), sch_mat.imag()}, {want_sch.real(), want_sch.imag()}, 1e-12, 1e-14 * scale))
      << "branch " << branch;
  EXPECT_TRUE(close({ssx_mat.real(), ssx_mat.imag()}, {want_ssx.real(), want_ssx.imag()}, 1e-12, 1e-14 * scale))
      << "branch " << branch << " cut " << cut;
}

// physics::reciprocal on `space` for n values x = m 2^e, m in [1, 2) and e in [-500, 500]
// (1/x normal), from a fixed seed, with powers of two and 1 +- ulp among them; the
// largest distance in ulps from the IEEE division 1.0/x on the host (the oracle).
template <class ExecSpace>
std::int64_t reciprocal_max_ulps(const ExecSpace& space, int n) {
  Kokkos::View<double*, Kokkos::HostSpace> x("x", n);
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-500, 500);
  for (int i = 0; i < n; ++i) x(i) = std::ldexp(mantissa(rng), exponent(rng)) * (i % 3 == 0 ? -1.0 : 1.0);
  const double special[] = {
      1.0,    2.0,   0.5,      std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), std::nextafter(2.0, 1.0), 3.0,
      1e-300, 1e300, 1.0 / 3.0};
  for (int i = 0; i < 10 && i < n; ++i) x(i) = special[i];
  auto xd = Kokkos::create_mirror_view_and_copy(typename ExecSpace::memory_space(), x);
  Kokkos::View<double*, typename ExecSpace::memory_space> r("r", n);
  Kokkos::parallel_for(
      "test::reciprocal", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int i) { r(i) = physics::reciprocal(xd(i)); });
  space.fence();
  auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  std::int64_t worst = 0;
  for (int i = 0; i < n; ++i) {
    const double want = 1.0 / x(i);
    std::int64_t a, b;
    std::memcpy(&a, &rh(i), sizeof a);
    std::memcpy(&b, &want, sizeof b);
    const std::int64_t d = (a > b ? a - b : b - a);  // same sign: the ulp distance
    if ((rh(i) < 0) != (want < 0)) return std::numeric_limits<std::int64_t>::max();
    worst = std::max(worst, d);
  }
  return worst;
}

// The fused form's reciprocal through a kernel on every space of the build: on a GPU the
// hardware approximation refined by Newton steps (CUDA: one cubic step; HIP: two
// quadratic steps), which must stay within one ulp of the division (the bound its
// comment claims); on the host the division itself (0 ulps).
TEST(FusedReciprocal, WithinOneUlpOfDivision) {
  for (const SpaceKind k : build_spaces())
    with_space(k, [&](auto space) {
      SCOPED_TRACE(to_string(k));
      EXPECT_LE(reciprocal_max_ulps(space, 1 << 20), 1);
    });
}

// The warp tests' team: 128 threads, fewer where the space allows fewer.
template <class ExecSpace>
int warp_test_team(const ExecSpace& space) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int most =
      Policy(space, 1, 1).team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&){}, Kokkos::ParallelForTag());
  return most < 128 ? most : 128;
}

// backend::warp_all through a kernel on every space: teams of 128 threads (fewer where
// the space allows fewer), each thread votes on its own predicate; the expected answer is
// the AND over the thread's group of simd_width consecutive team ranks (a warp, a
// wavefront; 1 thread on the host) that run the call. Cases: all true; one false thread
// (rank 37); the last thread of each group false; a range of 100 of the 128 ranks (the
// last group partly idle) all true, and with rank 98 false.
template <class ExecSpace>
void check_warp_all(const ExecSpace& space) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int kTeam = warp_test_team(space);
  const int width = backend::properties(space).simd_width;
  ASSERT_GE(width, 1);
  struct Case {
    int active;      // team ranks 0 .. active-1 run the vote
    int false_rank;  // -1: none; -2: the last rank of every group
  };
  const int part = kTeam * 100 / 128;
  const Case cases[] = {{kTeam, -1}, {kTeam, 37 % kTeam}, {kTeam, -2}, {part, -1}, {part, part - 2}};
  const int nc = int(sizeof cases / sizeof cases[0]);
  Kokkos::View<int**, Kokkos::HostSpace> pred("pred", nc, kTeam);
  for (int c = 0; c < nc; ++c)
    for (int r = 0; r < kTeam; ++r)
      pred(c, r) = !(r == cases[c].false_rank || (cases[c].false_rank == -2 && r % width == width - 1));
  const auto pd = Kokkos::create_mirror_view_and_copy(typename ExecSpace::memory_space(), pred);
  Kokkos::View<int*, Kokkos::HostSpace> active("active", nc);
  for (int c = 0; c < nc; ++c) active(c) = cases[c].active;
  const auto ad = Kokkos::create_mirror_view_and_copy(typename ExecSpace::memory_space(), active);
  Kokkos::View<int**, typename ExecSpace::memory_space> got("got", nc, kTeam);
  Kokkos::deep_copy(got, -1);
  Kokkos::parallel_for(
      "test::warp_all", Policy(space, nc, kTeam), KOKKOS_LAMBDA(const typename Policy::member_type& m) {
        const int c = m.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ad(c)),
                             [&](const int r) { got(c, r) = backend::warp_all(pd(c, r) != 0) ? 1 : 0; });
      });
  space.fence();
  const auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  for (int c = 0; c < nc; ++c)
    for (int r = 0; r < kTeam; ++r) {
      int want = -1;  // ranks past the range never vote
      if (r < cases[c].active) {
        want = 1;
        for (int q = r / width * width; q < (r / width + 1) * width && q < cases[c].active; ++q)
          want = want && pred(c, q);
      }
      EXPECT_EQ(gh(c, r), want) << "case " << c << ", rank " << r << ", width " << width;
    }
}

TEST(WarpAll, AndOverTheThreadsOfAWarp) {
  for (const SpaceKind k : build_spaces())
    with_space(k, [&](auto space) {
      SCOPED_TRACE(to_string(k));
      check_warp_all(space);
    });
}

// backend::warp_together and warp_exclusive_sum through a kernel on every space, as the
// tuned policy's near-pole pass calls them: teams of up to 128 threads, ranks 0 .. active-1
// of a TeamThreadRange, each with x = a non-uniform count 0..32. A group of kWarpLanes
// consecutive ranks (32 in CUDA device code, else 1; the kernel reports it) is together
// where all of its ranks run the call; then each thread's exclusive sum and the group's
// total are the sums of x over the lower ranks and over the group, otherwise 0 and x.
KOKKOS_INLINE_FUNCTION int warp_gather_x(const int c, const int r) { return (r * 7 + c * 3 + r / 5) % 33; }

template <class ExecSpace>
void check_warp_gather(const ExecSpace& space) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int kTeam = warp_test_team(space);
  const int actives[] = {kTeam, kTeam * 100 / 128, kTeam / 2 + 1};
  const int nc = int(sizeof actives / sizeof actives[0]);
  Kokkos::View<int** [4], typename ExecSpace::memory_space> got("got", nc, kTeam);  // lanes, together, at, total
  Kokkos::deep_copy(got, -1);
  Kokkos::View<int*, Kokkos::HostSpace> active("active", nc);
  for (int c = 0; c < nc; ++c) active(c) = actives[c];
  const auto ad = Kokkos::create_mirror_view_and_copy(typename ExecSpace::memory_space(), active);
  Kokkos::parallel_for(
      "test::warp_gather", Policy(space, nc, kTeam), KOKKOS_LAMBDA(const typename Policy::member_type& m) {
        const int c = m.league_rank(), team = m.team_size(), me = m.team_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ad(c)), [&](const int r) {
          constexpr int L = backend::kWarpLanes;
          const int first = me - me % L;
          const bool together = backend::warp_together(me, first + L <= team && r - (me - first) + L <= ad(c));
          const int x = warp_gather_x(c, r);
          int total = x;
          const int at = together ? backend::warp_exclusive_sum(x, total) : 0;
          got(c, r, 0) = L;
          got(c, r, 1) = together ? 1 : 0;
          got(c, r, 2) = at;
          got(c, r, 3) = total;
        });
      });
  space.fence();
  const auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  const bool cuda_device = kind_of<ExecSpace>() == SpaceKind::Device && std::string(backend::Device::kName) == "CUDA";
  const int L = cuda_device ? 32 : 1;
  for (int c = 0; c < nc; ++c)
    for (int r = 0; r < kTeam; ++r) {
      SCOPED_TRACE("case " + std::to_string(c) + ", rank " + std::to_string(r));
      if (r >= actives[c]) {
        EXPECT_EQ(gh(c, r, 0), -1);
        continue;
      }
      EXPECT_EQ(gh(c, r, 0), L);
      const int first = r - r % L;
      const bool together = first + L <= kTeam && first + L <= actives[c];
      int below = 0, all = 0;
      for (int q = first; q < first + L; ++q) {
        if (q < r) below += warp_gather_x(c, q);
        all += warp_gather_x(c, q);
      }
      EXPECT_EQ(gh(c, r, 1), together ? 1 : 0);
      EXPECT_EQ(gh(c, r, 2), together ? below : 0);
      EXPECT_EQ(gh(c, r, 3), together ? all : warp_gather_x(c, r));
    }
}

TEST(WarpGather, ExclusiveSumOverAWarpThatIsTogether) {
  for (const SpaceKind k : build_spaces())
    with_space(k, [&](auto space) {
      SCOPED_TRACE(to_string(k));
      check_warp_gather(space);
    });
}

// Distance in ulps between two doubles of one sign.
std::int64_t ulps_apart(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  if ((a < 0) != (b < 0)) return std::numeric_limits<std::int64_t>::max();
  return ia > ib ? ia - ib : ib - ia;
}

// The GPUs' Newton steps (backend/gpp_backend.hpp), on the host from seeds no better than
// the hardware's: every build runs the refinement each GPU backend relies on, whatever
// device it has (the GPU paths themselves run in WithinOneUlpOfDivision on the device).
TEST(FusedReciprocal, RefinementStepsWithinOneUlpFromHardwareSeeds) {
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-500, 500);
  std::int64_t worst_cubic = 0, worst_quadratic = 0;
  for (int i = 0; i < (1 << 18); ++i) {
    const double x = std::ldexp(mantissa(rng), exponent(rng)) * (i % 3 == 0 ? -1.0 : 1.0);
    const double want = 1.0 / x;
    // rcp.approx.ftz.f64 (CUDA): the reciprocal of x's upper 32 bits, its result cut to
    // its upper 32 bits (20 mantissa bits each).
    auto upper = [](double v) {
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      b &= 0xffffffff00000000ULL;
      std::memcpy(&v, &b, sizeof v);
      return v;
    };
    const double cuda_seed = upper(1.0 / upper(x));
    worst_cubic = std::max(worst_cubic, ulps_apart(backend::refine_reciprocal_cubic(x, cuda_seed), want));
    // v_rcp_f64 (HIP), taken as no better than 14 correct bits: 1/x (1 +- 2^-14).
    const double hip_seed = want * (i % 2 ? 1.0 + 0x1p-14 : 1.0 - 0x1p-14);
    worst_quadratic = std::max(worst_quadratic, ulps_apart(backend::refine_reciprocal_quadratic2(x, hip_seed), want));
  }
  EXPECT_LE(worst_cubic, 1);
  EXPECT_LE(worst_quadratic, 1);
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

// occupied_term without the sexcut test (its sums under the regular arm's predicate) adds
// what the tested form adds where no wx is negative, and nothing off the regular arm: its
// sums against the literal term's sch * mat, and Y = sch * mat - 2 ssx * mat.
TEST(Physics, OccupiedTermWithoutCutMatchesTheTestedFormAndTheLiteralTerm) {
  std::mt19937_64 gen(515);
  std::uniform_real_distribution<double> u(-3, 3);
  int regular = 0, off = 0;
  for (int i = 0; i < 20000; ++i) {
    const complex_t wtilde(u(gen), 0.2 * u(gen)), I_eps(u(gen), u(gen)), mat(u(gen), u(gen));
    const double wx = std::abs(u(gen));
    const auto p = physics::pair_terms(wtilde, I_eps, 4.0, 0.25);
    const auto b = physics::band_terms(p, mat);
    const complex_t s0(0.25, -0.5), y0(-1.0, 0.125);  // sums already holding a value
    complex_t s_cut = s0, y_cut = y0, s_pred = s0, y_pred = y0;
    const bool off_cut = physics::occupied_term<true>(p, b, wx, false, s_cut, y_cut);
    const bool off_pred = physics::occupied_term<false>(p, b, wx, false, s_pred, y_pred);
    ASSERT_EQ(off_cut, off_pred) << "term " << i;
    EXPECT_DOUBLE_EQ(s_pred.real(), s_cut.real()) << "term " << i;
    EXPECT_DOUBLE_EQ(s_pred.imag(), s_cut.imag()) << "term " << i;
    EXPECT_DOUBLE_EQ(y_pred.real(), y_cut.real()) << "term " << i;
    EXPECT_DOUBLE_EQ(y_pred.imag(), y_cut.imag()) << "term " << i;
    if (off_pred) {
      ++off;
      EXPECT_EQ(s_pred, s0) << "term " << i;
      EXPECT_EQ(y_pred, y0) << "term " << i;
      continue;
    }
    ++regular;
    complex_t sch, ssx;
    int branch;
    bool cut;
    physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wx, 0.25, 4.0, sch, ssx, branch, cut);
    ASSERT_EQ(branch, physics::kRegular) << "term " << i;
    const complex_t want_s = s0 + sch * mat, want_y = y0 + (sch - 2.0 * ssx) * mat;
    const double scale = 1.0 + Kokkos::abs(sch * mat) + Kokkos::abs(ssx * mat);
    EXPECT_LE(Kokkos::abs(s_pred - want_s), 1e-12 * scale) << "term " << i;
    EXPECT_LE(Kokkos::abs(y_pred - want_y), 1e-12 * scale) << "term " << i;
  }
  EXPECT_GT(regular, 1000);
  EXPECT_GT(off, 100);
}

// A band's frequencies for the physics' band functions, which call them from host and
// device code alike: a host lambda's operator() is host-only, which nvcc warns about
// (#20013) in a CUDA build.
struct Frequencies {
  const double* x;
  KOKKOS_INLINE_FUNCTION double operator()(const int w) const { return x[w]; }
};

// The split form of occupied bands without a wx < 0 (occupied_band_split, then
// occupied_split_fold): the same arms as occupied_term<false> (its test on |cden|^2 is the
// test on |wdiff|^2), and, with Re(wtilde) >= 0 (a plasmon pole's), sch and Y within 1e-12
// of the literal term's sch * mat and (sch - 2 ssx) * mat over two G' and two frequencies.
TEST(Physics, OccupiedBandSplitMatchesTheLiteralTerm) {
  std::mt19937_64 gen(4711);
  std::uniform_real_distribution<double> u(-3, 3);
  int regular = 0, off = 0;
  for (int i = 0; i < 10000; ++i) {
    const bool positive = i % 2 == 0;  // Re(wtilde) >= 0: the sums are checked too
    complex_t wtilde[2], I_eps[2], mat[2];
    physics::PairTerms p[2];
    for (int j = 0; j < 2; ++j) {
      wtilde[j] = complex_t(positive ? std::abs(u(gen)) : u(gen), 0.2 * u(gen));
      I_eps[j] = complex_t(u(gen), u(gen));
      mat[j] = complex_t(u(gen), u(gen));
      p[j] = physics::pair_terms(wtilde[j], I_eps[j], 4.0, 0.25);
    }
    const double x[2] = {std::abs(u(gen)), 2.0 * std::abs(u(gen))};
    const Frequencies wx{x};
    complex_t a[2][2] = {}, b[2][2] = {};
    unsigned bits[2][2] = {};
    for (int j = 0; j < 2; ++j)
      physics::occupied_band_split<2>(physics::pair_split(p[j]), mat[j], wx, a[j], b[j], bits[j], 1u);
    const complex_t s0(0.25, -0.5), y0(-1.0, 0.125);  // sums already holding a value
    complex_t s_split[2] = {s0, s0}, y_split[2] = {y0, y0};
    for (int j = 0; j < 2; ++j)
      for (int w = 0; w < 2; ++w)
        physics::occupied_split_fold(p[j].WIw, wtilde[j], a[j][w], b[j][w], s_split[w], y_split[w]);
    for (int w = 0; w < 2; ++w) {
      complex_t want_s = s0, want_y = y0;
      double scale = 1.0;
      for (int j = 0; j < 2; ++j) {
        complex_t s_old(0.0, 0.0), y_old(0.0, 0.0);
        const bool off_old =
            physics::occupied_term<false>(p[j], physics::band_terms(p[j], mat[j]), x[w], false, s_old, y_old);
        ASSERT_EQ(bits[j][w] != 0u, off_old) << "term " << i << " G' " << j << " frequency " << w;
        if (off_old) {
          ++off;
          continue;
        }
        ++regular;
        complex_t sch, ssx;
        int branch;
        bool cut;
        physics::sigma_term<physics::LiteralForm>(wtilde[j], I_eps[j], x[w], 0.25, 4.0, sch, ssx, branch, cut);
        ASSERT_EQ(branch, physics::kRegular) << "term " << i;
        want_s += sch * mat[j];
        want_y += (sch - 2.0 * ssx) * mat[j];
        scale += Kokkos::abs(sch * mat[j]) + Kokkos::abs(ssx * mat[j]);
      }
      if (!positive) continue;
      EXPECT_LE(Kokkos::abs(s_split[w] - want_s), 1e-12 * scale) << "term " << i << " frequency " << w;
      EXPECT_LE(Kokkos::abs(y_split[w] - want_y), 1e-12 * scale) << "term " << i << " frequency " << w;
    }
  }
  EXPECT_GT(regular, 10000);
  EXPECT_GT(off, 100);
}

// Empty bands: frequencies sharing reciprocals (in pairs; an odd count's first three
// together) add what one reciprocal each adds (within a few ulps of the larger part), and
// the block test that allows it holds only where every |wdiff|^2 over the range is regular
// and inside the shared range.
template <int NW>
void shared_reciprocals_match_one_each(const std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int i = 0; i < 20000; ++i) {
    const complex_t wtilde(u(gen), 0.5 * u(gen)), I_eps(u(gen), u(gen)), aqsm(u(gen), u(gen)), aqsn(u(gen), u(gen));
    const auto p = physics::pair_terms(wtilde, I_eps, 4.0, 1e-6);
    double x[NW];
    complex_t one[NW], shared[NW];
    for (int w = 0; w < NW; ++w) {
      x[w] = (w % 3 == 0 ? 8.0 : w % 3 == 1 ? -8.0 : 0.0) + (w % 3 == 2 ? 2.0 : 1.0) * u(gen);
      one[w] = shared[w] = complex_t(0.5 * u(gen), 0.25 * u(gen));  // sums already holding a value
    }
    const Frequencies wx{x};
    physics::empty_band_unweighted<false, NW>(p, aqsm, aqsn, wx, one);
    physics::empty_band_unweighted_shared<NW>(p, aqsm, aqsn, wx, shared);
    for (int w = 0; w < NW; ++w) {
      // the term's own size: |mat| |conj(wdiff)| / |wdiff|^2 = |mat| / |wdiff|
      const double dr = x[w] - wtilde.real(), term = Kokkos::abs(aqsm * aqsn) / std::sqrt(dr * dr + p.wi2);
      const double tol = 8 * std::numeric_limits<double>::epsilon() * (term + Kokkos::abs(one[w]));
      EXPECT_LE(Kokkos::abs(shared[w] - one[w]), tol) << NW << " frequencies, band " << i << " frequency " << w;
    }
  }
}

TEST(Physics, EmptyBandSharedReciprocalMatchesOneEach) {
  shared_reciprocals_match_one_each<2>(2024);
  shared_reciprocals_match_one_each<3>(2025);
  shared_reciprocals_match_one_each<4>(2026);
  shared_reciprocals_match_one_each<5>(2027);
  const auto p = physics::pair_terms({0.5, 0.1}, {1.0, 0.0}, 4.0, 0.25);
  EXPECT_TRUE(physics::empty_block_shared<2>(p, 2.0, 3.0));  // |wdiff|^2 from 2.26 to 6.26
  EXPECT_TRUE(physics::empty_block_shared<2>(p, -3.0, -2.0));
  EXPECT_FALSE(physics::empty_block_shared<2>(p, 0.0, 3.0));  // Re wtilde inside: |wdiff|^2 down to 0.01
  EXPECT_EQ(physics::empty_block_shared<2>(p, 0.0, 3.0), physics::empty_block_regular(p, 0.0, 3.0));
  EXPECT_FALSE(physics::empty_block_shared<2>(p, 2.0, 2e76));  // |wdiff|^2 up to 4e152
  EXPECT_TRUE(physics::empty_block_regular(p, 2.0, 2e76));
  EXPECT_FALSE(physics::empty_block_shared<2>(p, -2e76, -2.0));
  // |wtilde| tiny: the regular threshold max(limittwo, |wtilde|^2 / limitone) about 4e-156
  const auto tiny = physics::pair_terms({1e-75, 1e-80}, {1.0, 0.0}, 4.0, 1e-300);
  EXPECT_TRUE(physics::empty_block_regular(tiny, 1.1e-75, 2.0));  // |wdiff|^2 from 1e-152
  EXPECT_FALSE(physics::empty_block_shared<2>(tiny, 1.1e-75, 2.0));
  EXPECT_TRUE(physics::empty_block_shared<2>(tiny, 1e-70, 2.0));  // from 1e-140
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(physics::empty_block_shared<2>(p, nan, 3.0));
  EXPECT_FALSE(physics::empty_block_shared<2>(p, 2.0, nan));
  // an odd count's three share one reciprocal: every |wdiff|^2 in [1e-100, 1e100]
  EXPECT_TRUE(physics::empty_block_shared<3>(p, 2.0, 3.0));
  EXPECT_FALSE(physics::empty_block_shared<3>(p, 2.0, 2e51));  // |wdiff|^2 up to 4e102
  EXPECT_TRUE(physics::empty_block_shared<2>(p, 2.0, 2e51));
  EXPECT_TRUE(physics::empty_block_shared<4>(p, 2.0, 2e51));
  EXPECT_FALSE(physics::empty_block_shared<5>(p, 2.0, 2e51));
  EXPECT_FALSE(physics::empty_block_shared<3>(tiny, 1e-70, 2.0));  // from 1e-140
  EXPECT_TRUE(physics::empty_block_shared<3>(tiny, 1e-45, 2.0));   // from 1e-90
}

}  // namespace
}  // namespace gpp::test

namespace gpp::test {
namespace {

// Hand-computed terms, one test per (form, arm): a failure names both. The values are the
// spec's literal formulas evaluated exactly in rational arithmetic from the double
// inputs (all dyadic, so exact) and rounded once to double, with this Python:
//
//   from fractions import Fraction as F
//   TOL_Zero = F(1e-12); limitone = F(1.0/(1e-6*4.0))       # the doubles the code uses
//   class C:   # exact complex over Fractions: + - * / and n2() = |z|^2
//       def __init__(s, re, im=0): s.re, s.im = F(re), F(im)
//       def __add__(s, o): o = o if isinstance(o, C) else C(o); return C(s.re+o.re, s.im+o.im)
//       __radd__ = __add__
//       def __sub__(s, o): o = o if isinstance(o, C) else C(o); return C(s.re-o.re, s.im-o.im)
//       def __rsub__(s, o): return C(o) - s
//       def __mul__(s, o): o = o if isinstance(o, C) else C(o); return C(s.re*o.re-s.im*o.im, s.re*o.im+s.im*o.re)
//       __rmul__ = __mul__
//       def __neg__(s): return C(-s.re, -s.im)
//       def n2(s): return s.re*s.re + s.im*s.im
//       def __truediv__(s, o):
//           o = o if isinstance(o, C) else C(o); d = o.n2()
//           return C((s.re*o.re+s.im*o.im)/d, (s.im*o.re-s.re*o.im)/d)
//   def term(wtilde, I_eps, wxt, limittwo, sexcut):          # the benchmark's term
//       wtilde, I_eps, wxt = C(*wtilde), C(*I_eps), F(wxt)
//       wtilde2 = wtilde*wtilde; Omega2 = wtilde2*I_eps
//       wdiff = wxt - wtilde; delw = wtilde/wdiff
//       delwr, wdiffr = delw.n2(), wdiff.n2()
//       if wdiffr > F(limittwo) and delwr < limitone:
//           sch = delw*I_eps; ssx = Omega2/(wxt*wxt - wtilde2); arm = 'regular'
//       elif delwr > TOL_Zero:
//           sch = C(0); ssx = -Omega2*delw/(4*wtilde2*(delw + F(1, 2))); arm = 'near_pole'
//       else:
//           sch = ssx = C(0); arm = 'zero'
//       # |ssx| > sexcut |I_eps| decided exactly, as |ssx|^2 > sexcut^2 |I_eps|^2
//       cut = ssx.n2() > F(sexcut)**2 * I_eps.n2() and wxt < 0
//       if cut: ssx = C(0)
//       return arm, cut, (float(sch.re), float(sch.im)), (float(ssx.re), float(ssx.im))
//
// e.g. term((1.5, -0.125), (0.375, -0.25), 4.25, 0.25, 4.0) gives the RegularArm row.
// |ssx|/|I_eps| (before the cutoff) is given per row: no row is near its threshold.
struct HandTerm {
  complex_t wtilde, I_eps;
  double wxt, limittwo, sexcut;
  int branch;
  bool cut;
  std::complex<double> sch, ssx;
};

// regular arm, wx > 0; |ssx|/|I_eps| = 0.143
const HandTerm kRegularArm = {{1.5, -0.125},
                              {0.375, -0.25},
                              4.25,
                              0.25,
                              4.0,
                              physics::kRegular,
                              false,
                              {0.18582474226804124, -0.1618556701030928},
                              {0.04594142167724216, -0.045264160039737225}};
// regular arm, wx < 0 but |ssx|/|I_eps| = 1.96 < sexcut = 4: kept
const HandTerm kRegularArmNegativeWxBelowCut = {{2.5, -0.0625},
                                                {-0.5, 0.75},
                                                -1.75,
                                                0.25,
                                                4.0,
                                                physics::kRegular,
                                                false,
                                                {0.28962162162162164, -0.4442702702702703},
                                                {1.0465349487418454, -1.417824790307549}};
// regular arm, wx < 0 and |ssx|/|I_eps| = 4.62 > sexcut = 4: ssx cut to 0, sch kept
const HandTerm kRegularArmCut = {{1.25, -0.03125},
                                 {0.625, 0.5},
                                 -1.375,
                                 0.25,
                                 4.0,
                                 physics::kRegular,
                                 true,
                                 {-0.30078291058523454, -0.23423551084030042},
                                 {0.0, 0.0}};
// regular arm (gamma 0.125), wx > 0 with |ssx|/|I_eps| = 4.62 > sexcut = 4: NOT cut
const HandTerm kRegularArmPositiveWxNotCut = {{1.25, -0.03125},
                                              {0.625, 0.5},
                                              1.375,
                                              0.015625,
                                              4.0,
                                              physics::kRegular,
                                              false,
                                              {7.139705882352941, 3.0588235294117645},
                                              {3.4194614858838532, 1.4122940092857321}};
// near-pole arm through wdiffr <= limittwo, wx > 0; |ssx|/|I_eps| = 0.236
const HandTerm kNearPoleArm = {{2.0, -0.125},
                               {0.625, 0.125},
                               2.25,
                               0.25,
                               4.0,
                               physics::kNearPole,
                               false,
                               {0.0, 0.0},
                               {-0.14817415730337077, -0.02457865168539326}};
// near-pole arm through delwr >= limitone although wdiffr > limittwo (gamma 0.01)
const HandTerm kNearPoleArmByLimitone = {{30.0, -0.0078125},
                                         {-0.25, 0.375},
                                         30.03125,
                                         0.0001,
                                         4.0,
                                         physics::kNearPole,
                                         false,
                                         {0.0, 0.0},
                                         {0.0624552588934019, -0.09370933690019607}};
// near-pole arm (gamma 2), wx < 0 and |ssx|/|I_eps| = 1.80 > sexcut = 1.5: cut
const HandTerm kNearPoleArmCut = {{0.5, -0.0625},     {0.75, -0.375}, -0.375,     4.0,       1.5,
                                  physics::kNearPole, true,           {0.0, 0.0}, {0.0, 0.0}};
// the same term with sexcut = 4: kept
const HandTerm kNearPoleArmNegativeWxBelowCut = {{0.5, -0.0625},     {0.75, -0.375}, -0.375,     4.0,           4.0,
                                                 physics::kNearPole, false,          {0.0, 0.0}, {-1.5, 0.1875}};
// near-pole arm, wx > 0 with |ssx|/|I_eps| = 0.268 > sexcut = 0.125: NOT cut
const HandTerm kNearPoleArmPositiveWxNotCut = {{0.5, -0.0625},
                                               {0.75, -0.375},
                                               0.4375,
                                               4.0,
                                               0.125,
                                               physics::kNearPole,
                                               false,
                                               {0.0, 0.0},
                                               {-0.19496681415929204, 0.11200221238938053}};
// zero arm: wtilde = 2^-30, |wx| < gamma, delwr ~ 6e-17 <= TOL_Zero
const HandTerm kZeroArm = {{0x1.0p-30, 0.0}, {0.5, 0.25}, 0.125,      0.25,      4.0,
                           physics::kZero,   false,       {0.0, 0.0}, {0.0, 0.0}};
// zero arm with wx < 0 and sexcut = 0: |0| > 0 is false, nothing is cut
const HandTerm kZeroArmNegativeWx = {{0x1.0p-30, 0x1.0p-34}, {0.5, 0.25}, -0.125,     0.25,      0.0,
                                     physics::kZero,         false,       {0.0, 0.0}, {0.0, 0.0}};
// wx = TOL_Zero, what the clamp makes of |wx| < TOL_Zero: regular arm, |ssx|/|I_eps| = 1
// > sexcut = 0.5 but wx > 0, so NOT cut (a negative wx here would be)
const HandTerm kClampedWxNotCut = {{0.75, -0.125},
                                   {0.25, -0.625},
                                   1e-12,
                                   0.25,
                                   0.5,
                                   physics::kRegular,
                                   false,
                                   {-0.25000000000045947, 0.6250000000007567},
                                   {-0.25, 0.625}};

// Each form evaluates a term into (sch, ssx) of a unit matrix element, so that every form
// is checked against the same numbers.
struct TermValue {
  complex_t sch, ssx;
  int branch = -1;  // reported by sigma_term only
  bool cut = false;
  bool reports = false;  // branch and cut are meaningful
};

template <class F>
struct SigmaTermForm {
  static TermValue eval(const HandTerm& c) {
    TermValue v;
    v.sch = v.ssx = complex_t(-99, -99);  // poisoned
    physics::sigma_term<F>(c.wtilde, c.I_eps, c.wxt, c.limittwo, c.sexcut, v.sch, v.ssx, v.branch, v.cut);
    v.reports = true;
    return v;
  }
  static constexpr double occ = 1.0;
};
struct Literal : SigmaTermForm<physics::LiteralForm> {};
struct Reciprocal : SigmaTermForm<physics::ReciprocalForm> {};
struct TwoWay : SigmaTermForm<physics::TwoWayForm> {};
struct Optimised : SigmaTermForm<physics::OptimisedForm> {};

// The fused form (physics::fused_term: the pieces the kernels run, for one term) returns sch*mat and
// occ*ssx*mat; mat = 0.75 - 0.5i (exact), divided out in the check below.
template <bool Occupied>
struct Fused {
  static constexpr double occ = Occupied ? 1.0 : 0.0;
  static TermValue eval(const HandTerm& c) {
    const complex_t mat(0.75, -0.5);
    const auto p = physics::pair_terms(c.wtilde, c.I_eps, c.sexcut, c.limittwo);
    TermValue v;
    complex_t sch_mat(0, 0), ssx_mat(0, 0);  // fused_term adds to them
    physics::fused_term<Occupied>(p, mat, occ, 1.0, c.wxt, 16.0 * c.sexcut * c.sexcut, sch_mat, ssx_mat);
    v.sch = sch_mat;
    v.ssx = ssx_mat;
    return v;
  }
};

template <class Form>
class HandTermForm : public ::testing::Test {};

struct FormName {
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, Literal>) return "LiteralForm";
    if (std::is_same_v<T, Reciprocal>) return "ReciprocalForm";
    if (std::is_same_v<T, TwoWay>) return "TwoWayForm";
    if (std::is_same_v<T, Optimised>) return "OptimisedForm";
    if (std::is_same_v<T, Fused<true>>) return "FusedFormOccupied";
    return "FusedFormEmptyBand";
  }
};
using Forms = ::testing::Types<Literal, Reciprocal, TwoWay, Optimised, Fused<true>, Fused<false>>;
TYPED_TEST_SUITE(HandTermForm, Forms, FormName);

// Each form rounds at most ~40 times per value; where delw + 1/2 cancels (the near-pole
// rows with wx < 0) an error is amplified by |delw|/|delw + 1/2| <= 8: 40*8*2^-53 < 1e-13.
// A wrong sign, arm, conjugate or cutoff moves a value by more than 10% of itself.
// atol = 1e-300: cut and zero-arm values must be exactly zero.
template <class Form>
void check_hand_term(const HandTerm& c) {
  const TermValue v = Form::eval(c);
  std::complex<double> want_sch = c.sch, want_ssx = c.ssx * Form::occ;
  if (!v.reports) {  // the fused form returns sch*mat and occ*ssx*mat
    const std::complex<double> mat(0.75, -0.5);
    want_sch *= mat;
    want_ssx *= mat;
  } else {
    EXPECT_EQ(v.branch, c.branch) << "arm taken";
    EXPECT_EQ(v.cut, c.cut) << "cutoff";
  }
  EXPECT_TRUE(close({v.sch.real(), v.sch.imag()}, want_sch, 1e-13, 1e-300)) << "sch";
  EXPECT_TRUE(close({v.ssx.real(), v.ssx.imag()}, want_ssx, 1e-13, 1e-300)) << "ssx";
}

TYPED_TEST(HandTermForm, RegularArm) { check_hand_term<TypeParam>(kRegularArm); }
TYPED_TEST(HandTermForm, RegularArmNegativeWxBelowCut) { check_hand_term<TypeParam>(kRegularArmNegativeWxBelowCut); }
TYPED_TEST(HandTermForm, RegularArmSexcutCutoff) { check_hand_term<TypeParam>(kRegularArmCut); }
TYPED_TEST(HandTermForm, RegularArmPositiveWxNotCut) { check_hand_term<TypeParam>(kRegularArmPositiveWxNotCut); }
TYPED_TEST(HandTermForm, NearPoleArm) { check_hand_term<TypeParam>(kNearPoleArm); }
TYPED_TEST(HandTermForm, NearPoleArmByLimitone) { check_hand_term<TypeParam>(kNearPoleArmByLimitone); }
TYPED_TEST(HandTermForm, NearPoleArmSexcutCutoff) { check_hand_term<TypeParam>(kNearPoleArmCut); }
TYPED_TEST(HandTermForm, NearPoleArmNegativeWxBelowCut) { check_hand_term<TypeParam>(kNearPoleArmNegativeWxBelowCut); }
TYPED_TEST(HandTermForm, NearPoleArmPositiveWxNotCut) { check_hand_term<TypeParam>(kNearPoleArmPositiveWxNotCut); }
TYPED_TEST(HandTermForm, ZeroArm) { check_hand_term<TypeParam>(kZeroArm); }
TYPED_TEST(HandTermForm, ZeroArmNegativeWx) { check_hand_term<TypeParam>(kZeroArmNegativeWx); }
TYPED_TEST(HandTermForm, ClampedWxNotCut) { check_hand_term<TypeParam>(kClampedWxNotCut); }

}  // namespace
}  // namespace gpp::test
