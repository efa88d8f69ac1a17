#pragma once
// The blocks of the `host` policy (policies/host.cpp), read by the policy and by the work
// count (gpp_counts.cpp), whose per-G-block terms depend on the G block. The defaults are
// the shipped defaults of the build's host ISA (tuning/host-<isa>.json, compiled in by
// cmake/GppTuningDefaults.cmake: tuning_defaults::kHostFile names it, and its entry says
// whether it was measured, with the command, or reasoned).
#include "gpp_tuning_defaults.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace gpp::host_shape {

// Bands per block.
inline constexpr int kDefaultBandBlock = tuning_defaults::kHostBandBlock;

// G per block: at most the per-thread buffer of pair invariants (each band's fixed cost per
// G block, its block bounds and modes, the sums across lanes, conj(aqsm), is spread over the
// block's vectors).
inline constexpr int kMaxIgBlock = 1024;
inline constexpr int kDefaultIgBlock = tuning_defaults::kHostIgBlock;
static_assert(kDefaultIgBlock >= 1 && kDefaultIgBlock <= kMaxIgBlock, "the default G block exceeds the buffer");

// The split form of occupied bands (the param occ_form=split): a pass's frequencies in
// pairs (the last alone where the count is odd); a term whose wx >= 0 is summed in the
// split form, with the other terms of its band and pair that are, over a run of bands of
// one occupation, G outermost; a term whose wx < 0 in the whole form, per band. So the
// split terms are exactly the occupied terms with wx >= 0, which the work count takes from
// the arm statistics.
inline constexpr int kMaxRun = 32;  // bands per run: the per-thread lists of terms off the regular arm

struct SplitRun {
  int w0, nw;       // its frequencies of the pass, w0 .. w0 + nw - 1 (nw 1 or 2)
  double occ;       // its bands' occupation
  int first, size;  // its bands: SplitPlan::bands[first .. first + size - 1], in band order
};
struct WholeGroup {
  int band, w0, nw;  // one occupied band's frequencies w0 .. w0 + nw - 1 in the whole form
};
struct SplitPlan {
  std::vector<SplitRun> runs;
  std::vector<int> bands;
  std::vector<WholeGroup> whole;
};

// The plan of the occupied bands of the band block nb0 .. nb1-1 for a pass of nw
// frequencies: occ(n) the occupation of band n (0: empty, not planned), negative(n, w)
// whether its wx of the pass's frequency w is < 0.
template <class Occ, class Negative>
SplitPlan split_plan(const int nb0, const int nb1, const int nw, const Occ& occ, const Negative& negative) {
  SplitPlan plan;
  std::map<std::tuple<int, int, double>, std::vector<int>> keyed;  // (w0, nw, occ): bands
  for (int w0 = 0; w0 < nw; w0 += 2) {
    const int pair = nw - w0 < 2 ? 1 : 2;
    for (int n = nb0; n < nb1; ++n) {
      const double o = occ(n);
      if (o == 0.0) continue;
      const bool n0 = negative(n, w0), n1 = pair == 2 && negative(n, w0 + 1);
      if (!n0 && !n1) {
        keyed[{w0, pair, o}].push_back(n);
      } else if (n0 && (n1 || pair == 1)) {
        plan.whole.push_back({n, w0, pair});
      } else {  // one of the pair's wx < 0
        const int split = n0 ? w0 + 1 : w0;
        keyed[{split, 1, o}].push_back(n);
        plan.whole.push_back({n, n0 ? w0 : w0 + 1, 1});
      }
    }
  }
  for (const auto& [key, bands] : keyed)
    for (std::size_t i = 0; i < bands.size(); i += kMaxRun) {
      const int size = int(bands.size() - i < std::size_t(kMaxRun) ? bands.size() - i : kMaxRun);
      plan.runs.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), int(plan.bands.size()), size});
      plan.bands.insert(plan.bands.end(), bands.begin() + i, bands.begin() + i + size);
    }
  return plan;
}

}  // namespace gpp::host_shape
