#include "gpp_estimate.hpp"

#include <map>
#include <thread>

namespace gpp::session {
namespace {

// One host thread's rate and a device's, updates per second.
struct Rates {
  double host_thread, device;
};

// Per host thread about a third of what one AMD EPYC core (Serial) and each of 16 OpenMP
// threads of an AVX-512 Intel host reached; per device about a quarter of an H100's
// (docs/measurements/bench-si214-h100.csv).
const std::map<std::string, Rates>& rate_table() {
  static const std::map<std::string, Rates> table = {
      {"v0-collapse3", {1.0e7, 5e9}},  {"v1-reciprocal", {1.5e7, 1e10}},
      {"v2-branch2", {2e7, 1e10}},     {"v3-noabs", {3e7, 1.2e10}},
      {"v4-collapse2", {3e7, 2e10}},   {"v5-iw-outside", {1.5e7, 1.2e10}},
      {"v6-blocked", {1.5e7, 2.5e10}}, {"v7-swapped", {1.5e7, 3e10}},
      {"v8-bounded", {1.5e7, 2.5e10}}, {"tuned", {3e7, 1.2e11}},
      {"host", {2e8, 2e10}},
  };
  return table;
}
constexpr Rates kUnknownPolicy{1e7, 5e9};  // a policy the table does not name: as slow as v0

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

double prior_reference_rate(SpaceKind k) { return rate({7e7, 1e10}, k); }

double prior_static_rate(SpaceKind k) { return rate({2e8, 2e10}, k); }

double prior_setup_rate() { return 1e8 * host_threads(); }

}  // namespace gpp::session
