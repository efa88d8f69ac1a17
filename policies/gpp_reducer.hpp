#pragma once
// The complex reducer. OpenACC could reduce only scalars, so the Fortran code keeps one
// scalar per frequency and sum; here one reduction value holds the sch and ssx sums of
// every frequency as Kokkos::complex<double>.
#include "gpp_compat.hpp"
#include "gpp_types.hpp"

namespace gpp {

/// sch and ssx sums of NW frequencies (NW <= GPP_MAX_NW, fixed at compile time so the
/// value lives in registers).
template <int NW>
struct SigmaAccum {
  static_assert(NW >= 1 && NW <= GPP_MAX_NW, "NW must be between 1 and GPP_MAX_NW");
  static constexpr int nw = NW;
  complex_t sch[NW];
  complex_t ssx[NW];

  KOKKOS_INLINE_FUNCTION SigmaAccum() {
    for (int w = 0; w < NW; ++w) {
      sch[w] = complex_t(0.0, 0.0);
      ssx[w] = complex_t(0.0, 0.0);
    }
  }
  KOKKOS_INLINE_FUNCTION SigmaAccum& operator+=(const SigmaAccum& o) {
    for (int w = 0; w < NW; ++w) {
      sch[w] += o.sch[w];
      ssx[w] += o.ssx[w];
    }
    return *this;
  }
};

/// A Kokkos reducer summing any value type with a non-volatile operator+= and a
/// default constructor that gives the identity (SigmaAccum, BranchCounts). Works with
/// RangePolicy, MDRangePolicy, TeamPolicy and the nested Team/ThreadVector ranges.
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

/// Host copy of an accumulator as SigmaSums, frequencies [w0, w0 + NW).
template <int NW>
void store(const SigmaAccum<NW>& a, SigmaSums& s, int w0 = 0) {
  for (int w = 0; w < NW; ++w) {
    s.sch_sum[w0 + w] = {a.sch[w].real(), a.sch[w].imag()};
    s.ssx_sum[w0 + w] = {a.ssx[w].real(), a.ssx[w].imag()};
  }
}

}  // namespace gpp
