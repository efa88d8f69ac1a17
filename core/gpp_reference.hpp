#pragma once
// Host references: compensated sums of the literal physics, the closed form of the
// uniform deck, and the static remainder as a direct triple loop.
#include "gpp_input.hpp"

#include <complex>

namespace gpp {

/// Sums of every term, the literal physics per term, Neumaier-compensated sums per G'
/// merged in long double. Deterministic for any number of host threads.
SigmaSums reference_sums(const GppData<Kokkos::HostSpace>& d);

/// Closed form of a uniform (constant-data) deck, derived independently of the kernel
/// code: every term is equal, so each sum is a count times one term, in long double.
SigmaSums closed_form_uniform(const DeckParams& p);

/// achstemp = sum_{n1,igp} 0.5 vcoul_loc(igp) conj(aqsmtemp_local(igp,n1)) S(n1,igp),
/// S(n1,igp) = -sum_ig aqsntemp(ig,n1) I_eps_array(ig,igp): direct loops in long double.
std::complex<double> reference_achstemp(const GppData<Kokkos::HostSpace>& d);

}  // namespace gpp
