#pragma once
// The blocks of the `host` policy (policies/host.cpp), read by the policy and by the work
// count (gpp_counts.cpp), whose per-G-block terms depend on the G block.
namespace gpp::host_shape {

// Bands per block: all threads stream the same band block of aqsntemp from the shared L3
// while every G' reads it, and a G block's pair rows are made once per band block; larger
// blocks spread the rows over more bands but need more of L3. 64 was the best of the
// 16-core sweep (docs/lab/cpu-host.md).
inline constexpr int kDefaultBandBlock = 64;

// G per block: at most the per-thread buffer of pair invariants, and by default that
// most: each band's fixed cost per G block (its block bounds and modes, the sums across
// lanes, conj(aqsm)) is spread over 128 vectors instead of 32 at 256 G (measured:
// docs/lab/cpu-host.md).
inline constexpr int kMaxIgBlock = 1024;
inline constexpr int kDefaultIgBlock = kMaxIgBlock;

}  // namespace gpp::host_shape
