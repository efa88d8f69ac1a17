// `gpp bench DECK --policies LIST [--repeat N] [--csv FILE] [--json FILE]`: for each
// policy a warm-up and N fenced, timed repeats (transfers excluded), every run verified.
#include "gpp_cli.hpp"
#include "gpp_compat.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_output.hpp"
#include "gpp_report.hpp"
#include "gpp_static.hpp"

#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpp::app {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string o = "\"";
  for (char c : v) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

/// The fixed CSV header of `gpp bench --csv`.
const char* const kBenchCsvHeader =
    "date,git,version,kokkos,backend,device,deck,nbands,ngpown,ncouls,nw,updates,policy,tunables,repeats,"
    "time_median_s,time_min_s,time_max_s,updates_per_s,nominal_tflops,rel_error,tolerance,verified,against,"
    "transfer_s,data_bytes,device_mem_peak_bytes";

int cmd_bench(const std::vector<std::string>& args) {
  CLI::App app{"Benchmark policies on a deck: warm-up, timed repeats, every run verified", "gpp bench"};
  DeckParams deck;
  Tunables tunables;
  std::string policies = "all", csv_path, json_path, verify = "auto", input_path;
  int repeat = 5, warmup = 1;
  double rtol = kDefaultRtol;
  add_deck_options(app, deck);
  app.add_option("--policies,--policy", policies, "Comma-separated policies, or all")->capture_default_str();
  add_timing_options(app, repeat, warmup);
  app.add_option("--csv", csv_path, "Write one CSV row per policy (fixed header)");
  app.add_option("--json", json_path, "Write the rows as one JSON record");
  add_input_option(app, input_path);
  add_verify_options(app, verify, rtol);
  add_tunable_options(app, tunables);
  if (int rc = parse(app, "bench", input_file_as_option(args)); rc >= 0) return rc;

  const auto selected = select_policies(policies);
  const Provenance prov = provenance();
  Session s = open_session(app, deck, input_path, selected, tunables);

  print_provenance(prov);
  std::cout << describe_deck(s);
  std::cout << "data on the device: " << gib(double(s.device.bytes())) << "; transfer " << s.transfer_s << " s\n";
  prepare_reference(s, parse_verify_mode(verify), rtol);
  std::cout << "verifying every run against the " << s.target.against << " (tolerance " << s.target.tolerance
            << ", took " << s.reference_s << " s)\n"
            << "nominal FLOP rate: " << kNominalFlopsPerUpdate << " FLOPs per update (the paper's count, see docs)\n\n";

  const double updates = s.host.updates();
  std::cout << std::left << std::setw(15) << "policy" << std::right << std::setw(12) << "median [s]" << std::setw(12)
            << "min [s]" << std::setw(12) << "max [s]" << std::setw(12) << "updates/s" << std::setw(10) << "TFLOP/s"
            << std::setw(11) << "rel err" << "  verified\n";
  std::vector<PolicyRun> runs;
  bool all_ok = true;
  for (const PolicyEntry* e : selected) {
    runs.push_back(run_policy(s, *e, selected.size() == 1 ? tunables : tunables_for(*e, tunables), repeat, warmup));
    const PolicyRun& r = runs.back();
    const bool ok = r.verified || !s.target.performed();
    all_ok = all_ok && ok;
    std::cout << std::left << std::setw(15) << r.policy << std::right << std::setprecision(5) << std::setw(12)
              << r.median() << std::setw(12) << r.min() << std::setw(12) << r.max() << std::setprecision(4)
              << std::setw(12) << updates / r.median() << std::setprecision(3) << std::setw(10)
              << updates * kNominalFlopsPerUpdate / r.median() / 1e12 << std::setprecision(2) << std::setw(11)
              << r.rel_error << "  " << (!s.target.performed() ? "n/a" : r.verified ? "yes" : "NO") << std::endl;
  }
  const long long peak = compat::device_memory_peak();
  std::cout << std::setprecision(6) << "\ndevice memory in use, peak sampled: " << gib(double(peak))
            << " (whole device, context included)\n";
  for (const auto& r : runs)
    std::cout << "RESULT deck=" << s.params.name << " policy=" << r.policy << " backend=" << prov.backend
              << " time_median_s=" << r.median() << " updates_per_s=" << updates / r.median()
              << " rel_error=" << std::setprecision(3) << r.rel_error << std::setprecision(6)
              << " verified=" << (!s.target.performed() ? "skipped" : r.verified ? "yes" : "no") << "\n";

  const std::string date = utc_now();
  if (!csv_path.empty()) {
    std::ostringstream o;
    o << kBenchCsvHeader << "\n" << std::setprecision(17);
    for (const auto& r : runs) {
      o << date << "," << csv_field(prov.git_hash) << "," << prov.version << "," << prov.kokkos_version << ","
        << prov.backend << "," << csv_field(prov.device) << "," << csv_field(s.params.name) << "," << s.host.nbands
        << "," << s.host.ngpown << "," << s.host.ncouls << "," << s.host.nw << "," << updates << "," << r.policy << ","
        << csv_field(describe_tunables(r.tunables)) << "," << r.times.size() << "," << r.median() << "," << r.min()
        << "," << r.max() << "," << updates / r.median() << "," << updates * kNominalFlopsPerUpdate / r.median() / 1e12
        << "," << r.rel_error << "," << s.target.tolerance << ","
        << (!s.target.performed() ? "skipped" : r.verified ? "yes" : "no") << "," << csv_field(s.target.against) << ","
        << s.transfer_s << "," << s.device.bytes() << "," << peak << "\n";
    }
    write_file_atomically(csv_path, o.str());
  }
  if (!json_path.empty()) {
    Json j;
    j.begin_object().value("date", date);
    json_provenance(j, prov);
    json_deck(j, s);
    j.value("nominal_flops_per_update", kNominalFlopsPerUpdate)
        .value("transfer_s", s.transfer_s)
        .value("data_bytes", (long long)s.device.bytes())
        .value("device_mem_peak_bytes", peak)
        .value("verified_against", s.target.against)
        .value("tolerance", s.target.tolerance);
    j.begin_array("rows");
    for (const auto& r : runs) {
      j.begin_object()
          .value("policy", r.policy)
          .value("tunables", describe_tunables(r.tunables))
          .value("repeats", int(r.times.size()))
          .value("time_median_s", r.median())
          .value("time_min_s", r.min())
          .value("time_max_s", r.max());
      j.begin_array("times_s");
      for (double t : r.times) j.value("", t);
      j.end_array();
      j.value("updates_per_s", updates / r.median())
          .value("nominal_tflops", updates * kNominalFlopsPerUpdate / r.median() / 1e12)
          .value("rel_error", r.rel_error)
          .value("verified", r.verified)
          .complex_array("achtemp", r.result.achtemp)
          .complex_array("asxtemp", r.result.asxtemp)
          .end_object();
    }
    j.end_array().value("passed", all_ok).end_object();
    write_file_atomically(json_path, j.str());
  }
  return all_ok ? 0 : 2;
}

}  // namespace gpp::app
