// G' chunks (session/gpp_chunks.hpp): the plan, the order of a pass's packs, copies and
// kernels, and the stream on the host space (the same code a GPU runs, with host buffers).
#include "gpp_policy.hpp"
#include "gpp_session.hpp"
#include "gpp_test_util.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace gpp::test {

GPP_HOST_ONLY("ChunkSchedule.*");
GPP_HOST_ONLY("ChunkPlan.*");

namespace {

using session::ChunkStep;

// Replays a schedule against the rules of chunk_schedule's contract; "" when it keeps
// them all, else the first broken rule. An independent model: it tracks each buffer's
// state, not the generator's loop.
std::string check_schedule(const std::vector<ChunkStep>& steps, int m, int slots, bool kernels, bool resident) {
  const int staging_slots = kernels && slots == 1 ? 1 : 2;
  std::vector<int> packed(m, 0), pack_waited(m, 0), copied(m, 0), copy_waited(m, 0), ran(m, 0);
  int resident_ran = 0, pack_in_flight = -1;
  std::set<int> copies_in_flight;
  std::ostringstream why;
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [op, i] = steps[n];
    why.str("");
    why << "step " << n << " (op " << op << ", chunk " << i << "): ";
    if (op == ChunkStep::Kernel && i == -1) {
      if (!resident || resident_ran++) return why.str() + "resident kernel not asked for, or twice";
      continue;
    }
    if (i < 0 || i >= m) return why.str() + "chunk out of range";
    switch (op) {
      case ChunkStep::Pack:
        if (packed[i]++) return why.str() + "packed twice";
        if (pack_in_flight >= 0) return why.str() + "a second pack while one is in flight";
        for (int j = i % staging_slots; j < i; j += staging_slots)
          if (!copy_waited[j]) return why.str() + "staging buffer still being copied from";
        pack_in_flight = i;
        break;
      case ChunkStep::WaitPack:
        if (pack_in_flight != i || pack_waited[i]++) return why.str() + "waits for a pack not in flight";
        pack_in_flight = -1;
        break;
      case ChunkStep::Copy:
        if (!pack_waited[i] || copied[i]++) return why.str() + "copied before its pack ended, or twice";
        if (kernels)
          for (int j = i % slots; j < i; j += slots)
            if (!ran[j]) return why.str() + "device buffer still read by a kernel";
        copies_in_flight.insert(i);
        break;
      case ChunkStep::WaitCopy:
        if (copies_in_flight != std::set<int>{i} || copy_waited[i]++)
          return why.str() + "the fence does not wait for exactly this copy";
        copies_in_flight.clear();
        break;
      case ChunkStep::Kernel:
        if (!kernels || !copy_waited[i] || ran[i]++)
          return why.str() + "kernel before its copy, twice or not asked for";
        break;
    }
  }
  for (int i = 0; i < m; ++i)
    if (!copy_waited[i] || (kernels && !ran[i])) return "chunk " + std::to_string(i) + " never completed";
  if (resident && !resident_ran) return "the resident kernel never ran";
  return "";
}

// The position of a step, or -1.
int at(const std::vector<ChunkStep>& steps, ChunkStep::Op op, int chunk) {
  for (std::size_t n = 0; n < steps.size(); ++n)
    if (steps[n].op == op && steps[n].chunk == chunk) return int(n);
  return -1;
}

TEST(ChunkSchedule, KeepsEveryRule) {
  for (int m = 0; m <= 9; ++m)
    for (int slots : {1, 2})
      for (bool kernels : {true, false})
        for (bool resident : {false, true}) {
          if (!kernels && (slots == 1 || resident)) continue;  // uploads: two staging buffers, no kernels
          const auto steps = session::chunk_schedule(m, slots, kernels, resident);
          EXPECT_EQ(check_schedule(steps, m, slots, kernels, resident), "")
              << "m " << m << " slots " << slots << " kernels " << kernels << " resident " << resident;
        }
}

TEST(ChunkSchedule, CheckerCatchesBrokenOrders) {
  const auto good = session::chunk_schedule(4, 2, true, true);
  ASSERT_EQ(check_schedule(good, 4, 2, true, true), "");
  // Chunk 2's pack moved before chunk 0's copy was waited for: it would overwrite the
  // staging buffer being copied.
  auto early = good;
  const int p2 = at(early, ChunkStep::Pack, 2), w0 = at(early, ChunkStep::WaitCopy, 0);
  ASSERT_GT(p2, w0);
  std::rotate(early.begin() + w0, early.begin() + p2, early.begin() + p2 + 1);
  EXPECT_NE(check_schedule(early, 4, 2, true, true), "");
  // A kernel before its copy was waited for.
  auto racy = good;
  const int k1 = at(racy, ChunkStep::Kernel, 1), wc1 = at(racy, ChunkStep::WaitCopy, 1);
  std::swap(racy[std::size_t(k1)], racy[std::size_t(wc1)]);
  EXPECT_NE(check_schedule(racy, 4, 2, true, true), "");
  // One slot used as if there were two.
  EXPECT_NE(check_schedule(good, 4, 1, true, true), "");
  // A chunk left out.
  auto short_of_one = session::chunk_schedule(3, 2, true, false);
  EXPECT_NE(check_schedule(short_of_one, 4, 2, true, false), "");
}

TEST(ChunkSchedule, CopiesAndPacksOverlapKernels) {
  for (int m = 1; m <= 7; ++m) {
    const auto s = session::chunk_schedule(m, 2, true, true);
    for (int k = 0; k < m; ++k) {
      const int kernel = at(s, ChunkStep::Kernel, k);
      if (k + 1 < m) {
        EXPECT_LT(at(s, ChunkStep::Copy, k + 1), kernel) << "chunk " << k + 1 << "'s copy beside kernel " << k;
      }
      if (k + 2 < m) {
        EXPECT_LT(at(s, ChunkStep::Pack, k + 2), kernel) << "chunk " << k + 2 << "'s pack beside kernel " << k;
      }
    }
    // The resident part runs while chunk 0 is copied (and chunk 1 packed).
    const int resident = at(s, ChunkStep::Kernel, -1);
    EXPECT_GT(resident, at(s, ChunkStep::Copy, 0));
    EXPECT_LT(resident, at(s, ChunkStep::WaitCopy, 0));
    if (m > 1) {
      EXPECT_GT(resident, at(s, ChunkStep::Pack, 1));
    }
  }
  // Uploads: each piece packed while the previous one is copied.
  const auto u = session::chunk_schedule(5, 2, false, false);
  for (int k = 0; k + 1 < 5; ++k) EXPECT_LT(at(u, ChunkStep::Pack, k + 1), at(u, ChunkStep::WaitCopy, k));
}

TEST(ChunkPlan, CoversEveryColumnOnceWithinTheBudget) {
  session::ChunkBytes b;
  b.replicated = 1e6;
  for (const double per_column : {1e3, 1e6, 64e6, 300e6, 2e9}) {
    b.per_column = per_column;
    for (int ngpown : {1, 2, 3, 7, 20, 1000, 54000})
      for (long long columns : {1LL, 2LL, 3LL, 5LL, 8LL, 100LL, 999LL, 40000LL, 60000LL}) {
        const session::ChunkPlan p = session::plan_columns(ngpown, columns, b);
        SCOPED_TRACE(::testing::Message()
                     << "per column " << per_column << ", ngpown " << ngpown << ", columns " << columns);
        ASSERT_EQ(p.ngpown, ngpown);
        if (columns >= ngpown) {
          EXPECT_EQ(p.resident, ngpown);
          EXPECT_FALSE(p.chunked());
          EXPECT_EQ(p.launches(), 1);
          continue;
        }
        ASSERT_TRUE(p.chunked());
        EXPECT_EQ(p.slots, columns >= 2 ? 2 : 1);
        EXPECT_GE(p.width, 1);
        // What the space holds at once: the resident columns and the buffers.
        EXPECT_LE((long long)p.resident + (long long)p.slots * p.width, columns);
        if (p.width > 1) {
          EXPECT_LE(p.width * per_column, session::kMaxChunkBytes);
        }
        EXPECT_TRUE(p.resident == 0 || p.resident >= p.width);
        int next = p.resident;
        for (const auto& [first, last] : p.streamed) {
          EXPECT_EQ(first, next);
          EXPECT_GT(last, first);
          EXPECT_LE(last - first, p.width);
          next = last;
        }
        EXPECT_EQ(next, ngpown);
        EXPECT_EQ(p.launches(), (p.resident > 0) + int(p.streamed.size()));
      }
  }
  // A large deck on a device: the budget beyond two 512 MiB buffers stays resident.
  b.per_column = 2 * 16.0 * 55000 + 3 * 16.0 * 96 + 8;
  const session::ChunkPlan big = session::plan_columns(54000, 40000, b);
  EXPECT_EQ(big.width, int(session::kMaxChunkBytes / b.per_column));
  EXPECT_EQ(big.resident, 40000 - 2 * big.width);
}

// Every array of the data f sees equals the host's, column for column: `first` is the
// share's column of the data's column 0.
::testing::AssertionResult same_columns(const GppData<Kokkos::HostSpace>& d, const GppData<Kokkos::HostSpace>& h,
                                        int first) {
  auto bad = [&](const char* what, int i, int j) {
    return ::testing::AssertionFailure() << what << "(" << i << "," << j << ") differs (chunk from " << first << ")";
  };
  if (d.ncouls != h.ncouls || d.nbands != h.nbands || d.nw != h.nw) return ::testing::AssertionFailure() << "sizes";
  if (int(d.I_eps_array.extent(1)) != d.ngpown || int(d.aqsmtemp_local.extent(0)) != d.ngpown ||
      int(d.vcoul_loc.extent(0)) != d.ngpown || int(d.aqsmtemp_local_bt.extent(1)) != d.ngpown)
    return ::testing::AssertionFailure() << "extents do not match ngpown " << d.ngpown;
  for (int j = 0; j < d.ngpown; ++j) {
    if (d.vcoul_loc(j) != h.vcoul_loc(first + j)) return bad("vcoul_loc", j, 0);
    for (int ig = 0; ig < d.ncouls; ++ig) {
      if (!(d.I_eps_array(ig, j) == h.I_eps_array(ig, first + j))) return bad("I_eps_array", ig, j);
      if (!(d.wtilde_array(ig, j) == h.wtilde_array(ig, first + j))) return bad("wtilde_array", ig, j);
    }
    for (int n = 0; n < d.nbands; ++n) {
      if (!(d.aqsmtemp_local(j, n) == h.aqsmtemp_local(first + j, n))) return bad("aqsmtemp_local", j, n);
      if (!(d.aqsmtemp_local_bt(n, j) == h.aqsmtemp_local_bt(n, first + j))) return bad("aqsmtemp_local_bt", n, j);
    }
  }
  for (int n = 0; n < d.nbands; ++n) {
    if (d.occ_array(n) != h.occ_array(n)) return bad("occ_array", n, 0);
    for (int ig = 0; ig < d.ncouls; ++ig)
      if (!(d.aqsntemp(ig, n) == h.aqsntemp(ig, n))) return bad("aqsntemp", ig, n);
    for (int w = 0; w < d.nw; ++w)
      if (d.wx_array_t(w, n) != h.wx_array_t(w, n) || d.wx_array_bt(n, w) != h.wx_array_bt(n, w))
        return bad("wx_array", w, n);
  }
  return ::testing::AssertionSuccess();
}

// Hand-made plans of small_deck's 20 columns: resident and streamed, one slot or two, a
// narrower last chunk, and a plan_chunks plan.
std::vector<session::ChunkPlan> test_plans() {
  auto plan = [](int resident, int width, int slots) {
    session::ChunkPlan p;
    p.ngpown = 20;
    p.resident = resident;
    p.width = width;
    p.slots = slots;
    for (int first = resident; first < 20; first += width) p.streamed.emplace_back(first, std::min(20, first + width));
    return p;
  };
  return {plan(5, 4, 2), plan(0, 3, 2), plan(0, 1, 1), plan(7, 7, 1), plan(0, 19, 2), plan(12, 1, 2)};
}

TEST(Chunks, StreamHandsOutTheWholeDecksColumns) {
  session::Session s = session::make_session(small_deck());
  for (const session::ChunkPlan& plan : test_plans()) {
    SCOPED_TRACE(::testing::Message() << "resident " << plan.resident << ", width " << plan.width << ", slots "
                                      << plan.slots);
    s.chunks_host = plan;
    s.stream_host.reset();
    for (int pass = 0; pass < 2; ++pass) {  // the second pass reuses the buffers
      std::vector<int> widths;
      int next = 0;
      s.for_each_chunk(HostExec(), [&](const GppData<Kokkos::HostSpace>& d) {
        EXPECT_TRUE(same_columns(d, s.host, next));
        widths.push_back(d.ngpown);
        next += d.ngpown;
      });
      EXPECT_EQ(next, 20);
      EXPECT_EQ(int(widths.size()), plan.launches());
    }
    // Resolving a policy reads the first piece only.
    int calls = 0;
    s.for_each_chunk(
        HostExec(),
        [&](const GppData<Kokkos::HostSpace>& d) {
          ++calls;
          EXPECT_TRUE(same_columns(d, s.host, 0));
          EXPECT_EQ(d.ngpown, plan.resident > 0 ? plan.resident : plan.streamed.front().second);
        },
        true);
    EXPECT_EQ(calls, 1);
    // What the passes copied: each streamed column's arrays, on each of the 3 passes.
    const session::StreamStats st = s.stream_stats(SpaceKind::Host);
    const double column = 2 * 16.0 * s.host.ncouls + 2 * 16.0 * s.host.nbands + 8;
    const int streamed = 20 - plan.resident;
    const int first_chunk = plan.resident > 0 ? 0 : plan.streamed.front().second - plan.streamed.front().first;
    EXPECT_EQ(st.passes, plan.resident > 0 ? 2 : 3);
    EXPECT_DOUBLE_EQ(st.stream_bytes, column * (2 * streamed + first_chunk));
    EXPECT_GE(st.copy_s, 0);
    EXPECT_LE(st.kernel_s, st.pass_s);
    EXPECT_GE(st.exposed_s(), 0);
  }
}

// A policy's sums over the chunks of any plan equal its sums over the whole share, for
// every policy, within twice the summation bound of two orders of the same terms
// (docs/mpi.md): 24 x 20 x 150 = 72,000 terms a sum, cancellation below 300 on this deck:
// 2 (128 + 4 sqrt(72000)) 2^-53 x 300 = 8e-11 < 1e-10. One column dropped or counted
// twice moves a sum by about 1/20.
TEST(Chunks, EveryPolicyEqualsTheWholeShare) {
  session::Session s = session::make_session(small_deck());
  for (const PolicyEntry& e : policy_registry()) {
    if (!e.runs_on(SpaceKind::Host)) continue;
    s.chunks_host = session::ChunkPlan{};
    s.stream_host.reset();
    const record::PolicyRun whole = session::run_policy(s, e, SpaceKind::Host, Tunables{}, 1, 0);
    for (const session::ChunkPlan& plan : test_plans()) {
      s.chunks_host = plan;
      s.stream_host.reset();
      const record::PolicyRun chunked = session::run_policy(s, e, SpaceKind::Host, Tunables{}, 1, 0);
      EXPECT_EQ(chunked.chunks, plan.launches());
      EXPECT_TRUE(results_close(chunked.result, whole.result, 1e-10))
          << e.name << ", resident " << plan.resident << ", width " << plan.width << ", slots " << plan.slots;
      ASSERT_EQ(chunked.times_with_transfers.size(), 1u);
      EXPECT_GE(chunked.times_with_transfers[0], chunked.times[0] * 0.999);
      EXPECT_GT(chunked.stream_bytes, 0);
    }
  }
}

}  // namespace
}  // namespace gpp::test
