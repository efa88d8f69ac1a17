// The policy registry: one line per policy. A runner is declared where it is
// registered, so adding a policy touches its own file and one line here.
#include "gpp_mdrange.hpp"
#include "gpp_policy.hpp"

#include <algorithm>

namespace gpp {

// GPP_POLICY(runner, name, description, tile rank (0: no --tile), tunables...)
#define GPP_POLICY(runner, name, description, tile_rank, ...)                                         \
  [] {                                                                                              \
    SigmaSums runner(const ExecSpace&, const DeviceData&, const Tunables&, RunMode);                \
    return PolicyEntry{name, description, std::vector<std::string>{__VA_ARGS__}, &runner, tile_rank}; \
  }()

const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> registry = {
      GPP_POLICY(run_v0_collapse3, "v0-collapse3",
                 "MDRange<3> over G, G', band (G fastest); literal physics (complex divide, abs, 3-way branch); one reduction",
                 3, "tile"),
      GPP_POLICY(run_v1_reciprocal, "v1-reciprocal", "v0 with complex divides replaced by a real reciprocal and multiplies",
                 3, "tile"),
      GPP_POLICY(run_v2_branch2, "v2-branch2", "v1 with a 2-way branch (sch, ssx zero-initialised)", 3, "tile"),
      GPP_POLICY(run_v3_noabs, "v3-noabs", "v2 with squared magnitudes instead of abs() in the cutoff", 3, "tile"),
      GPP_POLICY(run_v4_collapse2, "v4-collapse2", "MDRange<2> over G, G' (G fastest); band loop sequential in each thread", 2,
                 "tile"),
      GPP_POLICY(run_v5_iw_outside, "v5-iw-outside", "v4 with one reduction per frequency (two complex sums each)", 2,
                 "tile"),
      GPP_POLICY(run_v6_blocked, "v6-blocked",
                 "TeamPolicy: a team per (G', band block), threads over G in G blocks; one reduction per frequency", 0,
                 "band-block", "ig-block", "team-size", "vector-length"),
      GPP_POLICY(run_v7_swapped, "v7-swapped", "v6 reading wx and aqsmtemp_local from band-contiguous copies", 0,
                 "band-block", "ig-block", "team-size", "vector-length"),
      GPP_POLICY(run_v8_bounded, "v8-bounded", "v7 with 512 threads per team and LaunchBounds<512,1> (128 registers)", 0,
                 "band-block", "ig-block", "team-size", "vector-length"),
      GPP_POLICY(run_tuned, "tuned",
                 "GPU: v8's teams with every frequency in one pass, fused physics, ssx skipped for empty bands", 0,
                 "band-block", "team-size"),
      GPP_POLICY(run_host, "host", "CPU: G' across threads, band and G blocks for cache, fused physics, contiguous G innermost", 0,
                 "band-block", "ig-block"),
  };
  return registry;
}

const PolicyEntry& find_policy(const std::string& name) {
  const auto& r = policy_registry();
  auto it = std::find_if(r.begin(), r.end(), [&](const PolicyEntry& e) { return e.name == name; });
  if (it != r.end()) return *it;
  std::string known;
  for (const auto& e : r) known += (known.empty() ? "" : ", ") + e.name;
  throw Error("unknown policy '" + name + "' (known: " + known + ", all)");
}

std::string default_policy_name() {
  // Host backends get the CPU-tuned policy, GPU backends the paper's last step.
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;
  const char* preferred = host ? "host" : "tuned";
  const auto& r = policy_registry();
  for (const auto& e : r)
    if (e.name == preferred) return e.name;
  return r.back().name;
}

void PolicyEntry::check(const ExecSpace& space, const DeviceData& d, const Tunables& t) const {
  check_tunables(*this, t);
  runner(space, d, t, RunMode::Check);
}

void check_tunables(const PolicyEntry& entry, const Tunables& t) {
  auto reads = [&](const char* n) { return std::find(entry.tunables.begin(), entry.tunables.end(), n) != entry.tunables.end(); };
  auto check = [&](int v, const char* n) {
    if (v < 0) throw Error(std::string("--") + n + " must be positive (got " + std::to_string(v) + ")");
    if (v > 0 && !reads(n)) throw Error("policy " + entry.name + " has no tunable --" + n);
  };
  check(t.band_block, "band-block");
  check(t.ig_block, "ig-block");
  check(t.team_size, "team-size");
  check(t.vector_length, "vector-length");
  if (!t.tile.empty()) {
    if (!reads("tile")) throw Error("policy " + entry.name + " has no tunable --tile");
    make_mdrange_check(entry.tile_rank, t.tile);
  }
}

}  // namespace gpp
