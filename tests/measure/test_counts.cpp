// The counted work of each policy (measure/gpp_counts.hpp) against hand counts of the
// spec's formulas, weighted by an independent classification of every term of a small
// non-uniform deck (std::complex, not the physics header).
#include "gpp_counts.hpp"
#include "gpp_fast_reference.hpp"
#include "gpp_diagnostics.hpp"
#include "gpp_test_util.hpp"

#include <algorithm>
#include <complex>
#include <map>

namespace gpp::test {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Counts.PerArmCostsMatchHandCounts");

namespace {

using measure::counts::Ops;

// Hand counts per term, from the source lines (A adds, M multiplies; complex*complex =
// 4M+2A, real*complex = 2M, |z|^2 = 2M+1A, Kokkos complex/complex = 4A+6M and 6 divides,
// a*conj(b)*(1/|b|^2) = 3A+8M and 1 reciprocal, abs = 2M+1A and a sqrt):
//  preamble: wtilde^2 (6) + Omega2 (6) + wxt-wtilde (1) + delw + delwr (3) + wdiffr (3)
//            = 19 + 10 = 29 flops, 6 divides (literal); 19 + 11 = 30, 1 reciprocal
//  regular:  sch (6) + cden = wxt^2 - wtilde2 (2) + Omega2/cden: 18 (+6 div) or 19 (+1 rcp)
//  near-pole: cden = 4 wtilde2 (delw + 0.5) (9) + Omega2*delw (6) + divide: 25 or 26
//  cutoff:   abs: 3 + 3 + 1 = 7 flops, 2 sqrt; squared: 3 + 1 + 3 + 1 = 8
//  weighting, per term (v0..v5): sch*mat (6) + occ*ssx (2) + *mat (6) + 0.5*vcoul (1)
//            + *s (2) + += (2) + vcoul*x (2) + += (2) = 23; v6..v8: 8 + 10 = 18
//  mat = conj(aqsm)*aqsn: 6, per (band, G', G) (v0..v4) or per term (v5..v8)
constexpr double kLiteralReg = 29 + 18 + 7 + 23, kLiteralNear = 29 + 25 + 7 + 23, kLiteralZero = 29 + 7 + 23;
static_assert(kLiteralReg == 77 && kLiteralNear == 84 && kLiteralZero == 59);
constexpr double kV1Reg = 79, kV1Near = 86, kV1Zero = 60;  // reciprocal: +1 (preamble), +1 (arm)
constexpr double kV3Reg = 80, kV3Near = 87, kV3Zero = 61;  // squared cutoff: 8 instead of 7
constexpr double kV6Reg = 30 + 19 + 8 + 18 + 6, kV6Near = 30 + 26 + 8 + 18 + 6, kV6Zero = 30 + 8 + 18 + 6;
// host, per term. Occupied band (tuned's partial fractions): dr, sr (2) + wdiffr, wsumr
// (4) + their product (1) + the near-pole test's |wtilde|^2/TOL_Zero (1) = 8, 1
// reciprocal. Regular: inv_wdiffr (1) + wx U (2) + wx U - V (2) + sch += (4) = 9; cutoff
// test if wx < 0: |Omega2|^2 R (1); Y if not cut: inv_wsumr (1) + wx U + V (2) + Y += (4)
// = 7, if cut: Y += (4). Near-pole (the pass after the band, tuned's near-pole arm with
// P = I_eps aqsn (6)): 18, 1 reciprocal; wx < 0: + 4; not cut: + 15 (as tuned's, below).
// Empty band: dr (1) + wdiffr (2) = 3, 1 reciprocal; regular adds U and V times the
// reciprocal (4) and added to their sums (4) = 8. Per (band, G', G), both kinds, without conj(aqsm): U = (wtilde I_eps) aqsn (6)
// + V = (|wtilde|^2 I_eps) aqsn (6) = 12. Per (G, G', band block): the pair rows, 32
// (wtilde^2 6, Omega2 6, wi2 1, |wtilde|^2 3, |Omega2|^2 3, sexcut^2 |I_eps|^2 4,
// threshold 1, wtilde I_eps 6, |wtilde|^2 I_eps 2). Per (band, G', G block, frequency):
// sch times conj(aqsm) 6; empty bands besides sch = wx sum(U ..) - sum(V ..) 4; occupied
// bands h (sch - Y) times conj(aqsm) 4 + 6.
// Passes (more frequencies than GPP_MAX_NW): v0..v4, tuned and host run ceil(nw /
// GPP_MAX_NW) passes, and what they compute once per (band, G', G) or per (G, G', band
// block) they compute once per pass; what is per term or per frequency does not change.
// tuned, per term (the regular arm computed for every term, added under masks; the arm
// and sexcut tests are comparisons with per-pair thresholds). Occupied: dr, sr (2)
// + wdiffr, wsumr (4) + their product (1) + inv_wdiffr, inv_wsumr (2) + conj(wdiff) U,
// conj(wsum) U (8) + sch += (4) + Y += the kept or dropped term (4) = 25, 1 reciprocal.
// Off the regular arm (deferred to the end of a run of bands: mat (6) + P (6) again): 12
// + dr (1) + wi2 (1) + wdiffr (2) + the zero arm's threshold |wtilde|^2/TOL_Zero (3) = 19;
// the zero arm stops there; near-pole: + a (2) + b (1) + half (1) + c_r (1) + |c|^2 (3) =
// 27, 1 reciprocal; wx < 0: + 4; not cut: num (4) + f*inv_c2 (1) + P*num (6) + Y -= (4) = 15.
// Empty: dr (1) + wdiffr (2) + conj(wdiff) mat (4) + sum += (4) = 11; the reciprocals per
// (band, G', G) and pass, the pass's frequencies in pairs: per pair |wdiff_0|^2 |wdiff_1|^2
// (1) and each reciprocal times the other |wdiff|^2 (2) = 3, 1 reciprocal; an odd count's
// first three together: two products (2), 1 reciprocal, times |wdiff_2|^2 (1) and three
// multiplies (3) = 6; a lone frequency 1 reciprocal (two frequencies: one pair; nine:
// passes of 3, 3, 3, three triples). Per
// (band, G', G): occupied mat (6) + U = WIw mat (6) + Im(wtilde) U (2) = 14, empty mat (6)
// + Im(wtilde) mat (2) = 8. Per (G, G', empty block, frequency): the sum times WIw, added
// to sch (8). Per (G, G', band block): occupied 21 (0.5 vcoul 1, wi2 1, |wtilde|^2 3,
// threshold 1, |I_eps|^2 3, sexcut^2 |I_eps|^2 2, |wtilde|^4 |I_eps|^2 2, Iw 2, wtilde Iw
// 6) and 1 divide, empty 14 (0.5 vcoul 1, wi2 1, |wtilde|^2 3, threshold 1, Iw 2, wtilde Iw
// 6). Per (G', occupied block, frequency): h (sch - Y) 4.
// Split blocks (occupied blocks without a wx < 0 in a pass of at most two frequencies): an
// occupied term c (2) + |cden|^2 (2) + the arm's threshold (2) + V = U conj(cden) (4) + R wx
// (1) + A += (4) + B += (4) = 19, 1 reciprocal, in place of 25; per (G, G', block) a (2) +
// b (2) + b^2 (1) + thr^2 (1) + 4 Re(wtilde) thr (2) = 8; per (G, G', run of at most 32
// bands, frequency) wtilde A added (8), per (G, G' group, run, frequency) sch and Y (8).
// Occupied blocks per occupation, never across two; the occupied bands' G' in groups of 2,
// the empty bands' in groups of 3 (ngpown padded up, the padding's terms computed but for
// its near-pole arms).

struct Term {
  bool occupied, wx_negative, cut;
  int arm;  // 0 regular, 1 near-pole, 2 zero
  int band;
};

// The spec's literal formulas (section 1), with std::complex.
std::vector<Term> classify(const GppData<Kokkos::HostSpace>& d) {
  std::vector<Term> terms;
  for (int ig = 0; ig < d.ncouls; ++ig)
    for (int igp = 0; igp < d.ngpown; ++igp)
      for (int n1 = 0; n1 < d.nbands; ++n1)
        for (int w = 0; w < d.nw; ++w) {
          const std::complex<double> wt(d.wtilde_array(ig, igp).real(), d.wtilde_array(ig, igp).imag());
          const std::complex<double> eps(d.I_eps_array(ig, igp).real(), d.I_eps_array(ig, igp).imag());
          const double wx = d.wx_array_t(w, n1);
          const std::complex<double> wdiff = wx - wt, delw = wt / wdiff, omega2 = wt * wt * eps;
          const double delwr = std::norm(delw), wdiffr = std::norm(wdiff);
          std::complex<double> ssx = 0;
          int arm = 2;
          if (wdiffr > d.limittwo && delwr < 1.0 / (4 * 1e-6)) {
            arm = 0;
            ssx = omega2 / (wx * wx - wt * wt);
          } else if (delwr > 1e-12) {
            arm = 1;
            ssx = -omega2 * delw / (4.0 * wt * wt * (delw + 0.5));
          }
          const bool cut = std::abs(ssx) > d.sexcut * std::abs(eps) && wx < 0;
          terms.push_back({d.occ_array(n1) != 0.0, wx < 0, cut, arm, n1});
        }
  return terms;
}

// The deck: 21 bands, 11 G' (tuned pads its G' groups of 2 and of 3), 70 G; "two": iw = 2..3 (one
// pass), "nine": iw = 1..9 (ceil(9 / GPP_MAX_NW) passes).
DeckParams fixture_deck(const std::string& which) {
  DeckParams p = small_deck(21, 11, 70, 8);
  if (which == "nine") {
    p.nstart = 1;
    p.nend = 9;
  }
  return p;
}

struct Fixture {
  explicit Fixture(const std::string& which) : params(fixture_deck(which)) {}
  DeckParams params;
  GppData<Kokkos::HostSpace> data = derive(generate(params));
  measure::counts::Shape shape = measure::counts::shape_of(data);
  measure::counts::ArmCounts arms = measure::counts::arm_statistics(HostExec(), data);
  std::vector<Term> terms = classify(data);
};
const Fixture& fixture(const std::string& which) {
  static std::map<std::string, Fixture*> cache;
  if (cache.empty())
    before_finalize().push_back([] {
      for (auto& [name, f] : cache) delete f;
      cache.clear();
    });
  Fixture*& f = cache[which];
  if (!f) f = new Fixture(which);
  return *f;
}
// The default deck, or one named by a literal: no std::string temporary at the call (GCC
// 13's -Wdangling-reference).
const Fixture& fixture(const char* which = "two") { return fixture(std::string(which)); }

// Passes a policy that reduces every frequency at once runs (the others: 1).
double hand_passes(const std::string& policy, int nw) {
  const bool in_passes = policy == "tuned" || policy == "host" || (policy[0] == 'v' && policy[1] < '5');
  return in_passes ? (nw + GPP_MAX_NW - 1) / GPP_MAX_NW : 1;
}

// tuned's empty bands: the pairs and triples of frequencies that share a reciprocal per
// (band, G', G), over the passes (ceil(nw / GPP_MAX_NW) of sizes within one of each
// other): a pass's frequencies in pairs, an odd count's first three (three or more)
// together.
struct HandShared {
  double pairs = 0, triples = 0;
};
HandShared hand_shared(int nw) {
  const int passes = (nw + GPP_MAX_NW - 1) / GPP_MAX_NW;
  HandShared r;
  for (int k = 0; k < passes; ++k) {
    const int count = nw / passes + (k < nw % passes ? 1 : 0);
    const int triple = count >= 3 && count % 2 == 1;
    r.triples += triple;
    r.pairs += (count - 3 * triple) / 2;
  }
  return r;
}

// tuned's split blocks (a deck of one pass of at most two frequencies): whether each band
// is in one, and how many there are, from the deck's occ and wx. Per occupation, its bands
// without a wx < 0 first (then the others, each in increasing order), in blocks of
// band_block; a block without a wx < 0 is split.
struct HandSplit {
  std::vector<bool> band;
  int blocks = 0;
};
HandSplit hand_split(const Fixture& f, int band_block) {
  HandSplit r;
  r.band.assign(f.data.nbands, false);
  if (f.data.nw > 2) return r;
  std::map<double, std::vector<int>> plain, negative;  // occupation: its bands
  for (int n = 0; n < f.data.nbands; ++n) {
    const double occ = f.data.occ_array(n);
    if (occ == 0.0) continue;
    bool any = false;
    for (int w = 0; w < f.data.nw; ++w) any = any || f.data.wx_array_t(w, n) < 0;
    (any ? negative : plain)[occ].push_back(n);
  }
  for (const auto& [occ, first] : plain) {
    std::vector<int> bands = first;
    const std::size_t n_plain = first.size();
    for (int n : negative[occ]) bands.push_back(n);
    for (std::size_t b = 0; b < bands.size(); b += band_block) {
      const std::size_t e = std::min(bands.size(), b + band_block);
      if (e > n_plain) continue;  // holds a band with a wx < 0
      ++r.blocks;
      for (std::size_t k = b; k < e; ++k) r.band[bands[k]] = true;
    }
  }
  return r;
}

// The host policy's split form (occ_form=split, its default): per pass (ceil(nw /
// GPP_MAX_NW), of sizes within one of each other), band block and pair of the pass's
// frequencies (an odd count's last alone), an occupied band's terms with wx >= 0 go to a run
// of the block's bands of the same frequencies and occupation, those with wx < 0 to a group
// of the whole form. The deck's blocks of 8 bands never fill a run of 32.
struct HandHostSplit {
  double whole_groups = 0, whole_frequencies = 0, run_bands = 0, run_band_frequencies = 0, runs = 0,
         run_frequencies = 0, run_blocks = 0;
};
HandHostSplit hand_host_split(const Fixture& f, int band_block) {
  HandHostSplit r;
  const int nw = f.data.nw, passes = (nw + GPP_MAX_NW - 1) / GPP_MAX_NW;
  for (int k = 0, first = 0; k < passes; ++k) {
    const int count = nw / passes + (k < nw % passes ? 1 : 0);
    for (int b0 = 0; b0 < f.data.nbands; b0 += band_block) {
      std::map<std::pair<std::vector<int>, double>, int> runs;  // (frequencies, occupation): bands
      for (int n = b0; n < std::min(f.data.nbands, b0 + band_block); ++n) {
        const double occ = f.data.occ_array(n);
        if (occ == 0.0) continue;
        for (int w0 = 0; w0 < count; w0 += 2) {
          std::vector<int> plus, minus;
          for (int w = w0; w < std::min(count, w0 + 2); ++w)
            (f.data.wx_array_t(first + w, n) < 0 ? minus : plus).push_back(w);
          if (!plus.empty()) ++runs[{plus, occ}];
          if (!minus.empty()) r.whole_groups += 1, r.whole_frequencies += double(minus.size());
        }
      }
      for (const auto& [key, bands] : runs) {
        r.runs += 1;
        r.run_bands += bands;
        r.run_band_frequencies += double(bands) * double(key.first.size());
        r.run_frequencies += double(key.first.size());
      }
      r.run_blocks += runs.empty() ? 0 : 1;
    }
    first += count;
  }
  return r;
}

// whole: the host policy with occ_form=whole (every occupied term in the fused form).
double hand_flops(const std::string& policy, const Fixture& f, int band_block, bool whole = false) {
  double total = 0;
  const HandSplit hs = hand_split(f, band_block);
  const std::vector<bool>& split = hs.band;
  for (const Term& t : f.terms) {
    const double per[3][3] = {{kLiteralReg, kLiteralNear, kLiteralZero},
                              {kV1Reg, kV1Near, kV1Zero},
                              {kV3Reg, kV3Near, kV3Zero}};
    if (policy == "v0-collapse3") total += per[0][t.arm];
    if (policy == "v1-reciprocal" || policy == "v2-branch2") total += per[1][t.arm];
    if (policy == "v3-noabs" || policy == "v4-collapse2" || policy == "v5-iw-outside") total += per[2][t.arm];
    if (policy == "v5-iw-outside") total += 6;
    if (policy == "v6-blocked" || policy == "v8-bounded") total += t.arm == 0 ? kV6Reg : t.arm == 1 ? kV6Near : kV6Zero;
    if (policy == "tuned") {
      if (t.occupied) {
        total += split[t.band] ? 19 : 25;
        if (t.arm == 1) total += 27 + (t.wx_negative ? 4 : 0) + (t.cut ? 0 : 15);
        if (t.arm == 2) total += 19;
      } else {
        total += 11;
      }
    }
    if (policy == "host") {
      // the whole form: occupied terms with wx < 0 (whole: every occupied term)
      const bool fused = t.occupied && (t.wx_negative || whole);
      if (fused && t.arm == 0) total += 8 + 9 + (t.wx_negative ? 1 : 0) + (t.cut ? 4 : 7);
      if (fused && t.arm == 1) total += 8 + 18 + (t.wx_negative ? 4 : 0) + (t.cut ? 0 : 15);
      if (fused && t.arm == 2) total += 8;
      // the split form: wx >= 0 (never cut); the near-pole pass tests the split arm again
      // (c, |cden|^2, the threshold: 6) and makes |wtilde|^2 / TOL_Zero (1)
      if (t.occupied && !t.wx_negative && !whole) total += 19 + (t.arm == 1 ? 6 + 1 + 18 + 15 : 0);
      if (!t.occupied) total += 3 + (t.arm == 0 ? 8 : 0);
    }
  }
  const double pairs = f.shape.nbands * f.shape.ngpown * f.shape.ncouls;
  const double passes = hand_passes(policy, f.data.nw);
  if (policy.rfind("v", 0) == 0 && policy != "v5-iw-outside" && policy[1] < '5') total += 6 * pairs * passes;
  if (policy == "tuned") {
    // occupied blocks per occupation, counted here from the deck's occ array
    std::map<double, int> groups;
    for (int n = 0; n < f.data.nbands; ++n)
      if (f.data.occ_array(n) != 0.0) ++groups[f.data.occ_array(n)];
    double occ_blocks = 0;
    for (const auto& g : groups) occ_blocks += (g.second + band_block - 1) / band_block;
    const int occ = int(f.shape.occupied_bands), empty = f.data.nbands - occ;
    const double empty_blocks = (empty + band_block - 1) / band_block;
    const double gp_empty = (f.data.ngpown + 2) / 3 * 3;  // G' groups of 3, padded
    const double gp_occ = (f.data.ngpown + 1) / 2 * 2;    // G' groups of 2, padded
    const double split_bands = double(std::count(split.begin(), split.end(), true));
    const double split_blocks = hs.blocks;
    const HandShared shared = hand_shared(f.data.nw);
    // (a deck with split blocks has one pass; their bands' mat and mat Im(wtilde^2), 8,
    // where U's band values take 14)
    total += (21 * f.shape.ncouls * gp_occ * occ_blocks + 14 * f.shape.ncouls * gp_empty * empty_blocks +
              14 * f.shape.ncouls * gp_occ * (occ - split_bands) + 8 * f.shape.ncouls * gp_occ * split_bands +
              8 * f.shape.ncouls * gp_empty * empty) *
                 passes +
             4 * gp_occ * occ_blocks * f.data.nw + 8 * f.shape.ncouls * gp_empty * empty_blocks * f.data.nw +
             // the padding's terms (its near-pole arms are not computed)
             (25 * (occ - split_bands) + 19 * split_bands) * (gp_occ - f.data.ngpown) * f.shape.ncouls * f.data.nw +
             // split blocks: per (G, G', block) 8; per (G, G', run) 6, per (G, G', run,
             // frequency) 26 (blocks of at most 32 bands: a run each)
             (8 + 6 + 26 * f.data.nw) * f.shape.ncouls * gp_occ * split_blocks +
             11 * (gp_empty - f.data.ngpown) * f.shape.ncouls * empty * f.data.nw +
             // the shared reciprocals' products, padding included
             (3 * shared.pairs + 6 * shared.triples) * f.shape.ncouls * gp_empty * empty;
  }
  if (policy == "host") {
    // the deck's 70 G: one G block of 1024; at most 4 frequencies a pass: one group of
    // empty bands a pass
    const double occ = f.shape.occupied_bands;
    const double band_blocks = (f.data.nbands + band_block - 1) / band_block;
    const double occ_pairs = occ * f.shape.ngpown * f.shape.ncouls, gg = f.shape.ncouls * f.shape.ngpown;
    if (whole)
      // U and V a (G, G', occupied band), U and Im(wtilde) U a (G, G', empty band); per
      // (band, G', G block, frequency) sch times conj(aqsm) 6, occupied bands' ssx 10
      return total +
             (32 * f.shape.ncouls * f.shape.ngpown * band_blocks + 12 * occ_pairs + 8 * (pairs - occ_pairs)) * passes +
             10 * occ * f.shape.ngpown * f.data.nw + 6 * f.data.nbands * f.shape.ngpown * f.data.nw;
    const HandHostSplit hs = hand_host_split(f, band_block);
    EXPECT_GT(hs.whole_groups, 0);
    EXPECT_GT(hs.runs, 0);
    // per (G, G', band block): the pair rows, and the split rows where the block has a run;
    // U and Im(wtilde) U a (G, G', empty band); U and V a (G, G', whole group); mat and mat
    // Im(wtilde^2) a (G, G', band of a run)
    total += 32 * gg * band_blocks * passes + 8 * gg * hs.run_blocks + 8 * (pairs - occ_pairs) * passes +
             12 * gg * hs.whole_groups + 8 * gg * hs.run_bands +
             // per (G, G', run, frequency) the fold (24)
             24 * gg * hs.run_frequencies +
             // per (band, G', G block, frequency): empty 6, whole 10 + 6, a band of a run 6;
             // per (run, G', G block, frequency) occ times ssx (2)
             6 * (f.data.nbands - occ) * f.shape.ngpown * f.data.nw + 16 * f.shape.ngpown * hs.whole_frequencies +
             6 * f.shape.ngpown * hs.run_band_frequencies + 2 * f.shape.ngpown * hs.run_frequencies;
  }
  return total;
}

// The literal classification against the arms the fast reference's pass counts (what
// runs print and the counts use), every bucket, on every space.
TEST(Counts, ClassificationMatchesTheFastReferencePass) {
  const Fixture& f = fixture();
  const SpaceData data(f.data);
  for (const SpaceKind k : build_spaces()) {
    const measure::counts::ArmCounts a =
        with_space(k, [&](auto space) { return session::fast_reference(space, data.on(space)).arms; });
    for (int i = 0; i < 24; ++i) EXPECT_EQ(a.n[i], f.arms.n[i]) << "bucket " << i << " on the " << to_string(k);
  }
  EXPECT_EQ(double(f.arms.total()), f.shape.updates());
  // The deck exercises every bucket the counts weight (else the test proves little).
  EXPECT_GT(f.arms.count(1, 1, 0, 1), 0);  // occupied, wx < 0, regular, cut
  EXPECT_GT(f.arms.count(1, 1, 0, 0), 0);
  EXPECT_GT(f.arms.count(0, -1, 0), 0);   // empty band, regular
  EXPECT_GT(f.arms.count(-1, -1, 1), 0);  // near-pole
  EXPECT_GT(f.shape.occupied_bands, 0);
  EXPECT_LT(f.shape.occupied_bands, f.shape.nbands);
}

TEST(Counts, OracleClassificationAgrees) {
  const Fixture& f = fixture();
  std::int64_t n[3] = {0, 0, 0}, cut = 0, occ = 0;
  for (const Term& t : f.terms) {
    ++n[t.arm];
    cut += t.cut;
    occ += t.occupied;
  }
  EXPECT_EQ(n[0], f.arms.count(-1, -1, 0));
  EXPECT_EQ(n[1], f.arms.count(-1, -1, 1));
  EXPECT_EQ(n[2], f.arms.count(-1, -1, 2));
  EXPECT_EQ(cut, f.arms.count(-1, -1, -1, 1));
  EXPECT_EQ(occ, f.arms.count(1));
}

TEST(Counts, PerArmCostsMatchHandCounts) {
  const measure::counts::SigmaTermCost lit = measure::counts::sigma_term_cost(false, false);
  EXPECT_EQ(lit.common, (Ops{11, 18, 6, 0}));
  EXPECT_EQ((lit.common + lit.regular + lit.cut_test).flops(), 29 + 18 + 7);
  EXPECT_EQ((lit.common + lit.regular + lit.cut_test).reciprocals, 12);
  EXPECT_EQ(lit.cut_test.sqrts, 2);
  const measure::counts::SigmaTermCost opt = measure::counts::sigma_term_cost(true, true);
  EXPECT_EQ((opt.common + opt.near_pole + opt.cut_test).flops(), 30 + 26 + 8);
  EXPECT_EQ((opt.common + opt.near_pole).reciprocals, 2);
  EXPECT_EQ(opt.cut_test.sqrts, 0);
  const measure::counts::FusedCost fu = measure::counts::fused_cost();
  EXPECT_EQ(fu.pair.flops(), 32);
  EXPECT_EQ(fu.occ_common.flops(), 8);
  EXPECT_EQ((fu.occ_common + fu.occ_regular + fu.occ_regular_cut + fu.occ_regular_ssx).flops(), 25);
  EXPECT_EQ((fu.occ_common + fu.occ_regular + fu.occ_regular_cut + fu.occ_regular_dropped).flops(), 22);
  EXPECT_EQ((fu.occ_common + fu.occ_near + fu.occ_near_cut + fu.occ_near_ssx).flops(), 45);
  EXPECT_EQ(fu.occ_common.reciprocals + fu.occ_near.reciprocals, 2);
  EXPECT_EQ(fu.band.flops(), 12);
  EXPECT_EQ(fu.block_occupied.flops(), 10);
  EXPECT_EQ(fu.block_band.flops(), 6);
  EXPECT_EQ(fu.band_empty.flops(), 8);
  EXPECT_EQ((fu.empty_common + fu.empty_regular).flops(), 11);
  const measure::counts::TunedCost tu = measure::counts::tuned_cost();
  EXPECT_EQ(tu.pair_occupied.flops(), 21);
  EXPECT_EQ(tu.pair_empty.flops(), 14);
  EXPECT_EQ(tu.band.flops(), 14);
  EXPECT_EQ(tu.band_empty.flops(), 8);
  EXPECT_EQ(tu.empty_fold.flops(), 8);
  EXPECT_EQ(tu.occ_term.flops(), 25);
  EXPECT_EQ(tu.occ_split.flops(), 19);
  EXPECT_EQ(tu.occ_split.reciprocals, 1);
  EXPECT_EQ(tu.pair_split.flops(), 8);
  EXPECT_EQ(tu.band_split.flops(), 8);
  EXPECT_EQ(tu.split_fold.flops(), 26);
  EXPECT_EQ(tu.split_run.flops(), 6);
  EXPECT_EQ(tu.occ_flagged.flops(), 19);
  EXPECT_EQ((tu.occ_flagged + tu.occ_near + tu.occ_near_cut + tu.occ_near_ssx).flops(), 46);
  EXPECT_EQ(tu.empty_term.flops(), 11);
  EXPECT_EQ(tu.block_occupied.flops(), 4);
  EXPECT_EQ(tu.empty_shared.flops(), 3);
  EXPECT_EQ(tu.occ_term.reciprocals + tu.occ_near.reciprocals + tu.empty_term.reciprocals, 2);
  EXPECT_EQ(tu.empty_shared.reciprocals, 1);
  EXPECT_EQ(tu.empty_single.reciprocals, 1);
  EXPECT_EQ(tu.empty_triple.flops(), 6);
  EXPECT_EQ(tu.empty_triple.reciprocals, 1);
  EXPECT_EQ(tu.pair_occupied.reciprocals, 1);
}

// The deck of the hand counts has occupied bands in tuned's split blocks and in the others
// (with a wx < 0), so that both counts are checked; nine frequencies (passes of three) have
// none.
TEST(Counts, TunedSplitBlocksInTheFixture) {
  const HandSplit two = hand_split(fixture("two"), 8);
  EXPECT_GT(two.blocks, 0);
  const Fixture& f = fixture("two");
  int occupied_plain = 0;
  for (int n = 0; n < f.data.nbands; ++n) occupied_plain += f.data.occ_array(n) != 0.0 && !two.band[n];
  EXPECT_GT(occupied_plain, 0);
  EXPECT_EQ(hand_split(fixture("nine"), 8).blocks, 0);
}

class PolicyCount : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
TEST_P(PolicyCount, MatchesHandCountOnSmallDeck) {
  const auto& [policy, deck] = GetParam();
  const Fixture& f = fixture(deck);
  Tunables t;
  t.band_block = 8;  // 21 bands: three blocks, the last one short
  const measure::counts::Work w = measure::counts::count_policy(policy, f.shape, f.arms, t);
  EXPECT_EQ(w.ops.flops(), hand_flops(policy, f, 8));
  if (policy == "host") {  // and the whole form
    t.params["occ_form"] = "whole";
    EXPECT_EQ(measure::counts::count_policy(policy, f.shape, f.arms, t).ops.flops(), hand_flops(policy, f, 8, true));
  }
  EXPECT_GT(w.ops.flops() / f.shape.updates(), 15);
  EXPECT_LT(w.ops.flops() / f.shape.updates(), measure::counts::kNominalFlopsPerUpdate);
  EXPECT_GT(w.fma_ratio_bound(), 0.3);
  EXPECT_LE(w.fma_ratio_bound(), 1.0);
}
INSTANTIATE_TEST_SUITE_P(Counts, PolicyCount,
                         ::testing::Combine(::testing::Values("v0-collapse3", "v1-reciprocal", "v2-branch2", "v3-noabs",
                                                              "v4-collapse2", "v5-iw-outside", "v6-blocked",
                                                              "v8-bounded", "tuned", "host"),
                                            ::testing::Values("two", "nine")),
                         [](const auto& info) {
                           std::string s = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                           for (char& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

// v4 and v5 differ only in where mat is computed: v4 once per (band, G', G) and pass,
// v5 once per term. Nine frequencies are ceil(9 / GPP_MAX_NW) passes.
TEST(Counts, MatOncePerPass) {
  const Fixture& f = fixture("nine");
  ASSERT_GT(f.data.nw, GPP_MAX_NW) << "the deck must need passes";
  const Tunables
      t{};  // {}: nvcc 11.8 warns (#811-D) on a const object of a class without a user-provided default constructor
  const double v5 = measure::counts::count_policy("v5-iw-outside", f.shape, f.arms, t).ops.flops();
  const double v4 = measure::counts::count_policy("v4-collapse2", f.shape, f.arms, t).ops.flops();
  const double pairs = 21.0 * 11 * 70, passes = (9 + GPP_MAX_NW - 1) / GPP_MAX_NW;
  EXPECT_EQ(v5 - v4, 6 * (21.0 * 11 * 70 * 9 - pairs * passes));
}

class Reciprocals : public ::testing::TestWithParam<std::string> {};
TEST_P(Reciprocals, PerForm) {
  const Fixture& f = fixture(GetParam());
  const double terms = f.shape.updates();
  const double reg = double(f.arms.count(-1, -1, 0)), near = double(f.arms.count(-1, -1, 1));
  Tunables t;
  EXPECT_EQ(measure::counts::count_policy("v0-collapse3", f.shape, f.arms, t).ops.reciprocals,
            6 * (terms + reg + near));
  EXPECT_EQ(measure::counts::count_policy("v0-collapse3", f.shape, f.arms, t).ops.sqrts, 2 * terms);
  EXPECT_EQ(measure::counts::count_policy("v3-noabs", f.shape, f.arms, t).ops.reciprocals, terms + reg + near);
  // fused: one per term (tuned: also the padding's terms of the G' groups, 3 G' for
  // empty bands and 2 for occupied ones, and one divide per (G, G', occupied block): the
  // sexcut threshold), one more per occupied near-pole term. The deck's 21 bands: one
  // block of 32 per occupation.
  const double padding =
      ((f.data.ngpown + 2) / 3 * 3 - f.data.ngpown) * double(f.shape.ncouls) *
          (f.data.nbands - f.shape.occupied_bands) * f.data.nw +
      ((f.data.ngpown + 1) / 2 * 2 - f.data.ngpown) * double(f.shape.ncouls) * f.shape.occupied_bands * f.data.nw;
  EXPECT_GT(padding, 0);  // 11 G': neither kernel's group divides them
  std::map<double, int> occupations;
  for (int n = 0; n < f.data.nbands; ++n)
    if (f.data.occ_array(n) != 0.0) ++occupations[f.data.occ_array(n)];
  EXPECT_EQ(occupations.size(), 2u);  // 1, and 0.5 at the Fermi level
  // the sexcut thresholds once per pass; the empty bands' pairs of frequencies share one,
  // and a triple one (padding included): one reciprocal fewer a pair, two a triple
  const HandShared hs = hand_shared(f.data.nw);
  const double shared = (hs.pairs + 2 * hs.triples) * f.shape.ncouls * ((f.data.ngpown + 2) / 3 * 3) *
                        (f.data.nbands - f.shape.occupied_bands);
  EXPECT_GT(shared, 0);
  EXPECT_EQ(measure::counts::count_policy("tuned", f.shape, f.arms, t).ops.reciprocals,
            terms + padding - shared + double(f.arms.count(1, -1, 1)) +
                f.shape.ncouls * ((f.data.ngpown + 1) / 2 * 2) * 2.0 * hand_passes("tuned", f.data.nw));
  EXPECT_EQ(measure::counts::count_policy("host", f.shape, f.arms, t).ops.reciprocals,
            terms + double(f.arms.count(1, -1, 1)));
}
INSTANTIATE_TEST_SUITE_P(Counts, Reciprocals, ::testing::Values("two", "nine"),
                         [](const auto& info) { return info.param; });

TEST(Counts, CompulsoryBytes) {
  const Fixture& f = fixture();
  // 16 (70*21 + 11*21 + 2*70*11) + 8 (2*21 + 21 + 11) + 2*16*2
  EXPECT_EQ(measure::counts::compulsory_bytes(f.shape), 16.0 * (1470 + 231 + 1540) + 8.0 * (42 + 21 + 11) + 64);
}

TEST(Counts, UnknownPolicy) {
  EXPECT_THROW(measure::counts::count_policy("v9", fixture().shape, fixture().arms, Tunables{}), Error);
}

}  // namespace
}  // namespace gpp::test
