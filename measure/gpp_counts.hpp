#pragma once
#include "gpp_compat.hpp"
// The work each policy does, counted from its own form of the physics (docs/roofline.md):
// FP64 FLOPs (every real add, subtract and multiply counts 1, so an FMA counts 2: the
// paper's dadd + dmul + 2 dfma), real reciprocals and divides apart, square roots apart,
// and the compulsory bytes. Counts follow the source as written, per evaluation: a
// compiler that hoists an invariant out of the frequency loop does less (the profiled
// columns say what it did). Sign flips, conj(), comparisons, fabs and reduction joins
// are not counted.
#include "gpp_diagnostics.hpp"
#include "gpp_policy.hpp"
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpp::measure::counts {

// Kokkos 3.4's OpenMP joins through volatile references: the forwarding operator of
// gpp_compat.hpp, visible to argument-dependent lookup for this namespace's types.
using gpp::operator+=;

/// Real operations: adds (and subtracts), multiplies, reciprocals and divides, square
/// roots. FLOPs = adds + muls (an FMA is one of each: 2).
struct Ops {
  double adds = 0, muls = 0, reciprocals = 0, sqrts = 0;
  double flops() const { return adds + muls; }
  Ops operator+(const Ops& o) const {
    return {adds + o.adds, muls + o.muls, reciprocals + o.reciprocals, sqrts + o.sqrts};
  }
  Ops operator*(double n) const { return {adds * n, muls * n, reciprocals * n, sqrts * n}; }
  Ops& operator+=(const Ops& o) { return *this = *this + o; }
  bool operator==(const Ops& o) const {
    return adds == o.adds && muls == o.muls && reciprocals == o.reciprocals && sqrts == o.sqrts;
  }
};

/// physics::sigma_term in one of the paper's forms, per term, by arm. `cut_test` is the
/// sexcut comparison, evaluated in every arm.
struct SigmaTermCost {
  Ops common, regular, near_pole, zero, cut_test;
};
SigmaTermCost sigma_term_cost(bool reciprocal, bool squared_cut);

/// The host policy's fused form (policies/host.cpp) by piece.
struct FusedCost {
  Ops pair;                 // pair_terms: once per (G, G', band block, pass of frequencies)
  Ops band;                 // U, V (without conj(aqsm)): per (occupied band, G', G, group of frequencies)
  Ops band_empty;           // U, Im(wtilde) U: per (empty band, G', G, group of frequencies)
  Ops occ_common;           // an occupied term before the arms
  Ops occ_regular;          // sch*mat added
  Ops occ_regular_cut;      // the sexcut test (wx < 0 only)
  Ops occ_regular_ssx;      // Y's term when not cut
  Ops occ_regular_dropped;  // Y's term when cut
  Ops occ_near;             // the near-pole pass (physics::near_pole_term) up to the test
  Ops occ_near_cut;         // its sexcut test (wx < 0 only)
  Ops occ_near_ssx;         // ssx_mat, when not cut
  Ops block_occupied;       // ssx*mat = h (sch - Y) conj(aqsm): per (occupied band, G', G block, frequency)
  Ops block_band;           // sch*mat = sch conj(aqsm): per (band, G', G block, frequency)
  Ops empty_common;         // fused_term<false> before the arms
  Ops empty_regular;        // U conj(wdiff) over |wdiff|^2 added (sch = 0 in the other arms)
  // occ_form=split (host_shape::split_plan): the occupied terms with wx >= 0
  Ops split_pair;        // the split rows: per (G, G', band block with a run, pass)
  Ops split_band;        // mat, mat Im(wtilde^2): per (band of a run, G', G, run)
  Ops split_term;        // every term of a run (occupied, wx >= 0)
  Ops split_near;        // the split arm's test again in the near-pole pass: per near-pole term of a run
  Ops split_fold;        // a run's sums into sch and ssx: per (G, G', run, frequency)
  Ops split_run_block;   // occ times ssx: per (run, G', G block, frequency)
  Ops split_band_block;  // a band's near-pole sums times conj(aqsm): per (band of a run, G', G block, frequency)
};
FusedCost fused_cost();

/// The fused form as `tuned` runs it (core/gpp_physics.hpp: pair_terms with a weight,
/// band_terms, occupied_term, empty_term, near_pole_term), by piece. The regular arm is
/// computed for every term (added under masks); the near-pole arm only where it is due.
/// Split blocks: occupied blocks without a wx < 0 in a pass of at most
/// tuned_shape::kSplitMaxNw frequencies (occupied_band_split in occupied_term's place).
struct TunedCost {
  Ops pair_occupied;   // pair_terms: once per (G, G', occupied band block, pass of frequencies)
  Ops pair_empty;      // the part of pair_terms the empty bands' kernel uses (as often)
  Ops band;            // mat, U, Im(wtilde) U: per (occupied band outside the split blocks, G', G, pass)
  Ops band_empty;      // mat, Im(wtilde) mat: per (empty band, G', G, pass)
  Ops empty_fold;      // an empty block's sums times WIw: per (G, G', empty band block, frequency)
  Ops occ_term;        // occupied_term: every occupied term outside the split blocks
  Ops pair_split;      // pair_split: per (G, G', split block)
  Ops band_split;      // mat, mat Im(wtilde^2): per (band of a split block, G', G)
  Ops occ_split;       // occupied_band_split: every occupied term of a split block
  Ops split_run;       // the pair's WIw: per (G, G', run of a split block)
  Ops split_fold;      // occupied_split_fold: per (G, G', run of a split block, frequency)
  Ops occ_flagged;     // the pass, for a term off the regular arm, up to the zero arm's test
  Ops occ_near;        // near_pole_term from that test to its sexcut test
  Ops occ_near_cut;    // its sexcut test (wx < 0)
  Ops occ_near_ssx;    // taken from Y (not cut)
  Ops empty_term;      // empty_term without its reciprocal: every empty term
  Ops empty_shared;    // two frequencies' reciprocal, shared: per pair of a pass's frequencies
  Ops empty_triple;    // three frequencies' reciprocal, shared: per pass of an odd count >= 3
  Ops empty_single;    // a frequency's own reciprocal: per frequency in neither
  Ops block_occupied;  // ssx = h (sch - Y): per (G', occupied band block, frequency)
};
TunedCost tuned_cost();

/// Terms by (band empty?, wx < 0?, arm of the literal physics, cut?): what a count needs
/// to weight each arm's cost (the fused form skips ssx for empty bands and the sexcut
/// test for wx >= 0).
struct ArmCounts {
  // index: ((occupied * 2 + wx_negative) * 3 + arm) * 2 + cut
  std::int64_t n[24] = {};
  KOKKOS_INLINE_FUNCTION static int index(int occupied, int wx_negative, int arm, int cut) {
    return ((occupied * 2 + wx_negative) * 3 + arm) * 2 + cut;
  }
  KOKKOS_INLINE_FUNCTION ArmCounts& operator+=(const ArmCounts& o) {
    for (int i = 0; i < 24; ++i) n[i] += o.n[i];
    return *this;
  }
  /// Terms matching every given selector (-1: any).
  std::int64_t count(int occupied = -1, int wx_negative = -1, int arm = -1, int cut = -1) const;
  std::int64_t total() const { return count(); }
  /// As gpp_diagnostics' BranchCounts (regular, near-pole, zero, cut).
  BranchCounts branches() const;
};

/// Classify every term on `space` with the literal physics (physics::sigma_term): the test
/// oracle of the fast reference's counts (session/gpp_fast_reference.hpp), which runs use.
template <class ExecSpace>
ArmCounts arm_statistics(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d);

/// The shape of a deck a count needs.
struct Shape {
  double nbands = 0, ngpown = 0, ncouls = 0, nw = 0, occupied_bands = 0;
  std::vector<int> occupation_groups;  // occupied bands per distinct occupation (tuned's blocks)
  // tuned's split blocks: each occupied band's occupation and, per frequency w, whether its
  // wx < 0 (occupied band k's at k * nw + w)
  std::vector<double> occupied_occ;
  std::vector<unsigned char> occupied_negative;
  std::vector<int> occupied_index;  // each occupied band's number (the host policy's band blocks)
  double updates() const { return nbands * ngpown * ncouls * nw; }
};
template <class MemorySpace>
Shape shape_of(const GppData<MemorySpace>& d);

/// One policy's counted work on a deck.
struct Work {
  Ops ops;
  double bytes_compulsory = 0;
  /// FMAs / FP64 instructions if every multiply fused with an add (an upper bound on
  /// the FMA ratio: min(adds, muls) / (adds + muls - min(adds, muls))).
  double fma_ratio_bound() const;
};

/// The count for `policy` (a registered name) with its resolved tunables `t` (tuned and
/// host recompute pair_terms once per band block), its frequencies in the passes the
/// registry runs (gpp_passes.hpp). gpp::Error for an unknown policy.
Work count_policy(const std::string& policy, const Shape& s, const ArmCounts& arms, const Tunables& t);

/// Each input array read once, the results written once (bytes).
double compulsory_bytes(const Shape& s);

/// The paper's FLOPs per update (its Nsight Compute count for v8 on Si-214): nominal.
inline constexpr double kNominalFlopsPerUpdate = 108.4;

}  // namespace gpp::measure::counts
