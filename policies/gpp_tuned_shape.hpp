#pragma once
// The shape of the `tuned` policy's two kernels (policies/tuned.cpp), read by the kernels
// and by the work count (gpp_counts.cpp), which counts the padding of G' groups.
namespace gpp::tuned_shape {

// G' per thread and 128-thread teams per SM that the register allocation must allow
// (LaunchBounds<128, blocks>: 4 -> at most 128 registers per thread, 5 -> 96, 6 -> 80),
// per kernel and number of frequencies of a pass (each frequency's sums hold registers).
// The trade-off: more G' per thread share each load of aqsntemp and give a thread more
// independent chains, but hold more registers, so fewer teams fit on an SM. The counts
// below were the fastest on the H100 (docs/lab/gpu-tuned.md); where no deck was timed
// (occupied bands with 3 or more frequencies, empty bands with 4 or more), the count is
// the largest whose band loop ptxas compiles without loads from spilled registers
// (tools/sass-offline.sh, sm_90).
// A kernel's G' are padded to whole groups (the last G' again, with weight 0: its regular
// terms are computed, its near-pole arms are not).
inline constexpr int kOccupiedGp = 2, kEmptyGp = 3;
constexpr int occupied_blocks(const int nw) { return nw <= 2 ? 5 : 4; }
constexpr int empty_blocks(const int nw) { return nw <= 2 ? 6 : nw == 3 ? 5 : 4; }

// Bands per block: a block's pair terms and its staging into team scratch are paid once
// per block, so larger blocks spread them over more bands; its staged values take team
// scratch memory, and its bands with a wx < 0 make it take the sexcut test. 96 was the
// best of 32 to 192 on si214, si510 and the mini-app deck on the H100 once the kernels
// held fewer registers and the band order packed the sexcut test's bands
// (docs/lab/gpu-tuned.md).
inline constexpr int kDefaultBandBlock = 96;

}  // namespace gpp::tuned_shape
