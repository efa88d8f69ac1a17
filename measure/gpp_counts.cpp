// Counted work of each policy (gpp_counts.hpp). Every cost below is written as
// A(adds) + M(multiplies) from the source lines it counts; the conventions:
//   complex * complex = 4 M + 2 A, real * complex = 2 M, complex +- complex = 2 A,
//   real +- complex = 1 A (the other part is copied or negated), |z|^2 = 2 M + 1 A,
//   Kokkos' complex / complex (scaled by |re|+|im|) = 4 A + 6 M and 6 real divides,
//   a / b through one reciprocal (physics::divide_by_reciprocal) = 3 A + 8 M and 1 reciprocal,
//   abs(z) = 2 M + 1 A and 1 square root. Additions to a compile-time zero are folded.
#include "gpp_counts.hpp"

#include "gpp_mdrange.hpp"
#include "gpp_physics.hpp"
#include "gpp_reducer.hpp"
#include "gpp_host_shape.hpp"
#include "gpp_tuned_shape.hpp"

#include <algorithm>
#include <map>
#include <cmath>

namespace gpp::measure::counts {
namespace {

Ops ops(double adds, double muls, double recips = 0, double sqrts = 0) { return {adds, muls, recips, sqrts}; }

}  // namespace

SigmaTermCost sigma_term_cost(bool reciprocal, bool squared_cut) {
  SigmaTermCost c;
  // wtilde2 = wtilde*wtilde (4M 2A); Omega2 = wtilde2*I_eps (4M 2A); wdiff = wxt - wtilde (1A);
  // delw = wtilde/wdiff; delwr, wdiffr = |.|^2 (2M 1A each)
  c.common =
      reciprocal ? ops(2 + 2 + 1 + 3 + 1 + 1, 4 + 4 + 8 + 2 + 2, 1) : ops(2 + 2 + 1 + 4 + 1 + 1, 4 + 4 + 6 + 2 + 2, 6);
  // sch = delw*I_eps (4M 2A); cden = wxt*wxt - wtilde2 (1M 1A); ssx = Omega2/cden
  c.regular = reciprocal ? ops(2 + 1 + 3, 4 + 1 + 8, 1) : ops(2 + 1 + 4, 4 + 1 + 6, 6);
  // cden = 4*wtilde2*(delw + 0.5) (1A, 2M, 4M 2A); Omega2*delw (4M 2A); / cden
  c.near_pole = reciprocal ? ops(3 + 2 + 3, 6 + 4 + 8, 1) : ops(3 + 2 + 4, 6 + 4 + 6, 6);
  c.zero = Ops{};
  // |ssx|^2 > sexcut*sexcut*|I_eps|^2: 2M 1A, 1M, 2M 1A + 1M; or |ssx| > sexcut*|I_eps|: two abs, 1M
  c.cut_test = squared_cut ? ops(1 + 1, 2 + 1 + 2 + 1) : ops(1 + 1, 2 + 2 + 1, 0, 2);
  return c;
}

FusedCost fused_cost() {
  FusedCost f;
  // host.cpp's fill_pairs: wtilde^2 (4M 2A), Omega2 (4M 2A), wi2 (1M), |wtilde|^2 (2M 1A),
  // |Omega2|^2 (2M 1A), sexcut^2 |I_eps|^2 (3M 1A), the regular arm's threshold (1M),
  // wtilde I_eps (4M 2A), |wtilde|^2 I_eps (2M)
  f.pair = ops(2 + 2 + 1 + 1 + 1 + 2, 4 + 4 + 1 + 2 + 2 + 3 + 1 + 4 + 2);
  // tuned's partial fractions in occupied bands, without the band's factor conj(aqsm)
  // (block_band): U = (wtilde I_eps) aqsn (4M 2A), V = (|wtilde|^2 I_eps) aqsn (4M 2A)
  f.band = ops(2 + 2, 4 + 4);
  // empty bands: U (4M 2A), Im(wtilde) U (2M)
  f.band_empty = ops(2, 4 + 2);
  // dr, sr (2A); wdiffr, wsumr (2M 2A); R = 1/(wdiffr*wsumr) (1M, 1 reciprocal); the
  // near-pole test's |wtilde|^2/TOL_Zero (1M)
  f.occ_common = ops(2 + 2, 2 + 1 + 1, 1);
  // inv_wdiffr = R*wsumr (1M); wx U (2M); wx U - V (2A); sch += inv_wdiffr*(..) (2M 2A)
  f.occ_regular = ops(2 + 2, 1 + 2 + 2);
  // |Omega2|^2 * R (1M) > sexcut2*|I_eps|^2 (both per G)
  f.occ_regular_cut = ops(0, 1);
  // not cut: inv_wsumr = R*wdiffr (1M); wx U + V (2A); Y += inv_wsumr*(..) (2M 2A)
  f.occ_regular_ssx = ops(2 + 2, 1 + 2);
  // cut: Y += inv_wdiffr*(wx U - V) (2M 2A)
  f.occ_regular_dropped = ops(2, 2);
  // the near-pole pass (host.cpp: near_pole_pass, near_pole_pass_avx512) is tuned's
  // physics::near_pole_term, with P = I_eps aqsn (4M 2A; both passes make it once for a
  // flagged G's frequencies, counted for each): dr (1A); wi2 (1M); wdiffr (1M 1A); a (1M 1A); b
  // (1M); |wdiff|^2/2 (1M); c_r (1A); |c|^2 (2M 1A), 1 reciprocal
  f.occ_near = ops(2 + 1 + 1 + 1 + 1 + 1, 4 + 1 + 1 + 1 + 1 + 1 + 2, 1);
  // |a + ib|^2 (2M 1A) * inv_c2 (1M) against 16 sexcut^2
  f.occ_near_cut = ops(1, 3);
  // num = (a c_r + b^2, b half) (3M 1A); f*inv_c2 (1M); P*num (4M 2A); ssx += (2M 2A)
  f.occ_near_ssx = ops(1 + 2 + 2, 3 + 1 + 4 + 2);
  // per (occupied band, G', G block, frequency): ssx*mat sums = h (sch - Y) (2A 2M), times
  // conj(aqsm) (4M 2A)
  f.block_occupied = ops(2 + 2, 2 + 4);
  // per (band, G', G block, frequency): the sch*mat sums times conj(aqsm) (4M 2A)
  f.block_band = ops(2, 4);
  // dr (1A); wdiffr (1M 1A); 1/wdiffr (1 reciprocal: where a group shares one division,
  // as for occupied bands' pairs, still counted one a term)
  f.empty_common = ops(1 + 1, 1, 1);
  // U conj(wdiff) = dr U + i Im(wtilde) U (2M 2A), times inv_wdiffr and added (2M 2A)
  f.empty_regular = ops(4, 4);
  // host.cpp's occupied_split (as tuned's physics::pair_split and occupied_band_split): the
  // rows Re(wtilde^2) (1M 1A), Im(wtilde^2) (2M), its square (1M), thr^2 (1M), 4 Re(wtilde)
  // thr (2M)
  f.split_pair = ops(1, 1 + 2 + 1 + 1 + 2);
  // mat = conj(aqsm) aqsn (4M 2A), mat Im(wtilde^2) (2M)
  f.split_band = ops(2, 4 + 2);
  // c = wx^2 - Re(wtilde^2) (1M 1A); |cden|^2 (1M 1A), 1 reciprocal; the regular arm's
  // threshold (1M 1A); V = mat conj(cden) (2M 2A); R wx (1M); A += R V (2M 2A); B += R wx V
  // (2M 2A)
  f.split_term = ops(1 + 1 + 1 + 2 + 2 + 2, 1 + 1 + 1 + 2 + 1 + 2 + 2, 1);
  // near_pole_pass<Split>: c, |cden|^2 and the threshold again (3M 3A), |wtilde|^2 /
  // TOL_Zero (1M: occ_common's, which a split term does not take)
  f.split_near = ops(3, 3 + 1);
  // wtilde A (4M 2A); B + wtilde A (2A), times WIw (4M 2A), added to sch (2A); WIw wtilde A
  // (4M 2A), added to ssx (2A)
  f.split_fold = ops(2 + 2 + 2 + 2 + 2 + 2, 4 + 4 + 4);
  // occ times ssx's sum (2M)
  f.split_run_block = ops(0, 2);
  // the near-pole sums times conj(aqsm) (4M 2A)
  f.split_band_block = ops(2, 4);
  return f;
}

TunedCost tuned_cost() {
  TunedCost c;
  // 0.5 vcoul (1M); wi2 (1M); |wtilde|^2 (2M 1A); the regular arm's threshold
  // |wtilde|^2/limitone (1M, a constant reciprocal); |I_eps|^2 (2M 1A); sexcut^2 (1M)
  // * |I_eps|^2 (1M); |wtilde|^4 (1M) * |I_eps|^2 (1M); thrc, their quotient (1 divide);
  // Iw = weight*I_eps (2M); WIw = wtilde Iw (4M 2A)
  c.pair_occupied = ops(1 + 1 + 2, 1 + 1 + 2 + 1 + 2 + 1 + 1 + 1 + 1 + 2 + 4, 1);
  // 0.5 vcoul (1M), wi2 (1M), |wtilde|^2 (2M 1A), the regular threshold (1M), Iw (2M),
  // WIw = wtilde Iw (4M 2A)
  c.pair_empty = ops(1 + 2, 1 + 1 + 2 + 1 + 2 + 4);
  // occupied bands (physics::band_terms): mat = conj(aqsm)*aqsn (4M 2A); U = WIw*mat
  // (4M 2A); wiU = Im(wtilde) U (2M)
  c.band = ops(2 + 2, 4 + 4 + 2);
  // empty bands (physics::empty_band_unweighted): mat (4M 2A), Im(wtilde) mat (2M)
  c.band_empty = ops(2, 4 + 2);
  // the empty kernel's sums of a (G, G', block, frequency) times WIw, added (4M 4A)
  c.empty_fold = ops(2 + 2, 4);
  // dr, sr (2A); wdiffr, wsumr (2M 2A); wdiffr*wsumr (1M), 1 reciprocal; inv_wdiffr,
  // inv_wsumr (2M); conj(wdiff) U = dr U + i wiU and conj(wsum) U = sr U - i wiU (4M 4A);
  // sch += s*(..) (2M 2A); Y += y*(..) (2M 2A: the kept or the dropped term, selected). The
  // arm and sexcut tests compare with thresholds.
  c.occ_term = ops(2 + 2 + 4 + 2 + 2, 2 + 1 + 2 + 4 + 2 + 2, 1);
  // every term off the regular arm (near-pole or zero arm) is deferred to the end of a
  // run of bands (physics::occupied_band), so mat (4M 2A) and P = Iw*mat (4M 2A) again;
  // dr (1A); wi2 (1M); wdiffr (1M 1A); the zero arm's threshold |wtilde|^2/TOL_Zero (2M
  // 1A, a constant reciprocal)
  c.occ_flagged = ops(2 + 2 + 1 + 1 + 1, 4 + 4 + 1 + 1 + 2);
  // near-pole arm: a (1M 1A); b (1M); |wdiff|^2/2 (1M); c_r (1A); |c|^2 (2M 1A), 1
  // reciprocal
  c.occ_near = ops(1 + 1 + 1, 1 + 1 + 1 + 2, 1);
  // |a + ib|^2 (2M 1A) * inv_c2 (1M) against 16 sexcut^2
  c.occ_near_cut = ops(1, 3);
  // num = (a c_r + b^2, b half) (3M 1A); f*inv_c2 (1M); P*num (4M 2A); Y -= (2M 2A)
  c.occ_near_ssx = ops(1 + 2 + 2, 3 + 1 + 4 + 2);
  // dr (1A); wdiffr (1M 1A); conj(wdiff) U (2M 2A); sch += (2M 2A). The test whether a
  // pair's terms are regular over a whole block (physics::empty_block_shared, per G', G,
  // block and frequency: 1/32 of a band's operations) is not counted, as the host policy's
  // block bounds are not.
  c.empty_term = ops(1 + 1 + 2 + 2, 1 + 2 + 2);
  // the reciprocals, as the loop without the arm's test takes them (every empty block of
  // si214, si510 and the mini-app deck; the tested loop takes one a term): a pass's
  // frequencies in pairs, |wdiff_0|^2 |wdiff_1|^2 (1M), 1 reciprocal, times each other
  // |wdiff|^2 (2M) (physics::empty_band_unweighted_shared); one frequency alone its own
  c.empty_shared = ops(0, 1 + 2, 1);
  // an odd count's first three (three or more): |wdiff_0|^2 |wdiff_1|^2 (1M), times
  // |wdiff_2|^2 (1M), 1 reciprocal, times |wdiff_2|^2 (1M), then three multiplies (3M)
  c.empty_triple = ops(0, 1 + 1 + 1 + 3, 1);
  c.empty_single = ops(0, 0, 1);
  // h (sch - Y) (2A 2M)
  c.block_occupied = ops(2, 2);
  // split blocks (physics::pair_split, occupied_band_split): Re(wtilde^2) (1M 1A),
  // Im(wtilde^2) (2M), its square (1M), thr^2 (1M), 4 Re(wtilde) thr (2M)
  c.pair_split = ops(1, 1 + 2 + 1 + 1 + 2);
  // a split block's band: mat (4M 2A), mat Im(wtilde^2) (2M); no U (WIw is applied at the
  // fold)
  c.band_split = ops(2, 4 + 2);
  // c = wx^2 - Re(wtilde^2) (1M 1A); |cden|^2 (1M 1A), 1 reciprocal; the regular arm's
  // threshold t2 + t4r wx (1M 1A); V = mat conj(cden) (2M 2A); R wx (1M); A' += R V (2M
  // 2A); B' += R wx V (2M 2A)
  c.occ_split = ops(1 + 1 + 1 + 2 + 2 + 2, 1 + 1 + 1 + 2 + 1 + 2 + 2, 1);
  // wtilde A' (4M 2A); B' + wtilde A' and B' - wtilde A' (4A), each times WIw (8M 4A) and
  // added to sch and Y (4A)
  c.split_fold = ops(2 + 4 + 4 + 4, 4 + 8);
  // WIw = wtilde Iw from the pair's slots (4M 2A)
  c.split_run = ops(2, 4);
  return c;
}

namespace {
// tuned's split blocks of one pass (tuned.cpp: band_blocks, TunedBody::bands): per
// occupation, its bands whose every wx in the pass is >= 0 first, in blocks of band_block
// bands; a block of those bands alone is split. Bands and runs of kOccupiedRun bands.
struct SplitBlocks {
  double bands = 0, blocks = 0, runs = 0;
};
SplitBlocks split_blocks(const Shape& s, const FrequencyPass& p, const int band_block) {
  SplitBlocks r;
  if (p.count > tuned_shape::kSplitMaxNw) return r;
  const int nw = int(s.nw);
  std::map<double, std::pair<int, int>> groups;  // occupation: (bands without a wx < 0, with)
  for (std::size_t k = 0; k < s.occupied_occ.size(); ++k) {
    bool negative = false;
    for (int w = p.first; w < p.first + p.count; ++w) negative = negative || s.occupied_negative[k * nw + w] != 0;
    auto& g = groups[s.occupied_occ[k]];
    (negative ? g.second : g.first) += 1;
  }
  const auto add_block = [&](const int bands) {
    r.bands += bands;
    r.blocks += 1;
    r.runs += (bands + tuned_shape::kOccupiedRun - 1) / tuned_shape::kOccupiedRun;
  };
  for (const auto& [occ, g] : groups) {
    const int plain = g.first, whole = plain / band_block;
    for (int b = 0; b < whole; ++b) add_block(band_block);
    if (g.second == 0 && plain % band_block != 0) add_block(plain % band_block);
  }
  return r;
}
}  // namespace

std::int64_t ArmCounts::count(int occupied, int wx_negative, int arm, int cut) const {
  std::int64_t s = 0;
  for (int o = 0; o < 2; ++o)
    for (int x = 0; x < 2; ++x)
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 2; ++c)
          if ((occupied < 0 || o == occupied) && (wx_negative < 0 || x == wx_negative) && (arm < 0 || a == arm) &&
              (cut < 0 || c == cut))
            s += n[index(o, x, a, c)];
  return s;
}

BranchCounts ArmCounts::branches() const {
  BranchCounts b;
  b.regular = count(-1, -1, physics::kRegular);
  b.near_pole = count(-1, -1, physics::kNearPole);
  b.zero = count(-1, -1, physics::kZero);
  b.cut = count(-1, -1, -1, 1);
  return b;
}

template <class ExecSpace>
ArmCounts arm_statistics(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d) {
  Tunables tile;
  compat::ScopedRegion region("gpp::diagnostics::arms");
  const auto I_eps_array = d.I_eps_array;
  const auto wtilde_array = d.wtilde_array;
  const auto wx_array_t = d.wx_array_t;
  const auto occ_array = d.occ_array;
  const double limittwo = d.limittwo, sexcut = d.sexcut;
  const int nbands = d.nbands, nw = d.nw;
  ArmCounts counts;
  Kokkos::parallel_reduce(
      "gpp::diagnostics::arm_counts", make_mdrange<2>(space, {d.ncouls, d.ngpown}, tile),
      KOKKOS_LAMBDA(const int ig, const int igp, ArmCounts& c) {
        const complex_t wtilde = wtilde_array(ig, igp);
        const complex_t I_eps = I_eps_array(ig, igp);
        for (int n1 = 0; n1 < nbands; ++n1) {
          const int occupied = occ_array(n1) != 0.0;
          for (int w = 0; w < nw; ++w) {
            complex_t sch, ssx;
            int branch;
            bool cut;
            const double wx = wx_array_t(w, n1);
            physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wx, limittwo, sexcut, sch, ssx, branch, cut);
            c.n[ArmCounts::index(occupied, wx < 0.0, branch, cut)] += 1;
          }
        }
      },
      PlusReducer<ArmCounts>(counts));
  return counts;
}

template ArmCounts arm_statistics(const HostExec&, const GppData<HostExec::memory_space>&);
#if GPP_HAS_DEVICE_SPACE
template ArmCounts arm_statistics(const DeviceExec&, const GppData<DeviceExec::memory_space>&);
#endif

template <class MemorySpace>
Shape shape_of(const GppData<MemorySpace>& d) {
  Shape s{double(d.nbands), double(d.ngpown), double(d.ncouls), double(d.nw), 0, {}, {}, {}, {}};
  auto occ = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.occ_array);
  auto wx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.wx_array_t);
  std::map<double, int> groups;
  for (int n = 0; n < d.nbands; ++n)
    if (occ(n) != 0.0) {
      ++groups[occ(n)];
      s.occupied_occ.push_back(occ(n));
      s.occupied_index.push_back(n);
      for (int w = 0; w < d.nw; ++w) s.occupied_negative.push_back(wx(w, n) < 0.0 ? 1 : 0);
    }
  for (const auto& g : groups) {
    s.occupied_bands += g.second;
    s.occupation_groups.push_back(g.second);
  }
  return s;
}
template Shape shape_of(const GppData<Kokkos::HostSpace>&);
#if GPP_HAS_DEVICE_SPACE
template Shape shape_of(const GppData<DeviceExec::memory_space>&);
#endif

double Work::fma_ratio_bound() const {
  const double fma = std::min(ops.adds, ops.muls);
  return ops.flops() > 0 ? fma / (ops.flops() - fma) : 0;
}

double compulsory_bytes(const Shape& s) {
  const double z = 16, r = 8;           // complex and real doubles
  return z * s.ncouls * s.nbands        // aqsntemp
         + z * s.ngpown * s.nbands      // aqsmtemp_local
         + 2 * z * s.ncouls * s.ngpown  // I_eps_array, wtilde_array
         + r * s.nw * s.nbands          // wx_array_t
         + r * s.nbands                 // occ_array
         + r * s.ngpown                 // vcoul_loc
         + 2 * z * s.nw;                // achtemp, asxtemp written
}

Work count_policy(const std::string& policy, const Shape& s, const ArmCounts& arms, const Tunables& t) {
  const double terms = s.updates();
  const double band_pairs = s.nbands * s.ngpown * s.ncouls;  // (band, G', G)
  // A policy that reduces every frequency in one pass runs a deck of more than its
  // max_nw in passes (PolicyEntry::run): what it computes outside its frequency loop,
  // per (band, G', G) or per (G, G', band block), it computes once per pass.
  const std::vector<FrequencyPass> passes = frequency_passes(int(s.nw), find_policy(policy).max_nw);
  const double npasses = double(passes.size());
  const Ops mat = ops(2, 4);
  Work w;
  w.bytes_compulsory = compulsory_bytes(s);
  auto add = [&](const Ops& o, double n) { w.ops += o * n; };
  const auto literal_form = [&](bool reciprocal, bool squared) {
    const SigmaTermCost c = sigma_term_cost(reciprocal, squared);
    const double reg = double(arms.count(-1, -1, physics::kRegular));
    const double near = double(arms.count(-1, -1, physics::kNearPole));
    add(c.common, terms);
    add(c.regular, reg);
    add(c.near_pole, near);
    add(c.cut_test, terms);
  };
  if (policy == "v0-collapse3" || policy == "v1-reciprocal" || policy == "v2-branch2" || policy == "v3-noabs" ||
      policy == "v4-collapse2" || policy == "v5-iw-outside") {
    literal_form(policy != "v0-collapse3",
                 policy != "v0-collapse3" && policy != "v1-reciprocal" && policy != "v2-branch2");
    add(ops(8, 15), terms);  // add_weighted_term: band_term into zeros (10M 4A), G' factor (5M 4A)
    // matngmatmgp: once per (band, G', G) outside the frequency loop (once per pass),
    // but once per frequency where the kernel runs one frequency (v5)
    add(mat, policy == "v5-iw-outside" ? terms : band_pairs * npasses);
  } else if (policy == "v6-blocked" || policy == "v7-swapped" || policy == "v8-bounded") {
    literal_form(true, true);
    add(ops(8, 10), terms);  // band_term accumulating: (4M 2A + 2A) + (6M 2A + 2A)
    add(mat, terms);         // one kernel per frequency
  } else if (policy == "tuned") {
    const TunedCost c = tuned_cost();
    const double band_block = or_default(t.band_block, tuned_shape::kDefaultBandBlock);
    const double occupied = s.occupied_bands, empty = s.nbands - s.occupied_bands;
    // G' padded to whole groups per kernel (the padding's terms are computed, weight 0)
    const auto padded = [&](int k) { return std::ceil(double(s.ngpown) / k) * k; };
    const double gp_occ = padded(tuned_shape::kOccupiedGp), gp_empty = padded(tuned_shape::kEmptyGp);
    // occupied blocks never hold two occupations (tuned.cpp: band_blocks)
    double occupied_blocks = 0;
    for (const int g : s.occupation_groups) occupied_blocks += std::ceil(g / band_block);
    add(c.pair_occupied, s.ncouls * gp_occ * occupied_blocks * npasses);
    add(c.pair_empty, s.ncouls * gp_empty * std::ceil(empty / band_block) * npasses);
    add(c.band_empty, s.ncouls * gp_empty * empty * npasses);
    add(c.empty_fold, s.ncouls * gp_empty * std::ceil(empty / band_block) * s.nw);
    add(c.block_occupied, gp_occ * occupied_blocks * s.nw);
    const double pad_occ = gp_occ / s.ngpown, pad_empty = gp_empty / s.ngpown;
    // per (G, G'): the split blocks' bands, terms, blocks, runs, and runs times frequencies
    double split_bands = 0, split_terms = 0, split_block_count = 0, split_runs = 0, split_run_frequencies = 0;
    for (const FrequencyPass& p : passes) {
      const SplitBlocks sb = split_blocks(s, p, int(band_block));
      split_bands += sb.bands;
      split_terms += sb.bands * p.count;
      split_block_count += sb.blocks;
      split_runs += sb.runs;
      split_run_frequencies += sb.runs * p.count;
    }
    add(c.band, s.ncouls * gp_occ * (occupied * npasses - split_bands));
    add(c.band_split, s.ncouls * gp_occ * split_bands);
    add(c.occ_term, double(arms.count(1)) * pad_occ - split_terms * s.ncouls * gp_occ);
    add(c.occ_split, split_terms * s.ncouls * gp_occ);
    add(c.pair_split, split_block_count * s.ncouls * gp_occ);
    add(c.split_fold, split_run_frequencies * s.ncouls * gp_occ);
    add(c.split_run, split_runs * s.ncouls * gp_occ);
    add(c.occ_flagged, double(arms.count(1, -1, physics::kNearPole) + arms.count(1, -1, physics::kZero)));
    add(c.occ_near, double(arms.count(1, -1, physics::kNearPole)));
    add(c.occ_near_cut, double(arms.count(1, 1, physics::kNearPole)));
    add(c.occ_near_ssx, double(arms.count(1, -1, physics::kNearPole, 0)));
    const double empty_terms = double(arms.count(0)) * pad_empty;
    add(c.empty_term, empty_terms);
    // per (empty band, G', G): a pass's frequencies in pairs, an odd count's first three
    // (three or more) together
    double pairs = 0, triples = 0;
    for (const FrequencyPass& p : passes) {
      const int triple = p.count >= 3 && p.count % 2 == 1 ? 1 : 0;
      triples += triple;
      pairs += (p.count - 3 * triple) / 2;
    }
    add(c.empty_shared, empty_terms * pairs / s.nw);
    add(c.empty_triple, empty_terms * triples / s.nw);
    add(c.empty_single, empty_terms * (s.nw - 2 * pairs - 3 * triples) / s.nw);
  } else if (policy == "host") {
    const FusedCost f = fused_cost();
    const int band_block = or_default(t.band_block, host_shape::kDefaultBandBlock);
    const double blocks = std::ceil(s.nbands / band_block);
    const int ig_block = or_default(t.ig_block, host_shape::kDefaultIgBlock);
    const double ig_blocks = std::ceil(s.ncouls / ig_block);
    const auto form = t.params.find("occ_form");
    const bool split = (form != t.params.end() ? form->second : std::string(tuning_defaults::kHostOccForm)) == "split";
    // U and V (Im(wtilde) U) once per group of at most 4 frequencies of a pass (host.cpp's
    // kMaxGroup, the frequencies of one vector loop): once per pass where GPP_MAX_NW <= 4
    double groups = 0;
    for (const FrequencyPass& p : passes) groups += std::ceil(p.count / 4.0);
    add(f.pair, s.ncouls * s.ngpown * blocks * npasses);
    const double occupied_pairs = double(s.occupied_bands) * s.ngpown * s.ncouls;
    add(f.band_empty, (band_pairs - occupied_pairs) * groups);
    add(f.block_band, (s.nbands - s.occupied_bands) * s.ngpown * ig_blocks * s.nw);
    // the terms of the whole form: every occupied term, or (split) those with a wx < 0
    const int whole = split ? 1 : -1;
    add(f.occ_common, double(split ? arms.count(1, 1) : arms.count(1)));
    add(f.occ_regular, double(arms.count(1, whole, physics::kRegular)));
    add(f.occ_regular_cut, double(arms.count(1, 1, physics::kRegular)));
    add(f.occ_regular_ssx, double(arms.count(1, whole, physics::kRegular, 0)));
    add(f.occ_regular_dropped, double(arms.count(1, whole, physics::kRegular, 1)));
    add(f.occ_near, double(arms.count(1, -1, physics::kNearPole)));
    add(f.occ_near_cut, double(arms.count(1, 1, physics::kNearPole)));
    add(f.occ_near_ssx, double(arms.count(1, -1, physics::kNearPole, 0)));
    if (!split) {
      add(f.band, occupied_pairs * groups);
      add(f.block_occupied, s.occupied_bands * s.ngpown * ig_blocks * s.nw);
      add(f.block_band, s.occupied_bands * s.ngpown * ig_blocks * s.nw);
    } else {
      add(f.split_term, double(arms.count(1, 0)));
      add(f.split_near, double(arms.count(1, 0, physics::kNearPole)));
      // the plan of each band block and pass (host.cpp: split_block)
      std::map<int, std::size_t> index;  // band: its place among the occupied bands
      for (std::size_t k = 0; k < s.occupied_index.size(); ++k) index[s.occupied_index[k]] = k;
      const int nw = int(s.nw), nbands = int(s.nbands);
      double whole_groups = 0, whole_frequencies = 0, run_bands = 0, run_band_frequencies = 0, run_frequencies = 0,
             run_blocks = 0;
      for (const FrequencyPass& p : passes)
        for (int nb0 = 0; nb0 < nbands; nb0 += band_block) {
          const host_shape::SplitPlan plan = host_shape::split_plan(
              nb0, std::min(nb0 + band_block, nbands), p.count,
              [&](const int n) {
                const auto it = index.find(n);
                return it == index.end() ? 0.0 : s.occupied_occ[it->second];
              },
              [&](const int n, const int w) { return s.occupied_negative[index.at(n) * nw + p.first + w] != 0; });
          for (const host_shape::WholeGroup& g : plan.whole) whole_groups += 1, whole_frequencies += g.nw;
          for (const host_shape::SplitRun& r : plan.runs) {
            run_bands += r.size;
            run_band_frequencies += double(r.size) * r.nw;
            run_frequencies += r.nw;
          }
          run_blocks += plan.runs.empty() ? 0 : 1;
        }
      add(f.band, s.ncouls * s.ngpown * whole_groups);
      add(f.block_occupied, s.ngpown * ig_blocks * whole_frequencies);
      add(f.block_band, s.ngpown * ig_blocks * whole_frequencies);
      add(f.split_pair, s.ncouls * s.ngpown * run_blocks);
      add(f.split_band, s.ncouls * s.ngpown * run_bands);
      add(f.split_fold, s.ncouls * s.ngpown * run_frequencies);
      add(f.split_run_block, s.ngpown * ig_blocks * run_frequencies);
      add(f.split_band_block, s.ngpown * ig_blocks * run_band_frequencies);
    }
    add(f.empty_common, double(arms.count(0)));
    add(f.empty_regular, double(arms.count(0, -1, physics::kRegular)));
  } else {
    throw Error("no work count for policy '" + policy + "'");
  }
  return w;
}

}  // namespace gpp::measure::counts
