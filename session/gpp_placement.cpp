#include "gpp_placement.hpp"

#include "gpp_backend.hpp"
#include "gpp_mpi.hpp"
#include "gpp_spaces.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

namespace gpp::session {
namespace {

// Options and variables with which the user (or the launcher) chooses the device.
bool device_chosen(const std::vector<std::string>& args) {
  for (const char* var :
       {"KOKKOS_DEVICE_ID", "KOKKOS_NUM_DEVICES", "KOKKOS_MAP_DEVICE_ID_BY", "KOKKOS_VISIBLE_DEVICES"})
    if (std::getenv(var)) return true;
  for (const std::string& a : args) {
    const std::string name = a.substr(0, a.find('='));
    for (const char* option :
         {"--kokkos-device-id", "--kokkos-device", "--device-id", "--device", "--kokkos-num-devices",
          "--kokkos-ndevices", "--num-devices", "--ndevices", "--kokkos-map-device-id-by"})
      if (name == option) return true;
  }
  return false;
}

bool& shared_device_flag() {
  static bool allowed = false;
  return allowed;
}

}  // namespace

bool shared_device_allowed() { return shared_device_flag(); }

std::vector<std::string> startup_arguments(int argc, char* argv[], bool& allow_shared_device) {
  std::vector<std::string> args;
  allow_shared_device = false;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::string(argv[i]) == "--allow-shared-device") {
      allow_shared_device = true;
      shared_device_flag() = true;
      continue;
    }
    args.emplace_back(argv[i]);
  }
  if (kHasDeviceSpace && mpi::size() > 1 && !device_chosen(args)) {
    if (const int n = backend::visible_devices().count; n > 0)
      args.push_back("--kokkos-device-id=" + std::to_string(mpi::local_rank() % n));
  }
  return args;
}

void check_placement(bool allow_shared_device) {
  const auto [key, device] = backend::placement();
  std::ostringstream o;
  o << "rank " << mpi::rank() << " of " << mpi::size() << ": host " << mpi::host_name() << " (local rank "
    << mpi::local_rank() << " of " << mpi::local_size() << "), " << device;
  mpi::placement() = mpi::gather(o.str());
  const std::vector<std::string> keys = mpi::gather(key.empty() ? std::string() : mpi::host_name() + " " + key);
  if (mpi::size() > 1 && mpi::rank() == 0)
    for (const std::string& line : mpi::placement()) std::cout << line << "\n";
  // Every rank computes the same error from the same gathered keys.
  if (const std::string error = shared_device_error(keys, allow_shared_device); !error.empty())
    throw mpi::CollectiveError(error);
}

std::string shared_device_error(const std::vector<std::string>& keys, bool allow_shared_device) {
  if (allow_shared_device) return "";
  std::map<std::string, int> first_rank;
  for (int r = 0; r < int(keys.size()); ++r) {
    if (keys[r].empty()) continue;
    const auto [it, fresh] = first_rank.emplace(keys[r], r);
    if (!fresh)
      return "ranks " + std::to_string(it->second) + " and " + std::to_string(r) + " would share one GPU (" + keys[r] +
             "): start at most one rank per GPU, or pass --allow-shared-device";
  }
  return "";
}

int fail_this_rank(const std::string& command, const std::string& message, int code) {
  if (mpi::size() == 1) {
    std::cerr << "gpp " << command << ": error: " << message << "\n";
    return code;
  }
  std::fprintf(stderr, "gpp %s: error (rank %d of %d): %s\n", command.c_str(), mpi::rank(), mpi::size(),
               message.c_str());
  std::fflush(stderr);
  return mpi::abort_all(code);
}

}  // namespace gpp::session
