// `gpp ceilings [--space device|host] [--json FILE] [--quick]`: the machine's FP64 FMA
// peak and the bandwidth of each memory level, measured with Kokkos on the chosen space
// (docs/roofline.md); the JSON every roofline chart reads (docs/formats.md).
#include "gpp_backend.hpp"
#include "gpp_campaign.hpp"
#include "gpp_cli.hpp"
#include "gpp_record.hpp"
#include "gpp_outputs.hpp"
#include "gpp_roofline.hpp"
#include "gpp_runtime.hpp"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpp::commands {
using files::check_files;
using files::write_file_atomically;
using measure::CeilingsFile;
using measure::pick_levels;
using record::BuildInfo;
using record::this_build;
using record::utc_now;

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
  const BuildInfo b = this_build();
  c.version = b.version;
  c.git = b.git;
  // Its points: the FMA peak, then each working set of the sweep (and of the rotated
  // sweep on a GPU), each printed as it is measured.
  const bool host = kind == SpaceKind::Host;
  const double min_bytes = host ? 8192.0 : 32768.0;  // inside one core's L1 / inside the L1s
  const double max_bytes = quick ? 4.0 * 1048576 : host ? 1073741824.0 : 2147483648.0;
  const std::size_t sizes = std::size_t(std::floor(std::log2(max_bytes * 1.0001 / min_bytes))) + 1;
  const std::size_t points = 1 + sizes * (host ? 1 : 2) + (host ? 0 : 1);
  Campaign run("ceilings", args, points);
  if (!runtime::thread_note().empty()) std::cout << runtime::thread_note() << "\n";
  std::cout << "measuring the ceilings of the " << to_string(kind) << " space: the FP64 FMA peak, then a bandwidth "
            << "sweep of " << sizes << " working sets"
            << (host ? "" : " (twice: plain and rotated), then the host-device link") << "\n"
            << std::flush;
  if (!json_path.empty()) run.written_at_end("--json " + json_path);
  with_space(kind, [&](auto space) {
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
    run.next("FP64 FMA peak");
    c.fp64 = measure::ceilings::fma_peak(space, quick ? 2 : 5, quick ? 0.002 : host ? 0.1 : 0.05);
    std::ostringstream fma;
    fma << std::setprecision(4) << "FP64 FMA peak: " << c.fp64.value << " GFLOP/s";
    run.done("", fma.str());
    const double per_trial = quick ? 8.0 * 1048576 : host ? 0.25e9 : 2e9;
    auto point = [&](const char* which) {
      return [&run, points, which](const measure::ceilings::SweepPoint& p) {
        std::ostringstream line;
        line << std::setprecision(4) << which << (long long)p.working_set_bytes << " bytes: " << p.gbs << " GB/s";
        run.done("", line.str());
        if (run.measured() < points) run.next(which);  // the sweep reports each point after it
      };
    };
    std::string method;
    run.next("bandwidth sweep");
    c.sweep = measure::ceilings::bandwidth_sweep(space, min_bytes, max_bytes, per_trial, quick ? 2 : 3, method, false,
                                                 point("sweep, working set "));
    std::string rotated_method;
    if (!host)
      c.sweep_rotated = measure::ceilings::bandwidth_sweep(space, min_bytes, max_bytes, per_trial, quick ? 2 : 3,
                                                           rotated_method, true, point("rotated sweep, working set "));
    c.bandwidth = pick_levels(c.sweep, caches, host, c.sweep_rotated);
    // The link the G' chunks stream over (docs/mpi.md): 1 GiB each way.
    if constexpr (kind_of<decltype(space)>() == SpaceKind::Device) {
      run.next("host-device link");
      c.host_link =
          measure::ceilings::host_link(space, quick ? 8.0 * 1048576 : 1073741824.0, quick ? 2 : 5, c.host_link_method);
      std::ostringstream line;
      line << std::setprecision(4) << "host-device link:";
      for (const auto& p : c.host_link) line << " " << p.direction << " (" << p.memory << "): " << p.gbs << " GB/s;";
      run.done("", line.str());
    }
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

}  // namespace gpp::commands
