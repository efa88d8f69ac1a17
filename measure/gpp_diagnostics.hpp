#pragma once
// The deck's branch mix: how many terms take each arm of the physics, and how many the
// sexcut cutoff zeroes (counted by the fast reference's pass, session/gpp_fast_reference.hpp,
// or by measure::counts::arm_statistics, measure/gpp_counts.hpp).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gpp::measure {

struct BranchCounts {
  std::int64_t regular = 0, near_pole = 0, zero = 0, cut = 0;
  KOKKOS_INLINE_FUNCTION BranchCounts& operator+=(const BranchCounts& o) {
    regular += o.regular;
    near_pole += o.near_pole;
    zero += o.zero;
    cut += o.cut;
    return *this;
  }
  std::int64_t total() const { return regular + near_pole + zero; }
};

}  // namespace gpp::measure
