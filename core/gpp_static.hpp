#pragma once
// The static remainder achstemp (spec section 1): a complex GEMM, S = -(aqsntemp^T *
// I_eps_array), then sum over n1, igp of 0.5 vcoul_loc conj(aqsmtemp_local) S.
#include "gpp_types.hpp"

#include <complex>

namespace gpp {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using DeviceMemory = ExecSpace::memory_space;
using DeviceData = GppData<DeviceMemory>;

/// achstemp with KokkosBlas::gemm (or a plain Kokkos product when the build has no
/// Kokkos Kernels).
std::complex<double> static_remainder(const ExecSpace& space, const DeviceData& d);

/// True when static_remainder uses KokkosBlas::gemm.
bool static_remainder_uses_kokkos_kernels();

}  // namespace gpp
