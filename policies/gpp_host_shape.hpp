#pragma once
// The blocks of the `host` policy (policies/host.cpp), read by the policy and by the work
// count (gpp_counts.cpp), whose per-G-block terms depend on the G block. The defaults are
// the shipped defaults of the build's host ISA (tuning/host-<isa>.json, compiled in by
// cmake/GppTuningDefaults.cmake: tuning_defaults::kHostFile names it, and its entry says
// whether it was measured, with the command, or reasoned).
#include "gpp_tuning_defaults.hpp"

namespace gpp::host_shape {

// Bands per block.
inline constexpr int kDefaultBandBlock = tuning_defaults::kHostBandBlock;

// G per block: at most the per-thread buffer of pair invariants (each band's fixed cost per
// G block, its block bounds and modes, the sums across lanes, conj(aqsm), is spread over the
// block's vectors).
inline constexpr int kMaxIgBlock = 1024;
inline constexpr int kDefaultIgBlock = tuning_defaults::kHostIgBlock;
static_assert(kDefaultIgBlock >= 1 && kDefaultIgBlock <= kMaxIgBlock, "the default G block exceeds the buffer");

}  // namespace gpp::host_shape
