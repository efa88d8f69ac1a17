// `gpp ceilings [--space device|host] [--json FILE] [--quick]`: the machine's FP64 FMA
// peak and the bandwidth of each memory level, measured with Kokkos on the chosen space
// (docs/roofline.md); the JSON every roofline chart reads (docs/formats.md).
#include "gpp_backend.hpp"
#include "gpp_cli.hpp"
#include "gpp_record.hpp"
#include "gpp_outputs.hpp"
#include "gpp_roofline.hpp"
#include "gpp_runtime.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpp::app {

int cmd_ceilings(const std::vector<std::string>& args) {
  CLI::App app{"Measure the FP64 peak and the bandwidth of each memory level (ERT-like, with Kokkos)", "gpp ceilings"};
  std::string space_name, json_path;
  bool quick = false;
  add_space_option(app, space_name);
  app.add_option("--json", json_path, "Write the ceilings as JSON (docs/formats.md)");
  app.add_flag("--quick", quick, "Small sizes and short runs (tests): the values are rough");
  if (int rc = parse(app, "ceilings", args); rc >= 0) return rc;
  const SpaceKind kind = space_name.empty() ? default_space() : parse_space(space_name);
  check_files({}, {{"--json", json_path}});
  runtime::start();

  CeilingsFile c;
  c.date = utc_now();
  const BuildInfo b = build_info();
  c.version = b.version;
  c.git = b.git;
  with_space(kind, [&](auto space) {
    const bool host = kind == SpaceKind::Host;
    const backend::Properties caches = backend::properties(space);
    c.device = caches.name;
    c.backend = space.name();
    c.space = to_string(kind);
    c.clock_mhz = caches.clock_mhz;
    c.multiprocessors = host ? 0 : caches.units;
    c.concurrency = space.concurrency();
    if (!host) {
      const backend::Memory m = backend::device_memory();  // before this command allocates anything
      c.memory_bytes = double(m.total);
      c.memory_free_bytes = double(m.free);
    }
    // Run time: the FMA launches last >= 0.05 s (host 0.1 s) each; the sweep reads
    // >= 2 GB (host 0.25 GB) per launch and 4 launches per working set.
    c.fp64 = ceilings::fma_peak(space, quick ? 2 : 5, quick ? 0.002 : host ? 0.1 : 0.05);
    const double max_bytes = quick ? 4.0 * 1048576 : host ? 1073741824.0 : 2147483648.0;
    const double per_trial = quick ? 8.0 * 1048576 : host ? 0.25e9 : 2e9;
    std::string method;
    // From 8 KiB on the host (inside one core's L1), 32 KiB on a GPU (inside the L1s).
    c.sweep = ceilings::bandwidth_sweep(space, host ? 8192.0 : 32768.0, max_bytes, per_trial, quick ? 2 : 3, method);
    std::string rotated_method;
    if (!host)
      c.sweep_rotated = ceilings::bandwidth_sweep(space, 32768.0, max_bytes, per_trial, quick ? 2 : 3, rotated_method, true);
    c.bandwidth = pick_levels(c.sweep, caches, host, c.sweep_rotated);
    // The link the G' chunks stream over (docs/mpi.md): 1 GiB each way.
    if constexpr (kind_of<decltype(space)>() == SpaceKind::Device)
      c.host_link = ceilings::host_link(space, quick ? 8.0 * 1048576 : 1073741824.0, quick ? 2 : 5, c.host_link_method);
    for (auto& l : c.bandwidth)
      l.method = (l.method.find("rotated") != std::string::npos ? rotated_method : method) + "; level: " + l.method +
                 " (cache sizes: " + caches.source + ")";
  });

  // The file first: a failed write is the one line printed.
  if (!json_path.empty()) write_file_atomically(json_path, to_json(c));
  std::ostringstream out;
  out << "device: " << c.device << " (" << c.backend << ", " << c.space << " space)\n";
  if (c.memory_bytes > 0)
    out << std::setprecision(4) << "device memory: " << c.memory_bytes / 1073741824.0 << " GiB, "
        << c.memory_free_bytes / 1073741824.0 << " GiB free\n";
  out << std::setprecision(4) << "FP64 FMA peak: " << c.fp64.value << " GFLOP/s (" << c.fp64.method << ")\n";
  for (const auto& l : c.bandwidth)
    out << std::left << std::setw(5) << l.level << std::right << std::setw(10) << l.gbs << " GB/s at "
              << l.working_set_bytes << " bytes\n";
  out << "sweep (working set bytes: GB/s):";
  for (const auto& p : c.sweep) out << " " << (long long)p.working_set_bytes << ": " << p.gbs;
  out << "\n";
  for (const auto& p : c.host_link)
    out << "link, " << p.direction << " (" << p.memory << " host memory): " << p.gbs << " GB/s\n";
  if (!c.sweep_rotated.empty()) {
    out << "rotated sweep (no L1 reuse):";
    for (const auto& p : c.sweep_rotated) out << " " << (long long)p.working_set_bytes << ": " << p.gbs;
    out << "\n";
  }
  std::cout << out.str() << std::flush;
  return 0;
}

}  // namespace gpp::app
