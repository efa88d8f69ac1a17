#pragma once
// A reference for decks too large for the host reference: the literal physics with
// compensated (Neumaier) sums, merged pairwise with TwoSum, on the build's default
// execution space. Independent of every policy's strategy (no blocking, no fusion).
#include "gpp_static.hpp"

namespace gpp {

SigmaSums device_reference_sums(const ExecSpace& space, const DeviceData& d);

}  // namespace gpp
