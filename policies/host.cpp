// CPU policy (the default on the host): band blocks one after the other, G'
// across threads in each, SIMD over G. For each band block and G', G is blocked; a G
// block's pair invariants (the fused form's PairTerms) are stored as structure-of-arrays
// rows in a per-thread buffer, and the innermost loop runs over contiguous G, 8 G a
// vector: written with AVX-512 intrinsics where the build has AVX-512 (GPP_HOST_ARCH=
// native on such a CPU), else as an `omp simd` loop with one scalar reduction per
// frequency and part, which the compiler turns into vector code (SSE2 without an arch
// flag). The arms are zero-masked reciprocals; the rare near-pole arm of occupied bands
// is not computed in the vector loop but flagged per G and added by a pass over the
// flagged G (8 at a time where built with AVX-512). The G' factor applied once per G';
// ssx skipped for empty bands. Both kinds of band take `tuned`'s partial fractions: with
// U = wtilde P and V = |wtilde|^2 P, an empty band's sch*mat is (x U - V) / |wdiff|^2; an
// occupied band's sch and Y come from one reciprocal of |wdiff|^2 |wsum|^2
// (physics::occupied_term, ssx = (sch - Y) / 2 per band), its near-pole arm is
// physics::near_pole_term. Reciprocals are shared by a group's frequencies (Rcp) where the
// G block's bounds allow, and every arm's test is one comparison per term with a G's
// threshold; the sums over G are in a different order. The band's factor conj(aqsm) of mat
// = conj(aqsm) aqsn is constant over G: the loops make U and V from the G's rows wtilde
// I_eps and |wtilde|^2 I_eps times aqsn, and their sums over a G block are multiplied by
// conj(aqsm) once (12 FLOPs per band and G where mat, P, U and V took 20).
#include "gpp_host_shape.hpp"
#include "gpp_kernels.hpp"

#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

// AVX-512 (with VL) in the host pass: the vector loops in intrinsics, the near-pole pass's
// list of flagged G compacted 8 G at a time. Not in a CUDA or HIP device pass, which never runs it, nor
// under nvcc before CUDA 12.3: up to 12.2 its headers #define _Float16, which breaks GCC
// 12's <immintrin.h> (avx512fp16intrin.h: "vector_size attribute requires an arithmetic or
// enum type"; kokkos-kernels#2108), and CUDA 11 takes no chance either.
#if defined(__NVCC__) && (__CUDACC_VER_MAJOR__ < 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ < 3))
#define GPP_HOST_NVCC_INTRINSICS 0
#else
#define GPP_HOST_NVCC_INTRINSICS 1
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    GPP_HOST_NVCC_INTRINSICS
#include <immintrin.h>
#define GPP_HOST_AVX512 1
#else
#define GPP_HOST_AVX512 0
#endif

namespace gpp {
namespace {

using host_shape::kMaxIgBlock;  // the per-thread buffer of pair invariants
constexpr int kMaxGroup = 4;       // frequencies per vector loop (one accumulator pair each)
constexpr double kInvLimitone = 1.0 / physics::limitone;
constexpr double kInvTolZero = 1.0 / physics::TOL_Zero;

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
  kFlag,   // occupied_band: nonzero, bit w set where frequency w of the band in hand takes the near-pole arm
           // at this G; occupied_band_avx512: as ints, the G where a frequency is not regular, in order
  kFields
};

// A G block's rows (pointers into the thread's buffer row).
struct Rows {
  double* f[kFields];
  const double* operator[](const int i) const { return f[i]; }
};

// The per-thread buffer of a G block's pair invariants, on the heap, one row per thread
// (UniqueToken): on the stack it overflowed small stacks (ulimit -s 32). The
// policy is built for host spaces only.
template <class ExecSpace>
struct PairBuffer {
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  int stride;  // doubles per field, a multiple of 8 (64-byte rows)
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> rows;
  PairBuffer(const ExecSpace& space, int ig_block)
      : token(space), stride((ig_block + 7) / 8 * 8),
        rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::pair_terms"), token.size(),
             kFields * ((ig_block + 7) / 8 * 8)) {}
  template <class F>
  void with(const F& f) const {
    const int id = token.acquire();
    Rows r;
    for (int i = 0; i < kFields; ++i) r.f[i] = &rows(id, 0) + i * stride;
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
  double p_min, p_max, q_min;  // all pairs
  double q_big_min;            // least q >= kSplitQ (inf: none)
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
// into rows and written out component by component, so that the loop is a SIMD loop.
template <class In>
inline Bounds fill_pairs(const In& in, const int igp, const int ig0, const int len, const Rows& r) {
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
    const double t2r = wr * wr - wi * wi, t2i = wr * wi + wi * wr;  // wtilde^2
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
  return block_bounds(f_wr, f_wi2, f_thr, len);
}

// How an empty band's reciprocals of |wdiff|^2 are computed, chosen per band and G block
// (empty_mode: a mode is taken only where the block's Bounds keep every value it inverts
// in its range, else a safer one).
//
// SharedDivide is the default: a group's frequencies share one division, the slowest
// instruction of a term; it was faster than one division per frequency on the 16-core
// Intel hosts, and a float-seeded reciprocal (a float division
// and a cubic Newton step in place of vdivpd) was slower than both and removed
// (docs/lab/cpu-host.md). GPP_HOST_RCP_EMPTY = div
// or share forces one of the two for a run (a measurement switch; unset: share), and
// GPP_HOST_RCP_OCCUPIED for the occupied bands' loop, whose pairs of frequencies share one
// division (occupied_mode).
enum class Rcp : int {
  Divide,        // 1.0 / x for each frequency
  SharedDivide,  // one division for a group's frequencies (the default)
};

// The vector loops of the occupied and of the empty bands: written with AVX-512
// intrinsics (occupied_band_avx512, empty_band_avx512: the default where the build has
// AVX-512) or as `omp simd` loops (occupied_band, empty_band: the only ones otherwise).
// GPP_HOST_OCCUPIED and GPP_HOST_EMPTY = avx512 or simd choose for a run (measurement and
// test switches).
enum class HostLoop : int { Simd, Avx512 };

// One band's scalars for the G loop.
struct Band {
  const double *ar, *ai;  // Re and Im aqsntemp(ig0.., n1): the band block's split rows (host_policy's an_rows)
  double amr, ami;   // aqsm = aqsmtemp_local(igp, n1): the loops' sums are taken times conj(aqsm) after them
  double occ;
  double cut16;      // 16 sexcut^2 (physics::near_pole_term)
  Rcp empty;         // the reciprocals an empty band would like (where its bounds allow)
  Rcp occupied;      // and an occupied band (occupied_band_avx512)
  HostLoop occupied_loop, empty_loop;
};

// Sums over a G block of up to kMaxGroup frequencies: sch*mat, occ*ssx*mat.
struct GroupSums {
  double sr[kMaxGroup] = {}, si[kMaxGroup] = {}, xr[kMaxGroup] = {}, xi[kMaxGroup] = {};
};

// U and V of one band at one G for the `omp simd` loops, without the band's factor
// conj(aqsm): U = (wtilde I_eps) aqsn, V = (|wtilde|^2 I_eps) aqsn from the G's rows (the
// terms are linear in U and V, so conj(aqsm) multiplies the G block's sums instead:
// band_groups). GPP_HOST_BAND_ROWS takes the rows' pointers, GPP_HOST_BAND_UV makes U
// and V at G = k.
#define GPP_HOST_BAND_ROWS                     \
  const double* __restrict a_re = b.ar;        \
  const double* __restrict a_im = b.ai;        \
  const double* __restrict wir = r[kWIr];      \
  const double* __restrict wii = r[kWIi];      \
  const double* __restrict air = r[kAIr];      \
  const double* __restrict aii = r[kAIi];
#define GPP_HOST_BAND_UV                                                      \
  const double ar = a_re[k], ai = a_im[k];                                    \
  const double Ur = wir[k] * ar - wii[k] * ai, Ui = wir[k] * ai + wii[k] * ar; \
  const double Vr = air[k] * ar - aii[k] * ai, Vi = air[k] * ai + aii[k] * ar;

// |wdiff|^2 of frequency x at one G.
#define GPP_HOST_WDIFF(x, DR, WD)        \
  const double DR = (x) - wr[k];         \
  const double WD = DR * DR + wi2[k];

// The regular arm of frequency x at one G for an empty band (no ssx), given |wdiff|^2
// and its reciprocal: sch*mat = (x U - V) / |wdiff|^2, U = wtilde P and V = |wtilde|^2 P
// from the G's shared products (the fused form's (a + i b) P, a = Re wtilde (x -
// Re wtilde) - Im(wtilde)^2, b = Im wtilde x, is x U - V; `tuned` computes the same),
// summed over the G block as x sum(U / |wdiff|^2) - sum(V / |wdiff|^2): two sums of one
// FMA each a part, where x U - V took an operation more (and g++ a register copy). The
// arm's test wdiffr > limittwo && |delw|^2 < limitone, |delw|^2 = |wtilde|^2 / |wdiff|^2,
// as one comparison with the G's threshold: |wdiff|^2 > max(limittwo, |wtilde|^2 /
// limitone) (the same arms but where |delw|^2 is within a rounding of limitone). The arm
// is a blend of the reciprocal with 0 (one masked move), so that each sum is one FMA: `s
// += regular ? v : 0.0` costs g++ an add of +0.0 and a blend besides (it may not drop x +
// 0.0, which is not x for x = -0.0).
#define GPP_HOST_EMPTY_TERM(WD, INV, W)                                         \
  {                                                                             \
    const double inv_regular = !Checked || (WD) > thr[k] ? (INV) : 0.0;         \
    u##W##r += inv_regular * Ur;                                                \
    u##W##i += inv_regular * Ui;                                                \
    v##W##r += inv_regular * Vr;                                                \
    v##W##i += inv_regular * Vi;                                                \
  }

// Where one reciprocal serves every frequency of a group, each factor must lie in
// [kShareMin, kShareMax], so that a product of up to four neither overflows nor becomes
// subnormal (checked per band and G block from the block's Bounds, before the loop); a
// band whose factors may fall outside takes one division per frequency.
constexpr double kShareMin = 1e-75, kShareMax = 1e75;

// An empty band: W frequencies x[0..W-1] over the G block. Shared: the W reciprocals of
// |wdiff|^2 from one, 1/(d0 d1 ..) times the other factors (a few ulps from 1/d_w).
// Checked: each term's arm tested; else the block's bounds have shown every term regular
// (Bounds::all_regular: every empty band's block on si214, si510 and the mini-app deck).
template <int W, Rcp Mode, bool Checked>
inline void empty_band(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  constexpr bool shared = Mode == Rcp::SharedDivide && W > 1;
  const double* __restrict wr = r[kWr];
  const double* __restrict wi2 = r[kWi2];
  const double* __restrict thr = r[kThr];
  GPP_HOST_BAND_ROWS
  const double x0 = x[0], x1 = W > 1 ? x[1] : 0.0, x2 = W > 2 ? x[2] : 0.0, x3 = W > 3 ? x[3] : 0.0;
  double u0r = 0, u0i = 0, u1r = 0, u1i = 0, u2r = 0, u2i = 0, u3r = 0, u3i = 0;
  double v0r = 0, v0i = 0, v1r = 0, v1i = 0, v2r = 0, v2i = 0, v3r = 0, v3i = 0;
#pragma omp simd reduction(+ : u0r, u0i, u1r, u1i, u2r, u2i, u3r, u3i, v0r, v0i, v1r, v1i, v2r, v2i, v3r, v3i)
  for (int k = 0; k < len; ++k) {
    GPP_HOST_BAND_UV
    GPP_HOST_WDIFF(x0, dr0, wd0)
    GPP_HOST_WDIFF(x1, dr1, wd1)
    GPP_HOST_WDIFF(x2, dr2, wd2)
    GPP_HOST_WDIFF(x3, dr3, wd3)
    double inv0, inv1 = 0, inv2 = 0, inv3 = 0;
    if constexpr (!shared) {
      inv0 = 1.0 / (wd0);
      if constexpr (W > 1) inv1 = 1.0 / (wd1);
      if constexpr (W > 2) inv2 = 1.0 / (wd2);
      if constexpr (W > 3) inv3 = 1.0 / (wd3);
    } else if constexpr (W == 2) {
      const double R = 1.0 / (wd0 * wd1);
      inv0 = R * wd1, inv1 = R * wd0;
    } else if constexpr (W == 3) {
      const double wd01 = wd0 * wd1;
      const double R = 1.0 / (wd01 * wd2);
      const double R2 = R * wd2;
      inv0 = R2 * wd1, inv1 = R2 * wd0, inv2 = R * wd01;
    } else {
      const double wd01 = wd0 * wd1, wd23 = wd2 * wd3;
      const double R = 1.0 / (wd01 * wd23);
      const double R01 = R * wd23, R23 = R * wd01;
      inv0 = R01 * wd1, inv1 = R01 * wd0, inv2 = R23 * wd3, inv3 = R23 * wd2;
    }
    GPP_HOST_EMPTY_TERM(wd0, inv0, 0)
    if constexpr (W > 1) GPP_HOST_EMPTY_TERM(wd1, inv1, 1)
    if constexpr (W > 2) GPP_HOST_EMPTY_TERM(wd2, inv2, 2)
    if constexpr (W > 3) GPP_HOST_EMPTY_TERM(wd3, inv3, 3)
  }
  s.sr[0] += x0 * u0r - v0r, s.si[0] += x0 * u0i - v0i;
  if constexpr (W > 1) s.sr[1] += x1 * u1r - v1r, s.si[1] += x1 * u1i - v1i;
  if constexpr (W > 2) s.sr[2] += x2 * u2r - v2r, s.si[2] += x2 * u2i - v2i;
  if constexpr (W > 3) s.sr[3] += x3 * u3r - v3r, s.si[3] += x3 * u3i - v3i;
}
#undef GPP_HOST_EMPTY_TERM

// One frequency x at one G of an occupied band, regular arm, in `tuned`'s partial
// fractions (physics::occupied_term): with U = wtilde P and V = |wtilde|^2 P (P = I_eps
// mat), sch*mat = (x U - V) / |wdiff|^2 and ssx*mat = (sch*mat - Y) / 2, Y = (x U + V) /
// |wsum|^2 (wsum = x + wtilde) where ssx is kept, (x U - V) / |wdiff|^2 where it is cut;
// one reciprocal 1/(|wdiff|^2 |wsum|^2) = 1/|cden|^2 gives both denominators and the
// sexcut test. The arm's test is one comparison with the G's threshold (as the empty
// bands'), the arms and the cut blends of the reciprocals with 0, each sum one FMA; and
// whether the near-pole arm is due instead (|delw|^2 > TOL_Zero: |wdiff|^2 <
// |wtilde|^2 / TOL_Zero).
#define GPP_HOST_OCC_TERM(x, BIT, SR, SI, YR, YI)                                            \
  {                                                                                     \
    const double dr = (x) - wr[k], sr = (x) + wr[k];                                    \
    const double wdiffr = dr * dr + wi2[k];                                             \
    const double wsumr = sr * sr + wi2[k];                                              \
    const double R = 1.0 / (wdiffr * wsumr);                                            \
    const bool regular = wdiffr > thr[k];                                               \
    const bool cut = ((x) < 0.0) & (om2[k] * R > cut2[k]);                             \
    const double inv_regular = regular ? R * wsumr : 0.0;                               \
    const double inv_keep = (regular & !cut) ? R * wdiffr : 0.0;                        \
    const double inv_drop = cut ? inv_regular : 0.0;                                    \
    const double cmr = (x) * Ur - Vr, cmi = (x) * Ui - Vi;                              \
    const double cpr = (x) * Ur + Vr, cpi = (x) * Ui + Vi;                              \
    SR += inv_regular * cmr;                                                            \
    SI += inv_regular * cmi;                                                            \
    YR += inv_keep * cpr + inv_drop * cmr;                                              \
    YI += inv_keep * cpi + inv_drop * cmi;                                              \
    near += (!regular & (wdiffr < wabs2[k] * kInvTolZero)) ? (BIT) : 0.0;              \
  }

// An occupied band: W frequencies over the G block, regular arm; flag[k] holds 2^w for
// each frequency w that takes the near-pole arm at G (added by near_pole_pass). ssx*mat
// summed as (sch*mat - Y) / 2 over the block, times occ.
template <int W>
inline void occupied_band(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  const double* __restrict wr = r[kWr];
  const double* __restrict wi2 = r[kWi2];
  const double* __restrict wabs2 = r[kWabs2];
  const double* __restrict om2 = r[kOm2];
  const double* __restrict cut2 = r[kCut2];
  const double* __restrict thr = r[kThr];
  double* __restrict flag = r.f[kFlag];
  GPP_HOST_BAND_ROWS
  const double x0 = x[0], x1 = W > 1 ? x[1] : 0.0, x2 = W > 2 ? x[2] : 0.0, x3 = W > 3 ? x[3] : 0.0;
  double s0r = 0, s0i = 0, s1r = 0, s1i = 0, s2r = 0, s2i = 0, s3r = 0, s3i = 0;
  double y0r = 0, y0i = 0, y1r = 0, y1i = 0, y2r = 0, y2i = 0, y3r = 0, y3i = 0;
#pragma omp simd reduction(+ : s0r, s0i, s1r, s1i, s2r, s2i, s3r, s3i, y0r, y0i, y1r, y1i, y2r, y2i, y3r, y3i)
  for (int k = 0; k < len; ++k) {
    GPP_HOST_BAND_UV
    double near = 0.0;
    GPP_HOST_OCC_TERM(x0, 1.0, s0r, s0i, y0r, y0i)
    if constexpr (W > 1) GPP_HOST_OCC_TERM(x1, 2.0, s1r, s1i, y1r, y1i)
    if constexpr (W > 2) GPP_HOST_OCC_TERM(x2, 4.0, s2r, s2i, y2r, y2i)
    if constexpr (W > 3) GPP_HOST_OCC_TERM(x3, 8.0, s3r, s3i, y3r, y3i)
    flag[k] = near;
  }
  const double h = 0.5 * b.occ;
  s.sr[0] += s0r, s.si[0] += s0i, s.xr[0] += h * (s0r - y0r), s.xi[0] += h * (s0i - y0i);
  if constexpr (W > 1) s.sr[1] += s1r, s.si[1] += s1i, s.xr[1] += h * (s1r - y1r), s.xi[1] += h * (s1i - y1i);
  if constexpr (W > 2) s.sr[2] += s2r, s.si[2] += s2i, s.xr[2] += h * (s2r - y2r), s.xi[2] += h * (s2i - y2i);
  if constexpr (W > 3) s.sr[3] += s3r, s.si[3] += s3i, s.xr[3] += h * (s3r - y3r), s.xi[3] += h * (s3i - y3i);
}
#undef GPP_HOST_OCC_TERM
#undef GPP_HOST_BAND_UV
#undef GPP_HOST_BAND_ROWS

#if GPP_HOST_AVX512
// Frequencies 0 .. W-1 in turn: f(std::integral_constant<int, w>{}) for each w, unrolled
// (the per-frequency vectors below are indexed by constants and stay in registers).
template <int W, class F, int... I>
inline void each_w(const F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int W, class F>
inline void each_w(const F& f) {
  each_w<W>(f, std::make_integer_sequence<int, W>{});
}

// out[i] = the sum of v[i]'s lanes for i < N: the vectors transposed and added 8 at a time
// (for 8 vectors 21 shuffles and adds, where a sum per vector through memory took a store,
// 8 loads and 7 adds each; a G block's loop of an empty band ends in 4 such sums per
// frequency). Pairwise within each vector. The shuffles are the zero-masked forms under
// an all-ones mask (the same instructions): g++ 12's unmasked ones (and
// _mm512_reduce_add_pd) draw a false -Wuninitialized from its headers, GCC bug 105593.
template <int N>
inline void lane_sums(const __m512d* v, double* out) {
  for (int i0 = 0; i0 < N; i0 += 8) {
    __m512d x[8];
    for (int i = 0; i < 8; ++i) x[i] = i0 + i < N ? v[i0 + i] : _mm512_setzero_pd();
    __m512d t[4], u[2];
    // t[i]'s 128-bit lane j: (x[2i] lanes 2j + 2j+1, x[2i+1] lanes 2j + 2j+1)
    for (int i = 0; i < 4; ++i)
      t[i] = _mm512_add_pd(_mm512_maskz_unpacklo_pd(0xFF, x[2 * i], x[2 * i + 1]),
                           _mm512_maskz_unpackhi_pd(0xFF, x[2 * i], x[2 * i + 1]));
    // [p.L0 + p.L1, p.L2 + p.L3, q.L0 + q.L1, q.L2 + q.L3] of 128-bit lanes
    const auto fold = [](const __m512d p, const __m512d q) {
      return _mm512_add_pd(_mm512_maskz_shuffle_f64x2(0xFF, p, q, 0x88), _mm512_maskz_shuffle_f64x2(0xFF, p, q, 0xDD));
    };
    u[0] = fold(t[0], t[1]);  // lanes: x0..x3's halves
    u[1] = fold(t[2], t[3]);
    alignas(64) double r[8];
    _mm512_store_pd(r, fold(u[0], u[1]));  // lane i: x[i]'s sum
    for (int i = 0; i < 8 && i0 + i < N; ++i) out[i0 + i] = r[i];
  }
}

// A loop body the compiler must inline: each_vector calls it twice (whole vectors, the
// masked last one), and g++ 14 otherwise leaves the larger bodies (the sexcut test's)
// out of line, a call per 8 G.
#define GPP_HOST_ALWAYS_INLINE __attribute__((always_inline))

// One band's values at 8 G of a G block (a vector each), as both kinds of band's loops
// read and make them: the pair rows, and U = (wtilde I_eps) aqsn, V = (|wtilde|^2 I_eps)
// aqsn (GPP_HOST_BAND_UV's, without the band's factor conj(aqsm)). The rows' pointers are
// taken once per loop (BandRows): read through Rows, each store of a loop would reload
// them.
struct BandRows {
  const double *wr, *wi2, *thr, *wir, *wii, *air, *aii, *ar, *ai;
  BandRows(const Rows& r, const Band& b)
      : wr(r[kWr]), wi2(r[kWi2]), thr(r[kThr]), wir(r[kWIr]), wii(r[kWIi]), air(r[kAIr]), aii(r[kAIi]), ar(b.ar),
        ai(b.ai) {}
};
// How far ahead (in G) the AVX-512 loops prefetch each row they read (aqsntemp's Re and
// Im, the pair rows) into L1: 256 G, 2 KiB of a row, 32 vectors; the hardware prefetchers
// stop at 4 KiB pages, which a band's row of a G block crosses. 0: no prefetch.
#ifndef GPP_HOST_PREFETCH_AHEAD
#define GPP_HOST_PREFETCH_AHEAD 256
#endif
constexpr int kPrefetchAhead = GPP_HOST_PREFETCH_AHEAD;
struct BandLanes {
  __m512d wr, wi2, thr, Ur, Ui, Vr, Vi;
};
// G = k .. k+7; where Tail, only the lanes of `valid` (the loads masked: the rows' lanes
// past the block hold no values of it, and 0 times a stale inf would make a NaN).
template <bool Tail>
inline BandLanes band_lanes(const BandRows& rows, const int k, const __mmask8 valid) {
  const auto load = [&](const double* row) {
    return Tail ? _mm512_maskz_loadu_pd(valid, row + k) : _mm512_loadu_pd(row + k);
  };
  // The rows kPrefetchAhead G ahead into L1 (the hardware's prefetchers stop at each 4 KiB
  // page, and a band's row of a G block spans two or three).
  // Near a row's end this reaches into the next row or past the buffer: a prefetch never
  // faults.
  if constexpr (!Tail && kPrefetchAhead > 0) {
    for (const double* row : {rows.ar, rows.ai, rows.wr, rows.wi2, rows.wir, rows.wii, rows.air, rows.aii})
      _mm_prefetch(reinterpret_cast<const char*>(row + k + kPrefetchAhead), _MM_HINT_T0);
  }
  // aqsn(G) for 8 G from the band block's split rows: a load each for Re and Im, where the
  // interleaved (re, im) pairs took two loads and two permutes (port 5) per 8 G
  const __m512d ar = load(rows.ar), ai = load(rows.ai);
  BandLanes l;
  l.wr = load(rows.wr), l.wi2 = load(rows.wi2), l.thr = load(rows.thr);
  const __m512d wir = load(rows.wir), wii = load(rows.wii), air = load(rows.air), aii = load(rows.aii);
  l.Ur = _mm512_fmsub_pd(wir, ar, _mm512_mul_pd(wii, ai));
  l.Ui = _mm512_fmadd_pd(wir, ai, _mm512_mul_pd(wii, ar));
  l.Vr = _mm512_fmsub_pd(air, ar, _mm512_mul_pd(aii, ai));
  l.Vi = _mm512_fmadd_pd(air, ai, _mm512_mul_pd(aii, ar));
  return l;
}

// body(k, valid, tail) for the G block's vectors of 8 G: body(k, 0xFF, false_type) for
// each whole one, then the last under a mask (tail: true_type). Always inlined into the
// band's loop function, whose per-frequency sums the body updates: out of line (g++ 12
// and 14 left it so for 3 and 4 frequencies), it kept them in the caller's frame, a load
// and a store of each sum per 8 G.
template <class Body>
GPP_HOST_ALWAYS_INLINE inline void each_vector(const int len, const Body& body) {
  int k = 0;
  for (; k + 8 <= len; k += 8) body(k, 0xFF, std::false_type{});
  if (k < len) body(k, static_cast<__mmask8>((1u << (len - k)) - 1), std::true_type{});
}

// occupied_band written with AVX-512 intrinsics: the same terms and arms. Where the `omp
// simd` loop flags the near-pole terms in a row that a second pass turns into a list of
// G, this loop writes the list itself: the G where a frequency's term is not regular,
// their indices compressed under the mask (vpcompressd in a register, stored as 8 ints,
// of which the next pass reads the first popcount(mask)), into the kFlag row as ints; it
// returns their count.
// near_pole_pass_avx512 tests those terms again (the same operations: the same arms) and
// takes the near-pole arm where due, so the pass over a flag row is not needed. The `omp simd`
// loop above is what g++ makes of it, and g++ 12 and 14 make it poorly: where a band's
// arms are simpler (below), they turn a blend of a reciprocal with 0 into both sums and a
// blend of the two (a copy, an FMA and a blend per sum, where one zero-masked multiply
// serves two sums), which llvm-mca counts as a third more cycles per 8 G than this loop
// (docs/lab/cpu-host.md). Besides, as chosen per band and G block:
// - Cut false (every frequency of the group >= 0): no term is cut, so Y is one FMA a part
//   and the sexcut test is not made;
// - Mode SharedDivide: frequencies 0 and 1 (2 and 3) share one division, R_0 = p_1 / (p_0
//   p_1), p_w = |wdiff_w|^2 |wsum_w|^2 (occupied_mode checks that the four factors stay in
//   range, as empty_mode does for empty bands): one 512-bit division per 16 cycles on the
//   Intel machine, which otherwise bounds the loop.
// The G block in vectors of 8, the last one under a mask (masked loads, band_lanes); sums
// per lane, added across lanes at the end (another order than the simd loop's).
template <int W, bool Cut, Rcp Mode>
inline int occupied_band_avx512(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  constexpr bool shared = Mode == Rcp::SharedDivide && W > 1;
  __m512d xv[W], sr[W], si[W], yr[W], yi[W];
  __mmask8 negative[W];  // all lanes where x[w] < 0 (the sexcut test applies)
  each_w<W>([&](auto w) {
    xv[w] = _mm512_set1_pd(x[w]);
    negative[w] = x[w] < 0.0 ? 0xFF : 0x00;
    sr[w] = si[w] = yr[w] = yi[w] = _mm512_setzero_pd();
  });
  const BandRows rows(r, b);
  const double *const row_om2 = r[kOm2], *const row_cut2 = r[kCut2];
  // the list of G with a term that is not regular (kFlag's row as ints: 2 stride ints, and
  // the 8 stored at n <= k end within the row), and the indices of the vector in hand
  int* const list = reinterpret_cast<int*>(r.f[kFlag]);
  int n = 0;
  __m256i g = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const auto body = [=, &sr, &si, &yr, &yi, &n, &g](const int k, const __mmask8 valid, auto tail) GPP_HOST_ALWAYS_INLINE {
    const auto load = [&](const double* row) {
      return tail ? _mm512_maskz_loadu_pd(valid, row + k) : _mm512_loadu_pd(row + k);
    };
    const BandLanes l = band_lanes<decltype(tail)::value>(rows, k, valid);
    const __m512d &wr = l.wr, &wi2 = l.wi2, &thr = l.thr, &Ur = l.Ur, &Ui = l.Ui, &Vr = l.Vr, &Vi = l.Vi;
    __m512d wd[W], ws[W], p[W], R[W];
    each_w<W>([&](auto w) {
      const __m512d dr = _mm512_sub_pd(xv[w], wr), sm = _mm512_add_pd(xv[w], wr);
      wd[w] = _mm512_fmadd_pd(dr, dr, wi2);
      ws[w] = _mm512_fmadd_pd(sm, sm, wi2);
      p[w] = _mm512_mul_pd(wd[w], ws[w]);
    });
    const __m512d one = _mm512_set1_pd(1.0);
    if constexpr (!shared) {
      each_w<W>([&](auto w) { R[w] = _mm512_div_pd(one, p[w]); });
    } else {
      each_w<W / 2>([&](auto h) {
        constexpr int w0 = 2 * decltype(h)::value, w1 = w0 + 1;
        const __m512d q = _mm512_div_pd(one, _mm512_mul_pd(p[w0], p[w1]));
        R[w0] = _mm512_mul_pd(q, p[w1]);
        R[w1] = _mm512_mul_pd(q, p[w0]);
      });
      if constexpr (W % 2 == 1) R[W - 1] = _mm512_div_pd(one, p[W - 1]);
    }
    __mmask8 irregular = 0;
    each_w<W>([&](auto w) {
      const __mmask8 regular = _mm512_mask_cmp_pd_mask(valid, wd[w], thr, _CMP_GT_OQ);
      const __m512d inv_regular = _mm512_maskz_mul_pd(regular, R[w], ws[w]);
      const __m512d cmr = _mm512_fmsub_pd(xv[w], Ur, Vr), cmi = _mm512_fmsub_pd(xv[w], Ui, Vi);
      const __m512d cpr = _mm512_fmadd_pd(xv[w], Ur, Vr), cpi = _mm512_fmadd_pd(xv[w], Ui, Vi);
      sr[w] = _mm512_fmadd_pd(inv_regular, cmr, sr[w]);
      si[w] = _mm512_fmadd_pd(inv_regular, cmi, si[w]);
      if constexpr (Cut) {
        const __mmask8 cut =
            _mm512_mask_cmp_pd_mask(regular & negative[w], _mm512_mul_pd(load(row_om2), R[w]), load(row_cut2), _CMP_GT_OQ);
        const __m512d inv_keep = _mm512_maskz_mul_pd(regular & ~cut, R[w], wd[w]);
        const __m512d inv_drop = _mm512_maskz_mov_pd(cut, inv_regular);
        yr[w] = _mm512_fmadd_pd(inv_drop, cmr, _mm512_fmadd_pd(inv_keep, cpr, yr[w]));
        yi[w] = _mm512_fmadd_pd(inv_drop, cmi, _mm512_fmadd_pd(inv_keep, cpi, yi[w]));
      } else {
        const __m512d inv_keep = _mm512_maskz_mul_pd(regular, R[w], wd[w]);
        yr[w] = _mm512_fmadd_pd(inv_keep, cpr, yr[w]);
        yi[w] = _mm512_fmadd_pd(inv_keep, cpi, yi[w]);
      }
      // not regular: near_pole_pass_avx512 tests for the near-pole arm (|wdiff|^2 <
      // |wtilde|^2 / TOL_Zero; else the zero arm)
      irregular |= valid & ~regular;
    });
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(list + n), _mm256_maskz_compress_epi32(irregular, g));
    n += __builtin_popcount(static_cast<unsigned>(irregular));
    g = _mm256_add_epi32(g, _mm256_set1_epi32(8));
  };
  each_vector(len, body);
  const double h = 0.5 * b.occ;
  __m512d v[4 * W];
  double t[4 * W];
  each_w<W>([&](auto w) { v[4 * w] = sr[w], v[4 * w + 1] = si[w], v[4 * w + 2] = yr[w], v[4 * w + 3] = yi[w]; });
  lane_sums<4 * W>(v, t);
  each_w<W>([&](auto w) {
    const double s_r = t[4 * w], s_i = t[4 * w + 1], y_r = t[4 * w + 2], y_i = t[4 * w + 3];
    s.sr[w] += s_r, s.si[w] += s_i, s.xr[w] += h * (s_r - y_r), s.xi[w] += h * (s_i - y_i);
  });
  return n;
}
#endif

// The G of a block whose flag row is nonzero, in order, into flagged[]; their count. A
// list (branch-free): a scan that skipped to them kept every row's pointer live and
// advancing, several cycles per G for the ~2% flagged.
inline int flagged_list(const double* __restrict flag, const int len, int* flagged) {
  int n = 0;
  for (int k = 0; k < len; ++k) {  // branch-free: the index advances where the flag is set
    flagged[n] = k;
    n += flag[k] != 0.0;
  }
  return n;
}

// The near-pole arm (the fused form's second arm) of the frequencies that occupied_band
// flagged, one G and frequency at a time (the arm as occupied_band chose it). Few terms
// (about 4% of si214's occupied ones), but each is a gathered, dependent chain to a
// division: the pass takes one division per term (physics::near_pole_term) where the
// literal arm takes two.
template <int W>
inline void near_pole_pass(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  int flagged[kMaxIgBlock];
  const double* __restrict flag = r[kFlag];
  const int n = flagged_list(flag, len, flagged);
  // occ ssx mat = near_pole_arm(.., P = I_eps mat, f = occ / 4) (physics::near_pole_arm,
  // as `tuned` computes it: one reciprocal), here with P = I_eps aqsn (the loops' sums
  // without conj(aqsm)); the arm as occupied_band chose it, not tested again (a test
  // written another way could disagree within a rounding and drop the term from both arms)
  const double f = 0.25 * b.occ;
  for (int i = 0; i < n; ++i) {
    const int k = flagged[i];
    const int bits = static_cast<int>(flag[k]);  // a sum of distinct powers of two: exact
    const complex_t P = complex_t(r[kIr][k], r[kIi][k]) * complex_t(b.ar[k], b.ai[k]);
    for (int w = 0; w < W; ++w) {
      if (!((bits >> w) & 1)) continue;
      const complex_t ssx_mat = physics::near_pole_arm(r[kWr][k], r[kWi][k], P, x[w], f, b.cut16);
      s.xr[w] += ssx_mat.real();
      s.xi[w] += ssx_mat.imag();
    }
  }
}

#if GPP_HOST_AVX512
// empty_band written with AVX-512 intrinsics (the default where built; GPP_HOST_EMPTY =
// simd takes the loop above): the same terms and sums, the arm a zero-masked multiply of
// the reciprocal, each sum one FMA; shared reciprocals as empty_band's (Mode), the arm's
// test where Checked (else only the last vector's lanes are masked). The G block
// in vectors of 8, the last one under a mask; per-lane sums added across lanes at the end.
template <int W, Rcp Mode, bool Checked>
inline void empty_band_avx512(const Rows& r, const int len, const Band& b, const double* x, GroupSums& s) {
  constexpr bool shared = Mode == Rcp::SharedDivide && W > 1;
  const __m512d one = _mm512_set1_pd(1.0);
  __m512d xv[W], ur[W], ui[W], vr[W], vi[W];
  each_w<W>([&](auto w) {
    xv[w] = _mm512_set1_pd(x[w]);
    ur[w] = ui[w] = vr[w] = vi[w] = _mm512_setzero_pd();
  });
  const BandRows rows(r, b);
  const auto body = [=, &ur, &ui, &vr, &vi](const int k, const __mmask8 valid, auto tail) GPP_HOST_ALWAYS_INLINE {
    const BandLanes l = band_lanes<decltype(tail)::value>(rows, k, valid);
    const __m512d &wr = l.wr, &wi2 = l.wi2, &thr = l.thr, &Ur = l.Ur, &Ui = l.Ui, &Vr = l.Vr, &Vi = l.Vi;
    __m512d wd[W], inv[W];
    __mmask8 regular[W];
    each_w<W>([&](auto w) {
      const __m512d dr = _mm512_sub_pd(xv[w], wr);
      wd[w] = _mm512_fmadd_pd(dr, dr, wi2);
      regular[w] = Checked ? _mm512_mask_cmp_pd_mask(valid, wd[w], thr, _CMP_GT_OQ) : valid;
    });
    // the reciprocals of the regular terms (0 elsewhere): empty_band's, masked
    if constexpr (!shared) {
      each_w<W>([&](auto w) { inv[w] = _mm512_maskz_div_pd(regular[w], one, wd[w]); });
    } else if constexpr (W == 2) {
      const __m512d q = _mm512_div_pd(one, _mm512_mul_pd(wd[0], wd[1]));
      inv[0] = _mm512_maskz_mul_pd(regular[0], q, wd[1]);
      inv[1] = _mm512_maskz_mul_pd(regular[1], q, wd[0]);
    } else if constexpr (W == 3) {
      const __m512d wd01 = _mm512_mul_pd(wd[0], wd[1]);
      const __m512d q = _mm512_div_pd(one, _mm512_mul_pd(wd01, wd[2]));
      const __m512d q2 = _mm512_mul_pd(q, wd[2]);
      inv[0] = _mm512_maskz_mul_pd(regular[0], q2, wd[1]);
      inv[1] = _mm512_maskz_mul_pd(regular[1], q2, wd[0]);
      inv[2] = _mm512_maskz_mul_pd(regular[2], q, wd01);
    } else {
      const __m512d wd01 = _mm512_mul_pd(wd[0], wd[1]), wd23 = _mm512_mul_pd(wd[2], wd[3]);
      const __m512d q = _mm512_div_pd(one, _mm512_mul_pd(wd01, wd23));
      const __m512d q01 = _mm512_mul_pd(q, wd23), q23 = _mm512_mul_pd(q, wd01);
      inv[0] = _mm512_maskz_mul_pd(regular[0], q01, wd[1]);
      inv[1] = _mm512_maskz_mul_pd(regular[1], q01, wd[0]);
      inv[2] = _mm512_maskz_mul_pd(regular[2], q23, wd[3]);
      inv[3] = _mm512_maskz_mul_pd(regular[3], q23, wd[2]);
    }
    each_w<W>([&](auto w) {
      ur[w] = _mm512_fmadd_pd(inv[w], Ur, ur[w]);
      ui[w] = _mm512_fmadd_pd(inv[w], Ui, ui[w]);
      vr[w] = _mm512_fmadd_pd(inv[w], Vr, vr[w]);
      vi[w] = _mm512_fmadd_pd(inv[w], Vi, vi[w]);
    });
  };
  each_vector(len, body);
  __m512d v[4 * W];
  double t[4 * W];
  each_w<W>([&](auto w) { v[4 * w] = ur[w], v[4 * w + 1] = ui[w], v[4 * w + 2] = vr[w], v[4 * w + 3] = vi[w]; });
  lane_sums<4 * W>(v, t);
  each_w<W>([&](auto w) {
    s.sr[w] += x[w] * t[4 * w] - t[4 * w + 2];
    s.si[w] += x[w] * t[4 * w + 1] - t[4 * w + 3];
  });
}
#endif

#if GPP_HOST_AVX512
// near_pole_pass written with AVX-512 intrinsics, over occupied_band_avx512's list of the n
// G where a term is not regular: 8 of those G at a time (P = I_eps aqsn, the loops' sums
// being without conj(aqsm)), each lane under the mask of the frequencies whose term is not
// regular (|wdiff|^2 > the G's threshold false: the loop's test, made with the same
// operations on the same values, so that a term is in exactly one of the two) where
// |wdiff|^2 < |wtilde|^2 / TOL_Zero (the near-pole arm; else the zero arm), with wtilde,
// I_eps, aqsn and the threshold gathered by index. The near-pole test's |wtilde|^2 /
// TOL_Zero is counted with every occupied term (counts::fused_cost's occ_common), as the
// `omp simd` loop makes it; here it is made only for the terms that are not regular. The
// scalar pass spends its time in one term's dependent chain to its division and in a
// branch per frequency on the flag's bit: here 8 terms share each instruction. The
// arithmetic is physics::near_pole_term's, term by term (the products contracted into
// FMAs elsewhere).
template <int W>
inline void near_pole_pass_avx512(const Rows& r, const int n, const Band& b, const double* x, GroupSums& s) {
  if (n == 0) return;
  const int* const flagged = reinterpret_cast<const int*>(r[kFlag]);
  const __m512d zero = _mm512_setzero_pd(), half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
  const __m512d nf = _mm512_set1_pd(-0.25 * b.occ), cut16 = _mm512_set1_pd(b.cut16);
  const __m512d inv_tol = _mm512_set1_pd(kInvTolZero);
  __m512d xr[W], xi[W];
  each_w<W>([&](auto w) { xr[w] = xi[w] = zero; });
  for (int i0 = 0; i0 < n; i0 += 8) {
    const __mmask8 valid = n - i0 >= 8 ? 0xFF : static_cast<__mmask8>((1u << (n - i0)) - 1);
    const __m256i idx = _mm256_maskz_loadu_epi32(valid, flagged + i0);
    const auto gather = [&](const double* row) { return _mm512_mask_i32gather_pd(zero, valid, idx, row, 8); };
    const __m512d wr = gather(r[kWr]), wi = gather(r[kWi]), ir = gather(r[kIr]), ii = gather(r[kIi]);
    const __m512d ar = gather(b.ar), ai = gather(b.ai), thr = gather(r[kThr]);
    // Im(wtilde)^2 as fill_pairs makes it (one correctly rounded product: the row's value,
    // so |wdiff|^2 below is the loop's); |wtilde|^2 may differ from its row by a rounding,
    // which moves the boundary of the near-pole and zero arms by as much (the two are told
    // apart only here). Two gathers fewer, a gather costing several multiplies.
    const __m512d wi2 = _mm512_mul_pd(wi, wi), pole = _mm512_mul_pd(_mm512_fmadd_pd(wr, wr, wi2), inv_tol);
    const __m512d Pr = _mm512_fmsub_pd(ir, ar, _mm512_mul_pd(ii, ai));
    const __m512d Pi = _mm512_fmadd_pd(ir, ai, _mm512_mul_pd(ii, ar));
    each_w<W>([&](auto w) {
      const __m512d xw = _mm512_set1_pd(x[w]);
      const __m512d dr = _mm512_sub_pd(xw, wr);
      const __m512d wdiffr = _mm512_fmadd_pd(dr, dr, wi2);
      // not regular: the complement of the loop's test (NaN included)
      __mmask8 due = _mm512_mask_cmp_pd_mask(valid, wdiffr, thr, _CMP_NGT_UQ);
      due = _mm512_mask_cmp_pd_mask(due, wdiffr, pole, _CMP_LT_OQ);  // near-pole (else the zero arm)
      if (due == 0) return;
      const __m512d a = _mm512_fmsub_pd(wr, dr, wi2), bb = _mm512_mul_pd(wi, xw);  // wtilde conj(wdiff)
      const __m512d hw = _mm512_mul_pd(half, wdiffr);
      const __m512d c_r = _mm512_add_pd(a, hw);
      const __m512d inv_c2 = _mm512_maskz_div_pd(due, one, _mm512_fmadd_pd(c_r, c_r, _mm512_mul_pd(bb, bb)));
      if (x[w] < 0.0) {  // the sexcut test: |a + ib|^2 / |c|^2 > 16 sexcut^2 drops the term
        const __m512d q = _mm512_mul_pd(_mm512_fmadd_pd(a, a, _mm512_mul_pd(bb, bb)), inv_c2);
        due = _mm512_mask_cmp_pd_mask(due, q, cut16, _CMP_NGT_UQ);
      }
      // -(f inv_c2) P num, num = (a c_r + b^2, b |wdiff|^2 / 2)
      const __m512d num_r = _mm512_fmadd_pd(a, c_r, _mm512_mul_pd(bb, bb)), num_i = _mm512_mul_pd(bb, hw);
      const __m512d g = _mm512_mul_pd(nf, inv_c2);
      const __m512d tr = _mm512_fmsub_pd(Pr, num_r, _mm512_mul_pd(Pi, num_i));
      const __m512d ti = _mm512_fmadd_pd(Pr, num_i, _mm512_mul_pd(Pi, num_r));
      xr[w] = _mm512_mask3_fmadd_pd(g, tr, xr[w], due);
      xi[w] = _mm512_mask3_fmadd_pd(g, ti, xi[w], due);
    });
  }
  __m512d v[2 * W];
  double t[2 * W];
  each_w<W>([&](auto w) { v[2 * w] = xr[w], v[2 * w + 1] = xi[w]; });
  lane_sums<2 * W>(v, t);
  each_w<W>([&](auto w) {
    s.xr[w] += t[2 * w];
    s.xi[w] += t[2 * w + 1];
  });
}
#endif

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

// The reciprocals of this run for one kind of band: SharedDivide, or what the variable
// (GPP_HOST_RCP_EMPTY, GPP_HOST_RCP_OCCUPIED) says (see Rcp).
inline Rcp run_reciprocals(const char* var) {
  const char* e = std::getenv(var);
  if (e == nullptr) return Rcp::SharedDivide;
  const std::string v(e);
  if (v == "div") return Rcp::Divide;
  if (v == "share") return Rcp::SharedDivide;
  throw Error(std::string(var) + "=" + v + ": expected div or share");
}

// The loop of this run for one kind of band: what the variable (GPP_HOST_OCCUPIED,
// GPP_HOST_EMPTY) says, else the AVX-512 one where built.
inline HostLoop run_loop(const char* var) {
  const char* e = std::getenv(var);
  if (e == nullptr) return GPP_HOST_AVX512 ? HostLoop::Avx512 : HostLoop::Simd;
  const std::string v(e);
  if (v == "simd") return HostLoop::Simd;
  if (v == "avx512") {
    if (!GPP_HOST_AVX512) throw Error(std::string(var) + "=avx512: this build has no AVX-512 loops (built without AVX-512)");
    return HostLoop::Avx512;
  }
  throw Error(std::string(var) + "=" + v + ": expected avx512 or simd");
}

// Frequencies W0 .. W0+W-1 (W = min(kMaxGroup, NW - W0)) of one band over a G block,
// then the next group.
template <int NW, int W0 = 0>
inline void band_groups(const Rows& r, const Bounds& bd, const int len, const Band& b, const double* wx,
                        SigmaAccum<NW>& g) {
  constexpr int W = NW - W0 < kMaxGroup ? NW - W0 : kMaxGroup;
  GroupSums s;  // the G block's sums without the band's factor conj(aqsm) (GPP_HOST_BAND_UV)
  const complex_t am_conj(b.amr, -b.ami);
  if (b.occ != 0.0) {
#if GPP_HOST_AVX512
    if (b.occupied_loop == HostLoop::Avx512) {
      bool cut = false;  // a frequency of the group below 0: the sexcut test can cut
      for (int w = 0; w < W; ++w) cut = cut || wx[W0 + w] < 0.0;
      const bool share = occupied_mode<W>(bd, b, wx + W0) == Rcp::SharedDivide;
      int n;  // the G with a term that is not regular
      if (cut && share) n = occupied_band_avx512<W, true, Rcp::SharedDivide>(r, len, b, wx + W0, s);
      else if (cut) n = occupied_band_avx512<W, true, Rcp::Divide>(r, len, b, wx + W0, s);
      else if (share) n = occupied_band_avx512<W, false, Rcp::SharedDivide>(r, len, b, wx + W0, s);
      else n = occupied_band_avx512<W, false, Rcp::Divide>(r, len, b, wx + W0, s);
      near_pole_pass_avx512<W>(r, n, b, wx + W0, s);
    } else {
      occupied_band<W>(r, len, b, wx + W0, s);
      near_pole_pass<W>(r, len, b, wx + W0, s);
    }
#else
    occupied_band<W>(r, len, b, wx + W0, s);
    near_pole_pass<W>(r, len, b, wx + W0, s);
#endif
    for (int w = 0; w < W; ++w) g.ssx[W0 + w] += am_conj * complex_t(s.xr[w], s.xi[w]);
  } else {
    const Rcp mode = empty_mode<W>(bd, b, wx + W0);
    bool checked = false;  // a term of the group may leave the regular arm
    for (int w = 0; w < W; ++w) checked = checked || !bd.all_regular(wx[W0 + w]);
    const auto loop = [&](auto mode_c, auto checked_c) {
      constexpr Rcp m = decltype(mode_c)::value;
      constexpr bool c = decltype(checked_c)::value;
#if GPP_HOST_AVX512
      if (b.empty_loop == HostLoop::Avx512) return empty_band_avx512<W, m, c>(r, len, b, wx + W0, s);
#endif
      empty_band<W, m, c>(r, len, b, wx + W0, s);
    };
    using Shared = std::integral_constant<Rcp, Rcp::SharedDivide>;
    using Divide = std::integral_constant<Rcp, Rcp::Divide>;
    if (mode == Rcp::SharedDivide) {
      if (checked) loop(Shared{}, std::true_type{});
      else loop(Shared{}, std::false_type{});
    } else if (checked) {
      loop(Divide{}, std::true_type{});
    } else {
      loop(Divide{}, std::false_type{});
    }
  }
  for (int w = 0; w < W; ++w) g.sch[W0 + w] += am_conj * complex_t(s.sr[w], s.si[w]);
  if constexpr (W0 + W < NW) band_groups<NW, W0 + W>(r, bd, len, b, wx, g);
}

template <int NW, class ExecSpace>
SigmaSums host_policy(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  using Order = kernels::FortranOrder;
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  // (the defaults and their measurements: gpp_host_shape.hpp)
  const int band_block = or_default(t.band_block, host_shape::kDefaultBandBlock);
  const int ig_block = or_default(t.ig_block, host_shape::kDefaultIgBlock);
  if (ig_block > kMaxIgBlock)
    throw Error("--ig-block " + std::to_string(ig_block) + " exceeds the host policy's maximum of " +
                std::to_string(kMaxIgBlock));
  t.band_block = band_block;
  t.ig_block = ig_block;
  const Rcp empty = run_reciprocals("GPP_HOST_RCP_EMPTY"), occupied = run_reciprocals("GPP_HOST_RCP_OCCUPIED");
  const HostLoop occupied_loop = run_loop("GPP_HOST_OCCUPIED"), empty_loop = run_loop("GPP_HOST_EMPTY");
  const double cut16 = 16.0 * in.sexcut * in.sexcut;
  SigmaAccum<NW> result;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  const PairBuffer<ExecSpace> buffer(space, ig_block);
  // Band blocks outermost, G' across threads inside: all threads stream the same band
  // block of aqsntemp (band_block x ncouls, 16 MB on the mini-app deck), which stays in
  // the shared L3 while every G' reads it, instead of each thread streaming all of
  // aqsntemp from memory for each G'. Each G''s sums (before the G' factor) carry over
  // from one band block to the next in gp_sums, in the same order as one pass would add
  // them.
  const Kokkos::View<SigmaAccum<NW>*, typename ExecSpace::memory_space> gp_sums("gpp::host::gp_sums", d.ngpown);
  // The band block's aqsntemp as split rows, Re and Im of band nb0 + j in rows 2j and 2j+1
  // (64-byte rows), written once per band block by all threads and read by all: the loops
  // load 8 G of each with one instruction, where aqsntemp's (re, im) pairs took two loads
  // and two permutes. As large as the band block's aqsntemp (at most aqsntemp's size).
  const int an_stride = (in.ncouls + 7) / 8 * 8;
  const int an_bands = band_block < d.nbands ? band_block : d.nbands;
  const Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> an_rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::aqsn_rows"), 2 * an_bands, an_stride);
  for (int nb0 = 0; nb0 < d.nbands; nb0 += band_block) {
    const int nb1 = band_block < d.nbands - nb0 ? nb0 + band_block : d.nbands;
    Kokkos::parallel_for(
        "gpp::host::aqsn_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, nb1 - nb0), [=](const int j) {
          const double* __restrict a = reinterpret_cast<const double*>(&in.aqsntemp(0, nb0 + j));
          double* __restrict re = &an_rows(2 * j, 0);
          double* __restrict im = &an_rows(2 * j + 1, 0);
#pragma omp simd
          for (int ig = 0; ig < in.ncouls; ++ig) re[ig] = a[2 * ig], im[ig] = a[2 * ig + 1];
        });
    // A host lambda: the policy runs on host spaces only, and its G loops are host code.
    Kokkos::parallel_for(
        "gpp::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, d.ngpown),
        [=](const int igp) {
          buffer.with([&](const Rows& rows) {
            SigmaAccum<NW> g = gp_sums(igp);  // sch*mat and occ*ssx*mat for this G'
            for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
              const int len = ig_block < in.ncouls - ig0 ? ig_block : in.ncouls - ig0;
              const Bounds bounds = fill_pairs(in, igp, ig0, len, rows);
              for (int n1 = nb0; n1 < nb1; ++n1) {
                const complex_t aqsm = Order::aqsm(in, igp, n1);
                double wx[NW];
                for (int w = 0; w < NW; ++w) wx[w] = Order::wx(in, w, n1);
                const Band b{&an_rows(2 * (n1 - nb0), ig0),
                             &an_rows(2 * (n1 - nb0) + 1, ig0),
                             aqsm.real(),
                             aqsm.imag(),
                             in.occ_array(n1),
                             cut16,
                             empty,
                             occupied,
                             occupied_loop,
                             empty_loop};
                band_groups<NW>(rows, bounds, len, b, wx, g);
              }
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

}  // namespace

template <class ExecSpace>
SigmaSums run_host(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  static_assert(sizeof(complex_t) == 2 * sizeof(double), "the G loops read complex_t as (re, im) pairs");
  return dispatch_nw(d.nw, [&](auto nw) { return host_policy<decltype(nw)::value>(space, d, t, mode); });
}
// The CPU policy is built for the host space only.
template GPP_RUNNER_SIGNATURE(run_host, ::gpp::HostExec);

}  // namespace gpp
