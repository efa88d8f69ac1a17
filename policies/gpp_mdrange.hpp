#pragma once
// MDRangePolicy construction with user tile sizes checked before Kokkos sees them
// (Kokkos aborts on a tile it cannot launch; we report it as an error instead).
#include "gpp_backend.hpp"
#include "gpp_compat.hpp"
#include "gpp_policy.hpp"

#include <array>
#include <string>

namespace gpp {

/// Index 0 is G (stride-1 in every LayoutLeft array): Kokkos maps dimension 0 to
/// threadIdx.x on GPUs (coalesced loads) and, with Iterate::Left, to the innermost loop
/// on CPUs (contiguous loads).
template <class ExecSpace, int Rank>
using MDPolicy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<Rank, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                       Kokkos::IndexType<int>>;

/// Default tile: 128 consecutive G per tile, like OpenACC's default vector length of
/// 128 over the innermost collapsed loop, 1 along the other dimensions.
inline constexpr int kDefaultGTile = 128;

/// The tile a request resolves to: `tile` if given, else the default.
inline std::vector<int> resolve_tile(int rank, const std::vector<int>& tile) {
  if (!tile.empty()) return tile;
  std::vector<int> t(rank, 1);
  t[0] = kDefaultGTile;
  return t;
}

/// Throws gpp::Error unless `tile` has `rank` positive sizes whose product `space` can
/// launch (space-independent checks only when max_threads is 0); `who` names the policy.
inline void check_tile(int rank, const std::vector<int>& tile, long max_threads = 0,
                       const std::string& who = "this policy") {
  if (int(tile.size()) != rank)
    throw Error("--tile needs " + std::to_string(rank) + " sizes for " + who + " (got " + std::to_string(tile.size()) +
                ")");
  long product = 1;
  for (const int s : tile) {
    if (s <= 0) throw Error("--tile sizes must be positive (got " + std::to_string(s) + ")");
    product = product * s > (1L << 40) ? (1L << 40) : product * s;  // saturates: no overflow
  }
  if (max_threads > 0 && product > max_threads)
    throw Error("--tile product " + std::to_string(product) + " exceeds the backend's maximum of " +
                std::to_string(max_threads) + " threads per tile");
}

/// The policy over [0, upper) with the tile in t.tile (resolved into it).
template <int Rank, class ExecSpace>
MDPolicy<ExecSpace, Rank> make_mdrange(const ExecSpace& space, const std::array<int, Rank>& upper, Tunables& t) {
  using P = MDPolicy<ExecSpace, Rank>;
  t.tile = resolve_tile(Rank, t.tile);
  check_tile(Rank, t.tile, backend::max_tile_threads(space));
  typename P::point_type lo{}, hi{};
  typename P::tile_type tile{};
  for (int r = 0; r < Rank; ++r) {
    lo[r] = 0;
    hi[r] = upper[r];
    tile[r] = t.tile[r];
  }
  return P(space, lo, hi, tile);
}

}  // namespace gpp
