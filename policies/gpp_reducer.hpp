#pragma once
// The reducer every policy's sums go through: any value type with a default
// constructor that gives the identity and a non-volatile operator+= (SigmaAccum,
// BranchCounts, the references' compensated sums).
#include "gpp_compat.hpp"
#include "gpp_physics.hpp"

#include <complex>

namespace gpp {

/// Works with RangePolicy, MDRangePolicy, TeamPolicy, team_reduce and the nested
/// Team/ThreadVector ranges. Space is where the result lives (HostSpace for the value a
/// parallel_reduce returns; the scratch space for per-team values).
template <class Value, class Space = Kokkos::HostSpace>
struct PlusReducer {
  using reducer = PlusReducer;
  using value_type = Value;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit PlusReducer(value_type& value) : value_(&value) {}
  KOKKOS_INLINE_FUNCTION explicit PlusReducer(const result_view_type& value) : value_(value) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest += src; }
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = value_type(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type value_;
};

template <int NW, class Space = Kokkos::HostSpace>
using SigmaReducer = PlusReducer<SigmaAccum<NW>, Space>;

/// The sum over a team of every thread's `mine` (team_reduce: each thread contributes
/// exactly once, whatever the team size and vector length).
template <class Member, class Value>
KOKKOS_INLINE_FUNCTION Value team_sum(const Member& member, const Value& mine) {
  Value total = mine;
  member.team_reduce(PlusReducer<Value, typename Member::execution_space::scratch_memory_space>(total));
  return total;
}

/// Host copy of an accumulator as SigmaSums, frequencies [w0, w0 + NW).
template <int NW>
void store(const SigmaAccum<NW>& a, SigmaSums& s, int w0 = 0) {
  for (int w = 0; w < NW; ++w) {
    s.sch_sum[w0 + w] = {a.sch[w].real(), a.sch[w].imag()};
    s.ssx_sum[w0 + w] = {a.ssx[w].real(), a.ssx[w].imag()};
  }
}

}  // namespace gpp
