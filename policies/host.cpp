// CPU policy (the default on the host): band blocks one after the other, G' across threads
// in each, SIMD over G. For each band block and G', G is blocked; a G block's pair
// invariants (the fused form's PairTerms) are stored as structure-of-arrays rows in a
// per-thread buffer, and the innermost loops run over contiguous G, a vector of G at a
// time. The loops are written once over a vector type (policies/gpp_simd.hpp): the
// build's (xsimd's batch for the instruction set it targets, or portable packs where it
// has no xsimd), or one G at a time, chosen per run (the `loops` param). The arms are
// zero-masked reciprocals; the rare near-pole arm of occupied bands is not computed in the
// vector loop: the loop lists the G where a term is not regular, and a second pass over
// that list adds the near-pole arm a vector of listed G at a time. The G' factor applied
// once per G'; ssx skipped for empty bands. Both kinds of band take `tuned`'s fused form:
// with U = wtilde P, an empty band's sch*mat is U conj(wdiff) / |wdiff|^2; with V =
// |wtilde|^2 P as well, an occupied band's sch and Y come from one reciprocal of |wdiff|^2
// |wsum|^2 (physics::occupied_term, ssx = (sch - Y) / 2 per band), its near-pole arm is
// physics::near_pole_term. Reciprocals are shared by a group's frequencies (Rcp) where the
// G block's bounds allow, and every arm's test is one comparison per term with a G's
// threshold; the sums over G are in a different order. The band's factor conj(aqsm) of mat
// = conj(aqsm) aqsn is constant over G: the loops make U (and V, or Im(wtilde) U) from the
// G's rows wtilde I_eps and |wtilde|^2 I_eps (or Im wtilde) times aqsn, and their sums over
// a G block are multiplied by conj(aqsm) once (12 FLOPs per band and G where mat, P, U and
// V took 20; 8 for an empty band). With occ_form=split (the default) an occupied band's
// terms with wx >= 0 take `tuned`'s split form instead (occupied_split): for each vector of
// G, sums A and B over a run of up to 32 bands of one occupation kept in registers (the
// band's loop inside the G loop), then sch and ssx from them once per run; only its terms
// with wx < 0 take the fused form above (host_shape::split_plan says which).
#include "gpp_backend.hpp"
#include "gpp_host_shape.hpp"
#include "gpp_kernels.hpp"
#include "gpp_simd.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

namespace gpp {
namespace {

using host_shape::kMaxIgBlock;  // the per-thread buffer of pair invariants
using simd::each;
constexpr int kMaxGroup = 4;  // frequencies per vector loop (one accumulator pair each)
constexpr double kInvLimitone = 1.0 / physics::limitone;
constexpr double kInvTolZero = 1.0 / physics::TOL_Zero;
// Every row is padded to a multiple of this many doubles (64 bytes), with finite values
// past a G block's end, so that the loops load whole vectors of up to 8 lanes there and
// mask only what they add (the last vector of a block).
constexpr int kRowAlign = 8;
constexpr int padded(const int n) { return (n + kRowAlign - 1) / kRowAlign * kRowAlign; }

// The fields of a G block's pair invariants, one row of ig_block doubles each.
enum Field : int {
  kWr,     // Re wtilde
  kWi,     // Im wtilde
  kWi2,    // Im(wtilde)^2
  kWabs2,  // |wtilde|^2
  kIr,     // Re I_eps
  kIi,     // Im I_eps
  kWIr,    // Re (wtilde I_eps)
  kWIi,    // Im (wtilde I_eps)
  kAIr,    // Re (|wtilde|^2 I_eps)
  kAIi,    // Im (|wtilde|^2 I_eps)
  kOm2,    // |Omega2|^2, Omega2 = wtilde^2 I_eps
  kCut2,   // sexcut^2 |I_eps|^2
  kThr,    // max(limittwo, |wtilde|^2 / limitone): a band takes the regular arm where |wdiff|^2 > it
  // the split form's (occ_form=split, occupied_split), made only where a band block has a run
  kSa,    // Re(wtilde^2)
  kSb,    // Im(wtilde^2)
  kSb2,   // Im(wtilde^2)^2
  kSt2,   // kThr^2: a term with wx >= 0 is regular where |cden|^2 > kSt2 + kSt4r wx
  kSt4r,  // 4 Re(wtilde) kThr
  kList,  // as ints: the G of the block where an occupied band's term is not regular, in order
          // (occupied_band writes it, near_pole_pass reads it)
  kFields
};

// A G block's rows (pointers into the thread's buffer row), and the split form's lists of
// terms off the regular arm, one a band of a run (list_stride ints each).
struct Rows {
  double* f[kFields];
  int* lists;
  int list_stride;
  const double* operator[](const int i) const { return f[i]; }
};

// The per-thread buffer of a G block's pair invariants, on the heap, one row per thread
// (UniqueToken): on the stack it overflowed small stacks (ulimit -s 32). The policy is
// built for host spaces only.
template <class ExecSpace>
struct PairBuffer {
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  int stride;       // doubles per field (padded)
  int list_stride;  // ints per list of a run's band: a G block's, and a vector's more that the appends write
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> rows;
  PairBuffer(const ExecSpace& space, int ig_block, bool split)
      : token(space), stride(padded(ig_block)), list_stride(split ? padded(ig_block) + 2 * kRowAlign : 0),
        rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::pair_terms"), token.size(),
             kFields * stride + host_shape::kMaxRun * list_stride / 2) {}
  template <class F>
  void with(const F& f) const {
    const int id = token.acquire();
    Rows r;
    for (int i = 0; i < kFields; ++i) r.f[i] = &rows(id, 0) + i * stride;
    r.lists = reinterpret_cast<int*>(&rows(id, 0) + kFields * stride);
    r.list_stride = list_stride;
    f(r);
    token.release(id);
  }
};

// A lower bound of (v - p)^2 + q over a G block's (p, q) pairs, for any v: the block's
// rectangle [p_min, p_max] x [q_min, ...] alone gives 0 as soon as one q is 0 and v lies
// within the range of p (a real plasmon-pole frequency in a block), so the pairs are also
// split at q = kSplitQ: the least q of those above, and the range of p of those below.
inline constexpr double kSplitQ = 1e-20;
struct SplitBound {
  double p_min, p_max, q_min;       // all pairs
  double q_big_min;                 // least q >= kSplitQ (inf: none)
  double p_small_min, p_small_max;  // the range of p where q < kSplitQ (empty: inf, -inf)
  static double dist(const double v, const double lo, const double hi) {
    return v < lo ? lo - v : v > hi ? v - hi : 0.0;
  }
  double lower(const double v) const {
    const double d = dist(v, p_min, p_max), ds = dist(v, p_small_min, p_small_max);
    const double split = q_big_min < ds * ds ? q_big_min : ds * ds;
    const double whole = d * d + q_min;
    return split > whole ? split : whole;
  }
};

// Bounds of |wdiff|^2 = (x - Re wtilde)^2 + Im(wtilde)^2 over a G block, for any
// frequency x: whether an empty band's frequencies can share one division (the shared
// product's range). Sound for the rounded values the loop computes: (x - Re wtilde)^2 +
// Im(wtilde)^2 is monotone in |x - Re wtilde| and in Im(wtilde)^2, up to two roundings,
// far inside the margins of kShareMin.
struct Bounds {
  SplitBound wd;  // p = Re wtilde, q = Im(wtilde)^2
  double wi2_max;
  double thr_max;  // the largest regular-arm threshold (kThr) of the block
  double wdiff2_min(const double x) const { return wd.lower(x); }
  double wdiff2_max(const double x) const {
    const double f = x - wd.p_min > wd.p_max - x ? x - wd.p_min : wd.p_max - x;  // farthest Re wtilde
    return f * f + wi2_max;
  }
  // Whether every |wdiff|^2 of the block lies in [lo, hi].
  bool wdiff2_within(const double x, const double lo, const double hi) const {
    return wdiff2_min(x) >= lo && wdiff2_max(x) <= hi;
  }
  // Whether every term of frequency x in the block takes the regular arm (|wdiff|^2 > the
  // G's threshold), with a relative margin of 1e-13 for the roundings in which the loop's
  // |wdiff|^2 (one FMA) and the bound (a product, then a sum) may differ.
  bool all_regular(const double x) const { return wdiff2_min(x) > thr_max * (1.0 + 1e-13); }
};

// The extrema Bounds needs of a block's Re wtilde and Im(wtilde)^2, from the rows
// fill_pairs wrote (in L1): kLanes partial extrema of each, updated element-wise across
// the lanes (one vector each), combined at the end. Written as `omp simd reduction(min,
// max)` in the fill loop, g++ vectorised it but clang 14 left that loop scalar (LLVM
// takes a min or max of doubles as a reduction only under -ffinite-math-only); element-
// wise, both vectorise it. Min and max are exact: the lanes' order
// changes no value (at most the sign of a zero extreme, which no bound depends on).
inline Bounds block_bounds(const double* __restrict wr_row, const double* __restrict wi2_row,
                           const double* __restrict thr_row, const int len) {
  constexpr int kLanes = 8;
  constexpr double inf = std::numeric_limits<double>::infinity();
  double wr_min[kLanes], wr_max[kLanes], wi2_min[kLanes], wi2_max[kLanes], wi2_big[kLanes], wrs_min[kLanes],
      wrs_max[kLanes], thr_max[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    wr_min[j] = wi2_min[j] = wi2_big[j] = wrs_min[j] = inf;
    wr_max[j] = wi2_max[j] = wrs_max[j] = thr_max[j] = -inf;
  }
  // Element k into lane j; the conditional extrema as plain ones of a selected value
  // (the identity where the condition fails).
  const auto take = [&](const int k, const int j) {
    const double wr = wr_row[k], wi2 = wi2_row[k], thr = thr_row[k];
    const bool wi2_small = wi2 < kSplitQ;
    const double big_q = wi2_small ? inf : wi2, small_lo = wi2_small ? wr : inf, small_hi = wi2_small ? wr : -inf;
    wr_min[j] = wr < wr_min[j] ? wr : wr_min[j];
    wr_max[j] = wr > wr_max[j] ? wr : wr_max[j];
    wi2_min[j] = wi2 < wi2_min[j] ? wi2 : wi2_min[j];
    wi2_max[j] = wi2 > wi2_max[j] ? wi2 : wi2_max[j];
    wi2_big[j] = big_q < wi2_big[j] ? big_q : wi2_big[j];
    wrs_min[j] = small_lo < wrs_min[j] ? small_lo : wrs_min[j];
    wrs_max[j] = small_hi > wrs_max[j] ? small_hi : wrs_max[j];
    thr_max[j] = thr > thr_max[j] ? thr : thr_max[j];
  };
  int k0 = 0;
  for (; k0 + kLanes <= len; k0 += kLanes) {
#pragma omp simd
    for (int j = 0; j < kLanes; ++j) take(k0 + j, j);
  }
  for (int j = 0; k0 + j < len; ++j) take(k0 + j, j);
  for (int j = 1; j < kLanes; ++j) {
    wr_min[0] = wr_min[j] < wr_min[0] ? wr_min[j] : wr_min[0];
    wr_max[0] = wr_max[j] > wr_max[0] ? wr_max[j] : wr_max[0];
    wi2_min[0] = wi2_min[j] < wi2_min[0] ? wi2_min[j] : wi2_min[0];
    wi2_max[0] = wi2_max[j] > wi2_max[0] ? wi2_max[j] : wi2_max[0];
    wi2_big[0] = wi2_big[j] < wi2_big[0] ? wi2_big[j] : wi2_big[0];
    wrs_min[0] = wrs_min[j] < wrs_min[0] ? wrs_min[j] : wrs_min[0];
    wrs_max[0] = wrs_max[j] > wrs_max[0] ? wrs_max[j] : wrs_max[0];
    thr_max[0] = thr_max[j] > thr_max[0] ? thr_max[j] : thr_max[0];
  }
  return Bounds{{wr_min[0], wr_max[0], wi2_min[0], wi2_big[0], wrs_min[0], wrs_max[0]}, wi2_max[0], thr_max[0]};
}

// The pair invariants of G = ig0 .. ig0+len-1 for one G': physics::pair_terms, split
// into rows and written out component by component, so that the loop is a SIMD loop. The
// rows' padding past len is set to 0 (finite: the loops' last vector reads it and masks
// what it adds). With split, the split form's rows as well.
template <class In>
inline Bounds fill_pairs(const In& in, const int igp, const int ig0, const int len, const Rows& r, const bool split) {
  const double sexcut2 = in.sexcut * in.sexcut;
  const double* __restrict wt = reinterpret_cast<const double*>(&in.wtilde_array(ig0, igp));  // (re, im) pairs
  const double* __restrict ie = reinterpret_cast<const double*>(&in.I_eps_array(ig0, igp));
  double* __restrict f_wr = r.f[kWr];
  double* __restrict f_wi = r.f[kWi];
  double* __restrict f_wi2 = r.f[kWi2];
  double* __restrict f_wabs2 = r.f[kWabs2];
  double* __restrict f_ir = r.f[kIr];
  double* __restrict f_ii = r.f[kIi];
  double* __restrict f_wir = r.f[kWIr];
  double* __restrict f_wii = r.f[kWIi];
  double* __restrict f_air = r.f[kAIr];
  double* __restrict f_aii = r.f[kAIi];
  double* __restrict f_om2 = r.f[kOm2];
  double* __restrict f_cut2 = r.f[kCut2];
  double* __restrict f_thr = r.f[kThr];
  const double limittwo = in.limittwo;
#pragma omp simd
  for (int k = 0; k < len; ++k) {
    const double wr = wt[2 * k], wi = wt[2 * k + 1], ir = ie[2 * k], ii = ie[2 * k + 1];
    const double t2r = wr * wr - wi * wi, t2i = wr * wi + wi * wr;      // wtilde^2
    const double o_r = t2r * ir - t2i * ii, o_i = t2r * ii + t2i * ir;  // Omega2 = wtilde^2 I_eps
    const double wi2 = wi * wi;
    f_wr[k] = wr;
    f_wi[k] = wi;
    f_wi2[k] = wi2;
    const double wabs2 = wr * wr + wi * wi;
    f_wabs2[k] = wabs2;
    f_ir[k] = ir;
    f_ii[k] = ii;
    f_wir[k] = wr * ir - wi * ii;
    f_wii[k] = wr * ii + wi * ir;
    f_air[k] = wabs2 * ir;
    f_aii[k] = wabs2 * ii;
    f_om2[k] = o_r * o_r + o_i * o_i;
    f_cut2[k] = sexcut2 * (ir * ir + ii * ii);
    const double pole = wabs2 * kInvLimitone;
    f_thr[k] = pole > limittwo ? pole : limittwo;
  }
  const int last = split ? kSt4r : kThr;
  if (split) {
    double* __restrict f_sa = r.f[kSa];
    double* __restrict f_sb = r.f[kSb];
    double* __restrict f_sb2 = r.f[kSb2];
    double* __restrict f_st2 = r.f[kSt2];
    double* __restrict f_st4r = r.f[kSt4r];
#pragma omp simd
    for (int k = 0; k < len; ++k) {
      const double wr = f_wr[k], thr = f_thr[k];
      const double sb = 2.0 * wr * f_wi[k];
      f_sa[k] = wr * wr - f_wi2[k];
      f_sb[k] = sb;
      f_sb2[k] = sb * sb;
      f_st2[k] = thr * thr;
      f_st4r[k] = 4.0 * wr * thr;
    }
  }
  for (int f = kWr; f <= last; ++f)
    for (int k = len; k < padded(len); ++k) r.f[f][k] = 0.0;
  return block_bounds(f_wr, f_wi2, f_thr, len);
}

// How an empty band's reciprocals of |wdiff|^2 are computed, chosen per band and G block
// (empty_mode: a mode is taken only where the block's Bounds keep every value it inverts
// in its range, else a safer one). SharedDivide is the default; the `rcp_empty` and
// `rcp_occupied` params choose for a run (the measurements behind the default:
// docs/lab/cpu-host.md).
enum class Rcp : int {
  Divide,        // 1.0 / x for each frequency
  SharedDivide,  // one division for a group's frequencies (the default)
};

// One band's scalars for the G loop.
struct Band {
  const double *ar, *ai;  // Re and Im aqsntemp(ig0.., n1): the band block's split rows (host_policy's an_rows)
  double amr, ami;        // aqsm = aqsmtemp_local(igp, n1): the loops' sums are taken times conj(aqsm) after them
  double occ;
  double cut16;  // 16 sexcut^2 (physics::near_pole_term)
  Rcp empty;     // the reciprocals an empty band would like (where its bounds allow)
  Rcp occupied;  // and an occupied band
  int ahead;     // the band loops' prefetch distance in G (the param prefetch)
};

// Sums over a G block of up to kMaxGroup frequencies: sch*mat, occ*ssx*mat.
struct GroupSums {
  double sr[kMaxGroup] = {}, si[kMaxGroup] = {}, xr[kMaxGroup] = {}, xi[kMaxGroup] = {};
};

// Where one reciprocal serves every frequency of a group, each factor must lie in
// [kShareMin, kShareMax], so that a product of up to four neither overflows nor becomes
// subnormal (checked per band and G block from the block's Bounds, before the loop); a
// band whose factors may fall outside takes one division per frequency.
constexpr double kShareMin = 1e-75, kShareMax = 1e75;

// A loop body the compiler must inline: each_vector calls it twice (whole vectors, the
// masked last one), and g++ 14 otherwise leaves the larger bodies (the sexcut test's) out
// of line, a call per vector.
#define GPP_HOST_ALWAYS_INLINE __attribute__((always_inline))

// The rows one band's loop reads, their pointers taken once per loop: read through Rows,
// each store of a loop would reload them.
struct BandRows {
  const double *wr, *wi, *wi2, *thr, *wir, *wii, *air, *aii, *ar, *ai;
  int ahead;
  BandRows(const Rows& r, const Band& b)
      : wr(r[kWr]), wi(r[kWi]), wi2(r[kWi2]), thr(r[kThr]), wir(r[kWIr]), wii(r[kWIi]), air(r[kAIr]), aii(r[kAIi]),
        ar(b.ar), ai(b.ai), ahead(b.ahead) {}
};

// One band's values at the vector of G from k, as both kinds of band's loops read and make
// them: the pair rows, and U = (wtilde I_eps) aqsn without the band's factor conj(aqsm)
// (the terms are linear in U, so conj(aqsm) multiplies the G block's sums instead:
// band_groups); with it an occupied band's V = (|wtilde|^2 I_eps) aqsn = conj(wtilde) U,
// an empty band's Im(wtilde) U (V's four operations where two do: empty_band).
template <class V>
struct BandLanes {
  V wr, wi2, thr, Ur, Ui;
  V Vr, Vi;      // an occupied band's V
  V wiUr, wiUi;  // an empty band's Im(wtilde) U
};
template <class V, bool Empty = false>
GPP_HOST_ALWAYS_INLINE inline BandLanes<V> band_lanes(const BandRows& rows, const int k) {
  // The rows rows.ahead G ahead into L1, once per 64-byte line (the hardware's
  // prefetchers stop at each 4 KiB page, and a band's row of a G block spans two or
  // three). Near a row's end this reaches into the next row or past the buffer: a
  // prefetch never faults. At 0 it asks for the lines the loads below read: the same
  // instructions as any distance, without a test in the loop (a test that skipped them made
  // g++ 12 move them out of line, two jumps a vector).
  if (simd::kLanes<V> >= kRowAlign || k % kRowAlign == 0) {
    if constexpr (Empty) {
      for (const double* row : {rows.ar, rows.ai, rows.wr, rows.wi, rows.wi2, rows.wir, rows.wii})
        simd::prefetch(row + k + rows.ahead);
    } else {
      for (const double* row : {rows.ar, rows.ai, rows.wr, rows.wi2, rows.wir, rows.wii, rows.air, rows.aii})
        simd::prefetch(row + k + rows.ahead);
    }
  }
  // aqsn(G) from the band block's split rows: a load each for Re and Im, where the
  // interleaved (re, im) pairs took two loads and two permutes per vector
  const V ar = simd::load<V>(rows.ar + k), ai = simd::load<V>(rows.ai + k);
  BandLanes<V> l;
  l.wr = simd::load<V>(rows.wr + k), l.wi2 = simd::load<V>(rows.wi2 + k), l.thr = simd::load<V>(rows.thr + k);
  const V wir = simd::load<V>(rows.wir + k), wii = simd::load<V>(rows.wii + k);
  l.Ur = simd::fused_mul_sub(wir, ar, wii * ai);
  l.Ui = simd::fused_mul_add(wir, ai, wii * ar);
  if constexpr (Empty) {
    const V wi = simd::load<V>(rows.wi + k);
    l.wiUr = wi * l.Ur;
    l.wiUi = wi * l.Ui;
  } else {
    const V air = simd::load<V>(rows.air + k), aii = simd::load<V>(rows.aii + k);
    l.Vr = simd::fused_mul_sub(air, ar, aii * ai);
    l.Vi = simd::fused_mul_add(air, ai, aii * ar);
  }
  return l;
}

// body(k, tail) for the G block's vectors: body(k, false_type) for each whole one, then
// the last, part of which lies past the block, with tail = true_type (the body masks what
// it adds to the block's lanes: lanes past it read the rows' padding or the next block).
// Always inlined into the band's loop function, whose per-frequency sums the body updates:
// out of line (g++ 12 and 14 left it so for 3 and 4 frequencies), it kept them in the
// caller's frame, a load and a store of each sum per vector.
template <class V, class Body>
GPP_HOST_ALWAYS_INLINE inline void each_vector(const int len, const Body& body) {
  constexpr int L = simd::kLanes<V>;
  int k = 0;
  for (; k + L <= len; k += L) body(k, std::false_type{});
  if (k < len) body(k, std::true_type{});
}

// An occupied band: W frequencies over the G block, regular arm, in `tuned`'s partial
// fractions (physics::occupied_term): with U = wtilde P and V = |wtilde|^2 P (P = I_eps
// mat), sch*mat = (x U - V) / |wdiff|^2 and ssx*mat = (sch*mat - Y) / 2, Y = (x U + V) /
// |wsum|^2 (wsum = x + wtilde) where ssx is kept, (x U - V) / |wdiff|^2 where it is cut;
// one reciprocal 1/(|wdiff|^2 |wsum|^2) gives both denominators and the sexcut test. The
// arm's test is one comparison with the G's threshold, |wdiff|^2 > max(limittwo,
// |wtilde|^2 / limitone) (the test wdiffr > limittwo && |delw|^2 < limitone, |delw|^2 =
// |wtilde|^2 / |wdiff|^2, but where |delw|^2 is within a rounding of limitone); the arms
// and the cut are the reciprocals kept where they apply, 0 elsewhere (one zero-masked
// multiply with AVX-512), so that each sum is one FMA. ssx*mat is summed as (sch*mat - Y)
// / 2 over the block, times occ. As chosen per band and G block:
// - Cut false (every frequency of the group >= 0): no term is cut, so Y is one FMA a part
//   and the sexcut test is not made;
// - Mode SharedDivide: frequencies 0 and 1 (2 and 3) share one division, R_0 = p_1 / (p_0
//   p_1), p_w = |wdiff_w|^2 |wsum_w|^2 (occupied_mode checks that the four factors stay in
//   range, as empty_mode does for empty bands).
// The loop writes the list of G where a frequency's term is not regular into the kList
// row and returns its length: near_pole_pass tests those terms again (the same
// operations: the same arms) and takes the near-pole arm where due (|delw|^2 > TOL_Zero:
// |wdiff|^2 < |wtilde|^2 / TOL_Zero; else the zero arm). Sums per lane, added across lanes
// at the end (another order than a scalar loop's).
template <class V, int W, bool Cut, Rcp Mode>
inline int occupied_band(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  using M = simd::MaskOf<V>;
  constexpr bool shared = Mode == Rcp::SharedDivide && W > 1;
  V xv[W], sr[W], si[W], yr[W], yi[W];
  M negative[W];  // the lanes where x[w] < 0 (all or none: the sexcut test applies)
  each<W>([&](auto w) {
    xv[w] = V(x[w]);
    negative[w] = xv[w] < V(0.0);
    sr[w] = si[w] = yr[w] = yi[w] = V(0.0);
  });
  const BandRows rows(r, b);
  const double *const row_om2 = r[kOm2], *const row_cut2 = r[kCut2];
  // the list (kList's row as ints: 2 stride ints, and the lanes written at its end, at
  // most at k, end within the row)
  simd::IndexList<V> list(reinterpret_cast<int*>(r.f[kList]));
  const auto body = [&](const int k, auto tail) GPP_HOST_ALWAYS_INLINE {
    constexpr bool Tail = decltype(tail)::value;
    const BandLanes<V> l = band_lanes<V>(rows, k);
    V wd[W], ws[W], p[W], R[W];
    each<W>([&](auto w) {
      const V dr = xv[w] - l.wr, sm = xv[w] + l.wr;
      wd[w] = simd::fused_mul_add(dr, dr, l.wi2);
      ws[w] = simd::fused_mul_add(sm, sm, l.wi2);
      p[w] = wd[w] * ws[w];
    });
    const V one(1.0);
    if constexpr (!shared) {
      each<W>([&](auto w) { R[w] = one / p[w]; });
    } else {
      each<W / 2>([&](auto h) {
        constexpr int w0 = 2 * decltype(h)::value, w1 = w0 + 1;
        const V q = one / (p[w0] * p[w1]);
        R[w0] = q * p[w1];
        R[w1] = q * p[w0];
      });
      if constexpr (W % 2 == 1) R[W - 1] = one / p[W - 1];
    }
    M regular[W];
    each<W>([&](auto w) {
      if constexpr (Tail)
        regular[w] = simd::first_lanes<V>(len - k) & (wd[w] > l.thr);
      else
        regular[w] = wd[w] > l.thr;
      const V inv_regular = simd::keep(regular[w], R[w] * ws[w]);
      const V cmr = simd::fused_mul_sub(xv[w], l.Ur, l.Vr), cmi = simd::fused_mul_sub(xv[w], l.Ui, l.Vi);
      const V cpr = simd::fused_mul_add(xv[w], l.Ur, l.Vr), cpi = simd::fused_mul_add(xv[w], l.Ui, l.Vi);
      sr[w] = simd::fused_mul_add(inv_regular, cmr, sr[w]);
      si[w] = simd::fused_mul_add(inv_regular, cmi, si[w]);
      if constexpr (Cut) {
        const M cut = regular[w] & negative[w] & (simd::load<V>(row_om2 + k) * R[w] > simd::load<V>(row_cut2 + k));
        const V inv_keep = simd::keep(regular[w] & ~cut, R[w] * wd[w]);
        const V inv_drop = simd::keep(cut, inv_regular);
        yr[w] = simd::fused_mul_add(inv_drop, cmr, simd::fused_mul_add(inv_keep, cpr, yr[w]));
        yi[w] = simd::fused_mul_add(inv_drop, cmi, simd::fused_mul_add(inv_keep, cpi, yi[w]));
      } else {
        const V inv_keep = simd::keep(regular[w], R[w] * wd[w]);
        yr[w] = simd::fused_mul_add(inv_keep, cpr, yr[w]);
        yi[w] = simd::fused_mul_add(inv_keep, cpi, yi[w]);
      }
    });
    // the G where a term is not regular (in the tail, lanes past the block count as
    // regular)
    M all_regular = regular[0];
    each<W - 1>([&](auto w) { all_regular = all_regular & regular[w + 1]; });
    if constexpr (Tail) all_regular = all_regular | ~simd::first_lanes<V>(len - k);
    list.append_unset(all_regular);
  };
  each_vector<V>(len, body);
  const double h = 0.5 * b.occ;
  V v[4 * W];
  double t[4 * W];
  each<W>([&](auto w) { v[4 * w] = sr[w], v[4 * w + 1] = si[w], v[4 * w + 2] = yr[w], v[4 * w + 3] = yi[w]; });
  simd::lane_sums(v, 4 * W, t);
  each<W>([&](auto w) {
    const double s_r = t[4 * w], s_i = t[4 * w + 1], y_r = t[4 * w + 2], y_i = t[4 * w + 3];
    s.sr[w] += s_r, s.si[w] += s_i, s.xr[w] += h * (s_r - y_r), s.xi[w] += h * (s_i - y_i);
  });
  return list.size();
}

// The near-pole arm of the occupied band's terms that occupied_band listed as not regular
// (P = I_eps aqsn, the loops' sums being without conj(aqsm)), a vector of listed G at a
// time, each lane under the mask of the frequencies whose term is not regular (|wdiff|^2 >
// the G's threshold false: the loop's test, made with the same operations on the same
// values, so that a term is in exactly one of the two) where |wdiff|^2 < |wtilde|^2 /
// TOL_Zero (the near-pole arm; else the zero arm), with wtilde, I_eps, aqsn and the
// threshold gathered by index. The near-pole test's |wtilde|^2 / TOL_Zero is counted with
// every occupied term (measure::counts::fused_cost's occ_common); it is made only for the terms
// that are not regular. The lanes of a vector share each instruction, where a pass one term
// at a time spent most of its time in a term's dependent chain to its division and in a
// branch per frequency. The arithmetic is physics::near_pole_term's, term by term (the
// products contracted into FMAs elsewhere). Split: the list is a band's of a split run
// (occupied_split), whose test of the regular arm is |cden|^2 > kSt2 + kSt4r wx, made again
// here with the same operations on the same rows.
template <class V, int W, bool Split = false>
inline void near_pole_pass(const Rows& r, int* const list, const int n, const Band& b, const double* x, GroupSums& s) {
  if (n == 0) return;
  using M = simd::MaskOf<V>;
  constexpr int L = simd::kLanes<V>;
  for (int i = n; i < n + L; ++i) list[i] = list[0];  // the last vector's gathers read valid G
  const V zero(0.0), half(0.5), one(1.0), nf(-0.25 * b.occ), cut16(b.cut16), inv_tol(kInvTolZero);
  V xr[W], xi[W];
  each<W>([&](auto w) { xr[w] = xi[w] = zero; });
  for (int i0 = 0; i0 < n; i0 += L) {
    const M valid = simd::first_lanes<V>(n - i0 < L ? n - i0 : L);
    const int* const idx = list + i0;
    const V wr = simd::gather<V>(r[kWr], idx), wi = simd::gather<V>(r[kWi], idx);
    const V ir = simd::gather<V>(r[kIr], idx), ii = simd::gather<V>(r[kIi], idx);
    const V ar = simd::gather<V>(b.ar, idx), ai = simd::gather<V>(b.ai, idx);
    // Im(wtilde)^2 as fill_pairs makes it (one correctly rounded product: the row's value,
    // so |wdiff|^2 below is the loop's); |wtilde|^2 may differ from its row by a rounding,
    // which moves the boundary of the near-pole and zero arms by as much (the two are told
    // apart only here). Two gathers fewer, a gather costing several multiplies.
    const V wi2 = wi * wi, pole = simd::fused_mul_add(wr, wr, wi2) * inv_tol;
    const V Pr = simd::fused_mul_sub(ir, ar, ii * ai), Pi = simd::fused_mul_add(ir, ai, ii * ar);
    V thr, sa, sb2, st2, st4r;  // the regular arm's threshold, or the split form's rows
    if constexpr (Split) {
      sa = simd::gather<V>(r[kSa], idx), sb2 = simd::gather<V>(r[kSb2], idx);
      st2 = simd::gather<V>(r[kSt2], idx), st4r = simd::gather<V>(r[kSt4r], idx);
    } else {
      thr = simd::gather<V>(r[kThr], idx);
    }
    each<W>([&](auto w) {
      const V xw(x[w]);
      const V dr = xw - wr;
      const V wdiffr = simd::fused_mul_add(dr, dr, wi2);
      // not regular (the complement of the loop's test, NaN included) and near the pole
      M regular;
      if constexpr (Split) {
        const V c = simd::fused_mul_sub(xw, xw, sa);
        regular = simd::fused_mul_add(c, c, sb2) > simd::fused_mul_add(st4r, xw, st2);
      } else {
        regular = wdiffr > thr;
      }
      M due = valid & ~regular & (wdiffr < pole);
      if (!simd::any(due)) return;
      const V a = simd::fused_mul_sub(wr, dr, wi2), bb = wi * xw;  // wtilde conj(wdiff)
      const V hw = half * wdiffr;
      const V c_r = a + hw;
      // (lanes outside `due` may hold anything from here on: they are not added)
      const V inv_c2 = one / simd::fused_mul_add(c_r, c_r, bb * bb);
      if (x[w] < 0.0) {  // the sexcut test: |a + ib|^2 / |c|^2 > 16 sexcut^2 drops the term
        const V q = simd::fused_mul_add(a, a, bb * bb) * inv_c2;
        due = due & ~(q > cut16);
      }
      // -(f inv_c2) P num, num = (a c_r + b^2, b |wdiff|^2 / 2)
      const V num_r = simd::fused_mul_add(a, c_r, bb * bb), num_i = bb * hw;
      const V g = nf * inv_c2;
      const V tr = simd::fused_mul_sub(Pr, num_r, Pi * num_i);
      const V ti = simd::fused_mul_add(Pr, num_i, Pi * num_r);
      xr[w] = simd::select(due, simd::fused_mul_add(g, tr, xr[w]), xr[w]);
      xi[w] = simd::select(due, simd::fused_mul_add(g, ti, xi[w]), xi[w]);
    });
  }
  V v[2 * W];
  double t[2 * W];
  each<W>([&](auto w) { v[2 * w] = xr[w], v[2 * w + 1] = xi[w]; });
  simd::lane_sums(v, 2 * W, t);
  each<W>([&](auto w) {
    s.xr[w] += t[2 * w];
    s.xi[w] += t[2 * w + 1];
  });
}

// An empty band: W frequencies x[0..W-1] over the G block, regular arm, no ssx. With U =
// wtilde P from the G's shared products, sch*mat = U conj(wdiff) / |wdiff|^2, conj(wdiff) =
// dr + i Im(wtilde), dr = x - Re wtilde (`tuned`'s physics::empty_term): each part of U
// conj(wdiff) one FMA on dr from U and Im(wtilde) U (two multiplies a G for all W
// frequencies, where V = |wtilde|^2 P took four), and one sum a part, two a frequency
// (where x sum(U / |wdiff|^2) - sum(V / |wdiff|^2) held four: on AVX2's 16 registers they
// spilled). The arm is the reciprocal kept where the term is regular (one zero-masked
// multiply or division with AVX-512), so that each sum is one FMA. Shared: the W
// reciprocals of |wdiff|^2 from one division, 1/(d0 d1 ..) times the other factors (a few
// ulps from 1/d_w). Checked: each
// term's arm tested; else the block's bounds have shown every term regular
// (Bounds::all_regular: every empty band's block on si214, si510 and the mini-app deck),
// and only the last vector's lanes past the block are masked.
template <class V, int W, Rcp Mode, bool Checked>
inline void empty_band(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  constexpr bool shared = Mode == Rcp::SharedDivide && W > 1;
  const V one(1.0);
  V xv[W], sr[W], si[W];
  each<W>([&](auto w) {
    xv[w] = V(x[w]);
    sr[w] = si[w] = V(0.0);
  });
  const BandRows rows(r, b);
  const auto body = [&](const int k, auto tail) GPP_HOST_ALWAYS_INLINE {
    constexpr bool Tail = decltype(tail)::value;
    const BandLanes<V> l = band_lanes<V, true>(rows, k);
    V dr[W], wd[W], inv[W];
    each<W>([&](auto w) {
      dr[w] = xv[w] - l.wr;
      wd[w] = simd::fused_mul_add(dr[w], dr[w], l.wi2);
    });
    // the terms that take the regular arm (where neither tested nor in the tail: all)
    const auto regular = [&](const int w) {
      if constexpr (Checked && Tail)
        return simd::first_lanes<V>(len - k) & (wd[w] > l.thr);
      else if constexpr (Checked)
        return wd[w] > l.thr;
      else if constexpr (Tail)
        return simd::first_lanes<V>(len - k);
      else
        return simd::all_lanes<V>();
    };
    // the reciprocals of the regular terms (0 elsewhere)
    const auto take = [&](const int w, const V& v) {
      if constexpr (Checked || Tail)
        return simd::keep(regular(w), v);
      else
        return v;
    };
    if constexpr (!shared) {
      each<W>([&](auto w) { inv[w] = take(w, one / wd[w]); });
    } else if constexpr (W == 2) {
      const V q = one / (wd[0] * wd[1]);
      inv[0] = take(0, q * wd[1]);
      inv[1] = take(1, q * wd[0]);
    } else if constexpr (W == 3) {
      const V wd01 = wd[0] * wd[1];
      const V q = one / (wd01 * wd[2]);
      const V q2 = q * wd[2];
      inv[0] = take(0, q2 * wd[1]);
      inv[1] = take(1, q2 * wd[0]);
      inv[2] = take(2, q * wd01);
    } else {
      const V wd01 = wd[0] * wd[1], wd23 = wd[2] * wd[3];
      const V q = one / (wd01 * wd23);
      const V q01 = q * wd23, q23 = q * wd01;
      inv[0] = take(0, q01 * wd[1]);
      inv[1] = take(1, q01 * wd[0]);
      inv[2] = take(2, q23 * wd[3]);
      inv[3] = take(3, q23 * wd[2]);
    }
    each<W>([&](auto w) {
      // U conj(wdiff) = (dr Re U - Im(wtilde) Im U) + i (dr Im U + Im(wtilde) Re U)
      const V cr = simd::fused_mul_sub(dr[w], l.Ur, l.wiUi), ci = simd::fused_mul_add(dr[w], l.Ui, l.wiUr);
      sr[w] = simd::fused_mul_add(inv[w], cr, sr[w]);
      si[w] = simd::fused_mul_add(inv[w], ci, si[w]);
    });
  };
  each_vector<V>(len, body);
  V v[2 * W];
  double t[2 * W];
  each<W>([&](auto w) { v[2 * w] = sr[w], v[2 * w + 1] = si[w]; });
  simd::lane_sums(v, 2 * W, t);
  each<W>([&](auto w) {
    s.sr[w] += t[2 * w];
    s.si[w] += t[2 * w + 1];
  });
}

// A split run's bands for one G' and G block (host_shape::SplitRun): each band's aqsn rows
// from the block's first G, conj(aqsm) and the run's wx.
struct RunBands {
  int size = 0, nw = 1;
  double occ = 0;
  const double* ar[host_shape::kMaxRun];
  const double* ai[host_shape::kMaxRun];
  double amr[host_shape::kMaxRun], ami[host_shape::kMaxRun];  // aqsm
  double x[host_shape::kMaxRun][2];
};

// A run's terms over a G block in the split form (`tuned`'s physics::occupied_band_split,
// for terms whose wx >= 0): with cden = wx^2 - wtilde^2 and mat = conj(aqsm) aqsn, each
// G's sums A = sum of mat conj(cden) / |cden|^2 and B = sum of wx times the same over the
// run's regular terms, kept in registers while the run's bands go by, G outermost (a
// vector of G at a time); then sch += WIw (B + wtilde A) and ssx += occ WIw wtilde A
// (from sch - Y = 2 WIw wtilde A, Y = WIw (B - wtilde A): physics::occupied_split_fold).
// conj(cden) = c + i Im(wtilde^2), c = wx^2 - Re(wtilde^2), one FMA; |cden|^2 one more;
// the regular arm's test |wdiff|^2 > thr is |cden|^2 > thr^2 + 4 Re(wtilde) thr wx (as
// physics::pair_split explains, for wx >= 0). A term takes about 11 vector operations
// where the whole form's takes about 20 (mat's 6 a band shared by the pair). Shared: the
// pair's reciprocals from one division (the run's every factor in range: split_shared).
// A band's terms off the regular arm are listed per band, as occupied_band's, for
// near_pole_pass<Split>. sums: sch then ssx (without occ), re and im, per frequency.
template <class V, int W, bool Shared>
inline void occupied_split(const Rows& r, const int len, const RunBands& rb, int* const counts, double* const sums) {
  using M = simd::MaskOf<V>;
  const int nb = rb.size;
  simd::IndexList<V> lists[host_shape::kMaxRun];
  for (int j = 0; j < nb; ++j) lists[j] = simd::IndexList<V>(r.lists + j * r.list_stride);
  V sch_r[W], sch_i[W], x_r[W], x_i[W];
  each<W>([&](auto w) { sch_r[w] = sch_i[w] = x_r[w] = x_i[w] = V(0.0); });
  const V one(1.0);
  const auto body = [&](const int k, auto tail) GPP_HOST_ALWAYS_INLINE {
    constexpr bool Tail = decltype(tail)::value;
    const V sa = simd::load<V>(r[kSa] + k), sb = simd::load<V>(r[kSb] + k), sb2 = simd::load<V>(r[kSb2] + k);
    const V st2 = simd::load<V>(r[kSt2] + k), st4r = simd::load<V>(r[kSt4r] + k);
    V Ar[W], Ai[W], Br[W], Bi[W];
    each<W>([&](auto w) { Ar[w] = Ai[w] = Br[w] = Bi[w] = V(0.0); });
    for (int j = 0; j < nb; ++j) {
      // the band's next line of aqsn: the next vector of G reads it after the run's other
      // bands (whatever the param prefetch: this is no look-ahead but the next line)
      if (simd::kLanes<V> >= kRowAlign || k % kRowAlign == 0) {
        simd::prefetch(rb.ar[j] + k + kRowAlign);
        simd::prefetch(rb.ai[j] + k + kRowAlign);
      }
      const V ar = simd::load<V>(rb.ar[j] + k), ai = simd::load<V>(rb.ai[j] + k);
      const V amr(rb.amr[j]), ami(rb.ami[j]);
      // mat = conj(aqsm) aqsn, and mat Im(wtilde^2)
      const V mr = simd::fused_mul_add(amr, ar, ami * ai), mi = simd::fused_mul_sub(amr, ai, ami * ar);
      const V mbr = mr * sb, mbi = mi * sb;
      V xv[W], c[W], P[W], R[W];
      M regular[W];
      each<W>([&](auto w) {
        xv[w] = V(rb.x[j][w]);
        c[w] = simd::fused_mul_sub(xv[w], xv[w], sa);
        P[w] = simd::fused_mul_add(c[w], c[w], sb2);
        regular[w] = P[w] > simd::fused_mul_add(st4r, xv[w], st2);
        if constexpr (Tail) regular[w] = regular[w] & simd::first_lanes<V>(len - k);
      });
      if constexpr (Shared && W == 2) {
        const V q = one / (P[0] * P[1]);
        R[0] = simd::keep(regular[0], q * P[1]);
        R[1] = simd::keep(regular[1], q * P[0]);
      } else {
        each<W>([&](auto w) { R[w] = simd::keep(regular[w], one / P[w]); });
      }
      each<W>([&](auto w) {
        // V = mat conj(cden) = mat (c + i Im(wtilde^2))
        const V vr = simd::fused_mul_sub(mr, c[w], mbi), vi = simd::fused_mul_add(mi, c[w], mbr);
        const V Rx = R[w] * xv[w];
        Ar[w] = simd::fused_mul_add(R[w], vr, Ar[w]);
        Ai[w] = simd::fused_mul_add(R[w], vi, Ai[w]);
        Br[w] = simd::fused_mul_add(Rx, vr, Br[w]);
        Bi[w] = simd::fused_mul_add(Rx, vi, Bi[w]);
      });
      // the G where a term is not regular (in the tail, lanes past the block count as regular)
      M all_regular = regular[0];
      if constexpr (W == 2) all_regular = all_regular & regular[1];
      if constexpr (Tail) all_regular = all_regular | ~simd::first_lanes<V>(len - k);
      lists[j].append_unset(all_regular);
    }
    // the fold: sch += WIw (B + wtilde A), ssx += WIw wtilde A
    const V wr = simd::load<V>(r[kWr] + k), wi = simd::load<V>(r[kWi] + k);
    const V WIr = simd::load<V>(r[kWIr] + k), WIi = simd::load<V>(r[kWIi] + k);
    each<W>([&](auto w) {
      const V wAr = simd::fused_mul_sub(wr, Ar[w], wi * Ai[w]), wAi = simd::fused_mul_add(wr, Ai[w], wi * Ar[w]);
      const V tr = Br[w] + wAr, ti = Bi[w] + wAi;
      sch_r[w] = sch_r[w] + simd::fused_mul_sub(WIr, tr, WIi * ti);
      sch_i[w] = sch_i[w] + simd::fused_mul_add(WIr, ti, WIi * tr);
      x_r[w] = x_r[w] + simd::fused_mul_sub(WIr, wAr, WIi * wAi);
      x_i[w] = x_i[w] + simd::fused_mul_add(WIr, wAi, WIi * wAr);
    });
  };
  each_vector<V>(len, body);
  for (int j = 0; j < nb; ++j) counts[j] = lists[j].size();
  V v[4 * W];
  each<W>([&](auto w) { v[4 * w] = sch_r[w], v[4 * w + 1] = sch_i[w], v[4 * w + 2] = x_r[w], v[4 * w + 3] = x_i[w]; });
  simd::lane_sums(v, 4 * W, sums);
}

// Whether a run's pair of frequencies may share one division over a G block: every
// |cden|^2 = |wdiff|^2 |wsum|^2 of its bands within range (occupied_mode's test).
inline bool split_shared(const Bounds& bd, const RunBands& rb, const Rcp wanted) {
  if (rb.nw < 2 || wanted == Rcp::Divide) return false;
  for (int j = 0; j < rb.size; ++j)
    for (int w = 0; w < rb.nw; ++w)
      if (!bd.wdiff2_within(rb.x[j][w], kShareMin, kShareMax) || !bd.wdiff2_within(-rb.x[j][w], kShareMin, kShareMax))
        return false;
  return true;
}

// The reciprocals an empty band's group x[0..W-1] can use over a G block: the wanted
// mode where the block's bounds keep every value the loop inverts in range, else the
// division for each frequency.
template <int W>
inline Rcp empty_mode(const Bounds& bd, const Band& b, const double* x) {
  if (W == 1 || b.empty == Rcp::Divide) return Rcp::Divide;
  bool ok = true;  // every factor of the shared product in [kShareMin, kShareMax]
  for (int w = 0; w < W; ++w) ok = ok && bd.wdiff2_within(x[w], kShareMin, kShareMax);
  return ok ? Rcp::SharedDivide : Rcp::Divide;
}

// The reciprocals an occupied band's group can use over a G block: SharedDivide (pairs of
// frequencies) where the bounds keep |wdiff|^2 and |wsum|^2 (|wdiff|^2 at -x) of every
// frequency in [kShareMin, kShareMax], so that a pair's product of four factors neither
// overflows nor becomes subnormal; else one division per frequency.
template <int W>
inline Rcp occupied_mode(const Bounds& bd, const Band& b, const double* x) {
  if (W == 1 || b.occupied == Rcp::Divide) return Rcp::Divide;
  bool ok = true;
  for (int w = 0; w < W; ++w)
    ok = ok && bd.wdiff2_within(x[w], kShareMin, kShareMax) && bd.wdiff2_within(-x[w], kShareMin, kShareMax);
  return ok ? Rcp::SharedDivide : Rcp::Divide;
}

// An occupied band's frequencies x[0..W-1] over a G block in the whole form: the regular
// terms (occupied_band), then the near-pole arms of the listed G; sums without conj(aqsm).
template <class V, int W>
inline void occupied_whole(const Rows& r, const Bounds& bd, const int len, const Band& b, const double* x,
                           GroupSums& s) {
  bool cut = false;  // a frequency of the group below 0: the sexcut test can cut
  for (int w = 0; w < W; ++w) cut = cut || x[w] < 0.0;
  const bool share = occupied_mode<W>(bd, b, x) == Rcp::SharedDivide;
  int n;  // the G with a term that is not regular
  if (cut && share)
    n = occupied_band<V, W, true, Rcp::SharedDivide>(r, len, b, x, s);
  else if (cut)
    n = occupied_band<V, W, true, Rcp::Divide>(r, len, b, x, s);
  else if (share)
    n = occupied_band<V, W, false, Rcp::SharedDivide>(r, len, b, x, s);
  else
    n = occupied_band<V, W, false, Rcp::Divide>(r, len, b, x, s);
  near_pole_pass<V, W>(r, reinterpret_cast<int*>(r.f[kList]), n, b, x, s);
}

// Frequencies W0 .. W0+W-1 (W = min(kMaxGroup, NW - W0)) of one band over a G block,
// then the next group.
template <class V, int NW, int W0 = 0>
inline void band_groups(const Rows& r, const Bounds& bd, const int len, const Band& b, const double* wx,
                        SigmaAccum<NW>& g) {
  constexpr int W = NW - W0 < kMaxGroup ? NW - W0 : kMaxGroup;
  GroupSums s;  // the G block's sums without the band's factor conj(aqsm) (band_lanes)
  const complex_t am_conj(b.amr, -b.ami);
  if (b.occ != 0.0) {
    occupied_whole<V, W>(r, bd, len, b, wx + W0, s);
    for (int w = 0; w < W; ++w) g.ssx[W0 + w] += am_conj * complex_t(s.xr[w], s.xi[w]);
  } else {
    const bool share = empty_mode<W>(bd, b, wx + W0) == Rcp::SharedDivide;
    bool checked = false;  // a term of the group may leave the regular arm
    for (int w = 0; w < W; ++w) checked = checked || !bd.all_regular(wx[W0 + w]);
    if (share && checked)
      empty_band<V, W, Rcp::SharedDivide, true>(r, len, b, wx + W0, s);
    else if (share)
      empty_band<V, W, Rcp::SharedDivide, false>(r, len, b, wx + W0, s);
    else if (checked)
      empty_band<V, W, Rcp::Divide, true>(r, len, b, wx + W0, s);
    else
      empty_band<V, W, Rcp::Divide, false>(r, len, b, wx + W0, s);
  }
  for (int w = 0; w < W; ++w) g.sch[W0 + w] += am_conj * complex_t(s.sr[w], s.si[w]);
  if constexpr (W0 + W < NW) band_groups<V, NW, W0 + W>(r, bd, len, b, wx, g);
}

// The run's choices that are not blocks (the host policy's params, host_params): which
// vector type the loops run on (simd::Native, or one G at a time), the reciprocals of
// each kind of band, and the form of the occupied bands' terms.
enum class Loops : int { Vector, Scalar };
struct HostChoices {
  Loops loops = Loops::Vector;
  Rcp empty = Rcp::SharedDivide, occupied = Rcp::SharedDivide;
  bool split = true;  // occ_form=split: the terms with wx >= 0 in the split form (occupied_split)
  int ahead = 0;      // prefetch: the band loops' distance in G
};

// A band's values as the loops take them: its aqsn rows at the G block (ar, ai), aqsm, its
// occupation, and the run's choices.
inline Band band_at(const double* ar, const double* ai, const complex_t& aqsm, const double occ, const double cut16,
                    const HostChoices& c) {
  return Band{ar, ai, aqsm.real(), aqsm.imag(), occ, cut16, c.empty, c.occupied, c.ahead};
}

// One G block's occupied bands of the band block from nb0 in the split form (occ_form=split,
// host_shape::split_plan): each whole group as band_groups' occupied bands, each run in
// occupied_split and its bands' near-pole arms from their lists. an(j) is the band block's
// aqsn row of band nb0 + j/2 (Re for even j, Im for odd) at the block's first G.
template <class V, int NW, class In, class AnRow>
inline void split_block(const In& in, const host_shape::SplitPlan& plan, const Rows& r, const Bounds& bd, const int len,
                        const int igp, const int nb0, const AnRow& an, const HostChoices& c, const double cut16,
                        SigmaAccum<NW>& g) {
  using Order = kernels::FortranOrder;
  for (const host_shape::WholeGroup& whole : plan.whole) {
    const int n1 = whole.band;
    const complex_t aqsm = Order::aqsm(in, igp, n1);
    double x[2];
    for (int w = 0; w < whole.nw; ++w) x[w] = Order::wx(in, whole.w0 + w, n1);
    const Band b = band_at(an(2 * (n1 - nb0)), an(2 * (n1 - nb0) + 1), aqsm, in.occ_array(n1), cut16, c);
    GroupSums s;
    if (whole.nw == 2)
      occupied_whole<V, 2>(r, bd, len, b, x, s);
    else
      occupied_whole<V, 1>(r, bd, len, b, x, s);
    const complex_t am_conj(b.amr, -b.ami);
    for (int w = 0; w < whole.nw; ++w) {
      g.sch[whole.w0 + w] += am_conj * complex_t(s.sr[w], s.si[w]);
      g.ssx[whole.w0 + w] += am_conj * complex_t(s.xr[w], s.xi[w]);
    }
  }
  for (const host_shape::SplitRun& run : plan.runs) {
    RunBands rb;
    rb.size = run.size, rb.nw = run.nw, rb.occ = run.occ;
    for (int j = 0; j < run.size; ++j) {
      const int n1 = plan.bands[run.first + j];
      const complex_t aqsm = Order::aqsm(in, igp, n1);
      rb.amr[j] = aqsm.real(), rb.ami[j] = aqsm.imag();
      rb.ar[j] = an(2 * (n1 - nb0)), rb.ai[j] = an(2 * (n1 - nb0) + 1);
      for (int w = 0; w < run.nw; ++w) rb.x[j][w] = Order::wx(in, run.w0 + w, n1);
    }
    double sums[8];
    int counts[host_shape::kMaxRun];
    if (run.nw == 1)
      occupied_split<V, 1, false>(r, len, rb, counts, sums);
    else if (split_shared(bd, rb, c.occupied))
      occupied_split<V, 2, true>(r, len, rb, counts, sums);
    else
      occupied_split<V, 2, false>(r, len, rb, counts, sums);
    for (int w = 0; w < run.nw; ++w) {
      g.sch[run.w0 + w] += complex_t(sums[4 * w], sums[4 * w + 1]);
      g.ssx[run.w0 + w] += run.occ * complex_t(sums[4 * w + 2], sums[4 * w + 3]);
    }
    // each band's near-pole arms (sums without conj(aqsm))
    for (int j = 0; j < run.size; ++j) {
      const Band b = band_at(rb.ar[j], rb.ai[j], complex_t(rb.amr[j], rb.ami[j]), run.occ, cut16, c);
      GroupSums s;
      int* const list = r.lists + j * r.list_stride;
      if (run.nw == 2)
        near_pole_pass<V, 2, true>(r, list, counts[j], b, rb.x[j], s);
      else
        near_pole_pass<V, 1, true>(r, list, counts[j], b, rb.x[j], s);
      const complex_t am_conj(b.amr, -b.ami);
      for (int w = 0; w < run.nw; ++w) g.ssx[run.w0 + w] += am_conj * complex_t(s.xr[w], s.xi[w]);
    }
  }
}

template <int NW, class V, class ExecSpace>
SigmaSums host_policy(const ExecSpace& space, const DataFor<ExecSpace>& d, const int band_block, const int ig_block,
                      const HostChoices& c) {
  using Order = kernels::FortranOrder;
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  const double cut16 = 16.0 * in.sexcut * in.sexcut;
  SigmaAccum<NW> result;
  // the split form's plan of each band block (host_shape::split_plan), read by every thread
  std::vector<host_shape::SplitPlan> plans;
  if (c.split)
    for (int nb0 = 0; nb0 < d.nbands; nb0 += band_block)
      plans.push_back(host_shape::split_plan(
          nb0, band_block < d.nbands - nb0 ? nb0 + band_block : d.nbands, NW,
          [&](const int n) { return in.occ_array(n); },
          [&](const int n, const int w) { return Order::wx(in, w, n) < 0.0; }));
  const PairBuffer<ExecSpace> buffer(space, ig_block, c.split);
  // Band blocks outermost, G' across threads inside: all threads stream the same band
  // block of aqsntemp (band_block x ncouls, 16 MB on the mini-app deck), which stays in
  // the shared L3 while every G' reads it, instead of each thread streaming all of
  // aqsntemp from memory for each G'. Each G''s sums (before the G' factor) carry over
  // from one band block to the next in gp_sums, in the same order as one pass would add
  // them.
  const Kokkos::View<SigmaAccum<NW>*, typename ExecSpace::memory_space> gp_sums("gpp::host::gp_sums", d.ngpown);
  // The band block's aqsntemp as split rows, Re and Im of band nb0 + j in rows 2j and 2j+1
  // (64-byte rows), written once per band block by all threads and read by all: the loops
  // load a vector of each with one instruction, where aqsntemp's (re, im) pairs took two
  // loads and two permutes. As large as the band block's aqsntemp (at most aqsntemp's
  // size). Each row has a vector of zeros beyond ncouls and its padding, which the last
  // vector of a G block reads (G blocks need not start at a multiple of the vector).
  const int an_stride = padded(in.ncouls) + kRowAlign;
  const int an_bands = band_block < d.nbands ? band_block : d.nbands;
  const Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> an_rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::aqsn_rows"), 2 * an_bands, an_stride);
  for (int nb0 = 0; nb0 < d.nbands; nb0 += band_block) {
    const int nb1 = band_block < d.nbands - nb0 ? nb0 + band_block : d.nbands;
    Kokkos::parallel_for("gpp::host::aqsn_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, nb1 - nb0), [=](const int j) {
      const double* __restrict a = reinterpret_cast<const double*>(&in.aqsntemp(0, nb0 + j));
      double* __restrict re = &an_rows(2 * j, 0);
      double* __restrict im = &an_rows(2 * j + 1, 0);
#pragma omp simd
      for (int ig = 0; ig < in.ncouls; ++ig) re[ig] = a[2 * ig], im[ig] = a[2 * ig + 1];
      for (int ig = in.ncouls; ig < an_stride; ++ig) re[ig] = im[ig] = 0.0;
    });
    const host_shape::SplitPlan* const plan = c.split ? &plans[nb0 / band_block] : nullptr;
    const bool split = plan != nullptr && !plan->runs.empty();
    // A host lambda: the policy runs on host spaces only, and its G loops are host code.
    Kokkos::parallel_for(
        "gpp::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, d.ngpown),
        [=](const int igp) {
          buffer.with([&](const Rows& rows) {
            SigmaAccum<NW> g = gp_sums(igp);  // sch*mat and occ*ssx*mat for this G'
            for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
              const int len = ig_block < in.ncouls - ig0 ? ig_block : in.ncouls - ig0;
              const Bounds bounds = fill_pairs(in, igp, ig0, len, rows, split);
              for (int n1 = nb0; n1 < nb1; ++n1) {
                if (plan != nullptr && in.occ_array(n1) != 0.0) continue;  // split_block's
                const complex_t aqsm = Order::aqsm(in, igp, n1);
                double wx[NW];
                for (int w = 0; w < NW; ++w) wx[w] = Order::wx(in, w, n1);
                const Band b = band_at(&an_rows(2 * (n1 - nb0), ig0), &an_rows(2 * (n1 - nb0) + 1, ig0), aqsm,
                                       in.occ_array(n1), cut16, c);
                band_groups<V, NW>(rows, bounds, len, b, wx, g);
              }
              if (plan != nullptr)
                split_block<V, NW>(
                    in, *plan, rows, bounds, len, igp, nb0,
                    [&](const int j) -> const double* { return &an_rows(j, ig0); }, c, cut16, g);
            }
            gp_sums(igp) = g;
          });
        });
  }
  Kokkos::parallel_reduce(
      "gpp::host::weight", Kokkos::RangePolicy<ExecSpace>(space, 0, d.ngpown),
      [=](const int igp, SigmaAccum<NW>& acc) { physics::add_gp_weighted(acc, gp_sums(igp), in.vcoul_loc(igp)); },
      SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

// prefetch's values besides auto, in G: how far ahead the band loops of empty bands and of
// the whole form (band_lanes) prefetch each row they read (0: no look-ahead).
constexpr int kPrefetchDistances[] = {0, 64, 128, 256, 512};

// prefetch=auto: the distance of the build's host ISA's shipped file (tuning/host-<isa>.json,
// shape.prefetch_ahead), on an Intel CPU its shape.prefetch_ahead_intel, which is the same
// where the file gives none: the two vendors' cores ran the empty bands' loops fastest at
// different distances (docs/lab/cpu-host.md). GPP_HOST_PREFETCH_AHEAD, where a build
// defines it, is auto's distance on every CPU.
#ifdef GPP_HOST_PREFETCH_AHEAD
constexpr bool is_prefetch_distance(const int g) {
  for (const int d : kPrefetchDistances)
    if (d == g) return true;
  return false;
}
static_assert(is_prefetch_distance(GPP_HOST_PREFETCH_AHEAD),
              "GPP_HOST_PREFETCH_AHEAD is one of the param prefetch's distances (kPrefetchDistances)");
#endif
int auto_prefetch() {
#ifdef GPP_HOST_PREFETCH_AHEAD
  return GPP_HOST_PREFETCH_AHEAD;
#else
  static const int ahead = backend::host_cpu_vendor() == "GenuineIntel" ? tuning_defaults::kHostPrefetchAheadIntel
                                                                        : tuning_defaults::kHostPrefetchAhead;
  return ahead;
#endif
}

}  // namespace

// The host policy's params, each with its values, the default first: the shipped default
// of the build's host ISA (tuning_defaults, from tuning/host-<isa>.json).
std::vector<ParamSpec> host_params() {
  const auto first = [](std::vector<std::string> values, const std::string& def) {
    const auto it = std::find(values.begin(), values.end(), def);
    if (it == values.end())
      throw Error(std::string("shipped defaults ") + tuning_defaults::kHostFile + ": " + def +
                  " is not a value of a host param");
    std::rotate(values.begin(), it, it + 1);
    return values;
  };
  return {
      {"loops", first({"vector", "scalar"}, tuning_defaults::kHostLoops),
       "the G loops' vector: vector (this build's: " + simd::describe<simd::Native>() + "), scalar (one G at a time)"},
      {"rcp_empty", first({"share", "div"}, tuning_defaults::kHostRcpEmpty),
       "an empty band's reciprocals: share (one division for a group of up to 4 frequencies, where the G block's "
       "bounds keep the product in range), div (one per frequency)"},
      {"rcp_occupied", first({"share", "div"}, tuning_defaults::kHostRcpOccupied),
       "an occupied band's reciprocals: share (one division per pair of frequencies, where the bounds allow), div "
       "(one per frequency)"},
      {"occ_form", first({"split", "whole"}, tuning_defaults::kHostOccForm),
       "an occupied band's terms with wx >= 0: split (sums over runs of bands per G, in fewer operations a term), "
       "whole (each band's terms summed over G)"},
      {"prefetch",
       first(
           [] {
             std::vector<std::string> v{"auto"};
             for (const int d : kPrefetchDistances) v.push_back(std::to_string(d));
             return v;
           }(),
           tuning_defaults::kHostPrefetch),
       "how far ahead (in G) the G loops of empty bands and of the whole form prefetch each row they read into "
       "L1: auto (the build's host ISA's distance, on Intel CPUs its Intel one: " +
           std::to_string(auto_prefetch()) + " here), or that many (0: no look-ahead)"},
  };
}

template <class ExecSpace>
SigmaSums run_host(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  static_assert(sizeof(complex_t) == 2 * sizeof(double), "the G loops read complex_t as (re, im) pairs");
  // (the defaults and their measurements: gpp_host_shape.hpp)
  const int band_block = or_default(t.band_block, host_shape::kDefaultBandBlock);
  const int ig_block = or_default(t.ig_block, host_shape::kDefaultIgBlock);
  if (ig_block > kMaxIgBlock)
    throw Error("--ig-block " + std::to_string(ig_block) + " exceeds the host policy's maximum of " +
                std::to_string(kMaxIgBlock));
  t.band_block = band_block;
  t.ig_block = ig_block;
  // check_tunables has checked the values; every param is written back as it runs
  // (prefetch=auto as the distance it took, which a run given it repeats)
  const std::vector<ParamSpec> specs = host_params();
  std::map<std::string, std::string> resolved;
  for (const ParamSpec& p : specs) resolved[p.name] = param_value(t, p);
  if (resolved.at("prefetch") == "auto") resolved["prefetch"] = std::to_string(auto_prefetch());
  t.params = resolved;
  HostChoices c;
  c.loops = resolved.at("loops") == "scalar" ? Loops::Scalar : Loops::Vector;
  c.empty = resolved.at("rcp_empty") == "div" ? Rcp::Divide : Rcp::SharedDivide;
  c.occupied = resolved.at("rcp_occupied") == "div" ? Rcp::Divide : Rcp::SharedDivide;
  c.split = resolved.at("occ_form") == "split";
  c.ahead = std::stoi(resolved.at("prefetch"));
  return dispatch_nw(d.nw, [&](auto nw) {
    constexpr int NW = decltype(nw)::value;
    if (mode == RunMode::Check) return kernels::to_sums(SigmaAccum<NW>{});
    if (c.loops == Loops::Scalar) return host_policy<NW, simd::Pack<1>>(space, d, band_block, ig_block, c);
    return host_policy<NW, simd::Native>(space, d, band_block, ig_block, c);
  });
}
// The CPU policy is built for the host space only.
template GPP_RUNNER_SIGNATURE(run_host, ::gpp::HostExec);

}  // namespace gpp
