#pragma once
// Any number of frequencies for a policy whose sums have a compile-time count: a runner
// that reduces every frequency of a call in one pass (SigmaAccum<NW>, NW <= GPP_MAX_NW)
// is called once per pass, each time on the deck's data seen through the pass's
// frequencies only, and the passes' sums are concatenated (PolicyEntry::run). The big
// arrays are shared by every pass; only wx is the pass's own.
#include "gpp_types.hpp"

#include <utility>
#include <vector>

namespace gpp {

/// Frequencies first .. first+count-1 of a deck (0-based: w, iw = nstart + w).
struct FrequencyPass {
  int first = 0, count = 0;
};

/// nw frequencies in the fewest passes of at most max_nw (max_nw <= 0: no limit), of
/// sizes within one of each other, the larger first: 9 in passes of at most 4 are 3, 3, 3
/// (not 4, 4, 1: a pass's per-pass work is then shared by as many frequencies as the
/// passes can share it), 10 are 4, 3, 3. The first pass is the largest.
inline std::vector<FrequencyPass> frequency_passes(const int nw, const int max_nw) {
  if (max_nw <= 0 || nw <= max_nw) return {FrequencyPass{0, nw}};
  const int passes = (nw + max_nw - 1) / max_nw;
  std::vector<FrequencyPass> r;
  for (int p = 0, first = 0; p < passes; ++p) {
    const int count = nw / passes + (p < nw % passes ? 1 : 0);
    r.push_back({first, count});
    first += count;
  }
  return r;
}

/// The data of one pass on `space`: nw, nstart and nend of the pass; wx_array_t (nw,
/// nbands) a copy of the pass's rows (a row range of a LayoutLeft matrix is strided) and
/// wx_array_bt (nbands, nw) the pass's columns (contiguous: a view, no copy); every other
/// array is the deck's own. The whole deck is returned as it is.
template <class ExecSpace, class MemorySpace>
GppData<MemorySpace> frequency_pass(const ExecSpace& space, const GppData<MemorySpace>& d, const FrequencyPass p) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "a pass's data are made on the space that reads them");
  if (p.first == 0 && p.count == d.nw) return d;
  using RealMatrix = typename ViewTypes<MemorySpace>::RealMatrix;
  GppData<MemorySpace> r = d;
  r.nw = p.count;
  r.nstart = d.nstart + p.first;
  r.nend = r.nstart + p.count - 1;
  const auto rows = std::make_pair(p.first, p.first + p.count);
  r.wx_array_t = RealMatrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::pass::wx_array_t"), p.count,
                            d.wx_array_t.extent(1));
  Kokkos::deep_copy(space, r.wx_array_t, Kokkos::subview(d.wx_array_t, rows, Kokkos::ALL));
  r.wx_array_bt = Kokkos::subview(d.wx_array_bt, Kokkos::ALL, rows);
  return r;
}

/// Appends the sums of a later pass to those of the passes before it.
inline void append_pass(SigmaSums& all, const SigmaSums& pass) {
  all.sch_sum.insert(all.sch_sum.end(), pass.sch_sum.begin(), pass.sch_sum.end());
  all.ssx_sum.insert(all.ssx_sum.end(), pass.ssx_sum.begin(), pass.ssx_sum.end());
}

}  // namespace gpp
