#pragma once
// Start-up under MPI (docs/mpi.md): one GPU per rank by node-local rank, each rank's host
// and device printed, two ranks on one GPU refused unless asked for.
#include <string>
#include <vector>

namespace gpp::session {

/// The arguments Kokkos and gpp see: argv without --allow-shared-device (which sets
/// `allow_shared_device`, also kept for shared_device_allowed()), and, in a GPU build run on several ranks where neither an
/// option nor a variable chooses the device, --kokkos-device-id=LOCAL_RANK % DEVICES
/// (Kokkos 3.4 otherwise puts every rank on device 0).
std::vector<std::string> startup_arguments(int argc, char* argv[], bool& allow_shared_device);

/// Whether the command line had --allow-shared-device (startup_arguments).
bool shared_device_allowed();

/// Collective, after Kokkos started (prepare() of run, bench, sweep, tune and roofline
/// calls it once every rank has started): every rank's placement gathered (mpi::placement()),
/// printed by rank 0 when there are several ranks; throws mpi::CollectiveError on every
/// rank when two ranks drive one GPU and `allow_shared_device` is false.
void check_placement(bool allow_shared_device);

/// "" when no two non-empty keys (one per rank, "HOST PCI-ADDRESS" of its GPU; empty for
/// ranks without a device) are equal or `allow_shared_device`; else the refusal naming the
/// first two ranks that share a GPU.
std::string shared_device_error(const std::vector<std::string>& keys, bool allow_shared_device);

/// An error one rank met outside a collective step: printed with the rank, then every
/// rank ends (MPI_Abort); on one rank, the usual line and `code`.
int fail_this_rank(const std::string& command, const std::string& message, int code = 1);

}  // namespace gpp::session
