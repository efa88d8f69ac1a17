// The static remainder through KokkosBlas::gemm against the direct triple loop.
#include "gpp_reference.hpp"
#include "gpp_static.hpp"
#include "gpp_test_util.hpp"

namespace gpp::test {
namespace {

TEST(StaticRemainder, GemmMatchesDirectSum) {
  // The third deck crosses the host product's cache blocks: two groups of bands (the last
  // one odd), two panels of columns (the last not a whole block of 4), three tiles of G.
  for (const auto& p : {small_deck(24, 20, 150, 10), small_deck(67, 13, 131, 30), small_deck(69, 67, 2100, 30)}) {
    const auto host = derive(generate_random(p));
    const SpaceData data(host);
    const std::complex<double> ref = reference_achstemp(host);
    for (const SpaceKind k : build_spaces()) {
      const std::complex<double> got =
          with_space(k, [&](auto space) { return static_remainder(space, data.on(space)); });
      // ncouls-long dot products then an nbands*ngpown sum of mixed signs: ~1e-14
      // relative differences from ordering; 1e-12 leaves room, a wrong transpose or a
      // missing conjugate is O(1).
      EXPECT_TRUE(close(got, ref, 1e-12)) << to_string(k);
    }
    EXPECT_GT(std::abs(ref), 0.0);
  }
}

}  // namespace
}  // namespace gpp::test
