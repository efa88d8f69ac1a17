#pragma once
// The verification reference of a run, at about the cost of one run: every (band, G', G,
// frequency) term of the spec's physics, written here on its own (it shares no code with
// core/gpp_physics.hpp's forms or with policies/), with compensated sums; the same pass
// counts the arm every term takes (branch statistics, the arms the work counts need) and
// computes the static remainder's reference. On a host space it runs over G' in parallel,
// vectorised over G in structure-of-arrays rows, all frequencies of a (band, G' chunk of G)
// from the same rows; on a device, one thread per (G, G') pair. docs/wall-time.md says
// what it costs and docs/oracle.md how accurate it is.
#include "gpp_counts.hpp"
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

#include <complex>
#include <cstddef>
#include <functional>

namespace gpp::session {

/// What one pass over every term of a deck (this rank's share) finds.
struct ReferencePass {
  SigmaSums sums;                                     // sch_sum, ssx_sum per frequency (start values not applied)
  std::complex<double> achstemp;                      // the static remainder
  measure::counts::ArmCounts arms;                    // every term's arm (occupied?, wx < 0?, arm, cut?)
  ReferencePass& operator+=(const ReferencePass& o);  // another chunk's or rank's share
};

/// Bands per block: the pass runs one block of bands after the other (each block's
/// aqsntemp columns shared by every thread in cache) and reports progress after each.
inline constexpr int kReferenceBandBlock = 32;

/// The pass on `space` (instantiated for every space of the build). `done(updates)` is
/// called after each block of bands with the terms it held (progress).
template <class ExecSpace>
ReferencePass fast_reference(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                             const std::function<void(double)>& done = {});

/// The pass as a device runs it (teams over groups of G' and blocks of bands, threads over
/// G), on any space of the build: `fast_reference` takes it on a device, the tests also on
/// the host.
template <class ExecSpace>
ReferencePass fast_reference_teams(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d,
                                   const std::function<void(double)>& done = {});

/// Threads per team of the device pass for a launch of `nw` frequencies (1 to 4), from at
/// most `team` threads: the most, in whole warps of 32 (down to 32), whose team scratch fits
/// in `scratch_max` bytes (the space's level-0 limit) in both its kernels (occupied and
/// empty bands); 0 where even 32 do not. A CUDA block
/// gets 48 KB less what Kokkos keeps for its team reductions (40 KB on sm_90), and 128
/// threads of four frequencies need about 46 KB.
int reference_team_size(int nw, int team, std::size_t scratch_max);

}  // namespace gpp::session
