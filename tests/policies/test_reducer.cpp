// The complex reducer on its own: identity, associativity of joins, and reductions of
// known values through RangePolicy, MDRangePolicy and TeamPolicy on the build's backend.
#include "gpp_reducer.hpp"
#include "gpp_test_util.hpp"

#include <cmath>

namespace gpp::test {
namespace {

constexpr int NW = 3;
using Accum = SigmaAccum<NW>;

// Terms whose sums are exact in double (small integers and halves).
KOKKOS_INLINE_FUNCTION Accum term(int i, int j) {
  Accum a;
  for (int w = 0; w < NW; ++w) {
    a.sch[w] = complex_t(i + w, 0.5 * j);
    a.ssx[w] = complex_t(-j, i * (w + 1));
  }
  return a;
}

void expect_known_sum(const Accum& got, int ni, int nj) {
  for (int w = 0; w < NW; ++w) {
    double sr = 0, si = 0, xr = 0, xi = 0;
    for (int i = 0; i < ni; ++i)
      for (int j = 0; j < nj; ++j) {
        sr += i + w;
        si += 0.5 * j;
        xr += -j;
        xi += i * (w + 1);
      }
    // Every partial sum is an exact small multiple of 0.5: any order gives exact results.
    EXPECT_EQ(got.sch[w].real(), sr) << "w=" << w;
    EXPECT_EQ(got.sch[w].imag(), si) << "w=" << w;
    EXPECT_EQ(got.ssx[w].real(), xr) << "w=" << w;
    EXPECT_EQ(got.ssx[w].imag(), xi) << "w=" << w;
  }
}

Accum poisoned() {
  Accum a;
  for (int w = 0; w < NW; ++w) a.sch[w] = a.ssx[w] = complex_t(NAN, NAN);
  return a;
}

TEST(Reducer, InitIsIdentity) {
  Accum v = poisoned();
  Accum x = term(3, 5);
  SigmaReducer<NW> r(v);
  r.init(v);
  Accum y = x;
  r.join(y, v);
  for (int w = 0; w < NW; ++w) {
    EXPECT_EQ(v.sch[w], complex_t(0.0, 0.0));
    EXPECT_EQ(y.sch[w], x.sch[w]);
    EXPECT_EQ(y.ssx[w], x.ssx[w]);
  }
}

TEST(Reducer, JoinsAreAssociative) {
  Accum a = term(1, 2), b = term(7, -3), c = term(-4, 11);
  Accum dummy;
  SigmaReducer<NW> r(dummy);
  Accum left = a, bc = b;
  r.join(left, b);
  r.join(left, c);  // (a+b)+c
  r.join(bc, c);
  Accum right = a;
  r.join(right, bc);  // a+(b+c)
  for (int w = 0; w < NW; ++w) {
    EXPECT_EQ(left.sch[w], right.sch[w]);
    EXPECT_EQ(left.ssx[w], right.ssx[w]);
  }
}

// A join that does not add (an assignment, say) must fail here, on any backend: Serial
// never joins inside a parallel_reduce.
TEST(Reducer, JoinAdds) {
  Accum dummy;
  SigmaReducer<NW> r(dummy);
  Accum x = term(3, 5);
  const Accum y = term(-2, 7);
  r.join(x, y);
  for (int w = 0; w < NW; ++w) {
    EXPECT_EQ(x.sch[w], term(3, 5).sch[w] + y.sch[w]);
    EXPECT_EQ(x.ssx[w], term(3, 5).ssx[w] + y.ssx[w]);
  }
}

template <class ExecSpace>
Accum reduce_range(const ExecSpace& space, int ni, int nj) {
  Accum result = poisoned();
  Kokkos::parallel_reduce(
      "gpp::test::reduce_range", Kokkos::RangePolicy<ExecSpace>(space, 0, ni * nj),
      KOKKOS_LAMBDA(const int k, Accum& acc) { acc += term(k / nj, k % nj); }, SigmaReducer<NW>(result));
  return result;
}

template <class ExecSpace>
Accum reduce_mdrange(const ExecSpace& space, int ni, int nj) {
  Accum result = poisoned();
  Kokkos::parallel_reduce(
      "gpp::test::reduce_mdrange", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {ni, nj}),
      KOKKOS_LAMBDA(const int i, const int j, Accum& acc) { acc += term(i, j); }, SigmaReducer<NW>(result));
  return result;
}

/// A league of ni teams of `team_size` threads (0: AUTO) and `lanes` vector lanes. Each
/// team sums j = 0..nj-1 through a TeamThreadRange reduction (the range is the real
/// work), then every thread adds its own j-strided share through team_sum (each thread
/// contributes once): both must give the known sums, so a reduction that drops or
/// repeats threads fails.
template <class ExecSpace>
std::pair<Accum, Accum> reduce_team(const ExecSpace& space, int ni, int nj, int team_size, int lanes) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Team = typename Policy::member_type;
  using Scratch = typename ExecSpace::scratch_memory_space;
  Accum by_range = poisoned(), by_team_sum = poisoned();
  const Policy policy = team_size > 0 ? Policy(space, ni, team_size, lanes) : Policy(space, ni, Kokkos::AUTO, lanes);
  Kokkos::parallel_reduce(
      "gpp::test::reduce_team_range", policy,
      KOKKOS_LAMBDA(const Team& team, Accum& acc) {
        const int i = team.league_rank();
        Accum local;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, nj), [&](const int j, Accum& a) { a += term(i, j); },
            SigmaReducer<NW, Scratch>(local));
        Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += local; });
      },
      SigmaReducer<NW>(by_range));
  Kokkos::parallel_reduce(
      "gpp::test::reduce_team_sum", policy,
      KOKKOS_LAMBDA(const Team& team, Accum& acc) {
        const int i = team.league_rank();
        Accum mine;  // identical in every vector lane of the thread
        for (int j = team.team_rank(); j < nj; j += team.team_size()) mine += term(i, j);
        const Accum total = team_sum(team, mine);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += total; });
      },
      SigmaReducer<NW>(by_team_sum));
  return {by_range, by_team_sum};
}

template <class ExecSpace>
int max_team_size(const ExecSpace& space, int lanes) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  return Policy(space, 1, 1, lanes)
      .team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&, Accum&){}, Kokkos::ParallelReduceTag());
}

TEST(Reducer, KnownSumsOnEverySpace) {
  for (const SpaceKind k : build_spaces())
    with_space(k, [&](auto space) {
      SCOPED_TRACE(to_string(k));
      expect_known_sum(reduce_range(space, 37, 53), 37, 53);
      expect_known_sum(reduce_mdrange(space, 37, 53), 37, 53);
      using Policy = Kokkos::TeamPolicy<decltype(space)>;
      const int max_lanes = Policy::vector_length_max() < 4 ? Policy::vector_length_max() : 4;
      for (const int lanes : {1, max_lanes})
        for (const int team : {0, 1, 2, 3, 7, 32}) {
          if (team > max_team_size(space, lanes)) continue;
          SCOPED_TRACE("team " + std::to_string(team) + " lanes " + std::to_string(lanes));
          const auto [by_range, by_team_sum] = reduce_team(space, 37, 53, team, lanes);
          expect_known_sum(by_range, 37, 53);
          expect_known_sum(by_team_sum, 37, 53);
        }
    });
}

#if GPP_TEST_CONCURRENCY > 0
// A Threads build's suite runs at GPP_TEST_NUM_THREADS threads (tests/CMakeLists.txt sets
// KOKKOS_NUM_THREADS for every test). Kokkos Threads runs one thread unless told, so a
// lost variable would leave every team at one thread and no join exercised, silently.
TEST(ReducerJoins, SuiteRunsOnSeveralThreads) {
  EXPECT_EQ(HostExec().concurrency(), GPP_TEST_CONCURRENCY)
      << "ctest runs this Threads build's tests with KOKKOS_NUM_THREADS=" << GPP_TEST_CONCURRENCY;
}
#endif

}  // namespace
}  // namespace gpp::test
