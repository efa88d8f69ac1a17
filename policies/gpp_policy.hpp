#pragma once
// Execution policies: how the (band, G', G, frequency) loops are mapped to hardware.
// Each policy is one file with one runner, a template on the execution space; the
// registry (policies/registry.cpp) maps names to runners for the spaces each policy
// is built for.
#include "gpp_passes.hpp"
#include "gpp_spaces.hpp"
#include "gpp_tunables.hpp"
#include "gpp_types.hpp"

#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpp {

/// A named choice of a policy's code path (a loop's vector type, how reciprocals are
/// shared): its name, the values it takes (the first the default) and what each means.
struct ParamSpec {
  std::string name;
  std::vector<std::string> values;
  std::string description;
};

/// The value of `spec` in `t`: the one given, else the default (values.front()).
inline const std::string& param_value(const Tunables& t, const ParamSpec& spec) {
  const auto it = t.params.find(spec.name);
  return it != t.params.end() ? it->second : spec.values.front();
}

/// Run: compute the sums. Check: refuse what cannot work (tunables the backend or the
/// kernel cannot launch), resolve the defaults, and return without launching anything.
enum class RunMode { Run, Check };

/// The data a kernel on ExecSpace reads: in the space's own memory.
template <class ExecSpace>
using DataFor = GppData<typename ExecSpace::memory_space>;

/// A runner computes the sums of `d` on `space`; it writes the tunables it ran with
/// (defaults resolved) back into `t`.
template <class ExecSpace>
using PolicyRunner = SigmaSums (*)(const ExecSpace&, const DataFor<ExecSpace>&, Tunables&, RunMode);

struct PolicyEntry {
  std::string name;
  std::string description;
  std::vector<std::string> tunables;  // options of the tunables it reads (rows of tunable_table())
  int tile_rank = 0;                  // ranks of --tile (MDRangePolicy steps)
  std::vector<ParamSpec> params;      // its named choices (Tunables::params)
  /// The shipped defaults its defaults were compiled from ("tuning/sm_90.json") and
  /// whether they were measured or reasoned; empty for a policy without any.
  std::string defaults_file, defaults_basis;
  /// Most frequencies one call of the runner takes: GPP_MAX_NW for a runner that reduces
  /// every frequency in one pass (SigmaAccum<NW>); run() calls it in passes of at most
  /// that many (gpp_passes.hpp). 0: any number (the runner loops over frequencies).
  int max_nw = 0;
  PolicyRunner<HostExec> on_host = nullptr;
  PolicyRunner<DeviceExec> on_device = nullptr;  // null where not built; unused in CPU builds

  template <class ExecSpace>
  PolicyRunner<ExecSpace> runner() const {
    if constexpr (std::is_same_v<ExecSpace, HostExec>)
      return on_host;
    else
      return on_device;
  }
  bool reads(const TunableSpec& s) const {
    for (const std::string& t : tunables)
      if (t == s.option) return true;
    return false;
  }
  bool runs_on(SpaceKind k) const { return k == SpaceKind::Host ? on_host != nullptr : on_device != nullptr; }
  /// Its param called `name`, or null.
  const ParamSpec* param(const std::string& name) const {
    for (const ParamSpec& p : params)
      if (p.name == name) return &p;
    return nullptr;
  }
  /// "device, host", "host", ...
  std::string spaces() const;

  /// check_tunables, then everything that needs the problem and the backend; returns
  /// the tunables that would run. Throws gpp::Error. Checks the first (largest) pass of
  /// frequencies and runs nothing.
  template <class ExecSpace>
  Tunables resolve(const ExecSpace& space, const DataFor<ExecSpace>& d, const Tunables& t) const {
    const auto f = runner_or_throw<ExecSpace>();
    Tunables r = t;
    f(space, frequency_pass(space, d, frequency_passes(d.nw, max_nw).front()), check_tunables_of(r), RunMode::Check);
    return r;
  }
  /// The sums of every frequency; `t` as given (defaults: 0). Throws gpp::Error for what
  /// cannot run. In passes of at most max_nw frequencies, each with the tunables as given.
  template <class ExecSpace>
  SigmaSums run(const ExecSpace& space, const DataFor<ExecSpace>& d, const Tunables& t) const {
    const auto f = runner_or_throw<ExecSpace>();
    Tunables checked = t;
    check_tunables_of(checked);
    const std::vector<FrequencyPass> passes = frequency_passes(d.nw, max_nw);
    if (passes.size() == 1) return f(space, d, checked, RunMode::Run);
    SigmaSums sums;
    for (const FrequencyPass& p : passes) {
      Tunables r = checked;
      append_pass(sums, f(space, frequency_pass(space, d, p), r, RunMode::Run));
    }
    return sums;
  }

 private:
  template <class ExecSpace>
  PolicyRunner<ExecSpace> runner_or_throw() const {
    const auto f = runner<ExecSpace>();
    if (!f)
      throw Error("policy " + name + " does not run on the " + to_string(kind_of<ExecSpace>()) + " space (" +
                  ExecSpace::name() + "); it runs on: " + spaces());
    return f;
  }
  Tunables& check_tunables_of(Tunables& t) const;
};

/// Every policy, in the order of the paper's steps.
const std::vector<PolicyEntry>& policy_registry();

/// The entry called `name`; throws gpp::Error listing the known names otherwise.
const PolicyEntry& find_policy(const std::string& name);
/// The same for a literal: no std::string temporary at the call, which GCC 13's
/// -Wdangling-reference would take the returned reference for one into.
inline const PolicyEntry& find_policy(const char* name) { return find_policy(std::string(name)); }

/// The policy a plain run uses on space `k`: `tuned` on a device, `host` on the host.
std::string default_policy_name(SpaceKind k = default_space());

/// Throws gpp::Error when a tunable is set that `entry` does not read or with a value gpp
/// does not take (TunableSpec::why_not), or a tile does not fit the policy's rank; or a
/// param is one the policy does not have, or has a value it does not take.
void check_tunables(const PolicyEntry& entry, const Tunables& t);

/// "NAME=VALUE" as a param (--param); gpp::Error naming `option` for anything else.
std::pair<std::string, std::string> parse_param(const std::string& option, const std::string& text);

/// Calls f(std::integral_constant<int, NW>{}) for NW == nw (1..GPP_MAX_NW): the runner
/// of a policy registered with max_nw = GPP_MAX_NW, which PolicyEntry::run calls in
/// passes of at most that many frequencies.
template <class F, int NW = 1>
decltype(auto) dispatch_nw(int nw, F&& f) {
  if constexpr (NW < GPP_MAX_NW) {
    if (nw != NW) return dispatch_nw<F, NW + 1>(nw, std::forward<F>(f));
  } else {
    if (nw != NW)
      throw Error("nw = " + std::to_string(nw) + " frequencies in one pass is outside 1.." +
                  std::to_string(GPP_MAX_NW) +
                  " (GPP_MAX_NW): run the policy through its registry entry, "
                  "which runs more in passes");
  }
  return f(std::integral_constant<int, NW>{});
}

/// A checked tunable: `value` if positive, otherwise `fallback`.
inline int or_default(int value, int fallback) { return value > 0 ? value : fallback; }

}  // namespace gpp

// Explicit instantiation of a runner template for every space of the build (in the
// policy's own file) and its declaration (in the registry).
#define GPP_RUNNER_SIGNATURE(runner, Space) \
  SigmaSums runner<Space>(const Space&, const DataFor<Space>&, Tunables&, RunMode)
#if GPP_HAS_DEVICE_SPACE
#define GPP_INSTANTIATE_RUNNER(runner)                    \
  template GPP_RUNNER_SIGNATURE(runner, ::gpp::HostExec); \
  template GPP_RUNNER_SIGNATURE(runner, ::gpp::DeviceExec);
#else
#define GPP_INSTANTIATE_RUNNER(runner) template GPP_RUNNER_SIGNATURE(runner, ::gpp::HostExec);
#endif
#define GPP_DECLARE_RUNNER(runner) \
  template <class ExecSpace>       \
  SigmaSums runner(const ExecSpace&, const DataFor<ExecSpace>&, Tunables&, RunMode);
