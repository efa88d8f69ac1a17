#pragma once
// What every backend file of the seam (gpp_backend.hpp) answers with: the hardware of an
// execution space, the devices a process sees, where a device sits on its node and its
// memory. Apart from gpp_backend.hpp so that each backend file includes what it names,
// and the seam includes the backend files: one direction, no cycle.
#include <string>

namespace gpp::backend {

/// What the program reports about the hardware an execution space runs on.
struct Properties {
  std::string name;           // the GPU's name, or the host CPU's model name
  double memory_bytes = 0;    // device memory (0 on the host)
  double l1_bytes = 0;        // per multiprocessor / compute unit, or per core (0: unknown)
  double l2_bytes = 0;        // GPU: whole chip; host: per core
  double l3_bytes = 0;        // host: as sysconf reports it
  int units = 0;              // multiprocessors, compute units, or host threads
  int simd_width = 1;         // threads issued together: a warp (32), a wavefront (64); 1 on the host
  int max_block_threads = 0;  // most threads of one block; 0: no such limit (host)
  double clock_mhz = 0;       // GPU clock (max), 0 when unknown
  std::string source;         // where the numbers come from
};

/// Devices this process sees: their number, and when there are none, the runtime's reason.
struct Visible {
  int count = 0;
  std::string problem;
};

/// Where a device sits on its node: `key` is equal for two ranks that drive one GPU
/// (its PCI address), `line` names it for the placement output.
struct Placement {
  std::string key, line;
};

/// Free and total bytes of the device Kokkos drives; -1 when unknown or without a device.
struct Memory {
  long long free = -1, total = -1;
};

}  // namespace gpp::backend
