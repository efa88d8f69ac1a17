// `gpp sweep DECK --policy LIST --band-block 16,32:128:x2 ... [--resume FILE]
//  [--tuning-out FILE]`: every point of the grid timed and verified (or a row saying why
// it cannot run), the best point per policy, and a tuning file.
// `gpp tune DECK --policy NAME [--budget SECONDS]`: coordinate descent over the policy's
// tunables from its defaults, writing the tuning file.
#include "gpp_command.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_sweep.hpp"
#include "gpp_tuning.hpp"

#include <sys/stat.h>
#include <cerrno>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

namespace gpp::app {
namespace {

bool same_tunables(const Tunables& a, const Tunables& b) {
  return a.band_block == b.band_block && a.ig_block == b.ig_block && a.team_size == b.team_size &&
         a.vector_length == b.vector_length && a.tile == b.tile && a.params == b.params;
}

/// A row of the sweep CSV for a point of this session.
sweep::Row row_of(const RunRecord& rec, const PolicyRun& run) {
  sweep::Row r;
  r.policy = run.policy;
  r.space = to_string(run.space.kind);
  r.device = run.space.device;
  r.backend = run.space.backend;
  r.deck = rec.deck.name;
  r.status = run.status;
  r.nbands = rec.deck.nbands;
  r.ngpown = rec.deck.ngpown;
  r.ncouls = rec.deck.ncouls;
  r.nw = rec.deck.nw;
  r.tunables = run.tunables;
  r.time_median_s = run.median();
  return r;
}

/// The point `t` of `entry` on `k`: resolved and run (warm-up and `repeat` fenced,
/// verified runs), or a row with status invalid and the reason.
PolicyRun measure(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, const RunOptions& o,
                  const char* source) {
  PolicyRun run;
  try {
    run = run_policy(s, entry, k, t, o.repeat, o.warmup);
  } catch (const std::exception& e) {
    run = PolicyRun{};
    run.policy = entry.name;
    run.space = space_info(k);
    run.tunables = t;
    run.status = "invalid";
    run.reason = e.what();
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

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 100 ? "%.1f s" : "%.0f s", s);
  return buf;
}

std::string best_line(const std::string& policy, const std::string& space, const sweep::Row* best) {
  std::ostringstream o;
  o << "BEST policy=" << policy << " space=" << space;
  if (!best) return o.str() + " status=none (no point ran and verified)";
  o << " " << describe_tunables(best->tunables) << " time_median_s=" << std::setprecision(6) << best->time_median_s;
  return o.str();
}

void point_line(std::ostream& out, const RunRecord& rec, const PolicyRun& r) {
  out << std::left << std::setw(14) << r.policy << " " << std::setw(6) << to_string(r.space.kind) << " "
      << std::setw(48) << describe_tunables(r.tunables) << std::right;
  if (r.status == "invalid") {
    out << " invalid: " << r.reason << "\n";
  } else {
    out << " median " << std::setprecision(5) << r.median() << " s, " << std::setprecision(4)
        << rec.deck.updates / r.median() << " updates/s, " << r.status << "\n";
  }
  out.flush();
}

/// The tuning file at `path` if it exists (to merge into), else an empty one.
TuningFile existing_tuning(const std::string& path) {
  struct stat st;
  if (path.empty() || (::stat(path.c_str(), &st) != 0 && errno == ENOENT)) return {};
  return read_tuning_file(path);
}

/// A point whose time and tunables may go into a tuning file: it verified, its time is
/// one a run can take, and its tunables run here as gpp run would run them.
bool tunable_point(Session& s, const sweep::Row& r, const PolicyEntry& entry, SpaceKind k) {
  if (r.status != "ok") return false;
  const Tunables& t = r.tunables;
  for (const int v : {t.band_block, t.ig_block, t.team_size, t.vector_length})
    if (v > kMaxTunable) return false;  // gpp run would refuse it
  for (const int v : t.tile)
    if (v > kMaxTunable) return false;
  try {
    check_time(r.time_median_s, "time_median_s");
    resolve(s, entry, k, r.tunables);
    return true;
  } catch (const Error&) {
    return false;
  }
}

/// The row this run would write for a point on `k` (its origin: device, build, deck).
sweep::Row origin_row(const RunRecord& rec, SpaceKind k) {
  const SpaceInfo where = space_info(k);
  sweep::Row r;
  r.device = where.device;
  r.backend = where.backend;
  r.git = rec.build.git;
  r.version = rec.build.version;
  r.kokkos = rec.build.kokkos_version;
  r.deck = rec.deck.name;
  r.nbands = rec.deck.nbands;
  r.ngpown = rec.deck.ngpown;
  r.ncouls = rec.deck.ncouls;
  r.nw = rec.deck.nw;
  return r;
}

/// Refuses a resumed CSV with a row from another device, backend, build or deck: such a
/// row would mark a point done that this run never measured.
void check_resumed_rows(const sweep::CsvFile& old, const RunRecord& rec, const std::string& path) {
  for (std::size_t i = 0; i < old.rows.size(); ++i) {
    const sweep::Row& row = old.rows[i];
    const std::string at = "--resume " + path + ": row " + std::to_string(i + 1) + " ";
    SpaceKind k;
    try {
      k = parse_space(row.space);
    } catch (const Error& e) {
      throw Error(at + "space '" + row.space + "': " + e.what());
    }
    if (const std::string d = sweep::origin_difference(row, origin_row(rec, k)); !d.empty())
      throw Error(at + "is of another " + d +
                  ": rows of another device, backend, build or deck cannot mark points done (sweep into a new CSV)");
  }
}

TuningEntry entry_of(const sweep::Row& best, const RunRecord& rec) {
  TuningEntry e;
  e.device = best.device;
  e.backend = best.backend;
  e.policy = best.policy;
  e.size_class = sweep::size_class(rec.deck.updates);
  e.tunables = best.tunables;
  e.time_median_s = best.time_median_s;
  e.deck = rec.deck.name;
  e.date = rec.date;
  return e;
}

std::vector<std::string> command_line_of(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> c{"gpp", command};
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

void add_common_options(CLI::App& app, RunOptions& o) {
  o.use_tuning = false;
  o.resolve_planned = false;
  add_deck_options(app, o.deck);
  add_input_option(app, o.input_path);
  add_space_option(app, o.space);
  add_timing_options(app, o.repeat, o.warmup);
  add_verify_options(app, o.verify, o.rtol);
  app.add_option("--json", o.json_path, "Write the record (one run per point) as JSON (docs/formats.md)");
  app.add_option("--csv", o.csv_path, "Write one CSV row per point (the sweep CSV, docs/formats.md)");
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  CLI::App app{"Time and verify every point of a grid of tunables, per policy; the best point per policy",
               "gpp sweep"};
  RunOptions o;
  add_common_options(app, o);
  app.add_option("--policies,--policy", o.policy,
                 "Comma-separated policies, or all (default: tuned on a device, host on the host)");
  std::string band_block, ig_block, team_size, vector_length, tile, resume, tuning_out;
  const char* values = ": values and ranges, e.g. 16,32 or 16:256:x2 (geometric) or 16:64:+16 (arithmetic)";
  app.add_option("--band-block", band_block, std::string("Bands per cache block") + values);
  app.add_option("--ig-block", ig_block, std::string("G per cache block") + values);
  app.add_option("--team-size", team_size, std::string("Threads per team") + values);
  app.add_option("--vector-length", vector_length, std::string("Vector lanes per thread") + values);
  app.add_option("--tile", tile, "MDRangePolicy tiles, e.g. 128x1x1,64x2x1");
  std::vector<std::string> params;
  app.add_option("--param", params,
                 "A policy's named choice and its values, NAME=V1,V2 (repeatable; `gpp policies` lists them)")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--resume", resume,
                 "Skip the points already in this sweep CSV; the CSV written (this file unless --csv) has its rows "
                 "and the new ones");
  app.add_option("--tuning-out", tuning_out, "Write (or merge into) a tuning file the best point of each policy");
  const std::vector<std::string> argv = input_file_as_option(args);
  if (int rc = parse(app, "sweep", argv); rc >= 0) return rc;

  // Everything that can be refused is refused before any work.
  sweep::Axes axes;
  if (app.count("--band-block")) axes.band_block = sweep::parse_values("--band-block", band_block);
  if (app.count("--ig-block")) axes.ig_block = sweep::parse_values("--ig-block", ig_block);
  if (app.count("--team-size")) axes.team_size = sweep::parse_values("--team-size", team_size);
  if (app.count("--vector-length")) axes.vector_length = sweep::parse_values("--vector-length", vector_length);
  if (app.count("--tile")) axes.tile = sweep::parse_tiles("--tile", tile);
  for (const std::string& spec : params) sweep::add_param_axis(axes, spec);
  const std::string policy_spec =
      o.policy.empty() ? default_policy_name(o.space.empty() ? default_space() : parse_space(o.space)) : o.policy;
  o.policy = policy_spec;
  sweep::check_axes_used(axes, select_policies(policy_spec));
  if (!resume.empty() && o.csv_path.empty()) o.csv_path = resume;
  o.more_inputs = {{"--resume", resume, "--csv"}, {"--tuning-out", tuning_out, "--tuning-out", true}};
  o.more_outputs = {{"--tuning-out", tuning_out}};
  check_files(o.more_inputs, {});  // what they are, before they are read
  sweep::CsvFile old;
  if (!resume.empty()) old = sweep::read_sweep_csv(resume, csv_header());
  TuningFile tuning = existing_tuning(tuning_out);
  Prepared p = prepare(app, o);
  Session& s = p.session;
  std::vector<std::vector<Tunables>> grids;
  std::size_t total = 0;
  for (const auto& planned : p.runs) {
    grids.push_back(sweep::expand(axes, planned.entry->tunables, planned.entry->params));
    total += grids.back().size();
  }

  RunRecord rec = make_record("sweep", command_line_of("sweep", args), s);
  if (!resume.empty()) check_resumed_rows(old, rec, resume);
  prepare_reference(s, parse_verify_mode(o.verify), o.rtol);
  rec = make_record("sweep", command_line_of("sweep", args), s);
  // The text is printed after every file is written (a failed write is the one line).
  std::ostringstream out;
  out << describe_deck(s);
  if (s.target.performed())
    out << "verifying every run against the " << s.target.against << " (tolerance " << s.target.tolerance
        << ", took " << s.reference_s << " s)\n";
  out << "sweep: " << total << " points, " << o.repeat << " timed runs each after " << o.warmup << " warm-up";
  if (!resume.empty()) out << "; " << old.rows.size() << " rows already in " << resume;
  out << "\n\n";

  const WorkCounter counter(s, p.runs.front().space);
  const bool progress = ::isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<sweep::Row> done = old.rows;
  std::size_t k = 0, ran = 0, skipped = 0;
  double ran_s = 0;
  for (std::size_t i = 0; i < p.runs.size(); ++i) {
    const PlannedRun& planned = p.runs[i];
    for (const Tunables& point : grids[i]) {
      ++k;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (progress) {
        std::cerr << "\rgpp sweep: point " << k << " of " << total << ", elapsed " << seconds(elapsed);
        if (ran > 0) std::cerr << ", remaining ~" << seconds(ran_s / double(ran) * double(total - k + 1));
        std::cerr << "    " << std::flush;
      }
      std::string why;
      const Tunables key = resolved_or_requested(s, *planned.entry, planned.space, point, why);
      PolicyRun probe = invalid_run(*planned.entry, planned.space, key, why, "sweep");
      sweep::Row row = row_of(rec, probe);
      bool seen = false;
      for (const auto& d : done) seen = seen || sweep::same_point(d, row);
      if (seen) {
        ++skipped;
        continue;
      }
      const auto p0 = std::chrono::steady_clock::now();
      PolicyRun run = why.empty() ? measure(s, *planned.entry, planned.space, point, o, "sweep") : probe;
      run.flops = counter.flops(run);
      if (why.empty()) {
        ++ran;
        ran_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
      }
      if (progress) std::cerr << "\r\033[K" << std::flush;
      point_line(out, rec, run);
      rec.runs.push_back(run);
      done.push_back(row_of(rec, run));
    }
  }
  if (progress) std::cerr << "\r\033[K" << std::flush;
  update_after_runs(rec, s);

  out << "\n" << k - skipped << " points measured or refused, " << skipped << " skipped (already done), in "
      << seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) << "\n";
  out << describe_provenance(rec);
  // The best point of each policy over every row of this deck, device and backend (old
  // rows of a resumed sweep included).
  for (const auto& planned : p.runs) {
    const SpaceInfo where = space_info(planned.space);
    const sweep::Row* best = nullptr;
    for (const auto& d : done)
      if (d.policy == planned.entry->name && d.space == to_string(planned.space) && d.device == where.device &&
          d.backend == where.backend && d.nbands == rec.deck.nbands && d.ngpown == rec.deck.ngpown &&
          d.ncouls == rec.deck.ncouls && d.nw == rec.deck.nw && (!best || d.time_median_s < best->time_median_s) &&
          tunable_point(s, d, *planned.entry, planned.space))
        best = &d;
    out << best_line(planned.entry->name, to_string(planned.space), best) << "\n";
    if (best && !tuning_out.empty()) tuning.merge(entry_of(*best, rec));
  }
  if (!o.csv_path.empty()) {
    std::string text = csv_header() + "\n";
    for (const auto& line : old.lines) text += line + "\n";
    write_file_atomically(o.csv_path, text + csv_rows(rec));
  }
  if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rec));
  if (!tuning_out.empty()) {
    write_file_atomically(tuning_out, to_json(tuning));
    out << "tuning file: " << tuning_out << " (" << tuning.entries.size() << " entries)\n";
  }
  std::cout << out.str() << std::flush;
  for (const auto& r : rec.runs)
    if (r.status == "wrong") return 2;
  return 0;
}

int cmd_tune(const std::vector<std::string>& args) {
  CLI::App app{"Search a policy's tunables by coordinate descent from its defaults; write the tuning file",
               "gpp tune"};
  RunOptions o;
  add_common_options(app, o);
  app.add_option("--policy", o.policy, "The policy to tune (default: tuned on a device, host on the host)");
  double budget = 300;
  std::string tuning_out;
  app.add_option("--budget", budget, "Stop after this many seconds of search")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--tuning-out", tuning_out,
                 "Tuning file to write or merge into (default: $GPP_TUNING_FILE, else ~/.config/gpp/tuning.json)");
  const std::vector<std::string> argv = input_file_as_option(args);
  if (int rc = parse(app, "tune", argv); rc >= 0) return rc;

  if (!std::isfinite(budget) || budget > 3.2e7)
    throw Error("--budget " + format_double(budget) + ": give a positive number of seconds, at most a year");
  if (o.policy.empty()) o.policy = default_policy_name(o.space.empty() ? default_space() : parse_space(o.space));
  if (select_policies(o.policy).size() != 1) throw Error("--policy: gpp tune tunes one policy at a time");
  const std::string out_option = tuning_out.empty() ? "tuning file (" + tuning_source() + ")" : "--tuning-out";
  if (tuning_out.empty()) tuning_out = default_tuning_out_path();
  o.more_inputs = {{out_option, tuning_out, out_option, true}};
  o.more_outputs = {{out_option, tuning_out}};
  check_files(o.more_inputs, {});
  TuningFile tuning = existing_tuning(tuning_out);
  Prepared p = prepare(app, o);
  Session& s = p.session;
  const PolicyEntry& entry = *p.runs.front().entry;
  const SpaceKind k = p.runs.front().space;
  // The search starts from the defaults: they must run.
  Tunables current = resolve(s, entry, k, Tunables{});

  prepare_reference(s, parse_verify_mode(o.verify), o.rtol);
  RunRecord rec = make_record("tune", command_line_of("tune", args), s);
  // The text is printed after every file is written (a failed write is the one line).
  std::ostringstream out;
  out << describe_deck(s);
  if (s.target.performed())
    out << "verifying every run against the " << s.target.against << " (tolerance " << s.target.tolerance << ")\n";
  out << "tune: " << entry.name << " on the " << to_string(k) << ", coordinate descent (x2, /2) from "
      << describe_tunables(current) << ", budget " << seconds(budget) << "\n\n";
  const bool progress = ::isatty(STDERR_FILENO);

  const WorkCounter counter(s, k);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  // Every point tried, by its resolved tunables (invalid ones by the requested values).
  auto tried = [&](const Tunables& t) -> const PolicyRun* {
    for (const auto& r : rec.runs)
      if (same_tunables(r.tunables, t)) return &r;
    return nullptr;
  };
  bool wrong = false;
  auto evaluate = [&](const Tunables& requested) -> const PolicyRun& {
    std::string why;
    const Tunables key = resolved_or_requested(s, entry, k, requested, why);
    if (const PolicyRun* r = tried(key)) return *r;
    rec.runs.push_back(why.empty() ? measure(s, entry, k, requested, o, "tune") : invalid_run(entry, k, key, why, "tune"));
    rec.runs.back().flops = counter.flops(rec.runs.back());
    point_line(out, rec, rec.runs.back());
    if (progress)
      std::cerr << "\rgpp tune: " << rec.runs.size() << " points, elapsed " << seconds(elapsed()) << "    " << std::flush;
    wrong = wrong || rec.runs.back().status == "wrong";
    return rec.runs.back();
  };
  auto good = [](const PolicyRun& r) { return r.status == "ok" && std::isfinite(r.median()); };

  const PolicyRun& start = evaluate(current);
  double current_s = good(start) ? start.median() : INFINITY;
  const char* stop = "no neighbour improves";
  while (std::isfinite(current_s)) {
    std::optional<Tunables> best;
    double best_s = current_s;
    bool out_of_time = false;
    for (const std::string& name : entry.tunables) {
      // Through an alias: nvcc writes `int Tunables::*field` out as `int (Tunables::*field)`,
      // which g++ -Wall then reports (-Wparentheses).
      using Field = int Tunables::*;
      const Field field = name == "band-block"      ? &Tunables::band_block
                          : name == "ig-block"      ? &Tunables::ig_block
                          : name == "team-size"     ? &Tunables::team_size
                          : name == "vector-length" ? &Tunables::vector_length
                                                    : nullptr;
      if (!field) continue;  // MDRange tiles: sweep them with gpp sweep --tile
      for (const bool up : {true, false}) {
        Tunables t = current;
        t.*field = up ? current.*field * 2 : current.*field / 2;
        if (t.*field < 1 || t.*field > (1 << 20)) continue;
        if (elapsed() >= budget) {
          out_of_time = true;
          break;
        }
        const PolicyRun& r = evaluate(t);
        if (good(r) && r.median() < best_s) {
          best = r.tunables;
          best_s = r.median();
        }
      }
      if (out_of_time) break;
    }
    if (best) {
      current = *best;
      current_s = best_s;
    }
    if (out_of_time) {
      stop = "time budget spent";
      break;
    }
    if (!best) break;
  }
  if (progress) std::cerr << "\r\033[K" << std::flush;
  update_after_runs(rec, s);
  out << "\nstopped: " << stop << " after " << rec.runs.size() << " points, " << seconds(elapsed()) << "\n"
      << describe_provenance(rec);
  if (!o.csv_path.empty()) write_file_atomically(o.csv_path, csv_header() + "\n" + csv_rows(rec));
  if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rec));
  const PolicyRun* best_run = tried(current);
  const sweep::Row best = best_run ? row_of(rec, *best_run) : sweep::Row{};
  if (!best_run || !good(*best_run) || !tunable_point(s, best, entry, k)) {
    out << best_line(entry.name, to_string(k), nullptr) << "\n";
    std::cout << out.str() << std::flush;
    std::cerr << "gpp tune: error: the defaults of " << entry.name << " did not run and verify; no tuning file written\n";
    return wrong ? 2 : 1;
  }
  out << best_line(entry.name, to_string(k), &best) << "\n";
  tuning.merge(entry_of(best, rec));
  write_file_atomically(tuning_out, to_json(tuning));
  out << "tuning file: " << tuning_out << " (" << tuning.entries.size() << " entries)\n";
  std::cout << out.str() << std::flush;
  return wrong ? 2 : 0;
}

}  // namespace gpp::app
