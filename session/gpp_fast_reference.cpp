#include "gpp_fast_reference.hpp"

#include "gpp_backend.hpp"
#include "gpp_compat.hpp"
#include "gpp_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cfloat>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpp::session {
namespace {

using gpp::operator+=;  // Kokkos 3.4 OpenMP joins through volatile references (gpp_compat.hpp)

// The spec's constants, restated: the pass shares no code with the kernels.
constexpr double kTolSmall = 1e-6;
constexpr double kTolZero = 1e-12;
constexpr double kLimitone = 1.0 / (4.0 * kTolSmall);

// The vector form takes one reciprocal per term, or one per two frequencies. It is used
// where its products stay far from overflow and from the subnormal range: pairs with
// |wtilde|^2 <= kWtildeMax and |I_eps|^2, sexcut^2 |I_eps|^2 <= kIepsMax, bands with |wx|
// <= kWxMax, and terms whose reciprocal is at most kRecipMax. With |wtilde|, |wx| <= M =
// 1e14 a term's den (term_parts) is at most 400 M^10 = 4e142, two terms' 1.6e285: below
// the overflow. Every other term is taken by literal_term, which divides as the spec
// writes.
constexpr double kWtildeMax = 1e28, kIepsMax = 1e100, kWxMax = 1e14;
constexpr double kRecipMax = 1e250;

// ArmCounts' arm index.
constexpr int kRegular = 0, kNearPole = 1, kZeroArm = 2;

// What the vector form reads of one (G, G') pair: one row each per chunk of G on a host.
enum Field : int {
  kWr,
  kWi,          // wtilde
  kWi2,         // Im(wtilde)^2
  kThrRegular,  // max(limittwo, |wtilde|^2 / limitone): the regular arm where |wdiff|^2 is above it
  kThrNear,     // |wtilde|^2 / TOL_Zero: the near-pole arm (off the regular one) where |wdiff|^2 is below it
  kW2r,         // Re(wtilde^2)
  kW2i2,        // Im(wtilde^2)^2
  kOsq,         // |Omega2|^2, Omega2 = wtilde^2 I_eps
  kIsq16,       // |I_eps|^2 / 16
  kCut2,        // sexcut^2 |I_eps|^2
  kIr,
  kIi,  // I_eps
  kOr,
  kOi,   // Omega2
  kW2i,  // Im(wtilde^2)
  kFields
};
// What a band adds to a pair: its aqsntemp at G times the pair's I_eps and Omega2.
enum BandField : int {
  kPr,
  kPi,  // P = I_eps aqsntemp
  kQr,
  kQi,  // Q = Omega2 aqsntemp (occupied bands only)
  kBandFields
};

struct Pair {
  double f[kFields];
  bool in_range;  // within the vector form's bounds
  KOKKOS_FORCEINLINE_FUNCTION double operator[](const int i) const { return f[i]; }
};

KOKKOS_FORCEINLINE_FUNCTION Pair make_pair_values(const double wr, const double wi, const double ir, const double ii,
                                                  const double sexcut2, const double limittwo) {
  Pair p;
  const double wi2 = wi * wi, wabs2 = wr * wr + wi2;
  const double w2r = wr * wr - wi2, w2i = 2.0 * wr * wi;
  const double o_r = w2r * ir - w2i * ii, o_i = w2r * ii + w2i * ir;
  const double ieps2 = ir * ir + ii * ii;
  const double thr = wabs2 * (1.0 / kLimitone);
  p.f[kWr] = wr;
  p.f[kWi] = wi;
  p.f[kWi2] = wi2;
  p.f[kThrRegular] = thr > limittwo ? thr : limittwo;
  p.f[kThrNear] = wabs2 * (1.0 / kTolZero);
  p.f[kW2r] = w2r;
  p.f[kW2i2] = w2i * w2i;
  p.f[kOsq] = o_r * o_r + o_i * o_i;
  p.f[kIsq16] = ieps2 * (1.0 / 16.0);
  p.f[kCut2] = sexcut2 * ieps2;
  p.f[kIr] = ir;
  p.f[kIi] = ii;
  p.f[kOr] = o_r;
  p.f[kOi] = o_i;
  p.f[kW2i] = w2i;
  p.in_range = (wabs2 <= kWtildeMax) & (ieps2 <= kIepsMax) & (p.f[kCut2] <= kIepsMax);
  return p;
}

struct Band {
  double f[kBandFields];
  KOKKOS_FORCEINLINE_FUNCTION double operator[](const int i) const { return f[i]; }
};

template <class Row>
KOKKOS_FORCEINLINE_FUNCTION Band make_band_values(const Row& p, const double nr, const double ni) {
  Band b;
  b.f[kPr] = p[kIr] * nr - p[kIi] * ni;
  b.f[kPi] = p[kIr] * ni + p[kIi] * nr;
  b.f[kQr] = p[kOr] * nr - p[kOi] * ni;
  b.f[kQi] = p[kOr] * ni + p[kOi] * nr;
  return b;
}

// What one term adds, times the band's aqsntemp at G: sch aqsntemp = (sch_r + i sch_i)
// sch_scale where the term adds to sch (adds_sch), ssx aqsntemp likewise (adds_ssx); its
// arm and cut.
struct Term {
  double sch_r, sch_i, sch_scale;
  double ssx_r, ssx_i, ssx_scale;
  bool regular, near, cut;  // cut: only where regular or near
  bool exceptional;         // outside the vector form's range: literal_term's to evaluate
};

// The term in real arithmetic with one reciprocal, every arm evaluated and the taken one
// selected (vectorisable). With wdiff = wx - wtilde and wtilde conj(wdiff) = a + ib:
//   delw = (a + ib) / |wdiff|^2 and |delw|^2 = |wtilde|^2 / |wdiff|^2, so the arm tests are
//   comparisons of |wdiff|^2 with the pair's thresholds (kThrRegular, kThrNear).
//   regular: sch = delw I_eps; ssx = Omega2 / cden = Omega2 conj(cden) / |cden|^2, cden =
//   wx^2 - wtilde^2 = cr - i Im(wtilde^2); |ssx|^2 = |Omega2|^2 / |cden|^2.
//   near pole: ssx = -Omega2 delw / (4 wtilde^2 (delw + 1/2)) = -I_eps (a + ib) conj(c) /
//   (4 |c|^2), c = (delw + 1/2) |wdiff|^2 = (a + |wdiff|^2 / 2) + ib; |ssx|^2 = |I_eps|^2
//   (a^2 + b^2) / (16 |c|^2).
// Times aqsntemp: sch aqsn = (a + ib) P / |wdiff|^2, regular ssx aqsn = Q conj(cden) /
// |cden|^2, near-pole ssx aqsn = -P (a + ib) conj(c) / (4 |c|^2). The three reciprocals
// come from one division, of their product den (term_parts), which two frequencies of a
// band may share (1/den_0 = den_1 / (den_0 den_1)). The sexcut test compares squares
// (sexcut >= 0 is checked on input). Booleans are combined with & and |: g++ 12
// vectorises no select between comparisons.
// What a term's reciprocal needs, and its arm.
struct TermParts {
  double wdiffr, a, b, cr, cden2, c_r, bb, c2, cc;
  double den;  // |wdiff|^2 |cden|^2 |c|^2
  bool regular, near;
};

template <class Row>
KOKKOS_FORCEINLINE_FUNCTION TermParts term_parts(const Row& p, const double x, const double x2) {
  TermParts u;
  const double dr = x - p[kWr];
  u.wdiffr = dr * dr + p[kWi2];
  u.a = p[kWr] * dr - p[kWi2];
  u.b = p[kWi] * x;
  u.regular = u.wdiffr > p[kThrRegular];
  u.near = !u.regular & (u.wdiffr < p[kThrNear]);
  u.cr = x2 - p[kW2r];
  u.cden2 = u.cr * u.cr + p[kW2i2];
  u.c_r = u.a + 0.5 * u.wdiffr;
  u.bb = u.b * u.b;
  u.c2 = u.c_r * u.c_r + u.bb;
  u.cc = u.cden2 * u.c2;
  u.den = u.wdiffr * u.cc;
  return u;
}

// The term from its parts and q = 1 / den.
template <class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION Term term_from(const Row& p, const BandRow& n, const TermParts& u, const double q,
                                           const bool negative) {
  Term t;
  t.regular = u.regular;
  t.near = u.near;
  const double wq = u.wdiffr * q;
  const double rc = wq * u.c2, rn = wq * u.cden2;  // 1/|cden|^2, 1/|c|^2
  t.sch_r = u.a * n[kPr] - u.b * n[kPi];
  t.sch_i = u.a * n[kPi] + u.b * n[kPr];
  t.sch_scale = u.cc * q;                                           // 1/|wdiff|^2
  const double nr = u.a * u.c_r + u.bb, ni = 0.5 * u.b * u.wdiffr;  // (a + ib) conj(c)
  // Both arms' values blended by m (exact: m is 1 or 0, and both are finite within the
  // range): a select would make g++ load Q's rows under a mask, which it then did not
  // vectorise.
  const double m = u.regular ? 1.0 : 0.0;
  t.ssx_r = m * (n[kQr] * u.cr - n[kQi] * p[kW2i]) + (1.0 - m) * (n[kPr] * nr - n[kPi] * ni);
  t.ssx_i = m * (n[kQi] * u.cr + n[kQr] * p[kW2i]) + (1.0 - m) * (n[kPr] * ni + n[kPi] * nr);
  t.ssx_scale = u.regular ? rc : -0.25 * rn;
  const bool regular_over = p[kOsq] * rc > p[kCut2];
  const bool near_over = p[kIsq16] * (u.a * u.a + u.bb) * rn > p[kCut2];
  t.cut = negative & ((u.regular & regular_over) | (!u.regular & near_over));
  t.exceptional = (u.regular | u.near) & !(q <= kRecipMax);
  return t;
}

template <class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION Term vector_term(const Row& p, const BandRow& n, const double x, const double x2,
                                             const bool negative) {
  const TermParts u = term_parts(p, x, x2);
  return term_from(p, n, u, 1.0 / u.den, negative);
}

// A term of an empty band (occ = 0: its ssx adds nothing) from its parts and rw =
// 1/|wdiff|^2, the one reciprocal its sch needs (shared by two frequencies). Its cut, which
// the branch statistics count, is decided without one: |ssx|^2 > sexcut^2 |I_eps|^2 <=>
// |Omega2|^2 > sexcut^2 |I_eps|^2 |cden|^2 (regular arm), |I_eps|^2 (a^2 + b^2) / 16 >
// sexcut^2 |I_eps|^2 |c|^2 (near-pole arm).
template <class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION Term empty_term_from(const Row& p, const BandRow& n, const TermParts& u, const double rw,
                                                 const bool negative) {
  Term t;
  t.regular = u.regular;
  t.near = u.near;
  t.sch_r = u.a * n[kPr] - u.b * n[kPi];
  t.sch_i = u.a * n[kPi] + u.b * n[kPr];
  t.sch_scale = rw;
  t.ssx_r = t.ssx_i = t.ssx_scale = 0.0;
  const bool regular_over = p[kOsq] > p[kCut2] * u.cden2;
  const bool near_over = p[kIsq16] * (u.a * u.a + u.bb) > p[kCut2] * u.c2;
  t.cut = negative & ((u.regular & regular_over) | (!u.regular & near_over));
  // (a near-pole term adds nothing here, but one at |wdiff| = 0 is the zero arm's for the
  // literal form, whose division gives NaN: such terms are left to it as well)
  t.exceptional = (u.regular | u.near) & !(rw <= kRecipMax);
  return t;
}

// |z| without overflow or underflow of the squares.
KOKKOS_INLINE_FUNCTION double magnitude(const double re, const double im) {
  const double ar = re < 0 ? -re : re, ai = im < 0 ? -im : im;
  const double big = ar > ai ? ar : ai, small = ar > ai ? ai : ar;
  if (big == 0.0 || !(big <= 1.7e308)) return big + small;  // 0, inf or NaN
  const double r = small / big;
  return big * ::sqrt(1.0 + r * r);
}

// The term as the spec writes it, in complex arithmetic (Kokkos' complex division scales
// its operands), times aqsntemp (nr + i ni): where the vector form's range does not hold.
KOKKOS_INLINE_FUNCTION Term literal_term(const double wr, const double wi, const double ir, const double ii,
                                         const double x, const bool negative, const double limittwo,
                                         const double sexcut, const double nr, const double ni) {
  using C = Kokkos::complex<double>;
  const C wtilde(wr, wi), I_eps(ir, ii), aqsn(nr, ni);
  const C wtilde2 = wtilde * wtilde;
  const C Omega2 = wtilde2 * I_eps;
  const C wdiff = C(x, 0.0) - wtilde;
  const C delw = wtilde / wdiff;
  const double delwr = delw.real() * delw.real() + delw.imag() * delw.imag();
  const double wdiffr = wdiff.real() * wdiff.real() + wdiff.imag() * wdiff.imag();
  C sch(0.0, 0.0), ssx(0.0, 0.0);
  Term t;
  t.regular = wdiffr > limittwo && delwr < kLimitone;
  t.near = !t.regular && delwr > kTolZero;
  if (t.regular) {
    sch = delw * I_eps;
    const C cden = C(x * x, 0.0) - wtilde2;
    ssx = Omega2 / cden;
  } else if (t.near) {
    const C cden = 4.0 * wtilde2 * (delw + C(0.5, 0.0));
    ssx = -(Omega2 * delw) / cden;
  }
  t.cut = negative && magnitude(ssx.real(), ssx.imag()) > sexcut * magnitude(ir, ii);
  const C sch_n = sch * aqsn, ssx_n = ssx * aqsn;
  t.sch_r = sch_n.real();
  t.sch_i = sch_n.imag();
  t.ssx_r = ssx_n.real();
  t.ssx_i = ssx_n.imag();
  t.sch_scale = t.ssx_scale = 1.0;
  t.exceptional = false;
  return t;
}

// Neumaier's compensated sum: value = s + c.
struct Compensated {
  double s = 0, c = 0;
  KOKKOS_INLINE_FUNCTION void add(const double x) {
    const double t = s + x;
    const double as = s < 0 ? -s : s, ax = x < 0 ? -x : x;
    c += as >= ax ? (s - t) + x : (x - t) + s;
    s = t;
  }
  // Another compensated sum: TwoSum of the leading parts, then the tails.
  KOKKOS_INLINE_FUNCTION void merge(const Compensated& o) {
    const double t = s + o.s;
    const double bp = t - s;
    const double err = (s - (t - bp)) + (o.s - bp);
    s = t;
    c += o.c + err;
  }
  KOKKOS_INLINE_FUNCTION double value() const { return s + c; }
};

KOKKOS_FORCEINLINE_FUNCTION int arm_of(const Term& t) { return t.regular ? kRegular : t.near ? kNearPole : kZeroArm; }

// What a term adds: sch where regular, ssx where regular or near pole and not cut.
KOKKOS_FORCEINLINE_FUNCTION bool adds_sch(const Term& t) { return t.regular; }
KOKKOS_FORCEINLINE_FUNCTION bool adds_ssx(const Term& t) { return (t.regular | t.near) & !t.cut; }

// ---- the lean form: the regular arm in the loop, the rest from a list --------------------

// The same term with fewer operations, for the loops where every value is in range. An
// occupied band's loop takes the regular arm only: sch aqsn = (a + ib) P / |wdiff|^2 and
// ssx aqsn = Q conj(cden) / |cden|^2, one reciprocal of den = |wdiff|^2 |cden|^2 giving
// both (and the cut), two frequencies sharing one division. The terms off the regular arm
// (about 2% of a deck's, and a zero arm's term adds nothing) are marked, one bit a G, and
// evaluated afterwards from a list of their G (near_terms): the near-pole arm's ssx aqsn =
// -P (a + ib) conj(c) / (4 |c|^2), with a reciprocal of |wdiff|^2 |c|^2 of their own. A
// loop that took both arms by blends made each term select its operands (about 50
// instructions of 160 a vector of 8 G for two frequencies). Its values are term_from's up
// to the order of a few roundings; its arms and cuts are decided by the same comparisons of
// the same values.
struct LeanParts {
  double wd, a, b, cr, cden2, den;  // |wdiff|^2, wtilde conj(wdiff) = a + ib, Re cden, |cden|^2, den
  bool regular;
};

template <class Row>
KOKKOS_FORCEINLINE_FUNCTION LeanParts lean_parts(const Row& p, const double x, const double x2) {
  LeanParts u;
  const double dr = x - p[kWr];
  u.wd = dr * dr + p[kWi2];
  u.a = p[kWr] * dr - p[kWi2];
  u.b = p[kWi] * x;
  u.regular = u.wd > p[kThrRegular];
  u.cr = x2 - p[kW2r];
  u.cden2 = u.cr * u.cr + p[kW2i2];
  u.den = u.wd * u.cden2;
  return u;
}

// What an occupied band's regular term adds (sch aqsn, ssx aqsn, before occ and
// conj(aqsm)), from its parts and r = 1/den, and its arm_code (below); `Negative`: wx < 0
// (the sexcut test applies). A regular term whose reciprocal is out of range is flagged in
// the code (exceptional): the chunk is then redone by the careful form. Reciprocals enter
// only through selects, so that a term off the regular arm (|wdiff| = 0 among them) leaves
// no inf or NaN in the sums.
template <bool Negative, class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION void lean_regular(const Row& p, const BandRow& n, const LeanParts& u, const double r,
                                              double& sch_r, double& sch_i, double& ssx_r, double& ssx_i,
                                              double& code) {
  // One select, of the reciprocal: off the regular arm (where r may be inf or NaN) every
  // product below is 0 times a finite value. A select per sum instead let g++ 12 compute
  // each sum's update for both arms and blend them.
  const double rr = u.regular ? r : 0.0;
  const double rw = rr * u.cden2, rs = rr * u.wd;  // 1/|wdiff|^2, 1/|cden|^2 where regular
  const double pr = n[kPr], pi = n[kPi], qr = n[kQr], qi = n[kQi];
  sch_r += rw * (u.a * pr - u.b * pi);
  sch_i += rw * (u.a * pi + u.b * pr);
  // (selects of values, not & of conditions: g++ made those in general registers)
  const double one = u.regular ? 1.0 : 0.0;
  double sx = rs, arm = one;
  if constexpr (Negative) {
    const bool over = p[kOsq] * rs > p[kCut2];  // cut (rs = 0 off the regular arm)
    sx = over ? 0.0 : sx;
    arm = over ? 0x1.004p10 * one : one;
  }
  ssx_r += sx * (qr * u.cr - qi * p[kW2i]);
  ssx_i += sx * (qr * p[kW2i] + qi * u.cr);
  code += arm + (rr <= kRecipMax ? 0.0 : 0x1p40);  // exceptional (rr = 0 off the regular arm)
}

// A listed term: off the regular arm where the loop's test (lean_parts', the same
// operations on the same values) says so, counted in `offs`; then the near-pole arm's ssx
// aqsn where |wdiff|^2 < |wtilde|^2 / TOL_Zero, else the zero arm's nothing; its
// arm_code. A term whose own reciprocal is out of range is flagged as above.
template <bool Negative, class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION void near_term(const Row& p, const BandRow& n, const double x, const double listed,
                                           double& ssx_r, double& ssx_i, double& code, double& offs) {
  const double dr = x - p[kWr];
  const double wd = dr * dr + p[kWi2];
  const double off = wd > p[kThrRegular] ? 0.0 : listed;  // 1 or 0
  const double near = wd < p[kThrNear] ? off : 0.0;
  const double a = p[kWr] * dr - p[kWi2], b = p[kWi] * x;
  const double c_r = a + 0.5 * wd, bb = b * b;
  const double c2 = c_r * c_r + bb;
  const double r = 1.0 / (wd * c2), rs = r * wd;  // 1/|c|^2
  double sx = near != 0.0 ? -0.25 * rs : 0.0, arm = 0x1p20 * near;
  if constexpr (Negative) {
    const bool over = p[kIsq16] * (a * a + bb) * rs > p[kCut2];  // cut, where near
    sx = over ? 0.0 : sx;
    arm = over ? 0x1.004p30 * near : arm;
  }
  const double nr = a * c_r + bb, ni = 0.5 * b * wd;  // (a + ib) conj(c)
  const double pr = n[kPr], pi = n[kPi];
  ssx_r += sx * (pr * nr - pi * ni);
  ssx_i += sx * (pr * ni + pi * nr);
  code += arm + (r <= kRecipMax ? 0.0 : 0x1p40 * near);  // exceptional, where near
  offs += off;
}

// An empty band's term (sch only) where every term of the chunk is regular (the caller
// checks the count and otherwise redoes the chunk by the careful form), from rw =
// 1/|wdiff|^2; its arm_code. Regular terms have |wdiff|^2 > limittwo, so that rw stays in
// range wherever limittwo >= kLeanLimittwo (checked per deck).
template <bool Negative, class Row, class BandRow>
KOKKOS_FORCEINLINE_FUNCTION void lean_empty(const Row& p, const BandRow& n, const double x, const double x2,
                                            const double dr, const bool regular, const double rw, double& sch_r,
                                            double& sch_i, double& code) {
  const double a = p[kWr] * dr - p[kWi2], b = p[kWi] * x;
  const double pr = n[kPr], pi = n[kPi];
  const double sw = regular ? rw : 0.0;
  sch_r += sw * (a * pr - b * pi);
  sch_i += sw * (a * pi + b * pr);
  bool cut = false;
  if constexpr (Negative) {
    const double cr = x2 - p[kW2r];
    cut = regular & (p[kOsq] > p[kCut2] * (cr * cr + p[kW2i2]));
  }
  code += regular ? (cut ? 0x1.004p10 : 1.0) : 0.0;
}
constexpr double kLeanLimittwo = 1e-120;

// ---- host spaces: G' in parallel, G in vector lanes --------------------------------------

// G per chunk: a chunk's pair rows stay in L1 while every band of the block and every
// frequency reads them. A chunk's sums are plain double sums over its G (at most kChunk /
// lanes additions in a chain, then the lanes), compensated from there on.
constexpr int kChunk = 128;
static_assert(kChunk < 1024, "a chunk's arm counts are summed in fields of 10 bits");
// G' per task, taken chunk by chunk: a chunk's aqsntemp columns of the block (64 KB for 32
// bands) come from the shared cache for the first G' and from the core's own for the second.
constexpr int kHostGroup = 2;
// and per frequency of a pair, the terms the vector form left to literal_term (1.0)
enum Scratch : int { kBandRows = kFields, kFlag0 = kBandRows + kBandFields, kFlag1, kRows };

// One pair's fields in a chunk's rows (one buffer, rows kChunk apart: one base register).
struct RowsAt {
  const double* rows;
  std::ptrdiff_t k;
  KOKKOS_FORCEINLINE_FUNCTION double operator[](const int f) const { return rows[f * kChunk + k]; }
};
// One pair's band fields in a chunk's rows.
struct BandRowsAt {
  const double* rows;
  std::ptrdiff_t k;
  KOKKOS_FORCEINLINE_FUNCTION double operator[](const int f) const { return rows[(kBandRows + f) * kChunk + k]; }
};

// Per G', over all bands: per frequency sch (re, im) and ssx (re, im), then achstemp (re,
// im): compensated, before the G' factors; and the arms.
struct HostAccumulators {
  Kokkos::View<Compensated**, Kokkos::LayoutRight, Kokkos::HostSpace> sums;   // (ngpown, 4 nw + 2)
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace> arms;  // (ngpown, 24)
};

// The arms of a chunk's terms in one sum, exact (integers below 2^53): regular, regular
// and cut, near pole, near pole and cut, exceptional; 10 bits each.
KOKKOS_FORCEINLINE_FUNCTION double arm_code(const Term& t) {
  const double arm = t.regular ? 1.0 : t.near ? 0x1p20 : 0.0;
  const double cut = t.cut & (t.regular | t.near) ? (t.regular ? 0x1p10 : 0x1p30) : 0.0;
  return t.exceptional ? 0x1p40 : arm + cut;
}

// What one frequency of a band adds over a chunk: sch and ssx times aqsntemp (sums[0..3]),
// the arms into by_arm[arm][cut].
struct ChunkSums {
  double sums[4] = {0, 0, 0, 0};
  double arms = 0;  // arm_code's sum
  std::int64_t by_arm[3][2] = {{0, 0}, {0, 0}, {0, 0}};
};

KOKKOS_FORCEINLINE_FUNCTION void add_term(const Term& t, double& sch_r, double& sch_i, double& ssx_r, double& ssx_i,
                                          double& arms, double& flag) {
  flag = t.exceptional ? 1.0 : 0.0;
  const double s = (adds_sch(t) & !t.exceptional) ? t.sch_scale : 0.0;
  const double u = (adds_ssx(t) & !t.exceptional) ? t.ssx_scale : 0.0;
  sch_r += s * t.sch_r;
  sch_i += s * t.sch_i;
  ssx_r += u * t.ssx_r;
  ssx_i += u * t.ssx_i;
  arms += arm_code(t);
}

// The arm counts of a chunk from arm_code's sum, then the exceptional terms one by one
// (literal_term): those the pass flagged (flags[k] != 0), or all where it did not run.
inline void finish_chunk(const double* rows, const double* an, const int len, const double x, const bool vector_form,
                         const double limittwo, const double sexcut, const double* flags, ChunkSums& c) {
  const bool negative = x < 0.0;
  const auto code = std::int64_t(vector_form ? c.arms : 0x1p40 * len);
  const auto field = [&](const int i) { return (code >> (10 * i)) & 1023; };
  const std::int64_t exceptional = code >> 40;
  c.by_arm[kRegular][0] += field(0) - field(1);
  c.by_arm[kRegular][1] += field(1);
  c.by_arm[kNearPole][0] += field(2) - field(3);
  c.by_arm[kNearPole][1] += field(3);
  c.by_arm[kZeroArm][0] += len - field(0) - field(2) - exceptional;
  if (exceptional == 0) return;
  for (int k = 0; k < len; ++k) {
    if (vector_form && flags[k] == 0.0) continue;
    const RowsAt p{rows, k};
    const Term t =
        literal_term(p[kWr], p[kWi], p[kIr], p[kIi], x, negative, limittwo, sexcut, an[2 * k], an[2 * k + 1]);
    if (adds_sch(t)) {
      c.sums[0] += t.sch_r;
      c.sums[1] += t.sch_i;
    }
    if (adds_ssx(t)) {
      c.sums[2] += t.ssx_r;
      c.sums[3] += t.ssx_i;
    }
    c.by_arm[arm_of(t)][t.cut ? 1 : 0] += 1;
  }
}

// The terms of one or two frequencies of a band over a chunk, one `omp simd` loop per kind
// of band and number of frequencies, each in a function of its own: g++ 12 left such loops
// scalar when it inlined two or more of them into one function. Two frequencies share the
// rows and one division (two independent chains per G).
[[gnu::noinline]] void occupied_one(double* rows, const int len, const double x, ChunkSums& c) {
  const bool negative = x < 0.0;
  const double x2 = x * x;
  double sch_r = 0, sch_i = 0, ssx_r = 0, ssx_i = 0, arms = 0;
  double* const flags = rows + kFlag0 * kChunk;
#pragma omp simd reduction(+ : sch_r, sch_i, ssx_r, ssx_i, arms)
  for (int k = 0; k < len; ++k)
    add_term(vector_term(RowsAt{rows, k}, BandRowsAt{rows, k}, x, x2, negative), sch_r, sch_i, ssx_r, ssx_i, arms,
             flags[k]);
  c.sums[0] = sch_r;
  c.sums[1] = sch_i;
  c.sums[2] = ssx_r;
  c.sums[3] = ssx_i;
  c.arms = arms;
}

[[gnu::noinline]] void empty_one(double* rows, const int len, const double x, ChunkSums& c) {
  const bool negative = x < 0.0;
  const double x2 = x * x;
  double sch_r = 0, sch_i = 0, ssx_r = 0, ssx_i = 0, arms = 0;
  double* const flags = rows + kFlag0 * kChunk;
#pragma omp simd reduction(+ : sch_r, sch_i, arms)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const TermParts u = term_parts(p, x, x2);
    add_term(empty_term_from(p, BandRowsAt{rows, k}, u, 1.0 / u.wdiffr, negative), sch_r, sch_i, ssx_r, ssx_i, arms,
             flags[k]);
  }
  c.sums[0] = sch_r;
  c.sums[1] = sch_i;
  c.sums[2] = c.sums[3] = 0.0;
  c.arms = arms;
}

// (a term is out of range where its shared reciprocal is, which its partner decides as
// well: a partner with |wdiff| = 0 leaves both to literal_term)
[[gnu::noinline]] void occupied_two(double* rows, const int len, const double x0, const double x1, ChunkSums& c0,
                                    ChunkSums& c1) {
  const bool negative0 = x0 < 0.0, negative1 = x1 < 0.0;
  const double x02 = x0 * x0, x12 = x1 * x1;
  double sch_r0 = 0, sch_i0 = 0, ssx_r0 = 0, ssx_i0 = 0, arms0 = 0;
  double sch_r1 = 0, sch_i1 = 0, ssx_r1 = 0, ssx_i1 = 0, arms1 = 0;
  double* const flags0 = rows + kFlag0 * kChunk;
  double* const flags1 = rows + kFlag1 * kChunk;
#pragma omp simd reduction(+ : sch_r0, sch_i0, ssx_r0, ssx_i0, arms0, sch_r1, sch_i1, ssx_r1, ssx_i1, arms1)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const BandRowsAt n{rows, k};
    const TermParts u0 = term_parts(p, x0, x02), u1 = term_parts(p, x1, x12);
    const double q = 1.0 / (u0.den * u1.den);
    add_term(term_from(p, n, u0, u1.den * q, negative0), sch_r0, sch_i0, ssx_r0, ssx_i0, arms0, flags0[k]);
    add_term(term_from(p, n, u1, u0.den * q, negative1), sch_r1, sch_i1, ssx_r1, ssx_i1, arms1, flags1[k]);
  }
  c0.sums[0] = sch_r0;
  c0.sums[1] = sch_i0;
  c0.sums[2] = ssx_r0;
  c0.sums[3] = ssx_i0;
  c0.arms = arms0;
  c1.sums[0] = sch_r1;
  c1.sums[1] = sch_i1;
  c1.sums[2] = ssx_r1;
  c1.sums[3] = ssx_i1;
  c1.arms = arms1;
}

[[gnu::noinline]] void empty_two(double* rows, const int len, const double x0, const double x1, ChunkSums& c0,
                                 ChunkSums& c1) {
  const bool negative0 = x0 < 0.0, negative1 = x1 < 0.0;
  const double x02 = x0 * x0, x12 = x1 * x1;
  double sch_r0 = 0, sch_i0 = 0, ssx_r0 = 0, ssx_i0 = 0, arms0 = 0;
  double sch_r1 = 0, sch_i1 = 0, ssx_r1 = 0, ssx_i1 = 0, arms1 = 0;
  double* const flags0 = rows + kFlag0 * kChunk;
  double* const flags1 = rows + kFlag1 * kChunk;
#pragma omp simd reduction(+ : sch_r0, sch_i0, arms0, sch_r1, sch_i1, arms1)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const BandRowsAt n{rows, k};
    const TermParts u0 = term_parts(p, x0, x02), u1 = term_parts(p, x1, x12);
    const double q = 1.0 / (u0.wdiffr * u1.wdiffr);
    add_term(empty_term_from(p, n, u0, u1.wdiffr * q, negative0), sch_r0, sch_i0, ssx_r0, ssx_i0, arms0, flags0[k]);
    add_term(empty_term_from(p, n, u1, u0.wdiffr * q, negative1), sch_r1, sch_i1, ssx_r1, ssx_i1, arms1, flags1[k]);
  }
  c0.sums[0] = sch_r0;
  c0.sums[1] = sch_i0;
  c0.sums[2] = c0.sums[3] = 0.0;
  c0.arms = arms0;
  c1.sums[0] = sch_r1;
  c1.sums[1] = sch_i1;
  c1.sums[2] = c1.sums[3] = 0.0;
  c1.arms = arms1;
}

// From a chunk's arm codes: whether a term is out of the lean form's range; its regular
// terms; whether every term is regular.
inline bool exceptional(const ChunkSums& c) { return (std::int64_t(c.arms) >> 40) != 0; }
inline int regular_terms(const ChunkSums& c) { return int(std::int64_t(c.arms) & 1023); }
inline bool all_regular(const ChunkSums& c, const int len) { return regular_terms(c) == len; }

// The G of a chunk whose term is off the regular arm at one of a band's frequencies or the
// other, in order, from the loop's marks; followed by a vector's worth of copies of the
// first, so that near_terms' loop runs whole vectors (no scalar remainder).
constexpr int kListPad = 8;  // lanes of the widest vector
struct OffList {
  std::ptrdiff_t g[kChunk + kListPad];  // (as wide as a double: a vector of indices per vector of values)
  double listed[kChunk + kListPad];     // 1, and 0 for the copies (an array: a test of the index split the loop)
  int n = 0;
};

// The lowest bit set in m (m != 0), in 32-bit halves (compat's).
KOKKOS_FORCEINLINE_FUNCTION int lowest_bit(const std::uint64_t m) {
  const unsigned lo = unsigned(m);
  return lo != 0u ? compat::countr_zero(lo) : 32 + compat::countr_zero(unsigned(m >> 32));
}

// A chunk's G whose term is off the regular arm at a frequency, marked in three words
// of 43 bits (G k: bit k % 43 of word k / 43), each a double: a sum of distinct powers of
// two below 2^43 is exact. (The loop's integer sums made g++ 12 keep every sum of the loop
// in memory; an | reduction left it scalar.)
constexpr int kWordBits = 43, kWords = 3;
static_assert(kChunk <= kWords * kWordBits, "a chunk's marks fit its words");
struct MarkTable {
  double bit[kWords][kChunk];  // G k's bit in word w, 0 in the others
  constexpr MarkTable() : bit() {
    for (int k = 0; k < kChunk; ++k) {
      double b = 1.0;
      for (int i = 0; i < k % kWordBits; ++i) b *= 2.0;
      bit[k / kWordBits][k] = b;
    }
  }
};
constexpr MarkTable kMarks{};
// Marks G k where its term is off the regular arm (`regular` false); host loops only.
inline void mark_off(const bool regular, const int k, double& w0, double& w1, double& w2) {
  w0 += regular ? 0.0 : kMarks.bit[0][k];
  w1 += regular ? 0.0 : kMarks.bit[1][k];
  w2 += regular ? 0.0 : kMarks.bit[2][k];
}

inline bool off_list(const double (&words)[kWords], OffList& l) {
  for (int w = 0; w < kWords; ++w)
    for (auto m = std::uint64_t(words[w]); m != 0; m &= m - 1) {
      l.g[l.n] = kWordBits * w + lowest_bit(m);
      l.listed[l.n++] = 1.0;
    }
  if (l.n == 0) return false;
  for (int i = l.n; i < l.n + kListPad; ++i) {
    l.g[i] = l.g[0];
    l.listed[i] = 0.0;
  }
  return true;
}

// The listed terms of one frequency (x1 unused) or two, their rows gathered a vector of
// listed G at a time (the lanes past the list repeat its first G and add nothing); their
// ssx and arm codes are added to c0 and c1. False where the list's count of terms off the
// regular arm and the loop's count of regular ones (c.arms) do not add up to the chunk
// (a rounding that differed between the two loops): the chunk is then redone.
template <bool N0, bool N1, bool Two>
[[gnu::noinline]] bool near_terms(const double* rows, const OffList& l, const int len, const double x0, const double x1,
                                  ChunkSums& c0, ChunkSums& c1) {
  double ssx_r0 = 0, ssx_i0 = 0, code0 = 0, offs0 = 0, ssx_r1 = 0, ssx_i1 = 0, code1 = 0, offs1 = 0;
  // (indices and counters as wide as the values: vectors of 8 lanes throughout)
  const std::ptrdiff_t padded = (l.n + kListPad - 1) / kListPad * kListPad;
#pragma omp simd reduction(+ : ssx_r0, ssx_i0, code0, offs0, ssx_r1, ssx_i1, code1, offs1)
  for (std::ptrdiff_t j = 0; j < padded; ++j) {
    const std::ptrdiff_t k = l.g[j];
    const RowsAt p{rows, k};
    const BandRowsAt b{rows, k};
    near_term<N0>(p, b, x0, l.listed[j], ssx_r0, ssx_i0, code0, offs0);
    if constexpr (Two) near_term<N1>(p, b, x1, l.listed[j], ssx_r1, ssx_i1, code1, offs1);
  }
  if (regular_terms(c0) + offs0 != len || (Two && regular_terms(c1) + offs1 != len)) return false;
  c0.sums[2] += ssx_r0;
  c0.sums[3] += ssx_i0;
  c0.arms += code0;
  if constexpr (Two) {
    c1.sums[2] += ssx_r1;
    c1.sums[3] += ssx_i1;
    c1.arms += code1;
  }
  return true;
}

// The lean loops (lean_regular, lean_empty) of one frequency (x1 unused) or two of a
// band over a chunk, one `omp simd` loop per kind of band, number of frequencies and
// signs of wx, each in a function of its own (see above); an occupied band's terms off the
// regular arm then from their list. False where the chunk needs the careful form (the
// list's counts above).
template <bool N0, bool N1>
[[gnu::noinline]] bool lean_occupied_two(const double* rows, const int len, const double x0, const double x1,
                                         ChunkSums& c0, ChunkSums& c1) {
  const double x02 = x0 * x0, x12 = x1 * x1;
  double sch_r0 = 0, sch_i0 = 0, ssx_r0 = 0, ssx_i0 = 0, code0 = 0;
  double sch_r1 = 0, sch_i1 = 0, ssx_r1 = 0, ssx_i1 = 0, code1 = 0;
  double w0 = 0, w1 = 0, w2 = 0;
#pragma omp simd reduction(+ : sch_r0, sch_i0, ssx_r0, ssx_i0, code0, sch_r1, sch_i1, ssx_r1, ssx_i1, code1, w0, w1, w2)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const BandRowsAt n{rows, k};
    const LeanParts u0 = lean_parts(p, x0, x02), u1 = lean_parts(p, x1, x12);
    const double q = 1.0 / (u0.den * u1.den);
    lean_regular<N0>(p, n, u0, u1.den * q, sch_r0, sch_i0, ssx_r0, ssx_i0, code0);
    lean_regular<N1>(p, n, u1, u0.den * q, sch_r1, sch_i1, ssx_r1, ssx_i1, code1);
    mark_off(u0.regular & u1.regular, k, w0, w1, w2);
  }
  c0 = ChunkSums{{sch_r0, sch_i0, ssx_r0, ssx_i0}, code0};
  c1 = ChunkSums{{sch_r1, sch_i1, ssx_r1, ssx_i1}, code1};
  OffList l;
  const bool listed = !off_list({w0, w1, w2}, l) || near_terms<N0, N1, true>(rows, l, len, x0, x1, c0, c1);
  return listed && !exceptional(c0) && !exceptional(c1);
}

template <bool N0>
[[gnu::noinline]] bool lean_occupied_one(const double* rows, const int len, const double x0, ChunkSums& c0) {
  const double x02 = x0 * x0;
  double sch_r0 = 0, sch_i0 = 0, ssx_r0 = 0, ssx_i0 = 0, code0 = 0;
  double w0 = 0, w1 = 0, w2 = 0;
#pragma omp simd reduction(+ : sch_r0, sch_i0, ssx_r0, ssx_i0, code0, w0, w1, w2)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const LeanParts u0 = lean_parts(p, x0, x02);
    lean_regular<N0>(p, BandRowsAt{rows, k}, u0, 1.0 / u0.den, sch_r0, sch_i0, ssx_r0, ssx_i0, code0);
    mark_off(u0.regular, k, w0, w1, w2);
  }
  c0 = ChunkSums{{sch_r0, sch_i0, ssx_r0, ssx_i0}, code0};
  OffList l;
  ChunkSums unused;
  const bool listed = !off_list({w0, w1, w2}, l) || near_terms<N0, false, false>(rows, l, len, x0, 0.0, c0, unused);
  return listed && !exceptional(c0);
}

template <bool N0, bool N1>
[[gnu::noinline]] bool lean_empty_two(const double* rows, const int len, const double x0, const double x1,
                                      ChunkSums& c0, ChunkSums& c1) {
  const double x02 = x0 * x0, x12 = x1 * x1;
  double sch_r0 = 0, sch_i0 = 0, code0 = 0, sch_r1 = 0, sch_i1 = 0, code1 = 0;
#pragma omp simd reduction(+ : sch_r0, sch_i0, code0, sch_r1, sch_i1, code1)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const BandRowsAt n{rows, k};
    const double dr0 = x0 - p[kWr], dr1 = x1 - p[kWr];
    const double wd0 = dr0 * dr0 + p[kWi2], wd1 = dr1 * dr1 + p[kWi2];
    const double q = 1.0 / (wd0 * wd1);
    lean_empty<N0>(p, n, x0, x02, dr0, wd0 > p[kThrRegular], q * wd1, sch_r0, sch_i0, code0);
    lean_empty<N1>(p, n, x1, x12, dr1, wd1 > p[kThrRegular], q * wd0, sch_r1, sch_i1, code1);
  }
  c0 = ChunkSums{{sch_r0, sch_i0, 0.0, 0.0}, code0};
  c1 = ChunkSums{{sch_r1, sch_i1, 0.0, 0.0}, code1};
  return all_regular(c0, len) && all_regular(c1, len);
}

template <bool N0>
[[gnu::noinline]] bool lean_empty_one(const double* rows, const int len, const double x0, ChunkSums& c0) {
  const double x02 = x0 * x0;
  double sch_r0 = 0, sch_i0 = 0, code0 = 0;
#pragma omp simd reduction(+ : sch_r0, sch_i0, code0)
  for (int k = 0; k < len; ++k) {
    const RowsAt p{rows, k};
    const double dr0 = x0 - p[kWr];
    const double wd0 = dr0 * dr0 + p[kWi2];
    lean_empty<N0>(p, BandRowsAt{rows, k}, x0, x02, dr0, wd0 > p[kThrRegular], 1.0 / wd0, sch_r0, sch_i0, code0);
  }
  c0 = ChunkSums{{sch_r0, sch_i0, 0.0, 0.0}, code0};
  return all_regular(c0, len);
}

// The lean loops for a band's one or two frequencies; false where the chunk needs the
// careful form: an occupied band's exceptional term (or a list that does not add up), an
// empty band's term off the regular arm.
inline bool lean_chunk(const double* rows, const int len, const int frequencies, const double x0, const double x1,
                       const bool occupied, ChunkSums (&c)[2]) {
  const bool n0 = x0 < 0.0, n1 = x1 < 0.0;
  if (frequencies == 2) {
    using Two = bool (*)(const double*, int, double, double, ChunkSums&, ChunkSums&);
    static constexpr Two occupied_loops[4] = {lean_occupied_two<false, false>, lean_occupied_two<false, true>,
                                              lean_occupied_two<true, false>, lean_occupied_two<true, true>};
    static constexpr Two empty_loops[4] = {lean_empty_two<false, false>, lean_empty_two<false, true>,
                                           lean_empty_two<true, false>, lean_empty_two<true, true>};
    return (occupied ? occupied_loops : empty_loops)[2 * n0 + n1](rows, len, x0, x1, c[0], c[1]);
  }
  using One = bool (*)(const double*, int, double, ChunkSums&);
  static constexpr One occupied_loops[2] = {lean_occupied_one<false>, lean_occupied_one<true>};
  static constexpr One empty_loops[2] = {lean_empty_one<false>, lean_empty_one<true>};
  return (occupied ? occupied_loops : empty_loops)[n0](rows, len, x0, c[0]);
}

// One frequency (x1 unused) or two of a band over a chunk: the lean loops where they
// apply, else the careful ones and then the exceptional terms (or all where the vector
// form's range does not hold) by literal_term. `an`: the band's aqsntemp at the chunk.
inline void chunk_terms(double* rows, const double* an, const int len, const int frequencies, const double x0,
                        const double x1, const bool occupied, const bool vector_form, const bool lean_empty_ok,
                        const double limittwo, const double sexcut, ChunkSums (&c)[2]) {
  if (!(vector_form && (occupied || lean_empty_ok) && lean_chunk(rows, len, frequencies, x0, x1, occupied, c))) {
    c[0] = c[1] = ChunkSums{};
    if (vector_form) {
      if (frequencies == 2)
        (occupied ? occupied_two : empty_two)(rows, len, x0, x1, c[0], c[1]);
      else
        (occupied ? occupied_one : empty_one)(rows, len, x0, c[0]);
    }
  }
  finish_chunk(rows, an, len, x0, vector_form, limittwo, sexcut, rows + kFlag0 * kChunk, c[0]);
  if (frequencies == 2) finish_chunk(rows, an, len, x1, vector_form, limittwo, sexcut, rows + kFlag1 * kChunk, c[1]);
}

// A band's rows over a chunk (P, and Q where `WithQ`: an occupied band's) from its
// aqsntemp `an`, and the chunk's sum of P.
template <bool WithQ>
[[gnu::noinline]] void band_rows(double* rows, const double* __restrict an, const int len, double& s_r, double& s_i) {
  const double* in = rows;
  double* __restrict band = rows + kBandRows * kChunk;
  double sum_r = 0, sum_i = 0;
#pragma omp simd reduction(+ : sum_r, sum_i)
  for (int k = 0; k < len; ++k) {
    const Band b = make_band_values(RowsAt{in, k}, an[2 * k], an[2 * k + 1]);
    band[kPr * kChunk + k] = b.f[kPr];
    band[kPi * kChunk + k] = b.f[kPi];
    if constexpr (WithQ) {
      band[kQr * kChunk + k] = b.f[kQr];
      band[kQi * kChunk + k] = b.f[kQi];
    }
    sum_r += b.f[kPr];
    sum_i += b.f[kPi];
  }
  s_r = sum_r;
  s_i = sum_i;
}

template <class ExecSpace>
void host_block(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d, const int b0, const int b1,
                const HostAccumulators& acc,
                const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>& scratch,
                const Kokkos::Experimental::UniqueToken<ExecSpace>& token) {
  const int nw = d.nw, ncouls = d.ncouls;
  const double limittwo = d.limittwo, sexcut = d.sexcut, sexcut2 = d.sexcut * d.sexcut;
  const bool lean_empty_ok = limittwo >= kLeanLimittwo;
  Kokkos::parallel_for(
      "gpp::reference::fast_host",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0,
                                                                        (d.ngpown + kHostGroup - 1) / kHostGroup),
      [&, b0, b1, nw, ncouls, limittwo, sexcut, sexcut2, lean_empty_ok](const int group) {
        const int id = token.acquire();
        double* const rows = &scratch(id, 0);  // kRows rows of kChunk
        const int g0 = group * kHostGroup, g1 = std::min(d.ngpown, g0 + kHostGroup);
        for (int c0 = 0; c0 < ncouls; c0 += kChunk)
          for (int igp = g0; igp < g1; ++igp) {
            Compensated* sums = &acc.sums(igp, 0);
            std::int64_t* arms = &acc.arms(igp, 0);
            const double* const wt = reinterpret_cast<const double*>(&d.wtilde_array(0, igp));
            const double* const ie = reinterpret_cast<const double*>(&d.I_eps_array(0, igp));
            const int len = std::min(kChunk, ncouls - c0);
            double outside = 0;
            {
              const double* __restrict w = wt + 2 * c0;
              const double* __restrict e = ie + 2 * c0;
              double* __restrict out = rows;
#pragma omp simd reduction(+ : outside)
              for (int k = 0; k < len; ++k) {
                const Pair p = make_pair_values(w[2 * k], w[2 * k + 1], e[2 * k], e[2 * k + 1], sexcut2, limittwo);
                for (int f = 0; f < kFields; ++f) out[f * kChunk + k] = p.f[f];
                outside += p.in_range ? 0.0 : 1.0;
              }
            }
            for (int n1 = b0; n1 < b1; ++n1) {
              // The next band's aqsntemp at this chunk, 64 KB or more away from this one's:
              // asked for now, it arrives while this band's terms are computed (else the band
              // rows' loop waits for it, about a fifth of the pass).
              if (n1 + 1 < b1) {
                const char* next = reinterpret_cast<const char*>(&d.aqsntemp(c0, n1 + 1));
                for (int byte = 0; byte < len * int(sizeof(complex_t)); byte += 64) __builtin_prefetch(next + byte);
              }
              // The band's rows (P, and Q for an occupied band) and the static remainder's
              // sum over the chunk of aqsntemp I_eps (= P).
              const double occ = d.occ_array(n1);
              const double* __restrict an = reinterpret_cast<const double*>(&d.aqsntemp(c0, n1));
              double s_r = 0, s_i = 0;
              (occ != 0.0 ? band_rows<true> : band_rows<false>)(rows, an, len, s_r, s_i);
              const complex_t aqsm = d.aqsmtemp_local(igp, n1);
              const double mr = aqsm.real(), mi = -aqsm.imag();  // conj(aqsm): mat = conj(aqsm) aqsntemp
              sums[4 * nw].add(-(mr * s_r - mi * s_i));          // achstemp: -conj(aqsm) sum(aqsn I_eps)
              sums[4 * nw + 1].add(-(mr * s_i + mi * s_r));
              // Frequencies two at a time, the last alone where nw is odd.
              const auto in_range = [&](const double x) { return outside == 0 && x <= kWxMax && x >= -kWxMax; };
              for (int iw = 0; iw < nw;) {
                ChunkSums c[2];
                const double x0 = d.wx_array_t(iw, n1);
                int taken = 1;
                double x1 = 0;
                if (iw + 1 < nw) {
                  x1 = d.wx_array_t(iw + 1, n1);
                  taken = 2;
                }
                chunk_terms(rows, an, len, taken, x0, x1, occ != 0.0, in_range(x0) && (taken == 1 || in_range(x1)),
                            lean_empty_ok, limittwo, sexcut, c);
                for (int j = 0; j < taken; ++j, ++iw) {
                  const double* chunk = c[j].sums;
                  Compensated* s = sums + 4 * iw;
                  s[0].add(mr * chunk[0] - mi * chunk[1]);
                  s[1].add(mr * chunk[1] + mi * chunk[0]);
                  s[2].add(occ * (mr * chunk[2] - mi * chunk[3]));
                  s[3].add(occ * (mr * chunk[3] + mi * chunk[2]));
                  const bool negative = d.wx_array_t(iw, n1) < 0.0;
                  for (int arm = 0; arm < 3; ++arm)
                    for (int cut = 0; cut < 2; ++cut)
                      arms[measure::counts::ArmCounts::index(occ != 0.0, negative, arm, cut)] += c[j].by_arm[arm][cut];
                }
              }
            }
          }
        token.release(id);
      });
  space.fence();
}

template <class ExecSpace>
ReferencePass host_pass(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                        const std::function<void(double)>& done) {
  const int nw = d.nw, ngpown = d.ngpown;
  HostAccumulators acc{
      Kokkos::View<Compensated**, Kokkos::LayoutRight, Kokkos::HostSpace>("gpp::reference::fast_sums", ngpown,
                                                                          4 * nw + 2),
      Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace>("gpp::reference::fast_arms", ngpown, 24)};
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> scratch(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::reference::fast_rows"), token.size(), kRows * kChunk);
  for (int b0 = 0; b0 < d.nbands; b0 += kReferenceBandBlock) {
    const int b1 = std::min(d.nbands, b0 + kReferenceBandBlock);
    host_block(space, d, b0, b1, acc, scratch, token);
    if (done) done(double(b1 - b0) * ngpown * double(d.ncouls) * nw);
  }
  // Every G' with its factors (0.5 vcoul for sch and achstemp, vcoul for ssx), in G' order:
  // the result does not depend on the number of threads.
  std::vector<Compensated> total(std::size_t(4 * nw + 2));
  ReferencePass r;
  for (int igp = 0; igp < ngpown; ++igp) {
    const double v = d.vcoul_loc(igp);
    for (int k = 0; k < 4 * nw + 2; ++k) {
      const bool half = k >= 4 * nw || k % 4 < 2;
      total[std::size_t(k)].add((half ? 0.5 * v : v) * acc.sums(igp, k).value());
    }
    for (int i = 0; i < 24; ++i) r.arms.n[i] += acc.arms(igp, i);
  }
  r.sums.sch_sum.resize(std::size_t(nw));
  r.sums.ssx_sum.resize(std::size_t(nw));
  for (int iw = 0; iw < nw; ++iw) {
    r.sums.sch_sum[std::size_t(iw)] = {total[4 * iw].value(), total[4 * iw + 1].value()};
    r.sums.ssx_sum[std::size_t(iw)] = {total[4 * iw + 2].value(), total[4 * iw + 3].value()};
  }
  r.achstemp = {total[4 * nw].value(), total[4 * nw + 1].value()};
  return r;
}

// ---- any space: teams over (G' group, band block), threads over G ------------------------

// What a device runs (and what a host space runs where a test asks for it: plain Kokkos).
// A team takes team_gp G' (a group) and a block of at most kTeamBands bands, each thread
// one G of the group at a time, every frequency of a pass (at most kPassNw) in one launch:
// a thread computes its pairs' values once and keeps them over the block's bands, whose
// values (wx, wx^2, conj(aqsm) times the G' weight, where the band's column of aqsntemp
// starts) are staged in team scratch; aqsntemp(G, band) is loaded once for the group's G'.
// Each term takes the lean form's regular arm, with two frequencies sharing one division
// and the pair's factors taken out of the band sums: with mat = conj(aqsm) aqsn (weighted),
//   sch mat = (wtilde I_eps) (dr + i Im wtilde) mat / |wdiff|^2   (dr = wx - Re wtilde),
//   ssx mat = Omega2 mat conj(cden) / |cden|^2,
// summed over a run of at most kRun bands without the factors wtilde I_eps and Omega2 occ,
// which multiply the run's sums once. A term off the regular arm, out of range, or whose
// reciprocal is (about 1e250 or more) is flagged, one bit a band, and after the run the
// team evaluates its flagged terms together (a queue in team scratch, shared out over the
// threads, so that the thread with the most does not set the pace) in the careful form
// (term_from, literal_term where it flags). Bands are ordered and blocked so that a block
// has one occupation and one sign of wx per frequency: the kernel of empty blocks has no
// ssx, the sexcut test is made only in blocks where wx < 0, and a team's arm counts fall
// in one bucket per arm and frequency.
constexpr int kTeamBands = 128;  // bands per block at most
// Bands per run: a thread's flags of a pair and frequency are one RunBits. After each run
// the team takes its flagged terms together (careful_pass: three barriers) and each thread
// makes its pairs' values again; runs of 64 bands take half the passes of 32, for two more
// registers a pair and frequency.
constexpr int kRun = 64;
using RunBits = std::uint64_t;
static_assert(kRun == 8 * sizeof(RunBits), "a run's flags: one bit a band");
using HalfBits = std::uint32_t;  // half a run's flags, as the run's loop makes them
constexpr int kHalfRun = 8 * sizeof(HalfBits);
// The bands flagged in m, in 32-bit halves (compat's); the first of them: lowest_bit.
KOKKOS_FORCEINLINE_FUNCTION int run_popcount(const RunBits m) {
  return compat::popcount(unsigned(m)) + compat::popcount(unsigned(m >> 32));
}
constexpr int kPassNw = 4;     // frequencies per launch; more are taken in passes
constexpr int kTeamMax = 128;  // threads per team at most (the launch bounds)
// G' per thread. The empty kernel takes two: the band's staged values, its aqsntemp
// element and the loop's own instructions then serve two pairs, about a quarter fewer
// instructions a term, for the registers of a second pair's sums. The
// occupied kernel's second pair spilled even at 128 registers and was slower on si510: it
// takes one (docs/lab/gpu-tuned.md).
constexpr int team_gp(const bool occupied) { return occupied ? 1 : 2; }
// Teams of kTeamMax per multiprocessor the registers must allow (launch bounds): 4 -> at
// most 128 registers a thread, 5 -> 102 (96 on sm_90), 6 -> 85 (80), 7 -> 73 (72). The
// empty blocks' kernel has no ssx: with one or two frequencies the two pairs of team_gp
// spill less at 80 than at 72 and ran faster than at 96; with three or four they take 128
// (with three, 96 spilled and ran slower). The occupied kernel of two frequencies keeps its
// band loop free of spills at 80 and takes six (its latency wants the warps); one
// frequency's ran slower at six, and three spills in the loop at 80: five. Four spilled at
// 96 too (up to 19 local loads a band): four teams, 128 registers, no spills in the loop,
// ran faster than five.
constexpr int occupied_teams_per_sm(const int nw) { return nw == 2 ? 6 : nw == 4 ? 4 : 5; }
constexpr int empty_teams_per_sm(const int nw) { return nw <= 2 ? 6 : 4; }
constexpr int kQueue = 1024;           // flagged terms a team evaluates per round
constexpr int kTreeGroups = 8;         // the team's sums: kTreeGroups partial sums per field, then their sum
constexpr double kLaunchTerms = 1e11;  // terms per launch at most (progress between launches)
// A reciprocal at or above 2^831 (about 1.7e250; biased exponent 0x73E), inf or NaN: the
// lean form flags the term by the bits of the reciprocal, which keeps the test off the
// floating-point pipe.
constexpr std::uint64_t kRecipExponent = 0x73E;

// 1/x in the device pass's lean terms: on a GPU the hardware's approximate reciprocal and
// Newton steps, within one ulp of the division (whose slow-path test and branch, in every
// term, cost the loop about as many instructions as the steps); elsewhere the division.
// x = 0 or subnormal gives NaN where the division gives inf or a value past kRecipMax:
// recip_out_of_range flags all three alike (the lean form's ranges keep x finite). Written
// here, not taken from the backend: the pass shares no code with the kernels.
KOKKOS_FORCEINLINE_FUNCTION double lean_reciprocal(const double x) {
#if defined(__CUDA_ARCH__)
  double r;  // from the upper 20 bits of x's mantissa: about 20 correct bits
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  const double e = fma(-x, r, 1.0);
  return fma(r, fma(e, e, e), r);  // r (1 + e + e^2): relative error about e^3
#elif defined(__HIP_DEVICE_COMPILE__)
  double r = __builtin_amdgcn_rcp(x);  // v_rcp_f64
  r = fma(fma(-x, r, 1.0), r, r);      // two quadratic steps: error about e^4
  return fma(fma(-x, r, 1.0), r, r);
#else
  return 1.0 / x;
#endif
}

KOKKOS_FORCEINLINE_FUNCTION bool recip_out_of_range(const double r) {
  std::uint64_t bits;
  memcpy(&bits, &r, sizeof bits);
  return (bits >> 52) >= kRecipExponent;  // (a negative r, which no term has, too)
}

// What the lean form keeps of a (G, G') pair in registers.
struct LeanPair {
  double wr, wi, wi2, thr, w2r, w2i, w2i2, osq, cut2;
};

// A pair out of the vector form's range takes values for which every term is flagged (no
// |wdiff|^2 exceeds an infinite threshold) and adds nothing (the values are finite).
KOKKOS_FORCEINLINE_FUNCTION LeanPair lean_pair(const complex_t w, const complex_t e, const double sexcut2,
                                               const double limittwo) {
  const Pair p = make_pair_values(w.real(), w.imag(), e.real(), e.imag(), sexcut2, limittwo);
  if (!p.in_range) return LeanPair{0.0, 0.0, 0.0, DBL_MAX, 0.0, 0.0, 0.0, 0.0, 0.0};
  return LeanPair{p[kWr], p[kWi], p[kWi2], p[kThrRegular], p[kW2r], p[kW2i], p[kW2i2], p[kOsq], p[kCut2]};
}

// The blocks of a pass, in the order the teams take them, and their classes.
template <class MemorySpace>
struct TeamBlocks {
  Kokkos::View<int*, MemorySpace> order;     // bands, block by block
  Kokkos::View<int*, MemorySpace> start;     // block b: order(start(b) .. start(b+1)-1)
  Kokkos::View<double*, MemorySpace> occ;    // its occupation
  Kokkos::View<int*, MemorySpace> negative;  // bit w: its wx at the pass's frequency w are < 0; kOutOfRange, kUnsorted
  std::vector<int> start_h, negative_h;
  std::vector<double> occ_h;
};

// A block's bit where one of its wx is out of the vector form's range (|wx| > kWxMax): its
// runs test each band's.
constexpr int kOutOfRange = 1 << 8;
// A block's bit where, at a frequency with wx < 0, wx^2 decreases somewhere along its bands:
// its empty bands' cuts are counted term by term (TeamPass::sorted_cuts needs the order).
constexpr int kUnsorted = 1 << 9;

// Occupied bands (by occupation, largest first), then the empty ones; in each, by the signs
// of wx over the pass's frequencies w0 .. w0+nw-1, then by -wx at w0 (the band's energy:
// wx = e_lk + dw (iw - 2) - E_n, so wx^2 grows along a block at every frequency where its
// wx < 0, which sorted_cuts relies on; a block where it does not is marked kUnsorted), then
// by band; blocks of at most kTeamBands bands of one occupation and one pattern of signs.
template <class ExecSpace>
TeamBlocks<typename ExecSpace::memory_space> team_blocks(const ExecSpace& space,
                                                         const GppData<typename ExecSpace::memory_space>& d,
                                                         const int w0, const int nw) {
  const auto occ = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.occ_array);
  const auto wx = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.wx_array_t);
  Kokkos::deep_copy(space, occ, d.occ_array);
  Kokkos::deep_copy(space, wx, d.wx_array_t);
  space.fence();
  std::vector<int> pattern(std::size_t(d.nbands), 0), order(std::size_t(d.nbands));
  for (int n = 0; n < d.nbands; ++n) {
    for (int w = 0; w < nw; ++w) pattern[std::size_t(n)] |= (wx(w0 + w, n) < 0.0 ? 1 : 0) << w;
    order[std::size_t(n)] = n;
  }
  const auto energy = [&](const int n) {  // (NaN last: a total order for the sort)
    const double x = wx(w0, n);
    return x == x ? -x : INFINITY;
  };
  const auto key = [&](const int n) {
    return std::make_tuple(occ(n) == 0.0, -occ(n), pattern[std::size_t(n)], energy(n), n);
  };
  std::sort(order.begin(), order.end(), [&](const int a, const int b) { return key(a) < key(b); });
  TeamBlocks<typename ExecSpace::memory_space> r;
  for (int k = 0; k < d.nbands; ++k) {
    const int n = order[std::size_t(k)];
    if (k == 0 || k - r.start_h.back() == kTeamBands || !(occ(n) == r.occ_h.back()) ||
        pattern[std::size_t(n)] != r.negative_h.back()) {
      r.start_h.push_back(k);
      r.occ_h.push_back(occ(n));
      r.negative_h.push_back(pattern[std::size_t(n)]);
    }
  }
  r.start_h.push_back(d.nbands);
  for (std::size_t b = 0; b + 1 < r.start_h.size(); ++b)
    for (int k = r.start_h[b]; k < r.start_h[b + 1]; ++k)
      for (int w = 0; w < nw; ++w) {
        const double x = wx(w0 + w, order[std::size_t(k)]);
        if (!(x <= kWxMax && x >= -kWxMax)) r.negative_h[b] |= kOutOfRange;
        if (k > r.start_h[b] && ((r.negative_h[b] >> w) & 1)) {
          const double before = wx(w0 + w, order[std::size_t(k) - 1]);
          if (!(before * before <= x * x)) r.negative_h[b] |= kUnsorted;  // (the kernel's x * x)
        }
      }
  using HostInts = Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using HostDoubles = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  const auto alloc = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  r.order = decltype(r.order)(alloc("gpp::reference::band_order"), order.size());
  r.start = decltype(r.start)(alloc("gpp::reference::block_start"), r.start_h.size());
  r.occ = decltype(r.occ)(alloc("gpp::reference::block_occ"), r.occ_h.size());
  r.negative = decltype(r.negative)(alloc("gpp::reference::block_negative"), r.negative_h.size());
  Kokkos::deep_copy(space, r.order, HostInts(order.data(), order.size()));
  Kokkos::deep_copy(space, r.start, HostInts(r.start_h.data(), r.start_h.size()));
  Kokkos::deep_copy(space, r.occ, HostDoubles(r.occ_h.data(), r.occ_h.size()));
  Kokkos::deep_copy(space, r.negative, HostInts(r.negative_h.data(), r.negative_h.size()));
  space.fence();  // before the host vectors go
  return r;
}

// One launch: the blocks b_begin .. b_begin + league / groups - 1 (all occupied or all
// empty) of one pass; each team writes its sums (compensated: value and tail per field)
// and its arm counts.
template <class ExecSpace, int NW, bool Occupied>
struct TeamPass {
  using Mem = typename ExecSpace::memory_space;
  using Policy =
      Kokkos::TeamPolicy<ExecSpace,
                         Kokkos::LaunchBounds<kTeamMax, Occupied ? occupied_teams_per_sm(NW) : empty_teams_per_sm(NW)>>;
  using Member = typename Policy::member_type;
  using Scratch = typename ExecSpace::scratch_memory_space;
  template <class T>
  using Shared = Kokkos::View<T*, Scratch, Kokkos::MemoryUnmanaged>;
  static constexpr int K = team_gp(Occupied);
  static constexpr int kFields = 4 * NW + 2;      // per frequency sch (re, im), ssx (re, im); achstemp (re, im)
  static constexpr int kCounts = 5 * NW;          // per frequency: regular, regular and cut, near, near and cut, zero
  static constexpr int kStaged = 2 * NW + 2 * K;  // per band: wx, wx^2, conj(aqsm) weighted per G'

  GppData<Mem> d;
  Kokkos::View<int*, Mem> order, start, negative;
  Kokkos::View<double*, Mem> occ;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> out_sums;          // (league, 2 kFields)
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> out_counts;  // (league, kCounts)
  int b_begin = 0, groups = 0, w0 = 0;
  double sexcut2 = 0, limittwo = 0, sexcut = 0;

  // Team scratch, in the order operator() takes it.
  static std::size_t scratch_bytes(const int team) {
    return Shared<double>::shmem_size(std::size_t(kTeamBands) * kStaged) +
           Shared<std::int64_t>::shmem_size(kTeamBands) + Shared<int>::shmem_size(kTeamBands) +
           Shared<double>::shmem_size(std::size_t(kFields) * team) +
           Shared<double>::shmem_size(std::size_t(kFields) * kTreeGroups) + Shared<double>::shmem_size(2 * kFields) +
           Shared<int>::shmem_size(std::size_t(kCounts) * team) + Shared<int>::shmem_size(team) +
           Shared<int>::shmem_size(kQueue);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const int team = member.team_size(), me = member.team_rank();
    const int g = member.league_rank() % groups;  // neighbouring teams share a block (aqsntemp in L2)
    const int block = b_begin + member.league_rank() / groups;
    const int kb = start(block), nb = start(block + 1) - kb;
    const double occ2 = 2.0 * occ(block);  // ssx's G' weight is twice sch's (folded into mat)
    const int neg = negative(block);
    int igp[K];
    bool valid[K];
    for (int j = 0; j < K; ++j) {
      const int q = g * K + j;
      valid[j] = q < d.ngpown;
      igp[j] = valid[j] ? q : d.ngpown - 1;
    }
    const Shared<double> staged(member.team_scratch(0), std::size_t(kTeamBands) * kStaged);
    const Shared<std::int64_t> offset(member.team_scratch(0), kTeamBands);
    const Shared<int> in_range(member.team_scratch(0), kTeamBands);                  // bit w: |wx| <= kWxMax
    const Shared<double> slot(member.team_scratch(0), std::size_t(kFields) * team);  // (field, thread)
    const Shared<double> part(member.team_scratch(0), std::size_t(kFields) * kTreeGroups);
    const Shared<double> total(member.team_scratch(0), 2 * kFields);                // compensated: (s, c) per field
    const Shared<int> counts(member.team_scratch(0), std::size_t(kCounts) * team);  // (count, thread)
    const Shared<int> flagged(member.team_scratch(0), team);
    const Shared<int> queue(member.team_scratch(0), kQueue);
    for (int i = me; i < nb; i += team) {
      const int n = order(kb + i);
      double* s = &staged(std::size_t(i) * kStaged);
      int inr = 0;
      for (int w = 0; w < NW; ++w) {
        const double x = d.wx_array_t(w0 + w, n);
        s[w] = x;
        s[NW + w] = x * x;
        inr |= (x <= kWxMax && x >= -kWxMax ? 1 : 0) << w;
      }
      in_range(i) = inr;
      for (int j = 0; j < K; ++j) {  // conj(aqsm) 0.5 vcoul: sch's G' weight (0 past ngpown)
        const double v = valid[j] ? 0.5 * d.vcoul_loc(igp[j]) : 0.0;
        const complex_t a = d.aqsmtemp_local(igp[j], n);
        s[2 * NW + 2 * j] = v * a.real();
        s[2 * NW + 2 * j + 1] = -v * a.imag();
      }
      offset(i) = std::int64_t(n) * std::int64_t(d.aqsntemp.stride(1));
    }
    for (int c = 0; c < kCounts; ++c) counts(std::size_t(c) * team + me) = 0;
    if (me == 0)
      for (int f = 0; f < 2 * kFields; ++f) total(f) = 0.0;
    member.team_barrier();

    for (int base = 0; base < d.ncouls; base += team) {
      const int ig = base + me;
      const bool active = ig < d.ncouls;
      for (int f = 0; f < kFields; ++f) slot(std::size_t(f) * team + me) = 0.0;
      for (int r0 = 0; r0 < nb; r0 += kRun) {
        const int r1 = nb < r0 + kRun ? nb : r0 + kRun;
        RunBits flags[K][NW];
        for (int j = 0; j < K; ++j)
          for (int w = 0; w < NW; ++w) flags[j][w] = 0u;
        // (the runs' variants: blocks with a wx < 0, where the sexcut test is made term by
        // term, except in sorted empty blocks (sorted_cuts after the run); blocks with a wx out
        // of range, where each band's is tested)
        if (active) {
          const bool any_negative = (neg & ((1 << NW) - 1)) != 0, checked = (neg & kOutOfRange) != 0;
          if (checked)
            lean_run<true, true>(ig, r0, r1, neg, occ2, valid, igp, staged, offset, in_range, slot, counts, flags, team,
                                 me);
          else if (any_negative && (Occupied || (neg & kUnsorted) != 0))
            lean_run<false, true>(ig, r0, r1, neg, occ2, valid, igp, staged, offset, in_range, slot, counts, flags,
                                  team, me);
          else
            lean_run<false, false>(ig, r0, r1, neg, occ2, valid, igp, staged, offset, in_range, slot, counts, flags,
                                   team, me);
        }
        careful_pass(member, base, r0, neg, occ2, igp, staged, offset, slot, counts, flagged, queue, flags, active);
      }
      // the team's sums of this G range: kTreeGroups partial sums per field, then their sum
      // into the team's compensated totals
      member.team_barrier();
      for (int t = me; t < kFields * kTreeGroups; t += team) {
        const int f = t / kTreeGroups, grp = t % kTreeGroups;
        double s = 0;
        for (int r = grp; r < team; r += kTreeGroups) s += slot(std::size_t(f) * team + r);
        part(t) = s;
      }
      member.team_barrier();
      for (int f = me; f < kFields; f += team) {
        double s = 0;
        for (int grp = 0; grp < kTreeGroups; ++grp) s += part(std::size_t(f) * kTreeGroups + grp);
        Compensated c{total(2 * f), total(2 * f + 1)};
        c.add(s);
        total(2 * f) = c.s;
        total(2 * f + 1) = c.c;
      }
      member.team_barrier();  // before the slots are written again
    }
    const int league = member.league_rank();
    for (int f = me; f < 2 * kFields; f += team) out_sums(league, f) = total(f);
    for (int c = me; c < kCounts; c += team) {
      std::int64_t n = 0;
      for (int r = 0; r < team; ++r) n += counts(std::size_t(c) * team + r);
      out_counts(league, c) = n;
    }
  }

  // A thread's terms of the bands r0 .. r1-1 of its G for its pairs (lean form), added to
  // its slot; the terms it leaves to the careful form flagged.
  template <bool Checked, bool AnyNegative>
  KOKKOS_INLINE_FUNCTION void lean_run(const int ig, const int r0, const int r1, const int neg, const double occ2,
                                       const bool (&valid)[K], const int (&igp)[K], const Shared<double>& staged,
                                       const Shared<std::int64_t>& offset, const Shared<int>& in_range,
                                       const Shared<double>& slot, const Shared<int>& counts, RunBits (&flags)[K][NW],
                                       const int team, const int me) const {
    // the pairs' values, made again each run (from L1 or L2): kept over the careful pass,
    // they would add to its registers
    LeanPair p[K];
    for (int j = 0; j < K; ++j)
      p[j] = lean_pair(d.wtilde_array(ig, igp[j]), d.I_eps_array(ig, igp[j]), sexcut2, limittwo);
    double sch[K][NW][2], ssx[K][NW][2], mats[K][2];
    int cut_count[K][NW];
    for (int j = 0; j < K; ++j) {
      mats[j][0] = mats[j][1] = 0.0;
      for (int w = 0; w < NW; ++w) sch[j][w][0] = sch[j][w][1] = ssx[j][w][0] = ssx[j][w][1] = 0.0;
    }
    for (int j = 0; j < K; ++j)
      for (int w = 0; w < NW; ++w) cut_count[j][w] = 0;
    const complex_t* const an = d.aqsntemp.data() + ig;
    // The next band's aqsntemp is asked for a band ahead (the last band's again at the end):
    // loaded where it is used, its latency (L1 or L2) was a third of the kernels' stalls.
    complex_t next = an[offset(r0)];
    // The flags in 32-bit halves of the run: a band's bit and each term's or take one
    // instruction each, where 64-bit ones took two.
    for (int h0 = r0; h0 < r1; h0 += kHalfRun) {
      const int h1 = r1 < h0 + kHalfRun ? r1 : h0 + kHalfRun;
      HalfBits half[K][NW];
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w) half[j][w] = 0u;
      for (int i = h0; i < h1; ++i) {
        const complex_t aqsn = next;
        next = an[offset(i + 1 < r1 ? i + 1 : i)];
        // The empty kernels of three or four frequencies (six teams a multiprocessor, where
        // one or two take seven) wait on that load: its line asked into L1 two bands ahead
        // as well. In the other kernels the prefetch did not pay (docs/lab/gpu-tuned.md).
        if constexpr (!Occupied && NW >= 3) backend::prefetch_l1(an + offset(i + 2 < r1 ? i + 2 : i));
        const double* s = &staged(std::size_t(i) * kStaged);
        const int inr = in_range(i);
        const HalfBits bit = HalfBits(1) << (i - h0);
        // (a G' past ngpown, the last again with weight 0, is computed and adds 0; its flags
        // and counts are dropped)
        for (int j = 0; j < K; ++j) {
          const double m_r = s[2 * NW + 2 * j], m_i = s[2 * NW + 2 * j + 1];
          const double mr = m_r * aqsn.real() - m_i * aqsn.imag(), mi = m_r * aqsn.imag() + m_i * aqsn.real();
          mats[j][0] += mr;
          mats[j][1] += mi;
          for (int w = 0; w < NW; w += 2) {
            // the frequency sharing w's division (w itself, the last, where it is alone: NW - 1 is
            // w there, written so that GCC 16 sees v < NW and finds no out-of-bounds path)
            const int v = w + 1 < NW ? w + 1 : NW - 1;
            if (Checked && !((inr >> w) & (inr >> v) & 1)) {
              half[j][w] |= bit;
              half[j][v] |= bit;
              continue;
            }
            lean_terms<AnyNegative>(p[j], s[w], s[NW + w], s[v], s[NW + v], w != v, (neg >> w) & 1, (neg >> v) & 1, mr,
                                    mi, sch[j][w], sch[j][v], ssx[j][w], ssx[j][v], cut_count[j][w], cut_count[j][v],
                                    half[j][w], half[j][v], bit);
          }
        }
      }
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w) flags[j][w] |= RunBits(half[j][w]) << (h0 - r0);
    }
    if constexpr (!Occupied && !Checked && !AnyNegative)  // a sorted empty block's cuts, if it has a wx < 0
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w)
          if ((neg >> w) & 1) cut_count[j][w] = sorted_cuts(p[j], staged, r0, r1, w, flags[j][w]);
    for (int j = 0; j < K; ++j)
      if (!valid[j])
        for (int w = 0; w < NW; ++w) flags[j][w] = 0u;
    // the run's sums times the pairs' factors (0 for a G' past ngpown: its mat is 0)
    const int n_run = r1 - r0;
    double add[kFields];
    for (int f = 0; f < kFields; ++f) add[f] = 0.0;
    for (int j = 0; j < K; ++j) {
      if (!valid[j]) continue;
      const complex_t e = d.I_eps_array(ig, igp[j]);
      const double ir = e.real(), ii = e.imag();
      const double wir = p[j].wr * ir - p[j].wi * ii, wii = p[j].wr * ii + p[j].wi * ir;  // wtilde I_eps
      const double o_r = occ2 * (p[j].w2r * ir - p[j].w2i * ii), o_i = occ2 * (p[j].w2r * ii + p[j].w2i * ir);
      for (int w = 0; w < NW; ++w) {
        add[4 * w] += wir * sch[j][w][0] - wii * sch[j][w][1];
        add[4 * w + 1] += wir * sch[j][w][1] + wii * sch[j][w][0];
        if (Occupied) {
          add[4 * w + 2] += o_r * ssx[j][w][0] - o_i * ssx[j][w][1];
          add[4 * w + 3] += o_r * ssx[j][w][1] + o_i * ssx[j][w][0];
        }
      }
      add[4 * NW] -= ir * mats[j][0] - ii * mats[j][1];  // achstemp: -I_eps mat
      add[4 * NW + 1] -= ir * mats[j][1] + ii * mats[j][0];
    }
    for (int f = 0; f < kFields; ++f) slot(std::size_t(f) * team + me) += add[f];
    for (int w = 0; w < NW; ++w) {
      int lean = 0;
      for (int j = 0; j < K; ++j)
        if (valid[j]) lean += n_run - run_popcount(flags[j][w]);
      int cut = 0;
      for (int j = 0; j < K; ++j)
        if (valid[j]) cut += cut_count[j][w];
      counts(std::size_t(5 * w) * team + me) += lean - cut;
      counts(std::size_t(5 * w + 1) * team + me) += cut;
    }
  }

  // The cuts empty_term<true> would count at frequency w over the run's bands r0 .. r1-1, in
  // an empty block whose wx^2 do not decrease along its bands (kUnsorted unset), for a pair
  // whose flags are `flag` (a cut counts where the term is lean: its bit clear). The test,
  // osq > cut2 ((x2 - w2r)^2 + w2i2), depends on the band through x2 - w2r alone, which
  // does not decrease along the run: its rounded |x2 - w2r| falls up to the first band with
  // x2 >= w2r and grows from there, and so does the right-hand side. So the cut bands are
  // one stretch around that band, found by three binary searches with the test itself:
  // the count the test per term gives, in about 20 tests a run where it took one a band.
  KOKKOS_FORCEINLINE_FUNCTION int sorted_cuts(const LeanPair& p, const Shared<double>& staged, const int r0,
                                              const int r1, const int w, const RunBits flag) const {
    const auto x2 = [&](const int i) { return staged(std::size_t(i) * kStaged + NW + w); };
    const auto cut = [&](const int i) { return empty_cut(p, x2(i)); };
    const int m = first_of(r0, r1, [&](const int i) { return x2(i) >= p.w2r; });
    const int a = first_of(r0, m, cut);                                   // cut from a up to m
    const int b = first_of(m, r1, [&](const int i) { return !cut(i); });  // cut from m up to b
    const RunBits in = low_bits(b - r0) & ~low_bits(a - r0);
    return b - a - run_popcount(flag & in);
  }

  // The first i in lo .. hi-1 where `holds` (false, then true along the range), or hi.
  template <class Holds>
  KOKKOS_FORCEINLINE_FUNCTION static int first_of(int lo, int hi, const Holds& holds) {
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (holds(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

  // Bits 0 .. n-1 of a run's flags (n <= kRun).
  KOKKOS_FORCEINLINE_FUNCTION static RunBits low_bits(const int n) {
    return n >= kRun ? ~RunBits(0) : (RunBits(1) << n) - 1u;
  }

  // One frequency (two: false) or two sharing one division: each term's sums, its cut, or
  // its flag.
  template <bool AnyNegative>
  KOKKOS_FORCEINLINE_FUNCTION void lean_terms(const LeanPair& p, const double x0, const double x02, const double x1,
                                              const double x12, const bool two, const int neg0, const int neg1,
                                              const double mr, const double mi, double (&sch0)[2], double (&sch1)[2],
                                              double (&ssx0)[2], double (&ssx1)[2], int& cut0, int& cut1,
                                              HalfBits& flag0, HalfBits& flag1, const HalfBits bit) const {
    const double dr0 = x0 - p.wr, dr1 = x1 - p.wr;
    const double wd0 = dr0 * dr0 + p.wi2, wd1 = dr1 * dr1 + p.wi2;
    if constexpr (Occupied) {
      const double cr0 = x02 - p.w2r, cr1 = x12 - p.w2r;
      const double cd0 = cr0 * cr0 + p.w2i2, cd1 = cr1 * cr1 + p.w2i2;  // |cden|^2
      const double den0 = wd0 * cd0, den1 = wd1 * cd1;
      double r0, r1;
      if (two) {
        const double q = lean_reciprocal(den0 * den1);
        r0 = q * den1;
        r1 = q * den0;
      } else {
        r0 = r1 = lean_reciprocal(den0);
      }
      occupied_term<AnyNegative>(p, dr0, wd0, cr0, cd0, r0, neg0, mr, mi, sch0, ssx0, cut0, flag0, bit);
      if (two) occupied_term<AnyNegative>(p, dr1, wd1, cr1, cd1, r1, neg1, mr, mi, sch1, ssx1, cut1, flag1, bit);
    } else {
      double r0, r1;
      if (two) {
        const double q = lean_reciprocal(wd0 * wd1);
        r0 = q * wd1;
        r1 = q * wd0;
      } else {
        r0 = r1 = lean_reciprocal(wd0);
      }
      empty_term<AnyNegative>(p, dr0, wd0, x02, r0, neg0, mr, mi, sch0, cut0, flag0, bit);
      if (two) empty_term<AnyNegative>(p, dr1, wd1, x12, r1, neg1, mr, mi, sch1, cut1, flag1, bit);
    }
  }

  template <bool AnyNegative>
  KOKKOS_FORCEINLINE_FUNCTION void occupied_term(const LeanPair& p, const double dr, const double wd, const double cr,
                                                 const double cd, const double r, const int negative, const double mr,
                                                 const double mi, double (&sch)[2], double (&ssx)[2], int& cut_count,
                                                 HalfBits& flag, const HalfBits bit) const {
    const double rw = r * cd, rs = r * wd;  // 1/|wdiff|^2, 1/|cden|^2
    const bool lean = (wd > p.thr) & !recip_out_of_range(r);
    bool cut = false;
    if (AnyNegative && negative) cut = p.osq * rs > p.cut2;  // |ssx|^2 > sexcut^2 |I_eps|^2
    flag |= lean ? 0u : bit;
    cut_count += (lean & cut) ? 1 : 0;
    const double sw = lean ? rw : 0.0, sx = (lean & !cut) ? rs : 0.0;
    sch[0] += sw * (dr * mr - p.wi * mi);  // (dr + i Im wtilde) mat
    sch[1] += sw * (dr * mi + p.wi * mr);
    ssx[0] += sx * (mr * cr - mi * p.w2i);  // mat conj(cden)
    ssx[1] += sx * (mi * cr + mr * p.w2i);
  }

  // The cut an empty band's term would take at wx^2 = x2, which only the branch statistics
  // count: |Omega2|^2 > sexcut^2 |I_eps|^2 |cden|^2. empty_term and sorted_cuts both test
  // this, so that the searches count what the test per term counts.
  KOKKOS_FORCEINLINE_FUNCTION static bool empty_cut(const LeanPair& p, const double x2) {
    const double cr = x2 - p.w2r;
    return p.osq > p.cut2 * (cr * cr + p.w2i2);
  }

  template <bool AnyNegative>
  KOKKOS_FORCEINLINE_FUNCTION void empty_term(const LeanPair& p, const double dr, const double wd, const double x2,
                                              const double rw, const int negative, const double mr, const double mi,
                                              double (&sch)[2], int& cut_count, HalfBits& flag,
                                              const HalfBits bit) const {
    const bool lean = (wd > p.thr) & !recip_out_of_range(rw);
    flag |= lean ? 0u : bit;
    if (AnyNegative && negative) cut_count += (lean & empty_cut(p, x2)) ? 1 : 0;
    const double sw = lean ? rw : 0.0;
    sch[0] += sw * (dr * mr - p.wi * mi);
    sch[1] += sw * (dr * mi + p.wi * mr);
  }

  // The flagged terms of the run (bands r0 ..) of every thread of the team, shared out over
  // the threads (any thread may add any term: the team adds them all), in the careful form;
  // every thread takes part (the barriers), whether its G is within the range or not.
  KOKKOS_INLINE_FUNCTION void careful_pass(const Member& member, const int base, const int r0, const int neg,
                                           const double occ2, const int (&igp)[K], const Shared<double>& staged,
                                           const Shared<std::int64_t>& offset, const Shared<double>& slot,
                                           const Shared<int>& counts, const Shared<int>& flagged,
                                           const Shared<int>& queue, const RunBits (&flags)[K][NW],
                                           const bool active) const {
    const int team = member.team_size(), me = member.team_rank();
    int mine = 0;
    if (active)
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w) mine += run_popcount(flags[j][w]);
    flagged(me) = mine;
    member.team_barrier();
    int first = 0, all = 0;
    for (int t = 0; t < team; ++t) {
      first += t < me ? flagged(t) : 0;
      all += flagged(t);
    }
    for (int round = 0; round < all; round += kQueue) {
      int at = first;
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w)
          for (RunBits m = active ? flags[j][w] : 0u; m != 0u; m &= m - 1u, ++at)
            if (at >= round && at < round + kQueue) queue(at - round) = ((me * K + j) * NW + w) * kRun + lowest_bit(m);
      member.team_barrier();
      const int n = all - round < kQueue ? all - round : kQueue;
      for (int e = me; e < n; e += team)
        careful_term(queue(e), base, r0, neg, occ2, igp, staged, offset, slot, counts, team, me);
      member.team_barrier();  // before the queue is written again
    }
    member.team_barrier();  // before `flagged` is written again
  }

  KOKKOS_INLINE_FUNCTION void careful_term(int entry, const int base, const int r0, const int neg, const double occ2,
                                           const int (&igp)[K], const Shared<double>& staged,
                                           const Shared<std::int64_t>& offset, const Shared<double>& slot,
                                           const Shared<int>& counts, const int team, const int me) const {
    const int i = r0 + entry % kRun;
    entry /= kRun;
    const int w = entry % NW;
    entry /= NW;
    const int j = entry % K, src = entry / K;
    const int ig = base + src;
    const complex_t wt = d.wtilde_array(ig, igp[j]), e = d.I_eps_array(ig, igp[j]);
    const complex_t aqsn = d.aqsntemp.data()[ig + offset(i)];
    const double* s = &staged(std::size_t(i) * kStaged);
    const double x = s[w];
    const bool negative = (neg >> w) & 1;
    const Pair pv = make_pair_values(wt.real(), wt.imag(), e.real(), e.imag(), sexcut2, limittwo);
    Term t;
    const bool vector_form = pv.in_range && x <= kWxMax && x >= -kWxMax;
    if (vector_form) t = vector_term(pv, make_band_values(pv, aqsn.real(), aqsn.imag()), x, s[NW + w], negative);
    if (!vector_form || t.exceptional)
      t = literal_term(wt.real(), wt.imag(), e.real(), e.imag(), x, negative, limittwo, sexcut, aqsn.real(),
                       aqsn.imag());
    const double m_r = s[2 * NW + 2 * j], m_i = s[2 * NW + 2 * j + 1];
    if (adds_sch(t)) {
      const double a = t.sch_scale * t.sch_r, b = t.sch_scale * t.sch_i;
      slot(std::size_t(4 * w) * team + me) += m_r * a - m_i * b;
      slot(std::size_t(4 * w + 1) * team + me) += m_r * b + m_i * a;
    }
    if (Occupied && adds_ssx(t)) {
      const double a = occ2 * t.ssx_scale * t.ssx_r, b = occ2 * t.ssx_scale * t.ssx_i;
      slot(std::size_t(4 * w + 2) * team + me) += m_r * a - m_i * b;
      slot(std::size_t(4 * w + 3) * team + me) += m_r * b + m_i * a;
    }
    const int arm = arm_of(t);
    counts(std::size_t(5 * w + (arm == kZeroArm ? 4 : 2 * arm + (t.cut ? 1 : 0))) * team + me) += 1;
  }
};

// The most threads, from `team` down in whole warps of 32 (a team of fewer than 32 is taken
// as it is), whose team scratch fits in scratch_max and that `accepted` (the backend's
// own limit for that team) allows; 0 where none does.
template <class Pass, class Accepted>
int team_within(int team, const std::size_t scratch_max, const Accepted& accepted) {
  const auto fits = [&](const int t) { return Pass::scratch_bytes(t) <= scratch_max && accepted(t); };
  while (team > 32 && !fits(team)) team -= team % 32 != 0 ? team % 32 : 32;
  return fits(team) ? team : 0;
}

template <class Pass>
int team_within(const int team, const std::size_t scratch_max) {
  return team_within<Pass>(team, scratch_max, [](int) { return true; });
}

template <class ExecSpace, int NW, bool Occupied>
void team_launch(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                 const TeamBlocks<typename ExecSpace::memory_space>& blocks, const int b_begin, const int b_end,
                 const int w0, std::vector<Compensated>& totals, measure::counts::ArmCounts& arms) {
  using Pass = TeamPass<ExecSpace, NW, Occupied>;
  const int groups = (d.ngpown + Pass::K - 1) / Pass::K;
  const int league = groups * (b_end - b_begin);
  Pass pass;
  pass.d = d;
  pass.order = blocks.order;
  pass.start = blocks.start;
  pass.negative = blocks.negative;
  pass.occ = blocks.occ;
  pass.b_begin = b_begin;
  pass.groups = groups;
  pass.w0 = w0;
  pass.sexcut = d.sexcut;
  pass.sexcut2 = d.sexcut * d.sexcut;
  pass.limittwo = d.limittwo;
  pass.out_sums = decltype(pass.out_sums)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::reference::team_sums"),
                                          league, 2 * Pass::kFields);
  pass.out_counts = decltype(pass.out_counts)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::reference::team_counts"), league, Pass::kCounts);
  const int team_max = typename Pass::Policy(space, 1, 1).team_size_max(pass, Kokkos::ParallelForTag());
  // As many threads as the team scratch allows: 128 of four frequencies need about 46 KB,
  // more than the 40 KB Kokkos leaves a CUDA block (reference_team_size). And as many as
  // the launch bounds' teams per multiprocessor allow with that scratch: Kokkos' CUDA
  // backend counts the blocks a multiprocessor's shared memory holds (six of 96 threads
  // and four frequencies do not fit), and refuses a larger team.
  const std::size_t scratch_max = std::size_t(Pass::Policy::scratch_size_max(0));
  const auto accepted = [&](const int t) {
    return typename Pass::Policy(space, 1, t)
               .set_scratch_size(0, Kokkos::PerTeam(Pass::scratch_bytes(t)))
               .team_size_max(pass, Kokkos::ParallelForTag()) >= t;
  };
  const int team = team_within<Pass>(team_max < kTeamMax ? team_max : kTeamMax, scratch_max, accepted);
  if (team == 0)
    throw Error(std::string("the fast reference's teams need ") + std::to_string(Pass::scratch_bytes(1)) +
                " bytes of team scratch memory or more, more than the " + std::to_string(scratch_max) + " " +
                ExecSpace::name() + " allows");
  Kokkos::parallel_for(
      "gpp::reference::fast_teams",
      typename Pass::Policy(space, league, team).set_scratch_size(0, Kokkos::PerTeam(Pass::scratch_bytes(team))), pass);
  const auto sums = Kokkos::create_mirror_view(Kokkos::HostSpace(), pass.out_sums);
  const auto counts = Kokkos::create_mirror_view(Kokkos::HostSpace(), pass.out_counts);
  Kokkos::deep_copy(space, sums, pass.out_sums);
  Kokkos::deep_copy(space, counts, pass.out_counts);
  space.fence();
  // in league order: the result does not depend on the order the teams ran in
  for (int t = 0; t < league; ++t) {
    const int block = b_begin + t / groups;
    for (int w = 0; w < NW; ++w) {
      for (int k = 0; k < 4; ++k)
        totals[std::size_t(4 * (w0 + w) + k)].merge(
            Compensated{sums(t, 2 * (4 * w + k)), sums(t, 2 * (4 * w + k) + 1)});
      const int occupied = blocks.occ_h[std::size_t(block)] != 0.0 ? 1 : 0;
      const int negative = (blocks.negative_h[std::size_t(block)] >> w) & 1;  // (bit w < kOutOfRange)
      using measure::counts::ArmCounts;
      arms.n[ArmCounts::index(occupied, negative, kRegular, 0)] += counts(t, 5 * w);
      arms.n[ArmCounts::index(occupied, negative, kRegular, 1)] += counts(t, 5 * w + 1);
      arms.n[ArmCounts::index(occupied, negative, kNearPole, 0)] += counts(t, 5 * w + 2);
      arms.n[ArmCounts::index(occupied, negative, kNearPole, 1)] += counts(t, 5 * w + 3);
      arms.n[ArmCounts::index(occupied, negative, kZeroArm, 0)] += counts(t, 5 * w + 4);
    }
    if (w0 == 0)  // achstemp once, with the first pass
      for (int k = 0; k < 2; ++k) {
        const int f = 4 * NW + k;
        totals[totals.size() - 2 + std::size_t(k)].merge(Compensated{sums(t, 2 * f), sums(t, 2 * f + 1)});
      }
  }
}

template <class ExecSpace, int NW>
void team_frequencies(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d, const int w0,
                      std::vector<Compensated>& totals, measure::counts::ArmCounts& arms,
                      const std::function<void(double)>& done) {
  const auto blocks = team_blocks(space, d, w0, NW);
  const int n_blocks = int(blocks.occ_h.size());
  const double per_band = double(d.ngpown) * double(d.ncouls) * NW;
  for (int b0 = 0; b0 < n_blocks;) {
    // blocks of one kind, at most kLaunchTerms (one block at least)
    const bool occupied = blocks.occ_h[std::size_t(b0)] != 0.0;
    int b1 = b0 + 1;
    double terms = per_band * (blocks.start_h[std::size_t(b1)] - blocks.start_h[std::size_t(b0)]);
    while (b1 < n_blocks && (blocks.occ_h[std::size_t(b1)] != 0.0) == occupied) {
      const double more = per_band * (blocks.start_h[std::size_t(b1) + 1] - blocks.start_h[std::size_t(b1)]);
      if (terms + more > kLaunchTerms) break;
      terms += more;
      ++b1;
    }
    if (occupied)
      team_launch<ExecSpace, NW, true>(space, d, blocks, b0, b1, w0, totals, arms);
    else
      team_launch<ExecSpace, NW, false>(space, d, blocks, b0, b1, w0, totals, arms);
    if (done) done(terms);
    b0 = b1;
  }
}

template <class ExecSpace>
ReferencePass team_pass(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                        const std::function<void(double)>& done) {
  const int nw = d.nw;
  std::vector<Compensated> totals(std::size_t(4 * nw + 2));
  ReferencePass r;
  for (int w0 = 0; w0 < nw; w0 += kPassNw) {
    switch (nw - w0 < kPassNw ? nw - w0 : kPassNw) {
      case 1:
        team_frequencies<ExecSpace, 1>(space, d, w0, totals, r.arms, done);
        break;
      case 2:
        team_frequencies<ExecSpace, 2>(space, d, w0, totals, r.arms, done);
        break;
      case 3:
        team_frequencies<ExecSpace, 3>(space, d, w0, totals, r.arms, done);
        break;
      default:
        team_frequencies<ExecSpace, 4>(space, d, w0, totals, r.arms, done);
        break;
    }
  }
  r.sums.sch_sum.resize(std::size_t(nw));
  r.sums.ssx_sum.resize(std::size_t(nw));
  for (int iw = 0; iw < nw; ++iw) {
    r.sums.sch_sum[std::size_t(iw)] = {totals[4 * iw].value(), totals[4 * iw + 1].value()};
    r.sums.ssx_sum[std::size_t(iw)] = {totals[4 * iw + 2].value(), totals[4 * iw + 3].value()};
  }
  r.achstemp = {totals[4 * nw].value(), totals[4 * nw + 1].value()};
  return r;
}

// The team both kernels of a launch fit: their team scratch differs (team_gp).
template <int NW>
int both_kernels_within(const int team, const std::size_t scratch_max) {
  const int occupied = team_within<TeamPass<HostExec, NW, true>>(team, scratch_max);
  const int empty = team_within<TeamPass<HostExec, NW, false>>(team, scratch_max);
  return occupied < empty ? occupied : empty;
}

}  // namespace

int reference_team_size(const int nw, const int team, const std::size_t scratch_max) {
  switch (nw) {
    case 1:
      return both_kernels_within<1>(team, scratch_max);
    case 2:
      return both_kernels_within<2>(team, scratch_max);
    case 3:
      return both_kernels_within<3>(team, scratch_max);
    case 4:
      return both_kernels_within<4>(team, scratch_max);
    default:
      throw Error("reference_team_size: a launch takes 1 to 4 frequencies, not " + std::to_string(nw));
  }
}

ReferencePass& ReferencePass::operator+=(const ReferencePass& o) {
  if (sums.sch_sum.empty()) {
    sums = o.sums;
  } else {
    for (std::size_t w = 0; w < o.sums.sch_sum.size(); ++w) {
      sums.sch_sum[w] += o.sums.sch_sum[w];
      sums.ssx_sum[w] += o.sums.ssx_sum[w];
    }
  }
  achstemp += o.achstemp;
  arms += o.arms;
  return *this;
}

template <class ExecSpace>
ReferencePass fast_reference(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                             const std::function<void(double)>& done) {
  compat::ScopedRegion region("gpp::reference::fast");
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Host) {
    return host_pass(space, d, done);
  } else {
    return team_pass(space, d, done);
  }
}

template <class ExecSpace>
ReferencePass fast_reference_teams(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                                   const std::function<void(double)>& done) {
  compat::ScopedRegion region("gpp::reference::fast");
  return team_pass(space, d, done);
}

template ReferencePass fast_reference(const HostExec&, const GppData<HostExec::memory_space>&,
                                      const std::function<void(double)>&);
template ReferencePass fast_reference_teams(const HostExec&, const GppData<HostExec::memory_space>&,
                                            const std::function<void(double)>&);
#if GPP_HAS_DEVICE_SPACE
template ReferencePass fast_reference(const DeviceExec&, const GppData<DeviceExec::memory_space>&,
                                      const std::function<void(double)>&);
template ReferencePass fast_reference_teams(const DeviceExec&, const GppData<DeviceExec::memory_space>&,
                                            const std::function<void(double)>&);
#endif

}  // namespace gpp::session
