#pragma once
// The shape of the `tuned` policy's kernels (policies/tuned.cpp), read by the kernels
// and by the work count (gpp_counts.cpp), which counts the padding of G' groups. The values
// are the shipped defaults of the build's GPU architecture (tuning/<arch>.json, compiled in
// by cmake/GppTuningDefaults.cmake: tuning_defaults::kTunedFile names it, and each entry
// says whether it was measured, with the command, or reasoned from the hardware).
#include "gpp_tuning_defaults.hpp"

#include <Kokkos_Macros.hpp>

namespace gpp::tuned_shape {

// G' per thread of the occupied and of the empty kernel. A kernel's G' are padded to whole
// groups (the last G' again, with weight 0: its regular terms are computed, its near-pole
// arms are not).
inline constexpr int kOccupiedGp = tuning_defaults::kTunedOccupiedGp, kEmptyGp = tuning_defaults::kTunedEmptyGp;

// Threads per team the kernels are compiled for (their launch bounds): the most a team
// may have.
inline constexpr int kMaxTeam = 128;
inline constexpr int kDefaultTeamSize = tuning_defaults::kTunedTeamSize;
static_assert(kDefaultTeamSize >= 1 && kDefaultTeamSize <= kMaxTeam, "the default team exceeds the launch bounds");

// kMaxTeam-thread teams per SM that the register allocation must allow (LaunchBounds<128,
// blocks>: 4 -> at most 128 registers per thread, 5 -> 96, 6 -> 80), per kernel and number
// of frequencies of a pass (each frequency's sums hold registers): the file's value for nw,
// its last for more. Host and device functions: the band loops read them (nvcc warns where
// device code calls a host-only constexpr function, without --expt-relaxed-constexpr).
template <int N>
KOKKOS_INLINE_FUNCTION constexpr int per_nw(const int (&blocks)[N], const int nw) {
  return blocks[nw <= N ? nw - 1 : N - 1];
}
KOKKOS_INLINE_FUNCTION constexpr int occupied_blocks(const int nw) {
  return per_nw(tuning_defaults::kTunedOccupiedBlocks, nw);
}
KOKKOS_INLINE_FUNCTION constexpr int empty_blocks(const int nw) {
  return per_nw(tuning_defaults::kTunedEmptyBlocks, nw);
}

// Bands a thread takes per iteration of a band loop (nvcc's unroll pragma; HIP and host
// compilers are not given it), per loop and number of frequencies: the occupied kernel's
// split-form loop (blocks without a wx < 0, at most kSplitMaxNw frequencies), its other
// loops, and the empty kernel's. More bands an iteration are more independent chains a
// thread, which pay where the launch bounds leave the registers to hold them without a
// spill (tuning/<arch>.json says where that was measured).
KOKKOS_INLINE_FUNCTION constexpr int split_unroll(const int nw) {
  return per_nw(tuning_defaults::kTunedSplitUnroll, nw);
}
KOKKOS_INLINE_FUNCTION constexpr int occupied_unroll(const int nw) {
  return per_nw(tuning_defaults::kTunedOccupiedUnroll, nw);
}
KOKKOS_INLINE_FUNCTION constexpr int empty_unroll(const int nw) {
  return per_nw(tuning_defaults::kTunedEmptyUnroll, nw);
}

// Bands per block: the run's default, and on a GPU where a run gives none, the largest of
// the shape's choices whose G ranges fit the L2 (default_band_block).
inline constexpr int kDefaultBandBlock = tuning_defaults::kTunedBandBlock;

// g_ranges=auto on a GPU: the fewest G ranges, at most kMaxAutoRanges, whose aqsntemp
// columns of a band block fit kRangeL2Share of the L2 (policies/tuned.cpp: g_ranges).
inline constexpr double kRangeL2Share = 0.25;
inline constexpr int kMaxAutoRanges = 4;

/// Whether `count` ranges of `ncouls` G hold the aqsntemp columns of a block of `block`
/// bands (complex doubles, 16 bytes each) within kRangeL2Share of an L2 of `l2_bytes`.
inline bool ranges_fit(const int ncouls, const int block, const int count, const double l2_bytes) {
  return double((ncouls + count - 1) / count) * double(block) * 16.0 <= kRangeL2Share * l2_bytes;
}

/// The band block tuned takes on a GPU where a run gives none: the largest of the shape's
/// choices (tuning/<arch>.json, shape.band_block_choices, in increasing order) whose
/// aqsntemp columns fit the L2 in at most kMaxAutoRanges G ranges, else the first (the
/// file's band_block). A larger block spreads each team's fixed work (its pairs' terms,
/// the staging, the reduction) over more bands, and pays where its columns stay in the L2
/// (on the H200 si510 and si214 at 128 bands, the mini-app deck's 32,768 G at 96:
/// docs/lab/gpu-tuned.md).
inline int default_band_block(const int ncouls, const double l2_bytes) {
  int chosen = tuning_defaults::kTunedBandBlockChoices[0];
  for (const int c : tuning_defaults::kTunedBandBlockChoices)
    if (ranges_fit(ncouls, c, kMaxAutoRanges, l2_bytes)) chosen = c;
  return chosen;
}

// The occupied kernel's runs: at most 32 bands, their near-pole arms one bit each.
inline constexpr int kOccupiedRun = 32;

// The most frequencies a pass may have for the occupied kernel to take the split form
// (physics::occupied_band_split) in its blocks without a wx < 0: with three or more its
// sums spill (128 registers), and the mini-app deck ran slower with it
// (docs/lab/gpu-tuned.md).
inline constexpr int kSplitMaxNw = 2;

}  // namespace gpp::tuned_shape
