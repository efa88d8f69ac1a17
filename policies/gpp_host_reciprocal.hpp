// The host policy's reciprocal without the double-precision divider (issue 13).
//
// `vdivpd` is the slowest vector instruction of the host policy's G loops (on Sapphire
// Rapids one zmm division per 16 cycles, against two FMA ports of 8 lanes per cycle). A
// float division is several times cheaper per lane (`vdivps` ymm: 8 lanes per 5 cycles
// there), and gives ~24 correct bits; one cubic Newton step in double, r0 (1 + e + e^2)
// with e = 1 - x r0, takes them to ~72 bits, so the result is within one ulp of 1.0 / x
// (test HostReciprocal.WithinOneUlpOfDivision). The same step as physics::reciprocal on
// the GPU, with a float seed in place of rcp.approx.
//
// It is only right where x and 1/x are normal floats (x in about [1.2e-38, 8.5e37]);
// outside, the seed overflows or underflows and the result is wrong, not merely inexact.
// Callers use it only where the values are known to lie in [kSeededMin, kSeededMax]
// (eight orders of magnitude inside the float range, so that bounds computed in double
// with a few roundings stay sound) and the division elsewhere: reciprocal_or_divide.
//
// It needs a hardware FMA (std::fma is a library call otherwise, and without the fused
// step the result can be 2 ulps off): kSeededReciprocal is false without one (a portable
// x86-64 build), and every caller then takes the division.
#pragma once

#include <cmath>

namespace gpp::host {

#if defined(FP_FAST_FMA)
inline constexpr bool kSeededReciprocal = true;
#else
inline constexpr bool kSeededReciprocal = false;
#endif

inline constexpr double kSeededMin = 1e-30, kSeededMax = 1e30;

/// 1/x from a float seed and one cubic Newton step: within one ulp of 1.0 / x for x in
/// [kSeededMin, kSeededMax] (and for -x); not IEEE-rounded, and wrong outside that range.
inline double seeded_reciprocal(const double x) {
  const double r0 = static_cast<double>(1.0f / static_cast<float>(x));
  const double e = std::fma(-x, r0, 1.0);
  return std::fma(r0, std::fma(e, e, e), r0);
}

/// The seeded reciprocal where x is known to be in range and the build has an FMA, else
/// the division (for scalar code and tests; the policy's loops choose per band and G block).
inline double reciprocal_or_divide(const double x) {
  if (kSeededReciprocal && x >= kSeededMin && x <= kSeededMax) return seeded_reciprocal(x);
  return 1.0 / x;
}

}  // namespace gpp::host
