#pragma once
// Newton steps that refine a GPU's approximate reciprocal to within one ulp of 1.0/x: each
// device backend's fast 1/x (gpp_backend_cuda.hpp, gpp_backend_hip.hpp) is its hardware
// seed and one of these. Portable code, so that the tests check the steps on the host
// from seeds of the hardware's precision (FusedReciprocal.*).
#include <Kokkos_Core.hpp>

#include <cmath>

namespace gpp::backend {

/// One cubic Newton step for 1/x from an approximation r of relative error e0:
/// r (1 + e + e^2) with e = 1 - x r, relative error about e0^3 (three FMAs). From a seed
/// of 20 correct bits (rcp.approx.ftz.f64) that is within one ulp of 1.0/x.
KOKKOS_FORCEINLINE_FUNCTION double refine_reciprocal_cubic(const double x, const double r) {
  const double e = fma(-x, r, 1.0);
  return fma(r, fma(e, e, e), r);
}

/// Two quadratic Newton steps for 1/x from an approximation r of relative error e0:
/// relative error about e0^4 (four FMAs), LLVM's own sequence for a fast f64 reciprocal on
/// AMD GPUs. Within one ulp of 1.0/x from a seed of 14 correct bits or more.
KOKKOS_FORCEINLINE_FUNCTION double refine_reciprocal_quadratic2(const double x, double r) {
  r = fma(fma(-x, r, 1.0), r, r);
  return fma(fma(-x, r, 1.0), r, r);
}

}  // namespace gpp::backend
