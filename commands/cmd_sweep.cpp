// `gpp sweep DECK --policy LIST --band-block 16,32:128:x2 ... [--csv FILE] [--resume FILE]
//  [--tuning-out FILE]`: every point of the grid timed and verified (or a row saying why
// it cannot run), the best point per policy decided against the policy's defaults, and a
// tuning file.
// `gpp tune DECK --policy NAME [--budget SECONDS]`: coordinate descent over the policy's
// tunables from its defaults, decided the same way, writing the tuning file.
// Both are campaigns (gpp_campaign.hpp): rows on disk point by point, a clean stop on
// SIGINT/SIGTERM, --resume.
#include "gpp_campaign.hpp"
#include "gpp_command.hpp"
#include "gpp_decide.hpp"
#include "gpp_inputs.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_sweep.hpp"
#include "gpp_text.hpp"
#include "gpp_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace gpp::commands {
using files::kMaxJsonBytes;
using files::update_shared_file;
using files::write_file_atomically;
using formats::format_double;
using measure::check_time;
using measure::default_tuning_out_path;
using measure::kTuningTest;
using measure::parse_tuning;
using measure::read_tuning_file;
using measure::tuning_source;
using measure::TuningEntry;
using measure::TuningEvidence;
using measure::TuningFile;
using record::csv_row;
using record::describe_provenance;
using record::PolicyRun;
using record::row_of;
using record::RunRecord;
using record::space_info;
using record::SpaceInfo;
using session::resolve;
using session::Session;
using session::update_after_runs;

namespace {

PolicyRun invalid_run(const PolicyEntry& entry, SpaceKind k, const Tunables& t, const std::string& why,
                      const char* source) {
  PolicyRun run;
  run.policy = entry.name;
  run.space = space_info(k);
  run.tunables = t;
  run.status = "invalid";
  run.reason = why;
  run.tunables_source = source;
  return run;
}

/// The point `t` of `entry` on `k`: resolved and run (warm-up and `repeat` fenced,
/// verified runs), or a row with status invalid and the reason.
PolicyRun measure(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, int repeat, int warmup,
                  const char* source) {
  PolicyRun run;
  try {
    run = run_policy(s, entry, k, t, repeat, warmup);
  } catch (const std::exception& e) {
    run = invalid_run(entry, k, t, e.what(), source);
  }
  run.tunables_source = source;
  return run;
}

/// `requested` resolved on `k`, or `requested` itself (with the reason in `why`) when
/// it cannot run.
Tunables resolved_or_requested(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& requested,
                               std::string& why) {
  why.clear();
  try {
    return resolve(s, entry, k, requested);
  } catch (const Error& e) {
    why = e.what();
    return requested;
  }
}

std::string point_line(const RunRecord& rec, const PolicyRun& r) {
  std::ostringstream out;
  out << std::left << std::setw(14) << r.policy << " " << std::setw(6) << to_string(r.space.kind) << " "
      << std::setw(48) << describe_tunables(r.tunables) << std::right;
  if (r.status == "invalid") {
    out << " invalid: " << r.reason;
  } else {
    out << " median " << std::setprecision(5) << r.median() << " s (spread "
        << files::percent_text(measure::relative_spread(r.times)) << "), " << std::setprecision(4)
        << rec.deck.updates / r.median() << " updates/s, " << r.status;
  }
  return out.str();
}

/// A point whose time and tunables may go into a tuning file: it verified, its time is
/// one a run can take, and its tunables run here as gpp run would run them.
bool tunable_point(Session& s, const measure::sweep::Row& r, const PolicyEntry& entry, SpaceKind k) {
  if (r.status != "ok") return false;
  try {
    check_time(r.time_median_s, "time_median_s");
    resolve(s, entry, k, r.tunables);
    return true;
  } catch (const Error&) {
    return false;
  }
}

TuningEntry entry_of(const PolicyEntry& entry, SpaceKind k, const Tunables& t, const RunRecord& rec,
                     const measure::Decision& d) {
  const SpaceInfo where = space_info(k);
  TuningEntry e;
  e.device = where.device;
  e.backend = where.backend;
  e.policy = entry.name;
  e.size_class = measure::sweep::size_class(rec.deck.updates);
  e.tunables = t;
  e.time_median_s = d.candidate_median;
  e.deck = rec.deck.name;
  e.date = rec.date;
  TuningEvidence v;
  v.test = kTuningTest;
  v.repeats = d.repeats;
  v.p_value = d.p_value;
  v.gain = d.gain;
  v.time_median_s = d.candidate_median;
  v.spread = d.candidate_spread;
  v.default_time_median_s = d.baseline_median;
  v.default_spread = d.baseline_spread;
  e.evidence = v;
  return e;
}

/// What a campaign decided for one policy: the entry to write, or the key to clear
/// (the defaults stay).
struct Outcome {
  std::optional<TuningEntry> entry;
  std::optional<TuningEntry> cleared;  // the key (device, backend, policy, size class)
};

/// The fastest verified point of a policy (`best`, its median `best_s`) against the
/// policy's defaults: both timed again, interleaved (measure/gpp_decide.hpp), and the point
/// kept only when it wins; the BEST line says what was decided and why. Returns whether it
/// ran a point of the campaign (the caller planned it): not where the fastest point is
/// the defaults.
bool decide_against_defaults(Campaign& c, Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& best,
                             double best_s, const char* source, const RunRecord& rec, std::ostream& out,
                             Outcome& outcome) {
  const SpaceInfo where = space_info(k);
  TuningEntry key;
  key.device = where.device;
  key.backend = where.backend;
  key.policy = entry.name;
  key.size_class = measure::sweep::size_class(rec.deck.updates);
  std::string why;
  const Tunables defaults = resolved_or_requested(s, entry, k, Tunables{}, why);
  std::ostringstream best_line;
  best_line << "BEST policy=" << entry.name << " space=" << to_string(k) << " ";
  if (!why.empty()) {
    // Nothing to compare with: the verified point is the only one that runs here.
    c.next(entry.name + ": the fastest point again");
    const PolicyRun r = measure(s, entry, k, best, measure::kDecideRepeats, 1, source);
    c.done("", entry.name + ": the defaults cannot run here (" + why + "); the best point is kept");
    if (r.status != "ok") {
      out << best_line.str() << "status=none (the best point did not verify when run again)\n";
      return true;
    }
    measure::Decision d;
    d.candidate_wins = true;
    d.candidate_median = r.median();
    d.candidate_spread = measure::relative_spread(r.times);
    d.repeats = int(r.times.size());
    d.baseline_median = r.median();
    d.p_value = 0;
    TuningEntry e = entry_of(entry, k, r.tunables, rec, d);
    e.evidence->test = "the defaults cannot run here";
    outcome.entry = e;
    out << best_line.str() << describe_tunables(r.tunables) << " time_median_s=" << std::setprecision(6) << r.median()
        << " decided=only (the defaults cannot run here)\n";
    return true;
  }
  if (best == defaults) {
    outcome.cleared = key;
    out << best_line.str() << describe_tunables(defaults) << " time_median_s=" << std::setprecision(6) << best_s
        << " decided=defaults (the defaults have the lowest median of the points that ran and verified)\n";
    return false;
  }
  // Interleaved: best, defaults, best, defaults, ... each after one warm-up.
  c.next(entry.name + ": the fastest point against the defaults");
  std::vector<double> cand, base;
  bool ok = true;
  for (int i = 0; i < measure::kDecideRepeats && ok; ++i) {
    const int warm = i == 0 ? 1 : 0;
    const PolicyRun a = measure(s, entry, k, best, 1, warm, source);
    const PolicyRun b = measure(s, entry, k, defaults, 1, warm, source);
    ok = a.status == "ok" && b.status == "ok";
    if (ok) {
      cand.push_back(a.times.front());
      base.push_back(b.times.front());
    }
  }
  if (!ok) {
    c.done("", entry.name + ": the fastest point or the defaults did not run and verify again; the defaults stay");
    outcome.cleared = key;
    out << best_line.str() << describe_tunables(defaults) << " decided=defaults (the comparison did not verify)\n";
    return true;
  }
  const measure::Decision d = measure::decide(cand, base);
  c.done("", entry.name + " " + describe_tunables(best) + " against the defaults: " + d.summary() +
                 "\n      times [s]: " + d.times_text());
  char stats[160];
  std::snprintf(stats, sizeof stats, " p_value=%.3g gain=%.4f repeats=%d", d.p_value, d.gain, d.repeats);
  if (d.candidate_wins) {
    outcome.entry = entry_of(entry, k, best, rec, d);
    out << best_line.str() << describe_tunables(best) << " time_median_s=" << std::setprecision(6) << d.candidate_median
        << " decided=faster" << stats << "\n";
  } else {
    // The defaults stay; the line says why, with the evidence: which point, both medians
    // and spreads of the interleaved runs, and the rule.
    char evidence[200];
    std::snprintf(evidence, sizeof evidence,
                  ", median %.4g s (spread %.1f%%) against the defaults' %.4g s (spread %.1f%%) over %d interleaved "
                  "runs each",
                  d.candidate_median, 100 * d.candidate_spread, d.baseline_median, 100 * d.baseline_spread, d.repeats);
    outcome.cleared = key;
    out << best_line.str() << describe_tunables(defaults) << " time_median_s=" << std::setprecision(6)
        << d.baseline_median << " decided=defaults" << stats << " (" << d.verdict() << ": the fastest point, "
        << describe_tunables(best) << evidence << "; " << measure::decision_rule() << ")\n";
  }
  return true;
}

/// The tuning file with this campaign's outcomes merged in, under its lock: what another
/// process wrote meanwhile is kept. Says what it did on `out`.
void write_tuning(const std::string& path, const std::vector<Outcome>& outcomes, std::ostream& out) {
  bool any = false;
  for (const auto& o : outcomes) any = any || o.entry;
  std::size_t n = 0;
  bool changed = false;
  auto merge = [&](const std::string& text) {
    TuningFile f = text.empty() ? TuningFile{} : parse_tuning(text, path);
    for (const auto& o : outcomes) {
      if (o.entry) f.merge(*o.entry);
      if (o.cleared && f.erase(o.cleared->device, o.cleared->backend, o.cleared->policy, o.cleared->size_class)) {
        out << "removed the entry of " << o.cleared->policy << " (" << o.cleared->size_class
            << " decks) from the tuning file: its defaults are as fast\n";
        changed = true;
      }
    }
    n = f.entries.size();
    return to_json(f);
  };
  if (any) {
    update_shared_file("--tuning-out", path, kMaxJsonBytes, merge);
  } else {
    // Only entries to clear: the file is rewritten only when it holds one of them.
    update_shared_file("--tuning-out", path, kMaxJsonBytes, [&](const std::string& text) {
      if (text.empty()) return text;
      const std::string merged = merge(text);
      return changed ? merged : text;
    });
  }
  if (any || changed)
    out << "tuning file: " << path << " (" << n << " entries)\n";
  else if (file_exists(path))
    out << "tuning file: " << path << " not changed (no point is faster than its policy's defaults)\n";
  else
    out << "tuning file: nothing to write (no point is faster than its policy's defaults); " << path
        << " was not created\n";
}

std::vector<std::string> command_line_of(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> c{"gpp", command};
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

void add_common_options(CLI::App& app, RunOptions& o, std::string& resume) {
  o.use_tuning = false;
  o.resolve_planned = false;
  add_deck_options(app, o.deck);
  add_input_option(app, o.input_path);
  add_space_option(app, o.space);
  add_timing_options(app, o.repeat, o.warmup);
  add_verify_options(app, o.verify, o.rtol, o.no_reference_cache);
  app.add_option("--json", o.json_path, "Write the record (one run per point) as JSON (docs/formats.md)");
  app.add_option("--csv", o.csv_path,
                 "Append one CSV row per point as it finishes (the sweep CSV, docs/formats.md); an existing file is "
                 "replaced (use --resume to continue one)");
  app.add_option("--resume", resume,
                 "Continue this sweep CSV: points already in it are skipped and new rows are appended to it (or to "
                 "--csv); a file that does not exist yet is started. Several processes may share it");
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  CLI::App app{"Time and verify every point of a grid of tunables, per policy; the best point per policy", "gpp sweep"};
  RunOptions o;
  std::string resume;
  add_common_options(app, o, resume);
  app.add_option("--policies,--policy", o.policy,
                 "Comma-separated policies, or all (default: tuned on a device, host on the host)");
  std::map<std::string, std::string> grid;  // option -> its values as given
  for (const TunableSpec& spec : tunable_table())
    app.add_option(
        std::string("--") + spec.option, grid[spec.option],
        std::string(spec.help) +
            (spec.one_size() ? ": values and ranges, e.g. 16,32 or 16:256:x2 (geometric) or 16:64:+16 (arithmetic)"
                             : ": values, e.g. 128x1x1,64x2x1"));
  std::string tuning_out;
  std::vector<std::string> params;
  app.add_option("--param", params,
                 "A policy's named choice and its values, NAME=V1,V2 (repeatable; `gpp policies` lists them)")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--tuning-out", tuning_out,
                 "Merge into this tuning file the best point of each policy that is faster than the policy's "
                 "defaults beyond the noise (docs/formats.md); locked while it is merged");
  if (int rc = parse(app, "sweep", args); rc >= 0) return rc;

  // Everything that can be refused is refused before any work: every value of the grid is
  // held to the check of gpp run (the tunables' table) and to the policies that read it.
  measure::sweep::Axes axes;
  for (const TunableSpec& spec : tunable_table())
    if (app.count(std::string("--") + spec.option)) measure::sweep::add_axis(axes, spec, grid[spec.option]);
  for (const std::string& spec : params) measure::sweep::add_param_axis(axes, spec);
  const std::string policy_spec =
      o.policy.empty() ? default_policy_name(o.space.empty() ? default_space() : parse_space(o.space)) : o.policy;
  o.policy = policy_spec;
  measure::sweep::check_axes_used(axes, select_policies(policy_spec));
  if (!resume.empty() && o.csv_path.empty()) o.csv_path = resume;
  o.more_inputs = {{"--resume", resume, "--csv", true}, {"--tuning-out", tuning_out, "--tuning-out", true}};
  o.more_outputs = {{"--tuning-out", tuning_out}};
  check_shared_outputs(o.more_inputs, {{"--csv", o.csv_path}, {"--tuning-out", tuning_out}});
  PointRows rows(resume, o.csv_path);
  if (!tuning_out.empty() && file_exists(tuning_out)) read_tuning_file(tuning_out);  // refused now, not at the end
  session::Progress progress;
  Prepared p = prepare(app, o, &progress);
  Session& s = p.session;
  std::vector<std::vector<Tunables>> grids;
  std::size_t total = 0;
  for (const auto& planned : p.runs) {
    grids.push_back(measure::sweep::expand(axes, *planned.entry));
    total += grids.back().size();
  }

  // A grid none of whose points can run here (team sizes this backend cannot launch) is
  // refused now, in one line, rather than measured as a table of refusals.
  {
    std::string first_why;
    bool any = false;
    for (std::size_t i = 0; i < p.runs.size() && !any; ++i)
      for (const Tunables& point : grids[i]) {
        std::string why;
        resolved_or_requested(s, *p.runs[i].entry, p.runs[i].space, point, why);
        if (why.empty()) {
          any = true;
          break;
        }
        if (first_why.empty()) first_why = why;
      }
    if (!any) throw Error("no point of the grid can run here (" + first_why + ")");
  }
  RunRecord rec = make_record("sweep", command_line_of("sweep", args), s);
  rows.start(rec);
  // Its points, then one decision per policy: its best point against its defaults.
  Campaign c("sweep", args, total + p.runs.size());
  c.rows_to(rows.file());
  {
    std::string files;
    const std::pair<std::string, std::string> outputs[] = {{"--json", o.json_path}, {"--tuning-out", tuning_out}};
    for (const auto& [opt, path] : outputs)
      if (!path.empty()) files += (files.empty() ? "" : ", ") + opt + " " + path;
    c.written_at_end(files);
  }
  std::cout << describe_plan_provenance(rec, p.runs) << std::flush;  // first, as gpp run prints it
  start_verification(s, o, &progress, true);
  update_after_verification(rec, s);
  std::ostringstream head;
  head << "sweep: " << total << " points";
  if (p.runs.size() > 1)  // each policy over the tunables it reads and the values it takes
    for (std::size_t i = 0; i < p.runs.size(); ++i)
      head << (i ? ", " : " (") << p.runs[i].entry->name << " " << grids[i].size()
           << (i + 1 < p.runs.size() ? "" : ")");
  head << ", " << o.repeat << " timed runs each after " << o.warmup << " warm-up, then " << p.runs.size()
       << (p.runs.size() == 1 ? " decision" : " decisions") << " (the best point of each policy against its defaults)"
       << rows.resumed_text() << "\n";
  if (o.csv_path.empty()) head << "(no --csv: a stopped sweep cannot be resumed)\n";
  std::cout << head.str() << "\n" << std::flush;
  const WorkCounter counter(s, &progress);
  for (std::size_t i = 0; i < p.runs.size(); ++i) {
    const PlannedRun& planned = p.runs[i];
    for (const Tunables& point : grids[i]) {
      std::string why;
      const Tunables key = resolved_or_requested(s, *planned.entry, planned.space, point, why);
      const PolicyRun probe = invalid_run(*planned.entry, planned.space, key, why, "sweep");
      if (rows.done(row_of(rec, probe))) {
        c.skip();
        continue;
      }
      c.next(planned.entry->name + " " + describe_tunables(point));
      PolicyRun run =
          why.empty() ? measure(s, *planned.entry, planned.space, point, o.repeat, o.warmup, "sweep") : probe;
      run.flops = counter.flops(run);
      rec.runs.push_back(run);
      const std::string line = csv_row(rec, run);
      c.done(line, point_line(rec, run));
      rows.add(row_of(rec, run), line);
    }
  }
  update_after_runs(rec, s);

  std::ostringstream out;
  out << "\n"
      << c.measured() << " points measured or refused, " << c.skipped() << " skipped (already done), in "
      << duration_text(c.elapsed()) << "\n";
  // The best point of each policy over every row of this deck, device and backend (old
  // rows of a resumed sweep included), decided against the policy's defaults.
  std::vector<Outcome> outcomes;
  bool wrong = false;
  for (const auto& r : rec.runs) wrong = wrong || r.status == "wrong";
  std::vector<const measure::sweep::Row*> bests;
  for (const auto& planned : p.runs) {
    const SpaceInfo where = space_info(planned.space);
    const measure::sweep::Row* best = nullptr;
    for (const auto& d : rows.rows())
      if (d.policy == planned.entry->name && d.space == to_string(planned.space) && d.device == where.device &&
          d.backend == where.backend && d.sizes == rec.deck.sizes && (!best || d.time_median_s < best->time_median_s) &&
          tunable_point(s, d, *planned.entry, planned.space))
        best = &d;
    bests.push_back(best);
  }
  const bool any_verified =
      std::any_of(bests.begin(), bests.end(), [](const measure::sweep::Row* b) { return b != nullptr; });
  if (any_verified)
    std::cout << "\ndeciding the best point of each policy against its defaults (" << measure::kDecideRepeats
              << " interleaved runs of each; docs/formats.md, \"Tuning file\")\n"
              << std::flush;
  for (std::size_t i = 0; i < p.runs.size(); ++i) {
    const PlannedRun& planned = p.runs[i];
    if (!bests[i]) {
      c.skip();
      out << "BEST policy=" << planned.entry->name << " space=" << to_string(planned.space)
          << " status=none (no point ran and verified)\n";
      continue;
    }
    Outcome outcome;
    if (!decide_against_defaults(c, s, *planned.entry, planned.space, bests[i]->tunables, bests[i]->time_median_s,
                                 "sweep", rec, out, outcome))
      c.skip();  // the defaults are its fastest point: nothing to time again
    outcomes.push_back(outcome);
  }
  if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rec));
  if (!any_verified) {
    // A campaign that measured nothing is no success: one line, and no tuning file.
    std::cout << out.str() << std::flush;
    const std::string why =
        std::string("no point ran and verified") + (tuning_out.empty() ? "" : "; no tuning file written") +
        (wrong ? " (points failed verification)" : " (every point was refused: see the lines above)");
    if (!wrong) throw Error(why);
    std::cerr << "gpp sweep: error: " << why << "\n";
    return 2;
  }
  if (!tuning_out.empty()) write_tuning(tuning_out, outcomes, out);
  std::cout << out.str() << std::flush;
  return wrong ? 2 : 0;
}

int cmd_tune(const std::vector<std::string>& args) {
  CLI::App app{"Search a policy's tunables by coordinate descent from its defaults; write the tuning file", "gpp tune"};
  RunOptions o;
  std::string resume;
  add_common_options(app, o, resume);
  app.add_option("--policy", o.policy, "The policy to tune (default: tuned on a device, host on the host)");
  double budget = 300;
  std::string tuning_out;
  app.add_option("--budget", budget, "Stop the search after this many seconds")
      ->check(positive_number())
      ->capture_default_str();
  app.add_option("--tuning-out", tuning_out,
                 "Tuning file to write or merge into (default: $GPP_TUNING_FILE, else ~/.config/gpp/tuning.json); "
                 "locked while it is merged");
  if (int rc = parse(app, "tune", args); rc >= 0) return rc;

  if (!std::isfinite(budget) || !(budget > 0) || budget > 3.2e7)
    throw Error("--budget " + format_double(budget) + ": give a positive number of seconds, at most a year");
  if (o.policy.empty()) o.policy = default_policy_name(o.space.empty() ? default_space() : parse_space(o.space));
  if (select_policies(o.policy).size() != 1) throw Error("--policy: gpp tune tunes one policy at a time");
  if (!resume.empty() && o.csv_path.empty()) o.csv_path = resume;
  const std::string out_option = tuning_out.empty() ? "tuning file (" + tuning_source() + ")" : "--tuning-out";
  if (tuning_out.empty()) tuning_out = default_tuning_out_path();
  o.more_inputs = {{out_option, tuning_out, out_option, true}, {"--resume", resume, "--csv", true}};
  o.more_outputs = {{out_option, tuning_out}};
  check_shared_outputs(o.more_inputs, {{"--csv", o.csv_path}, {out_option, tuning_out}});
  PointRows rows(resume, o.csv_path);
  if (file_exists(tuning_out)) read_tuning_file(tuning_out);  // refused now, not at the end
  session::Progress progress;
  Prepared p = prepare(app, o, &progress);
  Session& s = p.session;
  const PolicyEntry& entry = *p.runs.front().entry;
  const SpaceKind k = p.runs.front().space;
  // The search starts from the defaults: they must run.
  const Tunables defaults = resolve(s, entry, k, Tunables{});
  Tunables current = defaults;

  RunRecord rec = make_record("tune", command_line_of("tune", args), s);
  rows.start(rec);
  Campaign c("tune", args, 0);  // each round's points planned as the round starts
  c.rows_to(rows.file());
  c.written_at_end(out_option + " " + tuning_out + (o.json_path.empty() ? "" : ", --json " + o.json_path));
  start_verification(s, o, &progress, true);
  update_after_verification(rec, s);
  std::ostringstream head;
  head << "tune: " << entry.name << " on the " << to_string(k) << ", coordinate descent (x2, /2) from "
       << describe_tunables(current) << ", budget " << duration_text(budget)
       << "; each round tries every tunable doubled and halved, and a step is taken only when every run of "
          "the neighbour beats every run of the current point; the fastest point is then timed against the defaults"
       << rows.resumed_text() << "\n";
  std::cout << head.str() << "\n" << std::flush;
  const WorkCounter counter(s, &progress);
  // Every point tried, by its resolved tunables (invalid ones by the requested values):
  // its times (one per timed run; a resumed row: its median) and whether it verified.
  struct Tried {
    Tunables t;
    std::vector<double> times;
    bool good = false;
  };
  std::vector<Tried> tried;
  for (const auto& r : rows.rows())
    if (r.policy == entry.name && r.space == to_string(k))
      // A resumed row stands for its median (the CSV keeps no more of its runs).
      tried.push_back({r.tunables, r.status == "ok" ? std::vector<double>{r.time_median_s} : std::vector<double>{},
                       r.status == "ok"});
  auto find = [&](const Tunables& t) -> const Tried* {
    for (const auto& r : tried)
      if (r.t == t) return &r;
    return nullptr;
  };
  bool wrong = false;
  // The point `requested`: measured (a planned point) unless already tried, here or in a
  // resumed CSV (then neither planned nor counted).
  auto evaluate = [&](const Tunables& requested) -> const Tried* {
    std::string why;
    const Tunables key = resolved_or_requested(s, entry, k, requested, why);
    if (const Tried* r = find(key)) return r;
    c.next(entry.name + " " + describe_tunables(requested));
    PolicyRun run = why.empty() ? measure(s, entry, k, requested, o.repeat, o.warmup, "tune")
                                : invalid_run(entry, k, key, why, "tune");
    run.flops = counter.flops(run);
    rec.runs.push_back(run);
    wrong = wrong || run.status == "wrong";
    tried.push_back({run.tunables, run.times, run.status == "ok" && std::isfinite(run.median())});
    const std::string line = csv_row(rec, run);
    c.done(line, point_line(rec, run));
    rows.add(row_of(rec, run), line);
    return &tried.back();
  };
  // A round: every one-size tunable the policy reads doubled and halved, within what gpp
  // takes (MDRange tiles are left to gpp sweep --tile).
  auto neighbours = [&](const Tunables& t) {
    std::vector<Tunables> out;
    for (const TunableSpec& spec : tunable_table()) {
      if (!spec.one_size() || !entry.reads(spec) || !spec.is_set(t)) continue;
      const long long v = spec.get(t).front();
      for (const long long n : {2 * v, v / 2})
        if (size_why_not(n).empty()) {
          Tunables u = t;
          spec.set(u, {int(n)});
          out.push_back(u);
        }
    }
    return out;
  };
  // The points of `points` that evaluate will measure: those not tried yet.
  auto untried = [&](const std::vector<Tunables>& points) {
    std::size_t n = 0;
    for (const Tunables& t : points) {
      std::string why;
      n += find(resolved_or_requested(s, entry, k, t, why)) == nullptr;
    }
    return n;
  };

  const char* stop = "no neighbour is faster beyond the noise";
  std::vector<Tunables> round = neighbours(current);
  std::size_t planned = untried(round);
  c.plan(untried({current}) + planned);  // the defaults and the first round
  const Tried* start = evaluate(current);
  if (!start->good) {
    stop = "the defaults did not run and verify";
    c.unplan(planned);
  }
  std::vector<double> current_times = start->good ? start->times : std::vector<double>{};
  while (!current_times.empty()) {
    std::optional<Tunables> best;
    std::vector<double> best_times = current_times;
    const std::size_t measured_before = c.measured();
    bool out_of_time = false;
    for (const Tunables& t : round) {
      if (c.elapsed() >= budget) {
        out_of_time = true;
        break;
      }
      const Tried* r = evaluate(t);
      if (r->good && measure::clearly_faster(r->times, current_times) &&
          measure::median(r->times) < measure::median(best_times)) {
        best = r->t;
        best_times = r->times;
      }
    }
    if (best) {
      current = *best;
      current_times = best_times;
    }
    if (out_of_time) {
      c.unplan(planned - (c.measured() - measured_before));  // the points the budget left out
      stop = "time budget spent";
      break;
    }
    if (!best) break;
    round = neighbours(current);
    planned = untried(round);
    c.plan(planned);
  }
  update_after_runs(rec, s);
  std::ostringstream out;
  out << "\nstopped: " << stop << " after " << c.measured() + c.skipped() << " points, " << duration_text(c.elapsed())
      << "\n"
      << describe_provenance(rec);
  if (current_times.empty()) {
    if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rec));
    out << "BEST policy=" << entry.name << " space=" << to_string(k) << " status=none (no point ran and verified)\n";
    std::cout << out.str() << std::flush;
    std::cerr << "gpp tune: error: the defaults of " << entry.name
              << " did not run and verify; no tuning file written\n";
    return wrong ? 2 : 1;
  }
  // The fastest point that ran and verified (the search's end point or one it did not step
  // to: a neighbour whose runs overlapped the current point's), as a sweep's best.
  const Tried* fastest = nullptr;
  for (const Tried& r : tried)
    if (r.good && (!fastest || measure::median(r.times) < measure::median(fastest->times))) fastest = &r;
  if (fastest->t != defaults) {
    c.plan(1);  // the decision, a point of its own
    std::cout << "\ndeciding the fastest point against the defaults (" << measure::kDecideRepeats
              << " interleaved runs of each)\n"
              << std::flush;
  }
  Outcome outcome;
  decide_against_defaults(c, s, entry, k, fastest->t, measure::median(fastest->times), "tune", rec, out, outcome);
  if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rec));
  write_tuning(tuning_out, {outcome}, out);
  if (!outcome.entry) out << "no tuning entry written: the defaults of " << entry.name << " stay\n";
  std::cout << out.str() << std::flush;
  return wrong ? 2 : 0;
}

}  // namespace gpp::commands
