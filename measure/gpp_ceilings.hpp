#pragma once
// ERT-like machine ceilings measured with Kokkos on any execution space (gpp ceilings,
// docs/roofline.md): the FP64 FMA peak from independent FMA chains in registers, and
// bandwidth from a read-only working-set sweep.
#include "gpp_spaces.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpp::measure::ceilings {

struct Measured {
  double value = 0;  // GFLOP/s or GB/s (decimal)
  std::string method;
};

/// FP64 FMA peak: every thread runs kChains independent FMA chains in registers (host:
/// vectors of chains, 64 with AVX-512); the best of `trials` launches, each long enough
/// to last at least `min_seconds`.
template <class ExecSpace>
Measured fma_peak(const ExecSpace& space, int trials, double min_seconds);

struct SweepPoint {
  double working_set_bytes = 0, gbs = 0;
};

/// Read-only stream over working sets from `min_bytes` to `max_bytes` (doubling); each
/// point re-reads its set inside one launch until at least `bytes_per_trial` are read,
/// median of `trials` launches. On a GPU, `rotate` = false: every pass of a thread reads
/// the same elements (so a set within the L1s of the multiprocessors is read from L1);
/// `rotate` = true: each pass a thread reads the elements another thread (another block,
/// so mostly another multiprocessor) read in the previous pass, so nothing is found in
/// L1: the set comes from L2 when it fits there, from HBM otherwise. On the host,
/// `rotate` is ignored (each thread streams its own chunk). `on_point` is called after
/// each working set (progress; it may throw to stop the sweep).
template <class ExecSpace>
std::vector<SweepPoint> bandwidth_sweep(const ExecSpace& space, double min_bytes, double max_bytes,
                                        double bytes_per_trial, int trials, std::string& method, bool rotate = false,
                                        const std::function<void(const SweepPoint&)>& on_point = {});

/// One host <-> device copy rate: a direction ("host to device", "device to host"), the
/// host memory ("page-locked", "pageable"), GB/s.
struct LinkPoint {
  std::string direction, memory;
  double gbs = 0, bytes = 0;
};

/// The link between host and device (PCIe, NVLink-C2C) as Kokkos::deep_copy on `space`
/// sees it: `bytes` copied each way, from and to page-locked (backend::PinnedSpace, what
/// the G' chunks stream from) and pageable host memory; the best of `trials` fenced
/// copies after a warm-up. A device space only.
template <class ExecSpace>
std::vector<LinkPoint> host_link(const ExecSpace& space, double bytes, int trials, std::string& method);

inline constexpr int kChains = 16;
inline constexpr int kStreamAccumulators = 8;  // independent accumulators per stream thread

}  // namespace gpp::measure::ceilings
