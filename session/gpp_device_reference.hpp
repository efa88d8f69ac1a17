#pragma once
// A reference for decks too large for the host reference: the literal physics with
// compensated (Neumaier) sums, merged pairwise with TwoSum, on an execution space
// of the build. Independent of every policy's strategy (no blocking, no fusion).
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

namespace gpp {

/// Instantiated for every space of the build (the name says where it is used: decks too
/// large for the host reference, on the device).
template <class ExecSpace>
SigmaSums device_reference_sums(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d);

}  // namespace gpp
