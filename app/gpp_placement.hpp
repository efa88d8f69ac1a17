#pragma once
// Start-up under MPI (docs/mpi.md): one GPU per rank by node-local rank, each rank's host
// and device printed, two ranks on one GPU refused unless asked for.
#include <string>
#include <vector>

namespace gpp::app {

/// The arguments Kokkos and gpp see: argv without --allow-shared-device (which sets
/// `allow_shared_device`), and, in a GPU build run on several ranks where neither an
/// option nor a variable chooses the device, --kokkos-device-id=LOCAL_RANK % DEVICES
/// (Kokkos 3.4 otherwise puts every rank on device 0).
std::vector<std::string> startup_arguments(int argc, char* argv[], bool& allow_shared_device);

/// Collective, after Kokkos started: every rank's placement gathered (mpi::placement()),
/// printed by rank 0 when there are several ranks; throws mpi::CollectiveError on every
/// rank when two ranks drive one GPU and `allow_shared_device` is false.
void check_placement(bool allow_shared_device);

/// An error one rank met outside a collective step: printed with the rank, then every
/// rank ends (MPI_Abort); on one rank, the usual line and `code`.
int fail_this_rank(const std::string& command, const std::string& message, int code = 1);

}  // namespace gpp::app
