#pragma once
// MDRangePolicy construction with user tile sizes checked before Kokkos sees them
// (Kokkos aborts on a tile it cannot launch; we report it as an error instead).
#include "gpp_compat.hpp"
#include "gpp_policy.hpp"

#include <array>
#include <string>

namespace gpp {

/// Index 0 is G (stride-1 in every LayoutLeft array): Kokkos maps dimension 0 to
/// threadIdx.x on GPUs (coalesced loads) and, with Iterate::Left, to the innermost loop
/// on CPUs (contiguous loads).
template <int Rank>
using MDPolicy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<Rank, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                       Kokkos::IndexType<int>>;

/// Default tile: 128 consecutive G per tile, like OpenACC's default vector length of
/// 128 over the innermost collapsed loop, 1 along the other dimensions.
inline constexpr int kDefaultGTile = 128;

/// Throws gpp::Error unless `tile` has `rank` positive sizes whose product the backend
/// can launch.
inline void make_mdrange_check(int rank, const std::vector<int>& tile) {
  if (int(tile.size()) != rank)
    throw Error("--tile needs " + std::to_string(rank) + " sizes for this policy (got " + std::to_string(tile.size()) + ")");
  long product = 1;
  for (const int s : tile) {
    if (s <= 0) throw Error("--tile sizes must be positive (got " + std::to_string(s) + ")");
    product *= s;
  }
  const int max_threads = compat::max_tile_threads(ExecSpace());
  if (product > max_threads)
    throw Error("--tile product " + std::to_string(product) + " exceeds the backend's maximum of " +
                std::to_string(max_threads) + " threads per tile");
}

template <int Rank>
MDPolicy<Rank> make_mdrange(const ExecSpace& space, const std::array<int, Rank>& upper, const std::vector<int>& tile) {
  using P = MDPolicy<Rank>;
  typename P::point_type lo{}, hi{};
  for (int r = 0; r < Rank; ++r) {
    lo[r] = 0;
    hi[r] = upper[r];
  }
  typename P::tile_type t{};
  if (tile.empty()) {
    for (int r = 0; r < Rank; ++r) t[r] = 1;
    t[0] = kDefaultGTile;
  } else {
    make_mdrange_check(Rank, tile);
    for (int r = 0; r < Rank; ++r) t[r] = tile[r];
  }
  return P(space, lo, hi, t);
}

}  // namespace gpp
