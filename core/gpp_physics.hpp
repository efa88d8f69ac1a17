#pragma once
// The physics of one (band, G', G, frequency) term of Sigma-GPP (spec section 1), in
// the paper's literal form and in its algebraically optimised forms. Every policy
// calls these functions; none re-implements the term.
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
using LiteralForm = Form<false, false, false>;     // v0
using ReciprocalForm = Form<true, false, false>;   // v1
using TwoWayForm = Form<true, true, false>;        // v2
using OptimisedForm = Form<true, true, true>;      // v3 onwards

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
                                            const double limittwo, const double sexcut, complex_t& sch,
                                            complex_t& ssx, int& branch, bool& cut) {
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
/// is computed once per pair, and both denominators of the regular arm share one real
/// reciprocal, 1/(|wdiff|^2 |cden|^2). Algebraically equal to the literal form; it
/// rounds differently (a few ulps per term).
struct PairTerms {
  complex_t wtilde, wtilde2, Omega2, I_eps;
  double wi2;          // Im(wtilde)^2
  double wtilde_abs2;  // |wtilde|^2
  double t2i2;         // Im(wtilde2)^2
  double sexcut2;      // sexcut^2
  // Only the sexcut test (negative wx, occupied band) needs these: computed there, so
  // that they do not hold registers through the band loop.
  KOKKOS_FORCEINLINE_FUNCTION double omega2_abs2() const { return norm2(Omega2); }
  KOKKOS_FORCEINLINE_FUNCTION double cut2() const { return sexcut2 * norm2(I_eps); }
};

KOKKOS_FORCEINLINE_FUNCTION PairTerms pair_terms(const complex_t& wtilde, const complex_t& I_eps, const double sexcut) {
  PairTerms p;
  p.wtilde = wtilde;
  p.wtilde2 = wtilde * wtilde;
  p.Omega2 = p.wtilde2 * I_eps;
  p.I_eps = I_eps;
  p.wi2 = wtilde.imag() * wtilde.imag();
  p.wtilde_abs2 = norm2(wtilde);
  p.t2i2 = p.wtilde2.imag() * p.wtilde2.imag();
  p.sexcut2 = sexcut * sexcut;
  return p;
}

/// 1/x for the fused form. On NVIDIA GPUs: the hardware's approximate reciprocal
/// (rcp.approx.ftz.f64, about 20 correct bits) refined by one cubic Newton step,
/// r (1 + e + e^2) with e = 1 - x r: within one ulp of 1.0/x (test
/// FusedReciprocal.WithinOneUlpOfDivision) in three FMAs and without the slow-path branch of
/// the IEEE division (a branch in every term). For x
/// whose reciprocal is subnormal, it flushes to zero; x = 0 or inf gives NaN where the
/// division gives inf or 0 (the physics has no such terms: |wdiff|^2 and |cden|^2 > 0).
/// Elsewhere: the division.
KOKKOS_FORCEINLINE_FUNCTION double reciprocal(const double x) {
#if defined(__CUDA_ARCH__)
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  const double e = fma(-x, r, 1.0);
  return fma(r, fma(e, e, e), r);
#else
  return 1.0 / x;
#endif
}

/// One frequency of one band for a pair, in the fused form, added to sch_acc and
/// ssx_acc. P = I_eps*mat and Q = occ*Omega2*mat are per band; what is added is sch*mat
/// and occ*ssx*mat. Occupied = false skips ssx (it is multiplied by occ = 0).
template <bool Occupied>
KOKKOS_FORCEINLINE_FUNCTION void fused_term(const PairTerms& p, const double wx, const complex_t& P, const complex_t& Q,
                                            const double limittwo, complex_t& sch_acc, complex_t& ssx_acc) {
  const double wr = p.wtilde.real(), wi = p.wtilde.imag();
  const double dr = wx - wr;                       // wdiff = dr - i wi
  const double wdiffr = dr * dr + p.wi2;           // |wdiff|^2
  double cr = 0, R = 0, inv_wdiffr;
  if constexpr (Occupied) {
    cr = wx * wx - p.wtilde2.real();               // cden = cr - i Im(wtilde2)
    const double cden2 = cr * cr + p.t2i2;         // |cden|^2
    R = reciprocal(wdiffr * cden2);
    inv_wdiffr = R * cden2;
  } else {
    inv_wdiffr = reciprocal(wdiffr);               // no ssx: cden is not needed
  }
  const double delwr = p.wtilde_abs2 * inv_wdiffr;  // |delw|^2 = |wtilde|^2 / |wdiff|^2
  // wtilde * conj(wdiff) = (wr dr - wi^2) + i wi (wr + dr) with wr + dr = wx, so
  // delw = (a + i b) / |wdiff|^2
  if (wdiffr > limittwo && delwr < limitone) {
    const double a = wr * dr - p.wi2, b = wi * wx;
    // sch * mat = delw * P = inv_wdiffr * ((a + i b) * P): the last step two FMAs
    const double cre = a * P.real() - b * P.imag(), cim = a * P.imag() + b * P.real();
    sch_acc = complex_t(inv_wdiffr * cre + sch_acc.real(), inv_wdiffr * cim + sch_acc.imag());
    if constexpr (Occupied) {
      const double inv_cden2 = R * wdiffr;
      // |ssx|^2 = |Omega2|^2 / |cden|^2
      if (!(wx < 0.0 && p.omega2_abs2() * inv_cden2 > p.cut2())) ssx_acc += Q * complex_t(cr, p.wtilde2.imag()) * inv_cden2;
    }
  } else if constexpr (Occupied) {  // near-pole arm: ssx only (sch = 0 there)
    if (delwr > TOL_Zero) {
      const double a = wr * dr - p.wi2, b = wi * wx;
      const complex_t delw = complex_t(a, b) * inv_wdiffr;
      const complex_t cden = 4.0 * p.wtilde2 * (delw + 0.5);
      const double inv_cden2 = reciprocal(norm2(cden));
      // |ssx|^2 = |Omega2|^2 |delw|^2 / |cden|^2
      if (!(wx < 0.0 && p.omega2_abs2() * delwr * inv_cden2 > p.cut2()))
        ssx_acc += -(Q * delw) * Kokkos::conj(cden) * inv_cden2;
    }
  }
}

/// matngmatmgp = conj(M(n1, G')) * M(n1, G)
KOKKOS_FORCEINLINE_FUNCTION complex_t matngmatmgp(const complex_t& aqsm, const complex_t& aqsn) {
  return Kokkos::conj(aqsm) * aqsn;
}

/// The weighting of spec section 1, in two factors so that a kernel may apply the G'
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

/// The fused band loop body (beyond the paper; the `tuned` and `host` policies): one
/// band n1 of a (G, G') pair for every frequency, in the fused form, into g (sums of
/// band_term, before the G' factor). wx(w) is the band's wx_array_t(w, n1). ssx is
/// skipped for empty bands (uniform per band: no divergence on GPUs).
template <int NW, class Wx>
KOKKOS_FORCEINLINE_FUNCTION void fused_band(const PairTerms& p, const complex_t& aqsm, const complex_t& aqsn,
                                            const double occ, const Wx& wx, const double limittwo,
                                            SigmaAccum<NW>& g) {
  const complex_t mat = matngmatmgp(aqsm, aqsn);
  const complex_t P = p.I_eps * mat;  // sch * mat = delw * P
  if (occ != 0.0) {
    const complex_t Q = occ * p.Omega2 * mat;  // occ * ssx * mat from Q and the denominators
    for (int w = 0; w < NW; ++w) fused_term<true>(p, wx(w), P, Q, limittwo, g.sch[w], g.ssx[w]);
  } else {
    for (int w = 0; w < NW; ++w) fused_term<false>(p, wx(w), P, P, limittwo, g.sch[w], g.ssx[w]);
  }
}

}  // namespace gpp::physics
