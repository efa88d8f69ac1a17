#include "gpp_session.hpp"

#include "gpp_compat.hpp"
#include "gpp_device_reference.hpp"
#include "gpp_reference.hpp"
#include "gpp_static.hpp"

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

Session make_session(const DeckParams& p) {
  Session s;
  s.params = p;
  {
    compat::ScopedRegion region("gpp::setup");
    const auto t0 = std::chrono::steady_clock::now();
    s.input = generate(p);
    s.source = p.generator + " generator";
    s.synthetic = true;
    s.host = derive(s.input);
    s.setup_s = seconds_since(t0);
  }
  transfer_to_device(s);
  return s;
}

void transfer_to_device(Session& s) {
  compat::ScopedRegion region("gpp::transfer");
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  s.device = to_memory_space<DeviceMemory>(s.host);
  Kokkos::fence();
  s.transfer_s = seconds_since(t0);
  compat::sample_device_memory();
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
    s.target.against = "device reference";
    s.reference = apply_start_values(device_reference_sums(ExecSpace(), s.device), s.input.asxtemp0, s.input.achtemp0);
  }
  s.reference_s = seconds_since(t0);
}

double PolicyRun::min() const { return times.empty() ? NAN : *std::min_element(times.begin(), times.end()); }
double PolicyRun::max() const { return times.empty() ? NAN : *std::max_element(times.begin(), times.end()); }
double PolicyRun::median() const {
  if (times.empty()) return NAN;
  std::vector<double> t = times;
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

PolicyRun run_policy(const Session& s, const PolicyEntry& entry, const Tunables& t, int repeat, int warmup) {
  check_tunables(entry, t);
  PolicyRun r;
  r.policy = entry.name;
  r.tunables = t;
  const ExecSpace space;
  compat::ScopedRegion region("gpp::policy::" + entry.name);
  auto once = [&] {
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    SigmaSums sums = entry.run(space, s.device, t);
    space.fence();
    const double dt = seconds_since(t0);
    return std::make_pair(apply_start_values(sums, s.input.asxtemp0, s.input.achtemp0), dt);
  };
  auto check = [&](const SigmaResult& res) {
    if (!s.target.performed()) return;
    const double e = relative_error(res, s.reference);
    r.rel_error = std::isnan(e) ? INFINITY : std::max(r.rel_error, e);
  };
  for (int i = 0; i < warmup; ++i) {  // module load, first touch, allocations
    auto warm = once();
    check(warm.first);
  }
  for (int i = 0; i < repeat; ++i) {
    auto [res, dt] = once();
    r.times.push_back(dt);
    compat::sample_device_memory();
    check(res);
    r.result = std::move(res);
  }
  r.verified = s.target.performed() && r.rel_error <= s.target.tolerance;
  return r;
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
