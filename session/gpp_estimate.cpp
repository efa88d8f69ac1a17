#include "gpp_estimate.hpp"

#include <map>
#include <thread>

namespace gpp::session {
namespace {

// One host thread's rate and a device's, updates per second.
struct Rates {
  double host_thread, device;
};

// Per host thread about 0.6 of what one AMD EPYC core (Serial) reached and what each of
// 16 OpenMP threads of an AVX-512 Intel host reached (they are within 1.5x of each other);
// per device about half of an H100's (docs/measurements/bench-si214-h100.csv): an
// estimate errs long, by less than 2x on those machines (docs/lab/cpu-host.md).
const std::map<std::string, Rates>& rate_table() {
  static const std::map<std::string, Rates> table = {
      {"v0-collapse3", {3e7, 1e10}},   {"v1-reciprocal", {5e7, 2.2e10}},
      {"v2-branch2", {4.5e7, 2.2e10}}, {"v3-noabs", {5e7, 2.5e10}},
      {"v4-collapse2", {6e7, 4e10}},   {"v5-iw-outside", {6e7, 2.8e10}},
      {"v6-blocked", {5e7, 5e10}},     {"v7-swapped", {5e7, 6.5e10}},
      {"v8-bounded", {5e7, 5e10}},     {"tuned", {1.2e8, 2.5e11}},
      {"host", {6e8, 2e10}},
  };
  return table;
}
constexpr Rates kUnknownPolicy{3e7, 1e10};  // a policy the table does not name: as slow as v0

double host_threads() {
  // Before Kokkos starts (a setup estimate) an OpenMP instance cannot be made (Kokkos 4
  // prints an error): the hardware's threads stand in for the space's.
  const int n = Kokkos::is_initialized() ? HostExec().concurrency() : int(std::thread::hardware_concurrency());
  return n > 0 ? double(n) : 1.0;
}

double rate(const Rates& r, SpaceKind k) {
  return k == SpaceKind::Device && kHasDeviceSpace ? r.device : r.host_thread * host_threads();
}

}  // namespace

double prior_update_rate(const std::string& policy, SpaceKind k) {
  const auto it = rate_table().find(policy);
  return rate(it == rate_table().end() ? kUnknownPolicy : it->second, k);
}

// The fast reference: 3.1e8 to 3.8e8 updates/s on the EPYC core, 2.6e8 per Intel thread.
double prior_reference_rate(SpaceKind k) { return rate({1.8e8, 1e10}, k); }

// The static remainder: 6e8 to 9e8 multiply-adds/s on the EPYC core, 9.6e8 per Intel thread.
double prior_static_rate(SpaceKind k) { return rate({5e8, 2e10}, k); }

// Generating and deriving a deck: 1e9 bytes/s per Intel thread, about 2e9 on the EPYC core.
double prior_setup_rate() { return 6e8 * host_threads(); }

}  // namespace gpp::session
