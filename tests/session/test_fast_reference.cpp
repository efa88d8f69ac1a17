// The fast reference (session/gpp_fast_reference.hpp) against the long-double host
// reference and the literal classification of arms (both core/ and measure/, sharing no
// code with it), on every space; G' slices of a run; verification that fails a wrong
// result; and what verification costs beside a run.
#include "gpp_counts.hpp"
#include "gpp_fast_reference.hpp"
#include "gpp_reference.hpp"
#include "gpp_session.hpp"
#include "gpp_test_util.hpp"

#include <cmath>
#include <ctime>

// A build under AddressSanitizer or ThreadSanitizer (GCC's macros, clang's features).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GPP_TEST_SANITIZED 1
#endif
#endif

namespace gpp::test {
namespace {

// Both references compensate their sums; only each term's rounding (a few ulps, in
// different operations) and the fast reference's plain sums over at most kChunk / lanes
// terms of a chunk separate them: on these decks' cancellation (results ~1e-2 of the sum
// of the terms' magnitudes) that is below 1e-14 of the result, and 1e-13 still lies 1000
// times below the verification tolerance, while an indexing or arm slip moves a result by
// 1e-5 or more.
constexpr double kRefTol = 1e-13;

struct Checked {
  SigmaResult reference;
  std::complex<double> achstemp;
  measure::counts::ArmCounts arms;
};

Checked literal_of(const InputDeck& in, const GppData<Kokkos::HostSpace>& host) {
  return {apply_start_values(reference_sums(host), in.asxtemp0, in.achtemp0), reference_achstemp(host),
          measure::counts::arm_statistics(HostExec(), host)};
}

// The fast reference on every space, and the pass a device runs (fast_reference_teams) on
// every space as well, against the long-double reference and the literal arms. Returns
// the literal arms.
measure::counts::ArmCounts expect_matches_literal(const InputDeck& in, const std::string& what,
                                                  GppData<Kokkos::HostSpace> host) {
  const SpaceData data(std::move(host));
  const Checked want = literal_of(in, data.host);
  for (const SpaceKind k : build_spaces())
    for (const bool teams : {false, true}) {
      SCOPED_TRACE(what + " on the " + to_string(k) + (teams ? ", the teams' pass" : ""));
      double reported = 0;
      const session::ReferencePass got = with_space(k, [&](auto space) {
        const auto done = [&](double n) { reported += n; };
        return teams ? session::fast_reference_teams(space, data.on(space), done)
                     : session::fast_reference(space, data.on(space), done);
      });
      EXPECT_EQ(got.sums.sch_sum.size(), std::size_t(data.host.nw));
      if (got.sums.sch_sum.size() != std::size_t(data.host.nw)) continue;
      EXPECT_TRUE(results_close(apply_start_values(got.sums, in.asxtemp0, in.achtemp0), want.reference, kRefTol));
      EXPECT_TRUE(close(got.achstemp, want.achstemp, kRefTol));
      for (int i = 0; i < 24; ++i) EXPECT_EQ(got.arms.n[i], want.arms.n[i]) << "bucket " << i;
      EXPECT_EQ(reported, data.host.updates());  // progress: every term, once
    }
  return want.arms;
}

measure::counts::ArmCounts expect_matches_literal(const InputDeck& in, const std::string& what) {
  return expect_matches_literal(in, what, derive(in));
}

// Decks of one to five frequencies (pairs and a single one on the host), several band
// blocks with a short last one, G chunks with a short last one, occupied, half-occupied
// and empty bands, a skipped G'.
TEST(FastReference, MatchesTheLiteralReferenceAndArms) {
  for (const int nw : {1, 2, 3, 5}) {
    DeckParams p = small_deck(70, 17, 300, 30);
    p.nstart = 1;
    p.nend = nw;
    p.skipped_gp = 1;
    expect_matches_literal(generate(p), "nw=" + std::to_string(nw));
  }
}

// Every arm each kind of band can take (occupied or empty, wx < 0 or not: the regular and
// near-pole arms cut and not, the zero arm), which the passes take in different loops
// (the lean ones, the careful ones, the teams' flagged terms): two decks that reach them
// all between them (checked, so that the test cannot lose a case unnoticed), with blocks
// of bands longer than a team's and an odd number of frequencies. Deck A puts e_lk among
// the empty bands with a wide gamma and a small sexcut (their near-pole and zero arms,
// and cuts); deck B keeps e_lk among the occupied bands, whose wx < 0 then reach every arm.
DeckParams deck_a() {
  DeckParams a = small_deck(260, 4, 300, 30);
  a.nstart = 1;
  a.nend = 3;
  a.gamma = 5;
  a.sexcut = 0.3;
  a.e_lk = 20;
  return a;
}

TEST(FastReference, EveryArmOfEveryKindOfBand) {
  measure::counts::ArmCounts reached;
  reached += expect_matches_literal(generate(deck_a()), "deck A");
  DeckParams b = small_deck(40, 9, 260, 16);
  b.nstart = 1;
  b.nend = 3;
  b.gamma = 3;
  b.sexcut = 0.5;
  reached += expect_matches_literal(generate(b), "deck B");
  using measure::counts::ArmCounts;
  for (int occupied = 0; occupied < 2; ++occupied)
    for (int negative = 0; negative < 2; ++negative)
      for (int arm = 0; arm < 3; ++arm)
        for (int cut = 0; cut < 2; ++cut) {
          // no cut without wx < 0 (the sexcut test's condition), nor of the zero arm (ssx = 0)
          const bool possible = !(cut && (negative == 0 || arm == 2));
          const long long n = reached.n[ArmCounts::index(occupied, negative, arm, cut)];
          if (possible) {
            EXPECT_GT(n, 0) << "occupied " << occupied << ", wx < 0 " << negative << ", arm " << arm << ", cut " << cut;
          } else {
            EXPECT_EQ(n, 0);
          }
        }
}

// The teams' pass counts an empty block's cuts from the stretch of bands where they lie,
// found by binary searches, where the block's wx^2 grow along its bands (it orders them by
// energy, and a deck's wx are e_lk + dw (iw - 2) - E_n: they do at every frequency), and
// term by term in a block where they do not. Deck A's wx at the second frequency, every
// third of its empty bands' moved away from 0 (still < 0), make such blocks: their cuts
// must still be the literal ones, and they change the arms (the test is not of an
// unchanged deck).
TEST(FastReference, EmptyBlocksOutOfOrderCountTheirCutsTermByTerm) {
  const InputDeck in = generate(deck_a());
  GppData<Kokkos::HostSpace> d = derive(in);
  std::vector<int> empty;
  for (int n = 0; n < d.nbands; ++n)
    if (d.occ_array(n) == 0.0 && d.wx_array_t(0, n) < 0.0 && d.wx_array_t(1, n) < 0.0) empty.push_back(n);
  ASSERT_GT(empty.size(), 100u);
  const measure::counts::ArmCounts before = measure::counts::arm_statistics(HostExec(), d);
  for (std::size_t k = 0; k < empty.size(); k += 3) {  // every third 1.3 times farther from 0
    const int n = empty[k];
    const double x = 1.3 * d.wx_array_t(1, n);
    d.wx_array_t(1, n) = x;
    d.wx_array_bt(n, 1) = x;
  }
  const measure::counts::ArmCounts after = expect_matches_literal(in, "shuffled wx", std::move(d));
  using measure::counts::ArmCounts;
  const int cut = ArmCounts::index(0, 1, 0, 1);  // empty, wx < 0, regular arm, cut
  EXPECT_GT(after.n[cut], 0);
  EXPECT_NE(after.n[cut], before.n[cut]);
}

// Terms outside the vector form's range go through the literal form: pairs with a huge
// plasmon-pole frequency or a huge I_eps (every term of their G chunks), a band with |wx|
// of 1e20 (all its terms), and wx = wtilde exactly (|wdiff| = 0: the one reciprocal is
// infinite; the literal division gives NaN, the zero arm). Each moves the sums, so a wrong
// fallback would show.
TEST(FastReference, TermsOutsideTheVectorFormTakeTheLiteralForm) {
  DeckParams p = small_deck(40, 9, 260, 16);
  p.nstart = 1;
  p.nend = 3;
  const InputDeck plain = generate(p);
  const auto wx = derive(plain).wx_array_t;
  struct Case {
    std::string what;
    std::function<void(InputDeck&)> perturb;
  };
  const std::vector<Case> cases = {
      {"huge wtilde",
       [&](InputDeck& in) {
         for (int igp = 0; igp < p.ngpown; ++igp)
           for (int ig = igp % 7; ig < p.ncouls; ig += 7) in.wtilde_array(ig, igp) *= 1e45;
       }},
      {"huge I_eps",
       [&](InputDeck& in) {
         for (int igp = 0; igp < p.ngpown; ++igp)
           for (int ig = igp % 5; ig < p.ncouls; ig += 9) in.I_eps_array(ig, igp) *= 1e60;
       }},
      {"huge wx", [&](InputDeck& in) { in.wfnkq_ekq[std::size_t(in.peinf_indext_dist[3] - 1)] = 1e20; }},
      {"wx = wtilde", [&](InputDeck& in) {
         for (int igp = 0; igp < p.ngpown; ++igp)
           for (int ig = igp % 5; ig < p.ncouls; ig += 11)
             in.wtilde_array(ig, igp) = complex_t(wx(1, ig % p.nbands), 0);
       }}};
  for (const Case& c : cases) {
    InputDeck in = plain;  // its Views are shared: the two perturbed ones are copies
    in.wtilde_array = HostComplexMatrix("wtilde", p.ncouls, p.ngpown);
    Kokkos::deep_copy(in.wtilde_array, plain.wtilde_array);
    in.I_eps_array = HostComplexMatrix("I_eps", p.ncouls, p.ngpown);
    Kokkos::deep_copy(in.I_eps_array, plain.I_eps_array);
    c.perturb(in);
    const SigmaResult before = literal_of(plain, derive(plain)).reference;
    EXPECT_FALSE(results_close(literal_of(in, derive(in)).reference, before, 1e-6)) << c.what << " changes nothing";
    expect_matches_literal(in, c.what);
  }

  // A regular term whose reciprocal overflows in the lean loop, which must flag it for
  // the literal form: an occupied band at wx = 8 against wtilde = -8 + i 1e-160, another
  // at wx = -4 against wtilde = 4 + i 1e-160 (exact squares), have cden = wx^2 - wtilde^2 =
  // 2 wx wtilde_i i (its real part 0 or wtilde_i^2, however its operations are ordered) and
  // |cden|^2 subnormal, so that their ssx, about 1e159 I_eps (cut where wx < 0), is well
  // defined in double arithmetic. No band sits at wx = wtilde_r, and the bands' other
  // frequency stays ordinary: nothing else in those chunks asks for the literal form.
  const auto occ = derive(plain).occ_array;
  std::vector<int> occupied;
  for (int n = 0; n < p.nbands && occupied.size() < 2; ++n)
    if (occ(n) != 0.0) occupied.push_back(n);
  ASSERT_EQ(occupied.size(), 2u) << "the deck needs two occupied bands";
  const double at[2] = {8.0, -4.0};  // wx of each at the first frequency; wtilde_r = -wx
  InputDeck in = plain;
  in.wtilde_array = HostComplexMatrix("wtilde", p.ncouls, p.ngpown);
  Kokkos::deep_copy(in.wtilde_array, plain.wtilde_array);
  for (int igp = 0; igp < p.ngpown; ++igp)
    for (int ig = igp % 3; ig < p.ncouls; ig += 13) in.wtilde_array(ig, igp) = complex_t(-at[igp % 2], 1e-160);
  GppData<Kokkos::HostSpace> host = derive(in);
  for (int j = 0; j < 2; ++j) {
    host.wx_array_t(0, occupied[j]) = at[j];
    host.wx_array_bt(occupied[j], 0) = at[j];
  }
  EXPECT_GT(std::abs(literal_of(in, host).reference.asxtemp[0]), 1e100) << "the terms at wx = 8 are not in the sums";
  expect_matches_literal(in, "|cden|^2 subnormal on the regular arm", host);
}

// A run in G' slices (for_each_slice over column_slice) adds up to the run in one launch:
// only the order of the sums differs.
TEST(FastReference, SlicesAddUpToTheWhole) {
  const SpaceData data(derive(generate(small_deck(24, 37, 150, 10))));
  for (const SpaceKind k : build_spaces()) {
    with_space(k, [&](auto space) {
      const auto& d = data.on(space);
      const session::ReferencePass whole = session::fast_reference(space, d);
      session::ReferencePass parts;
      // 37 columns at 10 s a column: 370 s, slices of about kSliceTarget, no narrower than
      // the space allows.
      double per_column = 10;
      std::vector<int> widths;
      const int launches = session::for_each_slice(space, d, per_column, true, [&](const auto& piece) {
        parts += session::fast_reference(space, piece);
        widths.push_back(piece.ngpown);
        return 10.0 * piece.ngpown;
      });
      int covered = 0;
      for (const int w : widths) covered += w;
      EXPECT_EQ(covered, d.ngpown);
      EXPECT_EQ(launches, int(widths.size()));
      const int min_width = k == SpaceKind::Host ? 4 * int(space.concurrency()) : 128;
      if (d.ngpown >= 2 * min_width) {
        EXPECT_GT(launches, 1) << to_string(k);
      }
      EXPECT_TRUE(results_close(SigmaResult{parts.sums.sch_sum, parts.sums.ssx_sum},
                                SigmaResult{whole.sums.sch_sum, whole.sums.ssx_sum}, 1e-14))
          << to_string(k);
      for (int i = 0; i < 24; ++i) EXPECT_EQ(parts.arms.n[i], whole.arms.n[i]);
    });
  }
}

// Work estimated below kSliceAbove is one launch; a warm-up's slices follow the rate it
// measures (here each slice reports a tenth of the estimate: the next ones widen).
TEST(FastReference, SlicesFollowTheMeasuredRate) {
  const SpaceData data(derive(generate(small_deck(8, 400, 400, 4))));
  with_space(SpaceKind::Host, [&](auto space) {
    const auto& d = data.on(space);
    double per_column = 0.01;  // 4 s in all
    EXPECT_EQ(session::for_each_slice(space, d, per_column, false, [](const auto&) { return 0.0; }), 1);
    per_column = 1;  // 400 s: slices of 10 columns, until the first reports 0.1 s a column
    std::vector<int> widths;
    session::for_each_slice(space, d, per_column, false, [&](const auto& piece) {
      widths.push_back(piece.ngpown);
      return 0.1 * piece.ngpown;
    });
    ASSERT_GE(widths.size(), 2u);
    const int min_width = std::min(400, 4 * int(space.concurrency()));
    EXPECT_EQ(widths.front(), std::max(10, min_width));
    EXPECT_GT(widths[1], widths.front());
  });
}

// ---- verification ------------------------------------------------------------------------

// The host policy's sums, perturbed by a relative amount (a wrong result of a given size).
double g_perturbation = 0;
SigmaSums perturbed_host(const HostExec& space, const DataFor<HostExec>& d, Tunables& t, RunMode mode) {
  SigmaSums s = find_policy("host").on_host(space, d, t, mode);
  for (auto& v : s.sch_sum) v *= 1 + g_perturbation;
  for (auto& v : s.ssx_sum) v *= 1 + g_perturbation;
  return s;
}

// A result wrong by 100 times the tolerance fails verification (exit 2, status "wrong");
// one off by a hundredth of it passes: verification is two-sided, at its tolerance.
TEST(Verification, AWrongResultFails) {
  session::Session s = session::make_session(small_deck(32, 24, 400, 12));
  session::prepare_reference(s, session::VerifyMode::Host, kDefaultRtol);
  ASSERT_EQ(s.target.against, "host reference");
  PolicyEntry wrong = find_policy("host");
  wrong.on_host = perturbed_host;
  for (const double f : {100.0, 0.01}) {
    g_perturbation = f * kDefaultRtol;
    const record::PolicyRun r = session::run_policy(s, wrong, SpaceKind::Host, Tunables{}, 2, 1);
    EXPECT_EQ(r.verified, f < 1) << f;
    EXPECT_EQ(r.status, f < 1 ? "ok" : "wrong") << f;
    EXPECT_GT(r.rel_error, 0.1 * g_perturbation);
  }
  g_perturbation = 0;
}

// What verification and the branch statistics cost beside the run they check: the
// reference pass (arms included) and a pass for the arms alone each take at most a few
// kernel runs of the host policy on the same space (docs/wall-time.md counts them; the
// long-double reference they replace took 33). Each is the least of
// five, in the process's CPU time (all its threads), so that other work on a busy
// machine does not decide; and the three are interleaved, so that a stretch of contention
// (a neighbour test sharing the cache, a core's sibling) falls on all three alike.
double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

TEST(Verification, CostsAboutOneRun) {
  session::Session s = session::make_session(small_deck(64, 48, 4096, 28));
  const PolicyEntry& host = find_policy("host");
  double reference_s = INFINITY, arms_s = INFINITY, run_s = INFINITY;
  const auto least = [](double& best, const auto& f) {
    const double t0 = cpu_seconds();
    f();
    best = std::min(best, cpu_seconds() - t0);
  };
  for (int i = 0; i < 5; ++i) {
    least(reference_s, [&] { session::prepare_reference(s, session::VerifyMode::Host, kDefaultRtol, true); });
    ASSERT_TRUE(s.arms.has_value());
    least(arms_s, [&] {
      s.arms.reset();
      session::prepare_reference(s, session::VerifyMode::None, kDefaultRtol, true);
    });
    session::prepare_reference(s, session::VerifyMode::Host, kDefaultRtol);
    record::PolicyRun r;
    least(run_s, [&] { r = session::run_policy(s, host, SpaceKind::Host, Tunables{}, 1, 0); });
    ASSERT_TRUE(r.verified);
  }
  EXPECT_GT(reference_s, 0);
#if defined(GPP_TEST_SANITIZED)
  // Under a sanitizer the ratio is the instrumentation's, not the code's: the asan preset's
  // reference pass took 4.5 runs of the host policy, where an optimised build's takes 2.2
  // to 2.6 (docs/lab/builds.md). The passes ran under it above, and were checked.
  GTEST_SKIP() << "the cost ratio is not measured under a sanitizer (reference " << reference_s << " s, arms " << arms_s
               << " s, kernel " << run_s << " s)";
#endif
  // At most what a run's warm-up and three repeats cost: a margin of two runs over what the
  // lab log measured (docs/lab/cpu-host.md), for a busy machine's noise. The literal
  // references it replaced took about 40.
  EXPECT_LE(reference_s, 4 * run_s + 0.02) << "kernel " << run_s << " s";
  EXPECT_LE(arms_s, 4 * run_s + 0.02) << "kernel " << run_s << " s";
}

// The device pass's teams fit the team scratch a block gets: on a CUDA device Kokkos leaves
// a 48 KB block 48 KB less (1024 + 2) doubles and an int64 for its team reductions, where
// 128 threads of four frequencies do not fit (the pass then takes fewer, in whole warps).
TEST(FastReference, TeamsFitTheScratchOfABlock) {
  const std::size_t cuda = 49152 - ((1024 + 2) * 8 + 8);
  for (const int nw : {1, 2, 3}) EXPECT_EQ(session::reference_team_size(nw, 128, cuda), 128) << nw;
  const int four = session::reference_team_size(4, 128, cuda);
  EXPECT_GE(four, 32);
  EXPECT_LT(four, 128);
  EXPECT_EQ(four % 32, 0);
  EXPECT_EQ(session::reference_team_size(4, 128, std::size_t(1) << 20), 128);
  EXPECT_EQ(session::reference_team_size(4, 2, std::size_t(1) << 20), 2);  // a host team, taken as it is
  EXPECT_EQ(session::reference_team_size(4, 128, 1000), 0);
  EXPECT_THROW(session::reference_team_size(5, 128, cuda), Error);
}

}  // namespace
}  // namespace gpp::test
