#pragma once
// The shape of the `tuned` policy's two kernels (policies/tuned.cpp), read by the kernels
// and by the work count (gpp_counts.cpp), which counts the padding of G' groups.
namespace gpp::tuned_shape {

// G' per thread and 128-thread teams per SM that the register allocation must allow
// (LaunchBounds<128, blocks>: 4 -> at most 128 registers per thread, 5 -> 96, 6 -> 80),
// per kernel and number of frequencies of a pass (each frequency's sums hold registers).
// Measured (H100, docs/performance.md):
//  - 2026-11-25: empty bands 1 / 2 / 3 / 4 G' per thread at 4 / 4 / 6 / 6 blocks,
//    mini-app deck 0.167 / 0.135 / 0.121 / 0.118 s (4 G' at 5 blocks 0.119 s); occupied
//    bands, near-pole arms deferred, si214 1 G' at 6 / 5 blocks 0.0654 / 0.0668 s, 2 G' at
//    4 / 5 / 6 blocks (119 / 96 / 80 registers, 0 / 0 / 144 B of spills) 0.0611 / 0.0624 /
//    0.0627 s.
//  - 2026-11-26 (seventh session), once the occupied blocks without a wx < 0 left the
//    sexcut test out (146 instructions per band where 209 were): 2 G' at 5 blocks 0.0487 /
//    0.0484 s on si214 and 0.536 s on si510, against 0.0495 / 0.0497 and 0.545 s at 4.
//  - The same session, once the empty kernel kept one sum per G' without WIw
//    (physics::empty_band_unweighted): 3 G' at 6 / 5 blocks and 4 G' at 4 blocks, si214
//    0.0466 / 0.0471 / 0.0473 s, mini-app deck (3 frequencies) 0.0880 / 0.0846 / 0.0854 s.
//  - Where no deck was timed (occupied bands with 3 or more frequencies, empty bands with 4
//    or more), the count is the largest whose band loop ptxas compiles without loads from
//    spilled registers (tools/sass-offline.sh, sm_90).
// A kernel's G' are padded to whole groups (the last G' again, with weight 0: its regular
// terms are computed, its near-pole arms are not).
inline constexpr int kOccupiedGp = 2, kEmptyGp = 3;
constexpr int occupied_blocks(const int nw) { return nw <= 2 ? 5 : 4; }
constexpr int empty_blocks(const int nw) { return nw <= 2 ? 6 : nw == 3 ? 5 : 4; }

// 96 bands per block: the best of 32, 48, 64, 96, 128 and 192 on si214, si510 and the
// mini-app deck (H100, 2026-11-26, seventh session, d781f4c: 0.0466 / 0.500 / 0.0810 s
// against 0.0474 / 0.524 / 0.0845 s with 32, the default before; 64: 0.0467 / 0.507 /
// 0.0842 s; 128: 0.0470 / 0.503 / 0.0854 s). On 2026-11-23, before the kernels held
// fewer registers and the band order packed the sexcut test's bands, 32 was the best (0.0770
// / 0.1159 s on si214 and the mini-app deck against 0.0778 / 0.1182 s with 64).
inline constexpr int kDefaultBandBlock = 96;

}  // namespace gpp::tuned_shape
