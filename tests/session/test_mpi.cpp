// MPI over G' and chunks (docs/mpi.md): the pieces that need no second rank. The ranks
// themselves are tested through the binary (tests/session/gpp_mpi_check.py).
#include "gpp_placement.hpp"
#include "gpp_session.hpp"
#include "gpp_test_util.hpp"

namespace gpp::test {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Placement.*");

namespace {

TEST(Placement, TwoRanksOnOneGpuAreRefused) {
  using session::shared_device_error;
  EXPECT_EQ(shared_device_error({"n1 0000:18:00", "n1 0000:2a:00"}, false), "");
  EXPECT_EQ(shared_device_error({"n1 0000:18:00", "n2 0000:18:00"}, false), "");  // two nodes
  EXPECT_EQ(shared_device_error({"", "", ""}, false), "");                        // host builds
  const std::string e = shared_device_error({"n1 0000:18:00", "n1 0000:2a:00", "n1 0000:18:00"}, false);
  EXPECT_NE(e.find("ranks 0 and 2 would share one GPU (n1 0000:18:00)"), std::string::npos) << e;
  EXPECT_NE(e.find("--allow-shared-device"), std::string::npos);
  EXPECT_EQ(shared_device_error({"n1 0000:18:00", "n1 0000:18:00"}, true), "");
}

TEST(Chunks, MaxDeviceMemValues) {
  using session::parse_bytes;
  EXPECT_EQ(parse_bytes("12", "--m"), 12);
  EXPECT_EQ(parse_bytes("400K", "--m"), 400 * 1024);
  EXPECT_EQ(parse_bytes("2m", "--m"), 2 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("1G", "--m"), 1LL << 30);
  EXPECT_EQ(parse_bytes("1.5GiB", "--m"), 3LL << 29);
  EXPECT_EQ(parse_bytes("2TB", "--m"), 2LL << 40);
  for (const char* bad : {"", "G", "-1", "0", "0.5", "1X", "1GG", "nan", "inf", "1e30", "12 G"})
    EXPECT_THROW(parse_bytes(bad, "--m"), Error) << bad;
}

// The plan's arithmetic against a hand count: small_deck(24 bands, 20 G', 150 G, nw 2).
TEST(Chunks, PlanCoversEveryColumnOnce) {
  session::Session s = session::make_session(small_deck());
  const double replicated = 16.0 * 150 * 24 + 2 * 8.0 * 2 * 24 + 8.0 * 24;  // aqsntemp, wx x2, occ
  const double column = 2 * 16.0 * 150 + 3 * 16.0 * 24 + 8;                 // wtilde, I_eps, aqsmtemp x2, S, vcoul
  const session::ChunkBytes b = session::chunk_bytes(s.host);
  EXPECT_EQ(b.replicated, replicated);
  EXPECT_EQ(b.per_column, column);
  session::plan_chunks(s, SpaceKind::Host, 0);
  EXPECT_FALSE(s.chunks_host.chunked());  // the host: no chunks unless asked
  session::plan_chunks(s, SpaceKind::Host, (long long)(replicated + 20 * column));
  EXPECT_FALSE(s.chunks_host.chunked());  // everything fits exactly
  // Room for 7 columns: two buffers of 3, the seventh too few to stay resident: 3 x 6 + 2.
  session::plan_chunks(s, SpaceKind::Host, (long long)(replicated + 7.5 * column));
  EXPECT_EQ(s.chunks_host.resident, 0);
  EXPECT_EQ(s.chunks_host.slots, 2);
  ASSERT_EQ(s.chunks_host.streamed.size(), 7u);
  int next = 0;
  for (const auto& [first, last] : s.chunks_host.streamed) {
    EXPECT_EQ(first, next);
    EXPECT_LE(last - first, 3);
    next = last;
  }
  EXPECT_EQ(next, 20);
  // Room for one column: one buffer of one.
  session::plan_chunks(s, SpaceKind::Host, (long long)(replicated + 1.5 * column));
  EXPECT_EQ(s.chunks_host.slots, 1);
  EXPECT_EQ(s.chunks_host.streamed.size(), 20u);
  EXPECT_THROW(session::plan_chunks(s, SpaceKind::Host, (long long)(replicated + 0.5 * column)), Error);
}

// A chunk's host data are the whole data's columns (the G' index of aqsmtemp_local is
// its first, so it is copied; the others are column views).
TEST(Chunks, ColumnsAreTheWholeDecksColumns) {
  const session::Session s = session::make_session(small_deck());
  const auto c = session::gp_columns(s.host, 5, 12);
  ASSERT_EQ(c.ngpown, 7);
  for (int j = 0; j < 7; ++j) {
    EXPECT_EQ(c.vcoul_loc(j), s.host.vcoul_loc(5 + j));
    for (int ig = 0; ig < c.ncouls; ++ig) {
      ASSERT_TRUE(c.wtilde_array(ig, j) == s.host.wtilde_array(ig, 5 + j));
      ASSERT_TRUE(c.I_eps_array(ig, j) == s.host.I_eps_array(ig, 5 + j));
    }
    for (int n1 = 0; n1 < c.nbands; ++n1) {
      ASSERT_TRUE(c.aqsmtemp_local(j, n1) == s.host.aqsmtemp_local(5 + j, n1));
      ASSERT_TRUE(c.aqsmtemp_local_bt(n1, j) == s.host.aqsmtemp_local_bt(n1, 5 + j));
    }
  }
  EXPECT_FALSE(c.wtilde_array(0, 0) == s.host.wtilde_array(0, 0));  // another column
}

}  // namespace
}  // namespace gpp::test
