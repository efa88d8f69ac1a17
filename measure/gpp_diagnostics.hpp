#pragma once
// Diagnostics that run beside a policy: how often each arm of the physics is taken.
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

#include <cstdint>

namespace gpp {

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

/// Classify every (band, G', G, frequency) term with the literal physics, on `space`
/// (instantiated for every space of the build).
template <class ExecSpace>
BranchCounts branch_statistics(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d);

}  // namespace gpp
