#pragma once
// The static remainder achstemp: a complex GEMM, S = -(aqsntemp^T *
// I_eps_array), then sum over n1, igp of 0.5 vcoul_loc conj(aqsmtemp_local) S.
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

#include <complex>

namespace gpp {

/// achstemp on `space` with KokkosBlas::gemm (or a plain Kokkos product when the build
/// has no Kokkos Kernels). Instantiated for every space of the build.
template <class ExecSpace>
std::complex<double> static_remainder(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d);

/// True when static_remainder uses KokkosBlas::gemm.
bool static_remainder_uses_kokkos_kernels();

}  // namespace gpp
