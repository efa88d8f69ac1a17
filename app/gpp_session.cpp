#include "gpp_session.hpp"

#include "gpp_compat.hpp"
#include "gpp_device_info.hpp"
#include "gpp_device_reference.hpp"
#include "gpp_profiling.hpp"
#include "gpp_reference.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace gpp::app {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

template <class ExecSpace>
const DataFor<ExecSpace>& Session::data(const ExecSpace& space) {
  if constexpr (std::is_same_v<ExecSpace, HostExec>) {
    (void)space;
    return host;
  } else {
    if (!on_device) {
      compat::ScopedRegion region("gpp::transfer");
      space.fence();
      const auto t0 = std::chrono::steady_clock::now();
      device = to_memory_space<typename ExecSpace::memory_space>(host);
      space.fence();
      transfer_s = seconds_since(t0);
      on_device = true;
      device_info::sample_memory();
    }
    return device;
  }
}
template const DataFor<HostExec>& Session::data(const HostExec&);
#if GPP_HAS_DEVICE_SPACE
template const DataFor<DeviceExec>& Session::data(const DeviceExec&);
#endif

Session make_session(const DeckParams& p) {
  Session s;
  s.params = p;
  compat::ScopedRegion region("gpp::setup");
  const auto t0 = std::chrono::steady_clock::now();
  s.input = generate(p);
  s.source = p.generator + " generator";
  s.synthetic = true;
  s.host = derive(s.input);
  s.setup_s = seconds_since(t0);
  return s;
}

void prepare_reference(Session& s, VerifyMode mode, double rtol) {
  compat::ScopedRegion region("gpp::reference");
  const auto t0 = std::chrono::steady_clock::now();
  s.target = Verification{};
  s.target.tolerance = rtol;
  if (mode == VerifyMode::None) {
    s.target.against = "none";
  } else if (mode == VerifyMode::Auto && s.params.generator == "uniform" && s.synthetic) {
    s.target.against = "closed form";
    // Each sum has nbands*ngpown*ncouls equal terms (spec section 4).
    s.target.tolerance = std::max(rtol, closed_form_tolerance(double(s.host.nbands) * s.host.ngpown * double(s.host.ncouls)));
    s.reference = apply_start_values(closed_form_uniform(s.params), s.input.asxtemp0, s.input.achtemp0);
  } else if (mode == VerifyMode::Auto && s.input.has_reference()) {
    s.target.against = "stored reference";
    s.reference.achtemp = s.input.achtempref;
    s.reference.asxtemp = s.input.asxtempref;
  } else if (mode == VerifyMode::Host || (mode == VerifyMode::Auto && s.host.updates() <= kHostReferenceMaxUpdates)) {
    s.target.against = "host reference";
    s.reference = apply_start_values(reference_sums(s.host), s.input.asxtemp0, s.input.achtemp0);
    s.reference_achstemp = reference_achstemp(s.host);
  } else {
    // The literal physics with compensated sums on the fastest space there is.
    s.target.against = "device reference";
    const SigmaSums sums = with_space(default_space(), [&](auto space) { return device_reference_sums(space, s.data(space)); });
    s.reference = apply_start_values(sums, s.input.asxtemp0, s.input.achtemp0);
  }
  s.reference_s = seconds_since(t0);
}

SpaceKind placement(const PolicyEntry& entry, std::optional<SpaceKind> requested) {
  if (requested) {
    if (!entry.runs_on(*requested))
      throw Error("policy " + entry.name + " does not run on the " + to_string(*requested) + " space; it runs on: " +
                  entry.spaces());
    return *requested;
  }
  return entry.runs_on(default_space()) ? default_space() : SpaceKind::Host;
}

Tunables resolve(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t) {
  return with_space(k, [&](auto space) { return entry.resolve(space, s.data(space), t); });
}

PolicyRun run_policy(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, int repeat, int warmup) {
  PolicyRun r;
  r.policy = entry.name;
  r.space = space_info(k);
  profiling::Range range("gpp::policy::" + entry.name);  // ncu --nvtx-include "gpp::policy::NAME/"
  with_space(k, [&](auto space) {
    const auto& data = s.data(space);
    r.tunables = entry.resolve(space, data, t);
    auto once = [&] {
      space.fence();
      const auto t0 = std::chrono::steady_clock::now();
      const SigmaSums sums = entry.run(space, data, r.tunables);
      space.fence();
      const double dt = seconds_since(t0);
      return std::make_pair(apply_start_values(sums, s.input.asxtemp0, s.input.achtemp0), dt);
    };
    auto check = [&](const SigmaResult& res) {
      if (!s.target.performed()) return;
      const double e = relative_error(res, s.reference);
      r.rel_error = std::isnan(e) ? INFINITY : std::max(r.rel_error, e);
    };
    for (int i = 0; i < warmup; ++i) check(once().first);  // module load, first touch, allocations
    for (int i = 0; i < repeat; ++i) {
      auto [res, dt] = once();
      r.times.push_back(dt);
      device_info::sample_memory();
      check(res);
      r.result = std::move(res);
    }
  });
  r.verified = s.target.performed() && r.rel_error <= s.target.tolerance;
  if (s.target.performed() && !r.verified) r.status = "wrong";
  return r;
}

RunRecord make_record(const std::string& command, const std::vector<std::string>& argv, const Session& s) {
  RunRecord r;
  r.command = command;
  r.date = utc_now();
  r.command_line = argv;
  r.build = build_info();
  DeckInfo& d = r.deck;
  d.name = s.params.name;
  d.source = s.source;
  d.generator = s.synthetic ? s.params.generator : "file";
  d.input_path = s.input_path;
  if (s.synthetic && s.params.generator == "random") d.seed = (long long)s.params.seed;
  d.nbands = s.host.nbands;
  d.ngpown = s.host.ngpown;
  d.ncouls = s.host.ncouls;
  d.nw = s.host.nw;
  d.nstart = s.host.nstart;
  d.nend = s.host.nend;
  d.nvband = s.input.nvband;
  d.updates = s.host.updates();
  r.setup_s = s.setup_s;
  r.read_s = s.read_s;
  r.check_s = s.check_s;
  r.read_bytes = s.read_bytes;
  r.data_bytes = (long long)s.host.bytes();
  update_after_runs(r, s);
  r.target = s.target;
  r.reference = s.reference;
  r.reference_s = s.reference_s;
  return r;
}

void update_after_runs(RunRecord& r, const Session& s) {
  r.transfer_s = s.transfer_s;
  r.device_mem_peak_bytes = device_info::memory_peak();
}

std::string describe_deck(const Session& s) {
  std::ostringstream o;
  const auto& d = s.host;
  o << "deck: " << s.params.name << " (" << s.source;
  if (s.params.generator == "random" && s.synthetic) o << ", seed " << s.params.seed;
  o << ")\n";
  o << "sizes: nbands=" << d.nbands << " ngpown=" << d.ngpown << " ncouls=" << d.ncouls << " nw=" << d.nw << " (iw "
    << d.nstart << ".." << d.nend << ") nvband=" << s.input.nvband << "\n";
  int skipped = 0;
  for (int i = 0; i < d.ngpown; ++i) skipped += d.vcoul_loc(i) == 0.0;
  double occupied = 0;
  int half = 0;
  for (int i = 0; i < d.nbands; ++i) {
    occupied += d.occ_array(i) > 0;
    half += d.occ_array(i) == 0.5;
  }
  o << "derived: occupied bands " << occupied << " (" << half << " at the Fermi level), skipped G' " << skipped
    << ", limittwo " << d.limittwo << ", sexcut " << d.sexcut << "\n";
  o << "updates: " << d.updates() << " (band x G' x G x frequency)\n";
  return o.str();
}

}  // namespace gpp::app
