#pragma once
// Execution policies: how the (band, G', G, frequency) loops are mapped to hardware.
// Each policy is one file with one runner; policies/registry.cpp maps names to runners.
#include "gpp_static.hpp"
#include "gpp_types.hpp"

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpp {

/// Strategy parameters; 0 (or an empty tile) means the policy's default.
struct Tunables {
  int band_block = 0;     // bands per cache block (v6+)
  int ig_block = 0;       // G per cache block (v6+)
  int team_size = 0;      // threads per team (TeamPolicy steps)
  int vector_length = 0;  // vector lanes per thread (TeamPolicy steps)
  std::vector<int> tile;  // MDRangePolicy tile sizes, one per rank
};

/// Run: compute the sums. Check: refuse what cannot work (tunables the backend or the
/// kernel cannot launch) and return without launching anything.
enum class RunMode { Run, Check };

using PolicyRunner = SigmaSums (*)(const ExecSpace&, const DeviceData&, const Tunables&, RunMode);

struct PolicyEntry {
  std::string name;
  std::string description;
  std::vector<std::string> tunables;  // names of the Tunables fields the policy reads
  PolicyRunner runner;
  int tile_rank = 0;                  // ranks of --tile (MDRangePolicy steps)

  SigmaSums run(const ExecSpace& space, const DeviceData& d, const Tunables& t) const {
    return runner(space, d, t, RunMode::Run);
  }
  /// check_tunables, then everything that needs the problem and the backend.
  void check(const ExecSpace& space, const DeviceData& d, const Tunables& t) const;
};

/// Every policy, in the order of the paper's steps.
const std::vector<PolicyEntry>& policy_registry();

/// The entry called `name`; throws gpp::Error listing the known names otherwise.
const PolicyEntry& find_policy(const std::string& name);

/// The policy a plain `gpp run` uses on this build's default execution space.
std::string default_policy_name();

/// Throws gpp::Error when a tunable is set that `entry` does not read, is not positive,
/// or a tile does not fit the policy's rank or the backend.
void check_tunables(const PolicyEntry& entry, const Tunables& t);

/// Calls f(std::integral_constant<int, NW>{}) for NW == nw (1..GPP_MAX_NW).
template <class F, int NW = 1>
decltype(auto) dispatch_nw(int nw, F&& f) {
  if constexpr (NW < GPP_MAX_NW) {
    if (nw != NW) return dispatch_nw<F, NW + 1>(nw, std::forward<F>(f));
  } else {
    if (nw != NW) throw Error("nw = " + std::to_string(nw) + " frequencies is outside 1.." + std::to_string(GPP_MAX_NW) +
                              " (rebuild with a larger GPP_MAX_NW)");
  }
  return f(std::integral_constant<int, NW>{});
}

/// A checked tunable: `value` if positive, otherwise `fallback`.
inline int or_default(int value, int fallback) { return value > 0 ? value : fallback; }

}  // namespace gpp
