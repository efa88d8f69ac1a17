// `gpp bench DECK --policies LIST [--space device|host] [--repeat N] [--csv FILE]
//  [--json FILE]`: for each policy a warm-up and N fenced, timed repeats (transfers
// excluded), every run verified; a table, CSV rows and a JSON record.
#include "gpp_command.hpp"
#include "gpp_io_cli.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace gpp::app {

/// FLOPs per update used for the nominal FLOP rate: the paper's Nsight Compute count
/// for v8 on Si-214 (3.710 TFLOP/s x 0.717 s / 2.454e10 updates = 108.4; dadd + dmul
/// + 2*dfma, reciprocal Newton steps included). Rates built on it compare directly
/// with the paper's Table I; they are not our kernels' own instruction counts.
inline constexpr double kNominalFlopsPerUpdate = 108.4;

int cmd_bench(const std::vector<std::string>& args) {
  CLI::App app{"Benchmark policies on a deck: warm-up, timed repeats, every run verified", "gpp bench"};
  RunOptions o;
  add_run_options(app, o, "bench");
  if (int rc = parse(app, "bench", input_file_as_option(args)); rc >= 0) return rc;

  Prepared p = prepare(app, o);
  Session& s = p.session;
  PhaseClock clock(s);
  clock.setup_done();
  std::vector<std::string> command_line{"gpp", "bench"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  prepare_reference(s, parse_verify_mode(o.verify), o.rtol);
  clock.verification_done();
  RunRecord rec = make_record("bench", command_line, s);

  // The text is printed after the output files are written (a failed write is the one
  // line); on a terminal, stderr shows which policy runs.
  std::ostringstream out;
  const bool progress = ::isatty(STDERR_FILENO);
  out << describe_deck(s);
  out << "verifying every run against the " << s.target.against << " (tolerance " << s.target.tolerance
            << ", took " << s.reference_s << " s)\n"
            << "nominal FLOP rate: " << kNominalFlopsPerUpdate << " FLOPs per update (the paper's count, see docs)\n\n";
  const double updates = rec.deck.updates;
  out << std::left << std::setw(15) << "policy" << std::setw(8) << "space" << std::right << std::setw(12)
            << "median [s]" << std::setw(12) << "min [s]" << std::setw(12) << "max [s]" << std::setw(12)
            << "updates/s" << std::setw(10) << "TFLOP/s" << std::setw(11) << "rel err" << "  verified\n";
  for (const auto& planned : p.runs) {
    if (progress) std::cerr << "\rgpp bench: " << planned.entry->name << "    " << std::flush;
    rec.runs.push_back(run_policy(s, *planned.entry, planned.space, planned.tunables, o.repeat, o.warmup));
    rec.runs.back().tunables_source = planned.tunables_source;
    const PolicyRun& r = rec.runs.back();
    out << std::left << std::setw(15) << r.policy << std::setw(8) << to_string(r.space.kind) << std::right
              << std::setprecision(5) << std::setw(12) << r.median() << std::setw(12) << r.min() << std::setw(12)
              << r.max() << std::setprecision(4) << std::setw(12) << updates / r.median() << std::setprecision(3)
              << std::setw(10) << updates * kNominalFlopsPerUpdate / r.median() / 1e12 << std::setprecision(2)
              << std::setw(11) << r.rel_error << "  " << (!s.target.performed() ? "n/a" : r.verified ? "yes" : "NO")
              << "\n";
  }
  if (progress) std::cerr << "\r\033[K" << std::flush;
  update_after_runs(rec, s);
  clock.kernels_done();
  rec.time_to_solution = clock.now();
  out << "\n";
  for (const auto& r : rec.runs)
    out << "tunables (" << r.policy << "): " << describe_tunables(r.tunables) << " (from: " << r.tunables_source
        << ")\n";
  out << describe_provenance(rec);
  for (const auto& r : rec.runs) out << result_line(rec, r) << "\n";
  write_outputs(o, rec);
  std::cout << out.str() << PhaseClock::describe(clock.now()) << std::flush;
  return rec.passed() ? 0 : 2;
}

}  // namespace gpp::app
