#pragma once
// The blocks of the `host` policy (policies/host.cpp), read by the policy and by the work
// count (gpp_counts.cpp), whose per-G-block terms depend on the G block.
namespace gpp::host_shape {

// Bands per block: the best band block of the 16-core sweep (docs/performance.md,
// 2026-11-23: 7.04 s against 7.70 s for 32 x 128 on the mini-app deck).
inline constexpr int kDefaultBandBlock = 64;

// G per block: at most the per-thread buffer of pair invariants, and by default that
// most: each band's fixed cost per G block (its block bounds and modes, the sums across
// lanes, conj(aqsm)) is spread over 128 vectors instead of 32 at 256 G. On the H100
// machine's 16 cores (2026-11-26, fifth session) the whole mini-app deck took 3.58 / 3.51
// s against 4.47 / 4.03 s at 256, si214 2.05 / 2.06 s against 2.13 / 2.27 s.
inline constexpr int kMaxIgBlock = 1024;
inline constexpr int kDefaultIgBlock = kMaxIgBlock;

}  // namespace gpp::host_shape
