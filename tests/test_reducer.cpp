// The complex reducer on its own: identity, associativity of joins, and reductions of
// known values through RangePolicy, MDRangePolicy and TeamPolicy on the build's backend.
#include "gpp_reducer.hpp"
#include "gpp_static.hpp"
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

Accum reduce_range(int ni, int nj) {
  Accum result = poisoned();
  Kokkos::parallel_reduce(
      "gpp::test::reduce_range", Kokkos::RangePolicy<ExecSpace>(0, ni * nj),
      KOKKOS_LAMBDA(const int k, Accum& acc) { acc += term(k / nj, k % nj); }, SigmaReducer<NW>(result));
  return result;
}

Accum reduce_mdrange(int ni, int nj) {
  Accum result = poisoned();
  Kokkos::parallel_reduce(
      "gpp::test::reduce_mdrange", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {ni, nj}),
      KOKKOS_LAMBDA(const int i, const int j, Accum& acc) { acc += term(i, j); }, SigmaReducer<NW>(result));
  return result;
}

Accum reduce_team(int ni, int nj) {
  using Team = Kokkos::TeamPolicy<ExecSpace>::member_type;
  Accum result = poisoned();
  Kokkos::parallel_reduce(
      "gpp::test::reduce_team", Kokkos::TeamPolicy<ExecSpace>(ni, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Team& team, Accum& acc) {
        const int i = team.league_rank();
        Accum local;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, nj), [&](const int j, Accum& a) { a += term(i, j); },
            SigmaReducer<NW, typename ExecSpace::scratch_memory_space>(local));
        Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += local; });
      },
      SigmaReducer<NW>(result));
  return result;
}

TEST(Reducer, RangePolicyKnownSum) { expect_known_sum(reduce_range(37, 53), 37, 53); }
TEST(Reducer, MDRangePolicyKnownSum) { expect_known_sum(reduce_mdrange(37, 53), 37, 53); }
TEST(Reducer, TeamPolicyKnownSum) { expect_known_sum(reduce_team(37, 53), 37, 53); }

}  // namespace
}  // namespace gpp::test
