// `gpp run DECK|--input FILE [--policy NAME|all] [--repeat N] [--json FILE] [--output FILE.h5]`
#include "gpp_cli.hpp"
#include "gpp_compat.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_output.hpp"
#include "gpp_report.hpp"
#include "gpp_static.hpp"

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>

namespace gpp::app {

int cmd_run(const std::vector<std::string>& args) {
  CLI::App app{"Run the GPP kernel on a deck, time it and verify it", "gpp run"};
  DeckParams deck;
  Tunables tunables;
  std::string policy = default_policy_name(), json_path, verify = "auto", input_path, output_path;
  int repeat = 3, warmup = 1;
  double rtol = kDefaultRtol;
  bool no_branch_stats = false;
  add_deck_options(app, deck);
  app.add_option("--policy", policy, "Execution policy (gpp policies), a comma-separated list, or all")
      ->capture_default_str();
  add_timing_options(app, repeat, warmup);
  app.add_option("--json", json_path, "Write the run as one JSON record");
  add_input_option(app, input_path);
  app.add_option("--output", output_path, "Write the results to an HDF5 file (.h5)");
  app.add_flag("--no-branch-stats", no_branch_stats, "Skip counting the branches each term takes");
  add_verify_options(app, verify, rtol);
  add_tunable_options(app, tunables);
  if (int rc = parse(app, "run", input_file_as_option(args)); rc >= 0) return rc;

  // Everything that can be refused is checked before anything is printed.
  const auto policies = select_policies(policy);
  check_results_path(output_path);
  const Provenance prov = provenance();
  Session s = open_session(app, deck, input_path, policies, tunables);
  const ExecSpace space;
  print_provenance(prov);
  std::cout << describe_deck(s);
  std::cout << "setup: " << s.setup_s << " s (generate/read, check, derive); transfer to device: " << s.transfer_s
            << " s; data on the device: " << gib(double(s.device.bytes())) << "\n";
  if (!s.synthetic) std::cout << describe_read(s);

  if (!no_branch_stats) {
    s.branches = branch_statistics(space, s.device);
    const auto& b = *s.branches;
    const double n = double(b.total());
    std::cout << std::setprecision(4) << "branches: regular " << 100 * b.regular / n << "%, near-pole "
              << 100 * b.near_pole / n << "%, zero " << 100 * b.zero / n << "%; sexcut cutoff " << 100 * b.cut / n
              << "% of " << b.total() << " terms\n"
              << std::setprecision(6);
  }
  {
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    s.achstemp = static_remainder(space, s.device);
    space.fence();
    s.static_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  prepare_reference(s, parse_verify_mode(verify), rtol);
  if (s.target.performed())
    std::cout << "verifying against the " << s.target.against << " (tolerance " << s.target.tolerance << ", took "
              << s.reference_s << " s)\n";

  std::vector<PolicyRun> runs;
  for (const PolicyEntry* e : policies)
    runs.push_back(run_policy(s, *e, policies.size() == 1 ? tunables : tunables_for(*e, tunables), repeat, warmup));

  const double updates = s.host.updates();
  bool all_ok = true;
  for (const auto& r : runs) all_ok = all_ok && (r.verified || !s.target.performed());

  std::optional<double> achstemp_err;
  if (s.reference_achstemp) achstemp_err = relative_error(s.achstemp, *s.reference_achstemp);
  const bool achstemp_ok = !achstemp_err || *achstemp_err <= s.target.tolerance;
  all_ok = all_ok && achstemp_ok;

  if (runs.size() == 1) {
    const auto& r = runs[0];
    std::cout << "policy: " << r.policy << " (" << describe_tunables(r.tunables) << ")\n";
    for (int w = 0; w < s.host.nw; ++w) {
      std::cout << "achtemp(iw=" << s.host.nstart + w << ") = " << cplx(r.result.achtemp[w]) << "\n";
    }
    for (int w = 0; w < s.host.nw; ++w) {
      std::cout << "asxtemp(iw=" << s.host.nstart + w << ") = " << cplx(r.result.asxtemp[w]) << "\n";
    }
    std::cout << "achstemp = " << cplx(s.achstemp) << " (static remainder, " << s.static_s << " s, "
              << (prov.kokkos_kernels ? "KokkosBlas::gemm" : "built-in product") << ")\n";
    std::cout << std::setprecision(6) << "time: median " << r.median() << " s, min " << r.min() << " s, max " << r.max()
              << " s over " << r.times.size() << " repeats (warm-up excluded, transfers excluded)\n";
    std::cout << "updates/s: " << updates / r.median() << "\n";
  } else {
    std::cout << "\n" << std::left << std::setw(16) << "policy" << std::right << std::setw(13) << "median [s]"
              << std::setw(14) << "updates/s" << std::setw(12) << "rel error" << "  verified\n";
    for (const auto& r : runs)
      std::cout << std::left << std::setw(16) << r.policy << std::right << std::setw(13) << std::setprecision(5)
                << r.median() << std::setw(14) << std::setprecision(4) << updates / r.median() << std::setw(12)
                << std::setprecision(2) << r.rel_error << "  "
                << (!s.target.performed() ? "n/a" : r.verified ? "yes" : "NO") << "\n";
    std::cout << std::setprecision(6) << "\nachstemp = " << cplx(s.achstemp) << "\n";
  }
  if (s.target.performed()) {
    for (const auto& r : runs)
      std::cout << "verification (" << r.policy << "): against the " << s.target.against << ", relative error "
                << std::setprecision(3) << r.rel_error << " (tolerance " << s.target.tolerance << "): "
                << (r.verified ? "PASSED" : "FAILED") << "\n";
    if (achstemp_err)
      std::cout << "verification (achstemp): relative error " << *achstemp_err << ": "
                << (achstemp_ok ? "PASSED" : "FAILED") << "\n";
  } else {
    std::cout << "verification: not performed (--verify none)\n";
  }
  std::cout << std::setprecision(6);
  if (compat::device_memory_peak() >= 0)
    std::cout << "device memory in use, peak sampled: " << gib(double(compat::device_memory_peak()))
              << " (whole device, context included)\n";
  for (const auto& r : runs)
    std::cout << "RESULT deck=" << s.params.name << " policy=" << r.policy << " backend=" << prov.backend
              << " nw=" << s.host.nw << " time_median_s=" << r.median() << " updates_per_s=" << updates / r.median()
              << " rel_error=" << std::setprecision(3) << r.rel_error << std::setprecision(6)
              << " verified=" << (!s.target.performed() ? "skipped" : r.verified ? "yes" : "no") << "\n";

  if (!json_path.empty()) {
    Json j;
    j.begin_object();
    json_provenance(j, prov);
    json_deck(j, s);
    j.value("setup_s", s.setup_s).value("read_s", s.read_s).value("transfer_s", s.transfer_s).value("static_s", s.static_s);
    j.value("data_bytes", (long long)s.device.bytes()).value("device_mem_peak_bytes", compat::device_memory_peak());
    j.complex_array("achstemp", {s.achstemp});
    if (s.branches) {
      const auto& b = *s.branches;
      j.begin_object("branches")
          .value("regular", (long long)b.regular)
          .value("near_pole", (long long)b.near_pole)
          .value("zero", (long long)b.zero)
          .value("cutoff", (long long)b.cut)
          .end_object();
    }
    j.begin_object("verification_target")
        .value("against", s.target.against)
        .value("tolerance", s.target.tolerance)
        .value("reference_s", s.reference_s);
    if (s.target.performed()) {
      j.complex_array("achtemp", s.reference.achtemp).complex_array("asxtemp", s.reference.asxtemp);
    }
    if (achstemp_err) j.value("achstemp_rel_error", *achstemp_err);
    j.end_object();
    j.begin_array("runs");
    for (const auto& r : runs) {
      j.begin_object()
          .value("policy", r.policy)
          .value("tunables", describe_tunables(r.tunables))
          .complex_array("achtemp", r.result.achtemp)
          .complex_array("asxtemp", r.result.asxtemp)
          .value("repeats", int(r.times.size()))
          .value("time_median_s", r.median())
          .value("time_min_s", r.min())
          .value("time_max_s", r.max())
          .value("updates_per_s", updates / r.median())
          .value("rel_error", r.rel_error)
          .value("verified", r.verified)
          .end_object();
    }
    j.end_array();
    j.value("passed", all_ok);
    j.end_object();
    write_file_atomically(json_path, j.str());
  }
  if (!output_path.empty()) write_results_h5(output_path, s, runs, prov, all_ok, achstemp_err);
  return all_ok ? 0 : 2;
}

}  // namespace gpp::app
