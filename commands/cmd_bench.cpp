// `gpp bench DECK --policies LIST [--space device|host] [--repeat N] [--csv FILE]
//  [--resume FILE] [--json FILE]`: for each policy a warm-up and N fenced, timed repeats
// (transfers excluded), every run verified; a table, CSV rows and a JSON record. A
// campaign (gpp_campaign.hpp): each policy's row is on disk as soon as it is measured.
#include "gpp_campaign.hpp"
#include "gpp_command.hpp"
#include "gpp_io_cli.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpp::commands {
using record::csv_row;
using record::PolicyRun;
using record::result_line;
using record::row_of;
using record::RunRecord;
using record::space_info;
using session::PhaseClock;
using session::resolve;
using session::run_policy;
using session::Session;
using session::update_after_runs;

/// FLOPs per update used for the nominal FLOP rate: the paper's Nsight Compute count
/// for v8 on Si-214 (3.710 TFLOP/s x 0.717 s / 2.454e10 updates = 108.4; dadd + dmul
/// + 2*dfma, reciprocal Newton steps included). Rates built on it compare directly
/// with the paper's Table I; they are not our kernels' own instruction counts.
inline constexpr double kNominalFlopsPerUpdate = 108.4;

int cmd_bench(const std::vector<std::string>& args) {
  CLI::App app{"Benchmark policies on a deck: warm-up, timed repeats, every run verified", "gpp bench"};
  RunOptions o;
  std::string resume;
  add_run_options(app, o, "bench");
  app.add_option("--resume", resume,
                 "Continue this CSV: policies already in it (same tunables, device, build and deck) are skipped and "
                 "new rows are appended to it (or to --csv); a file that does not exist yet is started");
  if (int rc = parse(app, "bench", args); rc >= 0) return rc;
  if (!resume.empty() && o.csv_path.empty()) o.csv_path = resume;
  o.more_inputs = {{"--resume", resume, "--csv", true}};
  check_shared_outputs(o.more_inputs, {{"--csv", o.csv_path}});
  PointRows rows(resume, o.csv_path);
  session::Progress progress;
  Prepared p = prepare(app, o, &progress);
  Session& s = p.session;
  PhaseClock clock(s);
  clock.setup_done();
  std::vector<std::string> command_line{"gpp", "bench"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  RunRecord rec = make_record("bench", command_line, s);
  rows.start(rec);
  Campaign c("bench", args, p.runs.size());
  c.rows_to(rows.file());
  if (!o.json_path.empty()) c.written_at_end("--json " + o.json_path);
  progress.plan("bench", estimated_seconds(s, p.runs, parse_verify_mode(o.verify), false, false, o.repeat + o.warmup),
                "fewer repeats (--repeat 3 --warmup 0), a smaller deck (--ngpown, --ncouls, --nbands), fewer or "
                "faster policies (v0-collapse3 is the slowest), --verify none");
  std::cout << describe_plan_provenance(rec, p.runs) << std::flush;  // first, as gpp run prints it
  start_verification(s, o, &progress);
  clock.verification_done();
  update_after_verification(rec, s);

  const double updates = rec.deck.updates;
  std::cout << "nominal FLOP rate: " << kNominalFlopsPerUpdate << " FLOPs per update (the paper's count, see docs)"
            << rows.resumed_text() << "\n\n"
            << std::left << std::setw(15) << "policy" << std::setw(8) << "space" << std::right << std::setw(12)
            << "median [s]" << std::setw(12) << "min [s]" << std::setw(12) << "max [s]" << std::setw(12) << "updates/s"
            << std::setw(10) << "TFLOP/s" << std::setw(11) << "rel err"
            << "  verified\n"
            << std::flush;
  for (const auto& planned : p.runs) {
    PolicyRun probe;
    probe.policy = planned.entry->name;
    probe.space = space_info(planned.space);
    probe.tunables = resolve(s, *planned.entry, planned.space, planned.tunables);
    if (rows.done(row_of(rec, probe))) {
      c.skip();
      continue;
    }
    c.next(planned.entry->name);
    rec.runs.push_back(run_policy(s, *planned.entry, planned.space, planned.tunables, o.repeat, o.warmup));
    rec.runs.back().tunables_source = planned.tunables_source;
    const PolicyRun& r = rec.runs.back();
    std::ostringstream line;
    line << std::left << std::setw(15) << r.policy << std::setw(8) << to_string(r.space.kind) << std::right
         << std::setprecision(5) << std::setw(12) << r.median() << std::setw(12) << r.min() << std::setw(12) << r.max()
         << std::setprecision(4) << std::setw(12) << updates / r.median() << std::setprecision(3) << std::setw(10)
         << updates * kNominalFlopsPerUpdate / r.median() / 1e12 << std::setprecision(2) << std::setw(11) << r.rel_error
         << "  "
         << (!s.target.performed() ? "n/a"
             : r.verified          ? "yes"
                                   : "NO");
    const std::string row = csv_row(rec, r);
    c.done(row, line.str());
    rows.add(row_of(rec, r), row);
  }
  update_after_runs(rec, s);
  clock.kernels_done();
  rec.time_to_solution = clock.now();
  std::ostringstream out;
  out << "\n";
  if (c.skipped() > 0) out << c.skipped() << " policies skipped (already in " << o.csv_path << ")\n";
  for (const auto& r : rec.runs)
    out << "tunables (" << r.policy << "): " << describe_tunables(r.tunables) << " (from: " << r.tunables_source
        << ")\n";
  for (const auto& r : rec.runs) out << result_line(rec, r) << "\n";
  // The rows are in the CSV already; the JSON record (and an HDF5 results file) whole, now.
  RunOptions summaries = o;
  summaries.csv_path.clear();
  write_outputs(summaries, rec);
  std::cout << out.str() << PhaseClock::describe(clock.now()) << std::flush;
  return rec.passed() ? 0 : 2;
}

}  // namespace gpp::commands
