#pragma once
// The physics of one (band, G', G, frequency) term of Sigma-GPP (the benchmark's), in
// the paper's literal form and in its algebraically optimised forms. Every policy
// calls these functions; none re-implements the term.
#include "gpp_backend.hpp"
#include "gpp_compat.hpp"
#include "gpp_types.hpp"

namespace gpp {

/// The sch and ssx sums of NW frequencies (NW <= GPP_MAX_NW, fixed at compile time so
/// the value lives in registers). OpenACC could reduce only scalars, so the Fortran code
/// keeps one scalar per frequency and sum; here one value holds them all.
template <int NW>
struct SigmaAccum {
  static_assert(NW >= 1 && NW <= GPP_MAX_NW, "NW must be between 1 and GPP_MAX_NW");
  static constexpr int nw = NW;
  complex_t sch[NW];
  complex_t ssx[NW];

  KOKKOS_INLINE_FUNCTION SigmaAccum() {
    for (int w = 0; w < NW; ++w) {
      sch[w] = complex_t(0.0, 0.0);
      ssx[w] = complex_t(0.0, 0.0);
    }
  }
  GPP_COMPAT_VOLATILE_SOURCE_ASSIGN(SigmaAccum)  // team_reduce on Kokkos 3.4's Threads
  KOKKOS_INLINE_FUNCTION SigmaAccum& operator+=(const SigmaAccum& o) {
    for (int w = 0; w < NW; ++w) {
      sch[w] += o.sch[w];
      ssx[w] += o.ssx[w];
    }
    return *this;
  }
};

}  // namespace gpp

namespace gpp::physics {

inline constexpr double TOL_Small = 1e-6;
inline constexpr double TOL_Zero = 1e-12;
inline constexpr double limitone = 1.0 / (TOL_Small * 4.0);

/// Which arm of the plasmon-pole expression a term took.
enum Branch : int {
  kRegular = 0,   // wdiffr > limittwo and delwr < limitone
  kNearPole = 1,  // otherwise, if delwr > TOL_Zero
  kZero = 2,      // otherwise: sch = ssx = 0
};

/// Compile-time choice of how a term is evaluated (the paper's steps v0..v3).
///   Reciprocal:  v1, a/b computed as a*conj(b)*(1/|b|^2) (one real reciprocal)
///   TwoWay:      v2, sch and ssx zero-initialised, the final else removed
///   SquaredCut:  v3, |ssx| > sexcut*|I_eps| compared as squared magnitudes
template <bool Reciprocal, bool TwoWay, bool SquaredCut>
struct Form {
  static constexpr bool reciprocal = Reciprocal;
  static constexpr bool two_way = TwoWay;
  static constexpr bool squared_cut = SquaredCut;
};
using LiteralForm = Form<false, false, false>;    // v0
using ReciprocalForm = Form<true, false, false>;  // v1
using TwoWayForm = Form<true, true, false>;       // v2
using OptimisedForm = Form<true, true, true>;     // v3 onwards

KOKKOS_FORCEINLINE_FUNCTION double norm2(const complex_t& z) { return z.real() * z.real() + z.imag() * z.imag(); }

/// a / b through one real reciprocal (step v1).
KOKKOS_FORCEINLINE_FUNCTION complex_t divide_by_reciprocal(const complex_t& a, const complex_t& b) {
  const double rden = 1.0 / norm2(b);
  return a * Kokkos::conj(b) * rden;
}

/// The sch and ssx of one term. branch and cut report the arm taken and whether the
/// sexcut cutoff zeroed ssx; policies ignore them and the compiler drops them.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void sigma_term(const complex_t& wtilde, const complex_t& I_eps, const double wxt,
                                            const double limittwo, const double sexcut, complex_t& sch, complex_t& ssx,
                                            int& branch, bool& cut) {
  const complex_t wtilde2 = wtilde * wtilde;
  const complex_t Omega2 = wtilde2 * I_eps;
  const complex_t wdiff = wxt - wtilde;
  complex_t delw;
  if constexpr (F::reciprocal) {
    delw = divide_by_reciprocal(wtilde, wdiff);
  } else {
    delw = wtilde / wdiff;
  }
  const double delwr = norm2(delw);
  const double wdiffr = norm2(wdiff);

  if constexpr (F::two_way) {
    sch = complex_t(0.0, 0.0);
    ssx = complex_t(0.0, 0.0);
    branch = kZero;
    if (wdiffr > limittwo && delwr < limitone) {
      sch = delw * I_eps;
      const complex_t cden = wxt * wxt - wtilde2;
      ssx = divide_by_reciprocal(Omega2, cden);
      branch = kRegular;
    } else if (delwr > TOL_Zero) {
      const complex_t cden = 4.0 * wtilde2 * (delw + 0.5);
      ssx = -divide_by_reciprocal(Omega2 * delw, cden);
      branch = kNearPole;
    }
  } else {
    if (wdiffr > limittwo && delwr < limitone) {
      sch = delw * I_eps;
      const complex_t cden = wxt * wxt - wtilde2;
      if constexpr (F::reciprocal) {
        ssx = divide_by_reciprocal(Omega2, cden);
      } else {
        ssx = Omega2 / cden;
      }
      branch = kRegular;
    } else if (delwr > TOL_Zero) {
      sch = complex_t(0.0, 0.0);
      const complex_t cden = 4.0 * wtilde2 * (delw + 0.5);
      if constexpr (F::reciprocal) {
        ssx = -divide_by_reciprocal(Omega2 * delw, cden);
      } else {
        ssx = -Omega2 * delw / cden;
      }
      branch = kNearPole;
    } else {
      sch = complex_t(0.0, 0.0);
      ssx = complex_t(0.0, 0.0);
      branch = kZero;
    }
  }

  // The sexcut cutoff only applies for negative wx (states below the band).
  bool over;
  if constexpr (F::squared_cut) {
    over = norm2(ssx) > sexcut * sexcut * norm2(I_eps);  // sexcut >= 0 is checked on input
  } else {
    over = compat::abs(ssx) > sexcut * compat::abs(I_eps);
  }
  cut = over && wxt < 0.0;
  if (cut) ssx = complex_t(0.0, 0.0);
}

/// sigma_term without the diagnostics.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void sigma_term(const complex_t& wtilde, const complex_t& I_eps, const double wxt,
                                            const double limittwo, const double sexcut, complex_t& sch,
                                            complex_t& ssx) {
  int branch;
  bool cut;
  sigma_term<F>(wtilde, I_eps, wxt, limittwo, sexcut, sch, ssx, branch, cut);
}

/// The fused form (beyond the paper): everything that depends only on the (G, G') pair
/// is computed once per pair, everything that depends on (band, G, G') once per band
/// for all frequencies, and the regular arm's denominators share one real reciprocal.
/// Algebraically equal to the literal form; it rounds differently (a few ulps per term,
/// see occupied_term for ssx). A kernel may fold a weight into I_eps (the G' factor of
/// sch), so that the terms of several G' add to one accumulator.
///
/// The arm tests are comparisons with per-pair thresholds (|delw|^2 = |wtilde|^2 /
/// |wdiff|^2, |wdiff|^2 > 0):
///   regular:   wdiffr > limittwo && delwr < limitone  <=>  wdiffr > thr,
///              thr = max(limittwo, |wtilde|^2 / limitone);
///   near pole: otherwise, if delwr > TOL_Zero          <=>  wdiffr < thr0,
///              thr0 = |wtilde|^2 / TOL_Zero;
///   sexcut (regular arm, wx < 0): |ssx|^2 = |Omega2|^2 / |cden|^2 > sexcut^2 |I_eps|^2
///              <=>  1/|cden|^2 > thrc = sexcut^2 |I_eps|^2 / |Omega2|^2.
/// The same arms as the literal tests except where a quantity is within a rounding of
/// its limit (as the host policy's per-G threshold).
struct PairTerms {
  double wr, wi;  // wtilde
  double wi2;     // Im(wtilde)^2
  double thr;     // the regular arm's threshold on |wdiff|^2 (above; thr0 is made
                  // where a term is not regular: near_pole_term)
  double thrc;    // the sexcut threshold on 1/|cden|^2 (above)
  complex_t Iw;   // sch_weight * I_eps (the near-pole arm's P = Iw mat)
  complex_t WIw;  // wtilde Iw      (a band's U = WIw mat)
};

KOKKOS_FORCEINLINE_FUNCTION double norm2(const double re, const double im) { return re * re + im * im; }

KOKKOS_FORCEINLINE_FUNCTION PairTerms pair_terms(const complex_t& wtilde, const complex_t& I_eps, const double sexcut,
                                                 const double limittwo, const double sch_weight = 1.0) {
  PairTerms p;
  p.wr = wtilde.real();
  p.wi = wtilde.imag();
  p.wi2 = p.wi * p.wi;
  const double wabs2 = norm2(wtilde);  // |wtilde|^2
  const double thr_one = wabs2 * (1.0 / limitone);
  p.thr = thr_one > limittwo ? thr_one : limittwo;
  const double ieps2 = norm2(I_eps);
  // |Omega2|^2 = |wtilde|^4 |I_eps|^2; where it is 0 the division gives inf (never cut)
  // or, with sexcut = 0, NaN (never cut): as the literal 0 > 0.
  p.thrc = (sexcut * sexcut * ieps2) / ((wabs2 * wabs2) * ieps2);
  p.Iw = sch_weight * I_eps;
  p.WIw = wtilde * p.Iw;
  return p;
}

/// What one band adds to a pair's terms, once for all frequencies. With
/// mat = conj(aqsm) aqsn, P = Iw mat and U = wtilde P = WIw mat (wdiff = wx - wtilde,
/// wsum = wx + wtilde):
///   sch * mat * weight = delw P = P wtilde / (wx - wtilde) = U conj(wdiff) / |wdiff|^2,
/// and conj(wdiff) = (wx - Re wtilde) + i Im wtilde, conj(wsum) = (wx + Re wtilde) - i Im
/// wtilde: a term's conj(wdiff) U and conj(wsum) U are two FMAs each from U and wiU =
/// Im(wtilde) U, made once per band for every frequency (6 FP64 operations a band where
/// P, U and V = |wtilde|^2 P took 10; and wx - Re wtilde is exact where wx U - V
/// cancelled near the pole).
struct BandTerms {
  complex_t U, wiU;
};

KOKKOS_FORCEINLINE_FUNCTION BandTerms band_terms(const PairTerms& p, const complex_t& mat) {
  BandTerms b;
  b.U = p.WIw * mat;
  b.wiU = p.wi * b.U;
  return b;
}

/// 1/x for the fused form: the backend's fast reciprocal, within one ulp of the division
/// (backend/gpp_backend.hpp: on GPUs the hardware's approximation refined by Newton steps,
/// elsewhere the division).
using backend::reciprocal;

/// s conj(wdiff) U added to sch_acc, wdiff = dr - i Im(wtilde), s = 1/|wdiff|^2 or 0: each
/// part of conj(wdiff) U one FMA on dr (backend::mul_add: not on Im(wtilde) U's product).
KOKKOS_FORCEINLINE_FUNCTION void empty_add(const BandTerms& b, const double dr, const double s, complex_t& sch_acc) {
  const double cre = backend::mul_add(dr, b.U.real(), -b.wiU.imag());
  const double cim = backend::mul_add(dr, b.U.imag(), b.wiU.real());
  sch_acc = complex_t(s * cre + sch_acc.real(), s * cim + sch_acc.imag());
}

/// One frequency wx of one empty band for a pair: adds sch*mat (times the weight folded
/// into p) to sch_acc; the regular arm under a mask (its near-pole arm adds only to ssx,
/// which occ = 0 removes).
/// Checked = false: the caller knows the term regular (wdiffr > p.thr; tuned's empty
/// kernel, from a block's range of wx: empty_block_regular), and the test is left out.
template <bool Checked = true>
KOKKOS_FORCEINLINE_FUNCTION void empty_term(const PairTerms& p, const BandTerms& b, const double wx,
                                            complex_t& sch_acc) {
  const double dr = wx - p.wr;            // wdiff = dr - i wi
  const double wdiffr = dr * dr + p.wi2;  // |wdiff|^2
  const double inv_wdiffr = reciprocal(wdiffr);
  // Outside the regular arm the factor is 0 (a select: inv_wdiffr may be inf or NaN
  // there, wx U - V is finite).
  const double s = !Checked || wdiffr > p.thr ? inv_wdiffr : 0.0;
  empty_add(b, dr, s, sch_acc);
}

/// One frequency wx of one occupied band for a pair, the regular arm (under masks).
/// ssx's regular arm in partial fractions: with cden = wx^2 - wtilde^2 =
/// (wx - wtilde)(wx + wtilde) and Omega2 = wtilde^2 I_eps,
///   ssx * mat * weight = wtilde^2 P / cden = (1/2) (U / (wx - wtilde) - U / (wx + wtilde))
///                      = (1/2) (conj(wdiff) U / |wdiff|^2 - conj(wsum) U / |wsum|^2),
/// wsum = wx + wtilde: half the band's sch term minus a term of the same shape. So a
/// kernel sums sch and Y = sum of conj(wsum) U / |wsum|^2 over the terms whose ssx is
/// kept, plus conj(wdiff) U / |wdiff|^2 over the regular terms whose ssx is cut (they are
/// in sch but not in ssx): one of the two, or neither, so Y takes one FMA pair; over bands
/// of one occupation occ, ssx * weight = h (sch - Y) with h = occ * (ssx weight / sch
/// weight) / 2. One reciprocal, R = 1/(|wdiff|^2 |wsum|^2) = 1/|cden|^2, gives both
/// denominators and the sexcut test; off the regular arm R may be inf or NaN and never
/// reaches a sum (Cut: the arm's mask applied once, to R; else the sums' FMAs under the
/// arm's predicate). The subtraction
/// loses digits where |wx| >> |wtilde| (ssx << sch there): about log10(|wx| / |wtilde|),
/// far inside the verification tolerance. Adds to sch_acc and y_acc; returns whether the
/// term is off the regular arm (near_pole_term computes what it adds to ssx there: the
/// near-pole arm, or 0 on the zero arm; the caller subtracts it from Y, with f = 1/2, the
/// near-pole ssx over h). wx_negative: wx < 0 (the sexcut test's condition, staged per
/// band).
/// Cut = false: the caller knows wx >= 0 (tuned's occupied blocks whose every wx is: the
/// sexcut test cannot apply), and the test and Y's choice of term are left out.
template <bool Cut = true>
KOKKOS_FORCEINLINE_FUNCTION bool occupied_term(const PairTerms& p, const BandTerms& b, const double wx,
                                               const bool wx_negative, complex_t& sch_acc, complex_t& y_acc) {
  const double dr = wx - p.wr, sr = wx + p.wr;  // wdiff = dr - i wi, wsum = sr + i wi
  const double wdiffr = dr * dr + p.wi2;        // |wdiff|^2
  const double wsumr = sr * sr + p.wi2;         // |wsum|^2
  const double R = reciprocal(wdiffr * wsumr);  // 1/|cden|^2
  const bool regular = wdiffr > p.thr;
  // conj(wdiff) U and conj(wsum) U, each part one FMA on dr or sr (backend::mul_add)
  const double cmr = backend::mul_add(dr, b.U.real(), -b.wiU.imag());
  const double cmi = backend::mul_add(dr, b.U.imag(), b.wiU.real());
  const double cpr = backend::mul_add(sr, b.U.real(), b.wiU.imag());
  const double cpi = backend::mul_add(sr, b.U.imag(), -b.wiU.real());
  if constexpr (Cut) {
    const double Rm = regular ? R : 0.0;
    const double s = Rm * wsumr, t = Rm * wdiffr;  // 1/|wdiff|^2 and 1/|wsum|^2 on the regular arm, else 0
    sch_acc = complex_t(s * cmr + sch_acc.real(), s * cmi + sch_acc.imag());
    // Y: the kept term (regular, not cut) or the dropped one (cut; s is 0 unless regular)
    const bool cut = wx_negative && R > p.thrc;
    const double y = cut ? s : t;
    const double yr = cut ? cmr : cpr, yi = cut ? cmi : cpi;
    y_acc = complex_t(y * yr + y_acc.real(), y * yi + y_acc.imag());
  } else {
    // The sums only where the term is regular: on a GPU four predicated FMAs, where the
    // mask on R took two selects of 32-bit halves (R may be inf or NaN off the arm, and
    // never reaches a sum).
    (void)wx_negative;
    const double s = R * wsumr, t = R * wdiffr;  // 1/|wdiff|^2 and 1/|wsum|^2
    if (regular) {
      sch_acc = complex_t(backend::mul_add(s, cmr, sch_acc.real()), backend::mul_add(s, cmi, sch_acc.imag()));
      y_acc = complex_t(backend::mul_add(t, cpr, y_acc.real()), backend::mul_add(t, cpi, y_acc.imag()));
    }
  }
  return !regular;
}

/// The near-pole arm of an occupied band's term off the regular arm (near_pole_term, where
/// occupied_term returned true): what it adds to ssx (sch = 0 there), from wtilde = wr + i
/// wi and the band's P; 0 on the zero arm (|wdiff|^2 >= thr0 = |wtilde|^2 / TOL_Zero, i.e.
/// |delw|^2 <= TOL_Zero). near_pole_arm: the same without the zero arm's test, for a
/// caller whose flag has tested it (host.cpp's scalar pass: a test written another way
/// here could disagree within a rounding and drop the term from both arms). With cden = 4
/// wtilde^2 (delw + 1/2) and Omega2 = wtilde^2 I_eps, ssx = -I_eps delw / (4 (delw +
/// 1/2)), and with delw = (a + i b) / |wdiff|^2: delw / (delw + 1/2) = (a + i b) / c, c =
/// (a + |wdiff|^2 / 2) + i b. So occ * ssx * mat * weights = -f P (a + i b) conj(c) /
/// |c|^2 with f = occ * (ssx weight / sch weight) / 4, and |ssx| / |I_eps| = |a + i b| /
/// (4 |c|): the sexcut test is |a + i b|^2 / |c|^2 > 16 sexcut^2 (cut16 = 16 sexcut^2).
template <bool TestZeroArm>
KOKKOS_FORCEINLINE_FUNCTION complex_t near_pole_arm_or_zero(const double wr, const double wi, const complex_t& P,
                                                            const double wx, const double f, const double cut16) {
  const double dr = wx - wr;
  const double wi2 = wi * wi;
  const double wdiffr = dr * dr + wi2;
  if constexpr (TestZeroArm)
    if (!(wdiffr < norm2(wr, wi) * (1.0 / TOL_Zero))) return complex_t(0.0, 0.0);  // the zero arm
  const double a = wr * dr - wi2, b = wi * wx;                                     // wtilde conj(wdiff)
  const double half = 0.5 * wdiffr;
  const double c_r = a + half;
  const double inv_c2 = reciprocal(c_r * c_r + b * b);
  if (wx < 0.0 && norm2(a, b) * inv_c2 > cut16) return complex_t(0.0, 0.0);
  // (a + i b) conj(c) = (a c_r + b^2) + i b (c_r - a) = (a c_r + b^2) + i b |wdiff|^2 / 2
  const complex_t num(a * c_r + b * b, b * half);
  return -(f * inv_c2) * (P * num);
}
KOKKOS_FORCEINLINE_FUNCTION complex_t near_pole_term(const double wr, const double wi, const complex_t& P,
                                                     const double wx, const double f, const double cut16) {
  return near_pole_arm_or_zero<true>(wr, wi, P, wx, f, cut16);
}
KOKKOS_FORCEINLINE_FUNCTION complex_t near_pole_arm(const double wr, const double wi, const complex_t& P,
                                                    const double wx, const double f, const double cut16) {
  return near_pole_arm_or_zero<false>(wr, wi, P, wx, f, cut16);
}

/// Occupied bands of one occupation occ: the weighted ssx from the sums of occupied_term,
/// h (sch - Y) with h = occ * (ssx weight / sch weight) / 2 (ssx_ratio: that ratio).
KOKKOS_FORCEINLINE_FUNCTION complex_t occupied_ssx(const complex_t& sch, const complex_t& y, const double occ,
                                                   const double ssx_ratio) {
  return (0.5 * occ * ssx_ratio) * (sch - y);
}

/// One whole term through the pieces above, as the kernels combine them: sch*mat and
/// occ*ssx*mat (times the weights) added to sch_acc and ssx_acc. ssx_ratio is the ssx
/// weight over the sch weight folded into p; cut16 = 16 sexcut^2.
template <bool Occupied>
KOKKOS_FORCEINLINE_FUNCTION void fused_term(const PairTerms& p, const complex_t& mat, const double occ,
                                            const double ssx_ratio, const double wx, const double cut16,
                                            complex_t& sch_acc, complex_t& ssx_acc) {
  const BandTerms b = band_terms(p, mat);
  if constexpr (Occupied) {
    complex_t sch(0.0, 0.0), y(0.0, 0.0);
    if (occupied_term(p, b, wx, wx < 0.0, sch, y)) y -= near_pole_term(p.wr, p.wi, p.Iw * mat, wx, 0.5, cut16);
    sch_acc += sch;
    ssx_acc += occupied_ssx(sch, y, occ, ssx_ratio);
  } else {
    empty_term(p, b, wx, sch_acc);
  }
}

/// matngmatmgp = conj(M(n1, G')) * M(n1, G)
KOKKOS_FORCEINLINE_FUNCTION complex_t matngmatmgp(const complex_t& aqsm, const complex_t& aqsn) {
  return Kokkos::conj(aqsm) * aqsn;
}

/// The benchmark's weighting of a term, in two factors so that a kernel may apply the G'
/// factor per term (the paper's steps v0..v5) or once per G' (v6 onwards):
///   sch_sum += 0.5 vcoul(G') * (sch * mat),   ssx_sum += vcoul(G') * (occ * ssx * mat).
/// band_term: what one (band, G', G, frequency) term adds before the G' factor.
KOKKOS_FORCEINLINE_FUNCTION void band_term(const double occ, const complex_t& sch, const complex_t& ssx,
                                           const complex_t& mat, complex_t& sch_acc, complex_t& ssx_acc) {
  sch_acc += sch * mat;
  ssx_acc += occ * ssx * mat;
}

/// The G' factor applied to sums of band_term: 0.5 vcoul to sch, vcoul to ssx.
template <int NW>
KOKKOS_FORCEINLINE_FUNCTION void add_gp_weighted(SigmaAccum<NW>& acc, const SigmaAccum<NW>& g, const double vcoul) {
  for (int w = 0; w < NW; ++w) {
    acc.sch[w] += (0.5 * vcoul) * g.sch[w];
    acc.ssx[w] += vcoul * g.ssx[w];
  }
}

/// One term, weighted at once (steps v0..v5, the references): band_term, then the G'
/// factor, into frequency w of acc.
template <int NW>
KOKKOS_FORCEINLINE_FUNCTION void add_weighted_term(SigmaAccum<NW>& acc, const int w, const double vcoul,
                                                   const double occ, const complex_t& sch, const complex_t& ssx,
                                                   const complex_t& mat) {
  complex_t s(0.0, 0.0), x(0.0, 0.0);
  band_term(occ, sch, ssx, mat, s, x);
  acc.sch[w] += (0.5 * vcoul) * s;
  acc.ssx[w] += vcoul * x;
}

/// An empty band's values for a pair, without the pair's factor WIw: mat in U's place and
/// Im(wtilde) mat in Im(wtilde) U's (empty_band_unweighted and its shared form).
KOKKOS_FORCEINLINE_FUNCTION BandTerms empty_band_terms(const PairTerms& p, const complex_t& aqsm,
                                                       const complex_t& aqsn) {
  BandTerms b;
  b.U = matngmatmgp(aqsm, aqsn);
  b.wiU = p.wi * b.U;
  return b;
}

/// The fused band loop bodies (beyond the paper; the `tuned` policy): one band of a (G,
/// G') pair for every frequency, in the fused form. wx(w) is the band's frequency w,
/// wx_negative(w) whether it is < 0. The two kinds of band are two functions, so that a
/// kernel over empty bands holds none of ssx's registers.
///
/// Empty bands, without the pair's factor: a kernel that keeps one sum per pair (G, G') and
/// frequency over a run of bands adds conj(wdiff) mat / |wdiff|^2 (regular terms) to
/// acc[w] and multiplies the sums by the pair's WIw once (sch * mat * weight = WIw mat
/// conj(wdiff) / |wdiff|^2): per band mat and Im(wtilde) mat, 6 FP64 operations where U
/// and Im(wtilde) U took 10.
template <bool Checked, int NW, class Wx>
KOKKOS_FORCEINLINE_FUNCTION void empty_band_unweighted(const PairTerms& p, const complex_t& aqsm, const complex_t& aqsn,
                                                       const Wx& wx, complex_t (&acc)[NW]) {
  const BandTerms b = empty_band_terms(p, aqsm, aqsn);
  for (int w = 0; w < NW; ++w) empty_term<Checked>(p, b, wx(w), acc[w]);
}

/// empty_band_unweighted<false> with the frequencies sharing reciprocals: two share one,
/// 1/|wdiff_0|^2 = |wdiff_1|^2 / (|wdiff_0|^2 |wdiff_1|^2) and the other likewise, within
/// two ulps where one reciprocal each gave one; an odd count's first three share one, q =
/// |wdiff_2|^2 / (|wdiff_0|^2 |wdiff_1|^2 |wdiff_2|^2) = 1/(|wdiff_0|^2 |wdiff_1|^2), then
/// |wdiff_1|^2 q, |wdiff_0|^2 q and |wdiff_0|^2 |wdiff_1|^2 / (the product), within four
/// ulps. On a GPU the products and multiplies cost the FP64 pipe what the other
/// reciprocals' three FMAs each did, and save their approximations and the registers zeroed
/// for them. For a caller that knows every term regular and every |wdiff|^2 in
/// [share_low(NW), share_high(NW)] (empty_block_shared<NW>): the products and their
/// reciprocals are then normal numbers.
KOKKOS_FORCEINLINE_FUNCTION constexpr double share_low(const int nw) { return nw % 2 == 1 ? 1e-100 : 1e-150; }
KOKKOS_FORCEINLINE_FUNCTION constexpr double share_high(const int nw) { return nw % 2 == 1 ? 1e100 : 1e150; }
template <int NW, class Wx>
KOKKOS_FORCEINLINE_FUNCTION void empty_band_unweighted_shared(const PairTerms& p, const complex_t& aqsm,
                                                              const complex_t& aqsn, const Wx& wx,
                                                              complex_t (&acc)[NW]) {
  static_assert(NW >= 2, "one frequency has no reciprocal to share");
  const BandTerms b = empty_band_terms(p, aqsm, aqsn);
  constexpr int first_pair = NW % 2 == 1 ? 3 : 0;
  if constexpr (NW % 2 == 1) {
    const double dr0 = wx(0) - p.wr, dr1 = wx(1) - p.wr, dr2 = wx(2) - p.wr;
    const double wd0 = dr0 * dr0 + p.wi2, wd1 = dr1 * dr1 + p.wi2, wd2 = dr2 * dr2 + p.wi2;
    const double wd01 = wd0 * wd1;
    const double R = reciprocal(wd01 * wd2);
    const double q = R * wd2;  // 1/(|wdiff_0|^2 |wdiff_1|^2)
    empty_add(b, dr0, q * wd1, acc[0]);
    empty_add(b, dr1, q * wd0, acc[1]);
    empty_add(b, dr2, R * wd01, acc[2]);
  }
  for (int w = first_pair; w + 1 < NW; w += 2) {
    const double dr0 = wx(w) - p.wr, dr1 = wx(w + 1) - p.wr;
    const double wd0 = dr0 * dr0 + p.wi2, wd1 = dr1 * dr1 + p.wi2;
    const double R = reciprocal(wd0 * wd1);
    empty_add(b, dr0, R * wd1, acc[w]);
    empty_add(b, dr1, R * wd0, acc[w + 1]);
  }
}

/// The least and the largest |wdiff|^2 = (wx - Re wtilde)^2 + Im(wtilde)^2 of a pair over
/// the range [lo, hi] of a block's wx at one frequency, widened by a relative margin of
/// 1e-13 for the roundings of the terms' own |wdiff|^2 (a few ulps). NaN where a value is.
struct Wdiff2Range {
  double least, most;
};
KOKKOS_FORCEINLINE_FUNCTION Wdiff2Range wdiff2_range(const PairTerms& p, const double lo, const double hi) {
  const double below = lo - p.wr, above = p.wr - hi;  // > 0: Re wtilde outside [lo, hi]
  const double d = below > above ? below : above;
  const double d2 = d > 0.0 ? d * d : 0.0;
  const double far = -below > -above ? -below : -above;  // the largest |wx - Re wtilde| over the range
  return {(d2 + p.wi2) * (1.0 - 1e-13), (far * far + p.wi2) * (1.0 + 1e-13)};
}

/// Whether every empty term of a pair over a block of bands is regular, from the range
/// [lo, hi] of the block's wx at one frequency (empty_band_unweighted<false> may then leave
/// the arm's test out): the least |wdiff|^2 over the range above the pair's threshold.
/// False where a value is NaN.
KOKKOS_FORCEINLINE_FUNCTION bool empty_block_regular(const PairTerms& p, const double lo, const double hi) {
  return wdiff2_range(p, lo, hi).least > p.thr;
}

/// empty_block_regular, and every |wdiff|^2 over the range within [share_low(NW),
/// share_high(NW)] (empty_band_unweighted_shared<NW> may then be used). False where a value
/// is NaN.
template <int NW>
KOKKOS_FORCEINLINE_FUNCTION bool empty_block_shared(const PairTerms& p, const double lo, const double hi) {
  const Wdiff2Range r = wdiff2_range(p, lo, hi);
  return r.least > p.thr && r.least > share_low(NW) && r.most < share_high(NW);
}

/// Occupied bands: sch into g.sch and Y (occupied_term) into g.ssx, the regular arms under
/// masks; where frequency w's term is not regular, the band's bit (`bit`, one bit set) of
/// near_bits[w] is set instead, and the caller subtracts near_pole_of_band for each set
/// bit once a run of up to 32 bands is done (0 where the term is on the zero arm). Cut: as
/// occupied_term's (false only where every wx of the band is >= 0). A near-pole term is
/// due for about 4% of si214's occupied terms, but clustered in wx (near wx = Re wtilde),
/// so a warp met one in 76% of its (band, G') steps while a lane had at most about 8 in 32
/// bands (counted on si214's data, docs/lab/gpu-tuned.md): deferred, a warp computes the
/// most any one lane has, not one per band that any lane has (tuned shares them out over
/// the warp: fewer still). The caller turns a block's sums into ssx with occupied_ssx.
template <bool Cut, int NW, class Wx, class WxNegative>
KOKKOS_FORCEINLINE_FUNCTION void occupied_band(const PairTerms& p, const complex_t& mat, const Wx& wx,
                                               const WxNegative& wx_negative, SigmaAccum<NW>& g,
                                               unsigned (&near_bits)[NW], const unsigned bit) {
  const BandTerms b = band_terms(p, mat);
  for (int w = 0; w < NW; ++w)
    // (the band's bit or-ed where the test holds: a select and an or on the GPU, where
    // or-ing the test's 0 or 1 shifted by the band's place took a shift more)
    if (occupied_term<Cut>(p, b, wx(w), wx_negative(w), g.sch[w], g.ssx[w])) near_bits[w] |= bit;
}

/// Occupied bands whose every wx is >= 0 (occupied_term<false>'s terms), in a form with
/// fewer operations a term: with cden = wx^2 - wtilde^2 and W = U / cden = U conj(cden) /
/// |cden|^2,
///   U / (wx - wtilde) = W (wx + wtilde),   U / (wx + wtilde) = W (wx - wtilde),
/// so over the regular terms of a run of bands sch = B + wtilde A and Y = B - wtilde A
/// with A = sum of W and B = sum of wx W. U = WIw mat, and WIw is the pair's: the sums
/// are kept without it (A' = sum of mat conj(cden) / |cden|^2, B' = sum of wx times the
/// same, one pair of sums per G'), and the run's fold multiplies them by WIw once, which
/// takes U's four operations a band out of the loop. conj(cden) = c + i Im(wtilde^2), c =
/// wx^2 - Re(wtilde^2), is one FMA, |cden|^2 one more, and the regular arm's test
/// |wdiff|^2 > thr is |cden|^2 > thr (thr + 4 Re(wtilde) wx) (|cden|^2 = |wdiff|^2
/// (|wdiff|^2 + 4 Re(wtilde) wx), and d (d + k) grows with d wherever d >= 0 and d + k =
/// |wsum|^2 >= 0): 14 FP64 operations a term where occupied_term<false> takes 19, and 6 a
/// band and G' (mat and mat Im(wtilde^2)) where band_terms takes 10 (mat, U, Im(wtilde)
/// U). It rounds differently: c loses digits near the pole (about log10(|wtilde| /
/// |wdiff|), at most 3 on the regular arm, where the threshold keeps |wdiff| above 2e-3
/// |wtilde|), B + wtilde A where |wx + wtilde| << |wx| + |wtilde| (not for Re(wtilde) >=
/// 0, as wx >= 0 here), and the arm's test within a rounding of the threshold.
struct PairSplit {
  double a, b;     // wtilde^2 = a + i b
  double b2;       // b^2
  double t2, t4r;  // the regular arm: |cden|^2 > t2 + t4r wx, t2 = thr^2, t4r = 4 Re(wtilde) thr
};

KOKKOS_FORCEINLINE_FUNCTION PairSplit pair_split(const PairTerms& p) {
  PairSplit q;
  q.a = p.wr * p.wr - p.wi2;
  q.b = 2.0 * p.wr * p.wi;
  q.b2 = q.b * q.b;
  q.t2 = p.thr * p.thr;
  q.t4r = 4.0 * p.wr * p.thr;
  return q;
}

/// One occupied band for a pair in the split form: mat conj(cden) / |cden|^2 and wx times
/// it, for its regular terms, added to a_acc and b_acc (the pair's sums, without WIw);
/// where frequency w's term is not regular, the band's bit of near_bits[w] is set (as
/// occupied_band). The caller turns a run's sums into sch and Y with occupied_split_fold
/// before it subtracts the near-pole arms from Y.
template <int NW, class Wx>
KOKKOS_FORCEINLINE_FUNCTION void occupied_band_split(const PairSplit& q, const complex_t& mat, const Wx& wx,
                                                     complex_t (&a_acc)[NW], complex_t (&b_acc)[NW],
                                                     unsigned (&near_bits)[NW], const unsigned bit) {
  const double mbr = mat.real() * q.b, mbi = mat.imag() * q.b;  // mat Im(wtilde^2)
  for (int w = 0; w < NW; ++w) {
    const double x = wx(w);
    const double c = backend::mul_add(x, x, -q.a);  // Re conj(cden)
    const double P = backend::mul_add(c, c, q.b2);  // |cden|^2
    const double R = reciprocal(P);
    const bool regular = P > backend::mul_add(q.t4r, x, q.t2);
    // V = mat conj(cden) = mat (c + i b)
    const double vr = backend::mul_add(mat.real(), c, -mbi);
    const double vi = backend::mul_add(mat.imag(), c, mbr);
    const double Rx = R * x;
    if (regular) {
      a_acc[w] = complex_t(backend::mul_add(R, vr, a_acc[w].real()), backend::mul_add(R, vi, a_acc[w].imag()));
      b_acc[w] = complex_t(backend::mul_add(Rx, vr, b_acc[w].real()), backend::mul_add(Rx, vi, b_acc[w].imag()));
    } else {
      near_bits[w] |= bit;
    }
  }
}

/// A pair's split sums of a run (occupied_band_split) into sch and Y: with its WIw and
/// wtilde, sch += WIw (B' + wtilde A') and Y += WIw (B' - wtilde A').
KOKKOS_FORCEINLINE_FUNCTION void occupied_split_fold(const complex_t& WIw, const complex_t& wtilde,
                                                     const complex_t& a_sum, const complex_t& b_sum, complex_t& sch_acc,
                                                     complex_t& y_acc) {
  const complex_t wa = wtilde * a_sum;
  sch_acc += WIw * (b_sum + wa);
  y_acc += WIw * (b_sum - wa);
}

/// A near-pole arm deferred by occupied_band: what it subtracts from Y, from the pair's
/// wtilde = wr + i wi and Iw and the band's values again (P = Iw mat, as fused_term
/// makes it: the same bits).
KOKKOS_FORCEINLINE_FUNCTION complex_t near_pole_of_band(const double wr, const double wi, const complex_t& Iw,
                                                        const complex_t& aqsm, const complex_t& aqsn, const double wx,
                                                        const double cut16) {
  return near_pole_term(wr, wi, Iw * matngmatmgp(aqsm, aqsn), wx, 0.5, cut16);
}

}  // namespace gpp::physics
