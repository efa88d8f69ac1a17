#pragma once
// The backend seam (gpp_backend.hpp) for the CPU: the host execution space of every build
// (Serial, OpenMP, Threads), and NoDevice, what a build without a device space answers.
// Included by gpp_backend.hpp only.
#include "gpp_backend_types.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

namespace gpp::backend {

/// The value of the first line of /proc/cpuinfo that starts with `key`, or "" (no such
/// line, no value, or no /proc/cpuinfo).
inline std::string cpuinfo_field(const std::string& key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && line.find_first_not_of(' ', colon + 1) != std::string::npos)
        return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "";
}

/// The host CPU's model name (/proc/cpuinfo), or "unknown host CPU".
inline std::string host_cpu_name() {
  const std::string name = cpuinfo_field("model name");
  return name.empty() ? "unknown host CPU" : name;
}

/// The host CPU's vendor as /proc/cpuinfo's vendor_id gives it (GenuineIntel, AuthenticAMD),
/// or "" (other CPUs, other systems).
inline std::string host_cpu_vendor() { return cpuinfo_field("vendor_id"); }

struct Host {
  template <class ExecSpace>
  static Properties properties(const ExecSpace& space) {
    Properties p;
    p.name = host_cpu_name();
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
               l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    p.l1_bytes = l1 > 0 ? double(l1) : 32768.0;
    p.l2_bytes = l2 > 0 ? double(l2) : 1048576.0;
    p.l3_bytes = l3 > 0 ? double(l3) : 0.0;
    p.units = space.concurrency();
    p.source = l1 > 0 && l2 > 0 ? "sysconf (_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE)"
                                : "fallback sizes (sysconf gave none): L1 32 KiB, L2 1 MiB per core";
    return p;
  }

  template <class ExecSpace>
  static Placement placement(const ExecSpace& space) {
    return {"", "host space " + std::string(space.name()) + " (" + std::to_string(space.concurrency()) +
                    " threads): " + host_cpu_name()};
  }
};

/// Times work on a host execution space, which runs a copy synchronously: the clock
/// around it (the QueueTimer of gpp_backend.hpp on the host).
class HostQueueTimer {
 public:
  template <class ExecSpace>
  void start(const ExecSpace&) {
    t0_ = std::chrono::steady_clock::now();
  }
  template <class ExecSpace>
  void stop(const ExecSpace&) {
    t1_ = std::chrono::steady_clock::now();
  }
  double seconds() const { return std::chrono::duration<double>(t1_ - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_, t1_;
};

/// The device backend of a build without one: no devices, no markers (properties and
/// placement are never asked of it: every space of such a build is the host's).
struct NoDevice {
  static constexpr const char* kName = "";
  static constexpr bool kMarkers = false;
  using PinnedSpace = Kokkos::HostSpace;
  using QueueTimer = HostQueueTimer;
  static std::string target() { return ""; }
  static Visible visible() { return {}; }
  template <class ExecSpace>
  static Properties properties(const ExecSpace& space) {
    return Host::properties(space);
  }
  template <class ExecSpace>
  static Placement placement(const ExecSpace& space) {
    return Host::placement(space);
  }
  static Memory memory() { return {}; }
  static void push_marker(const char*) {}
  static void pop_marker() {}
};

}  // namespace gpp::backend
