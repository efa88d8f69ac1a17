// The device reference (session/) against the host reference (core/).
#include "gpp_device_reference.hpp"
#include "gpp_reference.hpp"
#include "gpp_test_util.hpp"

namespace gpp::test {
namespace {

// The device reference (compensated, literal physics, any backend) against the host
// reference: both compensate their sums, so only per-term rounding in different
// operation orders separates them (~1e-16 per term): 1e-13 is generous, while any
// indexing or branch slip is O(1e-3) or more.
TEST(DeviceReference, MatchesHostReference) {
  DeckParams p = small_deck(33, 17, 211, 15);
  p.nstart = 1;
  p.nend = 5;  // beyond GPP_MAX_NW: the device reference loops over frequencies
  const InputDeck in = generate(p);
  const auto host = derive(in);
  const SpaceData data(host);
  const SigmaSums b = reference_sums(host);
  for (const SpaceKind k : build_spaces()) {
    const SigmaSums a = with_space(k, [&](auto space) { return device_reference_sums(space, data.on(space)); });
    ASSERT_EQ(a.sch_sum.size(), 5u);
    for (int w = 0; w < 5; ++w) {
      EXPECT_TRUE(close(a.sch_sum[w], b.sch_sum[w], 1e-13)) << w << " " << to_string(k);
      EXPECT_TRUE(close(a.ssx_sum[w], b.ssx_sum[w], 1e-13)) << w << " " << to_string(k);
    }
  }
}

}  // namespace
}  // namespace gpp::test
