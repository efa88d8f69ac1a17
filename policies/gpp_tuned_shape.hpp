#pragma once
// The shape of the `tuned` policy's two kernels (policies/tuned.cpp), read by the kernels
// and by the work count (gpp_counts.cpp), which counts the padding of G' groups.
namespace gpp::tuned_shape {

// G' per thread and 128-thread teams per SM that the register allocation must allow
// (LaunchBounds<128, blocks>: 4 -> at most 128 registers per thread, 6 -> 80), per kernel.
// Measured (H100, docs/performance.md): empty bands 1 / 2 / 3 / 4 G' per thread at 4 / 4 /
// 6 / 6 blocks, mini-app deck 0.167 / 0.135 / 0.121 / 0.118 s (4 G' at 5 blocks 0.119 s);
// occupied bands, with their near-pole arms deferred (physics::occupied_band), si214
// 1 G' at 6 / 5 blocks 0.0654 / 0.0668 s, 2 G' at 4 / 5 / 6 blocks (119 / 96 / 80
// registers, 0 / 0 / 144 B of spills) 0.0611 / 0.0624 / 0.0627 s (2026-11-25; before the
// deferral 1 G' at 4 / 5 / 6 blocks gave 0.0709 / 0.0701 / 0.0678 s and 2 G' at 4 no
// gain). Once the occupied blocks without a wx < 0 left the sexcut test out (2026-11-26,
// seventh session: 146 instructions per band where 209 were), 2 G' at 5 blocks (96
// registers) took 0.0487 / 0.0484 s on si214 and 0.536 s on si510 against 0.0495 / 0.0497
// and 0.545 s at 4. A kernel's G' are padded to whole groups (the last G' again, with weight 0: its
// regular terms are computed, its near-pole arms are not).
inline constexpr int kOccupiedGp = 2, kOccupiedBlocks = 5;
inline constexpr int kEmptyGp = 4, kEmptyBlocks = 6;

// 32 bands per block: the best point of the sweeps on si214 and the mini-app deck
// (H100, 2026-11-23: 0.0770 / 0.1159 s against 0.0778 / 0.1182 s with 64).
inline constexpr int kDefaultBandBlock = 32;

}  // namespace gpp::tuned_shape
