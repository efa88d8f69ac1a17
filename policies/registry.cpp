// The policy registry: one line per policy. A runner template is declared here and
// instantiated in its own file for the spaces it is built for, so adding a policy
// touches its own file and one line here.
#include "gpp_mdrange.hpp"
#include "gpp_policy.hpp"
#include "gpp_tuning_defaults.hpp"

#include <algorithm>
#include <cctype>

namespace gpp {

GPP_DECLARE_RUNNER(run_v0_collapse3)
GPP_DECLARE_RUNNER(run_v1_reciprocal)
GPP_DECLARE_RUNNER(run_v2_branch2)
GPP_DECLARE_RUNNER(run_v3_noabs)
GPP_DECLARE_RUNNER(run_v4_collapse2)
GPP_DECLARE_RUNNER(run_v5_iw_outside)
GPP_DECLARE_RUNNER(run_v6_blocked)
GPP_DECLARE_RUNNER(run_v7_swapped)
GPP_DECLARE_RUNNER(run_v8_bounded)
GPP_DECLARE_RUNNER(run_tuned)
GPP_DECLARE_RUNNER(run_host)
std::vector<ParamSpec> host_params();   // policies/host.cpp
std::vector<ParamSpec> tuned_params();  // policies/tuned.cpp

namespace {

PolicyEntry entry(const char* name, const char* description, int tile_rank, int max_nw,
                  std::vector<std::string> tunables, PolicyRunner<HostExec> host, PolicyRunner<DeviceExec> device) {
  for (const std::string& t : tunables)
    if (!find_tunable(t) || t != find_tunable(t)->option)
      throw Error(std::string("policy ") + name + " names the tunable '" + t +
                  "', which is no option of tunable_table()");
  PolicyEntry e{name, description, std::move(tunables), tile_rank, {}, {}, {}, max_nw};
  e.on_host = host;
#if GPP_HAS_DEVICE_SPACE
  e.on_device = device;
#else
  (void)device;
  e.on_device = host;  // one space: the host is the default space
#endif
  return e;
}

PolicyEntry with_params(PolicyEntry e, std::vector<ParamSpec> params) {
  e.params = std::move(params);
  return e;
}

// Its defaults compiled from a shipped file (tuning_defaults).
PolicyEntry with_defaults(PolicyEntry e, const char* file, const char* basis) {
  e.defaults_file = file;
  e.defaults_basis = basis;
  return e;
}

}  // namespace

// GPP_POLICY(runner, name, description, Every|HostOnly, InPasses|AnyNw, tile rank (0: no
// --tile), tunables...): the GPU-shaped steps are built for every space, the CPU policy
// for the host. A host-only runner is never named for the device space. InPasses: the
// runner reduces every frequency of a call in one pass (at most GPP_MAX_NW), so a deck
// of more runs in passes; AnyNw: the runner loops over the frequencies itself.
#define GPP_RUNNER_FOR_DEVICE_Every(runner) &runner<DeviceExec>
#define GPP_RUNNER_FOR_DEVICE_HostOnly(runner) nullptr
#define GPP_MAX_NW_InPasses GPP_MAX_NW
#define GPP_MAX_NW_AnyNw 0
#define GPP_POLICY(runner, name, description, spaces, frequencies, tile_rank, ...)                \
  entry(name, description, tile_rank, GPP_MAX_NW_##frequencies, {__VA_ARGS__}, &runner<HostExec>, \
        GPP_RUNNER_FOR_DEVICE_##spaces(runner))

const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> registry = {
      GPP_POLICY(
          run_v0_collapse3, "v0-collapse3",
          "MDRange<3> over G, G', band (G fastest); literal physics (complex divide, abs, 3-way branch); one reduction",
          Every, InPasses, 3, "tile"),
      GPP_POLICY(run_v1_reciprocal, "v1-reciprocal",
                 "v0 with complex divides replaced by a real reciprocal and multiplies", Every, InPasses, 3, "tile"),
      GPP_POLICY(run_v2_branch2, "v2-branch2", "v1 with a 2-way branch (sch, ssx zero-initialised)", Every, InPasses, 3,
                 "tile"),
      GPP_POLICY(run_v3_noabs, "v3-noabs", "v2 with squared magnitudes instead of abs() in the cutoff", Every, InPasses,
                 3, "tile"),
      GPP_POLICY(run_v4_collapse2, "v4-collapse2",
                 "MDRange<2> over G, G' (G fastest); band loop sequential in each thread", Every, InPasses, 2, "tile"),
      GPP_POLICY(run_v5_iw_outside, "v5-iw-outside", "v4 with one reduction per frequency (two complex sums each)",
                 Every, AnyNw, 2, "tile"),
      GPP_POLICY(run_v6_blocked, "v6-blocked",
                 "TeamPolicy: a team per (G', band block), threads over G in G blocks; one reduction per frequency",
                 Every, AnyNw, 0, "band-block", "ig-block", "team-size", "vector-length"),
      GPP_POLICY(run_v7_swapped, "v7-swapped", "v6 reading wx and aqsmtemp_local from band-contiguous copies", Every,
                 AnyNw, 0, "band-block", "ig-block", "team-size", "vector-length"),
      GPP_POLICY(run_v8_bounded, "v8-bounded", "v7 with 512 threads per team and LaunchBounds<512,1> (128 registers)",
                 Every, AnyNw, 0, "band-block", "ig-block", "team-size", "vector-length"),
      with_defaults(with_params(GPP_POLICY(run_tuned, "tuned",
                                           "GPU: v8's teams with every frequency of a pass in one kernel, fused "
                                           "physics, ssx skipped for empty bands",
                                           Every, InPasses, 0, "band-block", "team-size"),
                                tuned_params()),
                    tuning_defaults::kTunedFile, tuning_defaults::kTunedBasis),
      with_defaults(
          with_params(GPP_POLICY(run_host, "host",
                                 "CPU: G' across threads, band and G blocks for cache, fused physics "
                                 "(occupied terms with wx >= 0 in tuned's split form), contiguous G in vector lanes",
                                 HostOnly, InPasses, 0, "band-block", "ig-block"),
                      host_params()),
          tuning_defaults::kHostFile, tuning_defaults::kHostBasis),
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

std::string default_policy_name(SpaceKind k) { return k == SpaceKind::Host ? "host" : "tuned"; }

std::string PolicyEntry::spaces() const {
  std::string s;
  if (kHasDeviceSpace && on_device) s = std::string("device (") + DeviceExec::name() + ")";
  if (on_host) s += (s.empty() ? "" : ", ") + std::string("host (") + HostExec::name() + ")";
  return s;
}

Tunables& PolicyEntry::check_tunables_of(Tunables& t) const {
  check_tunables(*this, t);
  return t;
}

void check_tunables(const PolicyEntry& entry, const Tunables& t) {
  for (const TunableSpec& s : tunable_table()) {
    if (!s.is_set(t)) continue;
    if (const std::string why = s.why_not(s.get(t)); !why.empty())
      throw Error(std::string("--") + s.option + ": " + why);
    if (!entry.reads(s)) throw Error("policy " + entry.name + " has no tunable --" + s.option);
  }
  if (!t.tile.empty()) check_tile(entry.tile_rank, t.tile, 0, "policy " + entry.name);
  for (const auto& [name, value] : t.params) {
    const ParamSpec* spec = entry.param(name);
    if (!spec) {
      std::string known;
      for (const ParamSpec& p : entry.params) known += (known.empty() ? "" : ", ") + p.name;
      throw Error("policy " + entry.name + " has no param " + name +
                  (known.empty() ? std::string(" (it has none)") : " (its params: " + known + ")"));
    }
    if (std::find(spec->values.begin(), spec->values.end(), value) == spec->values.end()) {
      std::string values;
      for (std::size_t i = 0; i < spec->values.size(); ++i)
        values += (i == 0 ? "" : i + 1 == spec->values.size() ? " or " : ", ") + spec->values[i];
      throw Error("--param " + name + "=" + value + ": policy " + entry.name + " takes " + values);
    }
  }
}

std::pair<std::string, std::string> parse_param(const std::string& option, const std::string& text) {
  const std::size_t eq = text.find('=');
  const auto word = [](const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    for (const char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
    return true;
  };
  if (eq == std::string::npos || !word(text.substr(0, eq)) || !word(text.substr(eq + 1)))
    throw Error(option + " '" + text.substr(0, 80) + "': expected NAME=VALUE (letters, digits, _ - .)");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace gpp
