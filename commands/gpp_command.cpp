#include "gpp_command.hpp"

#include "gpp_io_cli.hpp"
#include "gpp_memory.hpp"
#include "gpp_mpi.hpp"
#include "gpp_estimate.hpp"
#include "gpp_placement.hpp"
#include "gpp_runtime.hpp"
#include "gpp_static.hpp"
#include "gpp_stop.hpp"
#include "gpp_sweep.hpp"
#include "gpp_text.hpp"
#include "gpp_tuning.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include <sys/stat.h>

namespace gpp::commands {
using files::check_files;
using files::InputFile;
using files::OutputRequest;
using files::write_file_atomically;
using measure::BranchCounts;
using measure::default_tuning_path;
using measure::read_tuning_file;
using measure::tuning_source;
using measure::TuningEntry;
using measure::TuningFile;
using record::csv_rows;
using record::PolicyRun;
using record::RunRecord;
using record::space_info;
using record::SpaceInfo;
using session::check_memory_fits;
using session::check_placement;
using session::complete_share;
using session::for_each_slice;
using session::make_session;
using session::make_session_from_file;
using session::parse_bytes;
using session::placement;
using session::plan_chunks;
using session::reference_space;
using session::resolve;
using session::Session;
using session::shared_device_allowed;
using session::VerifyMode;

void add_run_options(CLI::App& app, RunOptions& o, const std::string& command) {
  add_deck_options(app, o.deck);
  add_input_option(app, o.input_path);
  if (command == "run") {
    app.add_option("--policy", o.policy,
                   "Execution policy (gpp policies), a comma-separated list, or all "
                   "(default: tuned on a device, host on the host)");
  } else {
    o.policy = "all";
    app.add_option("--policies,--policy", o.policy, "Comma-separated policies, or all")->capture_default_str();
  }
  add_space_option(app, o.space);
  if (command == "bench") o.repeat = 5;
  add_timing_options(app, o.repeat, o.warmup);
  add_verify_options(app, o.verify, o.rtol, o.no_reference_cache);
  add_tunable_options(app, o.tunables);
  app.add_option("--tuning", o.tuning,
                 "Tuning file (docs/formats.md): tunables not given here are taken from its entry for this device, "
                 "backend, policy and size class; none: no file (default: $GPP_TUNING_FILE, else "
                 "~/.config/gpp/tuning.json if it exists)");
  app.add_option("--json", o.json_path, "Write the run record as JSON (docs/formats.md)");
  app.add_option("--csv", o.csv_path, "Write one CSV row per policy run (fixed header, docs/formats.md)");
  app.add_option("--output", o.output_path, "Write the results and the record to an HDF5 file (.h5)");
  if (command == "run")
    app.add_option("--max-device-mem", o.max_device_mem,
                   "Most bytes of data on the device at once (e.g. 16G); G' beyond it run in chunks, the partial sums "
                   "added (default: 90% of the free device memory; on the host: no chunks unless given)");
}

std::vector<OutputRequest> output_requests(const RunOptions& o) {
  std::vector<OutputRequest> out{{"--json", o.json_path}, {"--csv", o.csv_path}, {"--output", o.output_path}};
  out.insert(out.end(), o.more_outputs.begin(), o.more_outputs.end());
  return out;
}

std::string deck_file_of(CLI::App& app) {
  const CLI::Option* deck_file = app.get_config_ptr();
  return deck_file && deck_file->count() > 0 ? deck_file->as<std::string>() : std::string();
}

namespace {
// Bytes of this rank's share of a synthetic deck's arrays (aqsntemp, the two G' matrices,
// aqsmtemp and its gathered copies).
double deck_bytes(const DeckParams& d, const GpShare& share) {
  const double c = sizeof(complex_t), ngpown = share.count(d.ngpown);
  return c * (double(d.ncouls) * d.nbands + 2.0 * d.ncouls * ngpown + double(d.ncouls) * d.nbands +
              2.0 * ngpown * d.nbands);
}

double file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? double(st.st_size) : 0.0;
}
}  // namespace

std::string apply_tuning(const PolicyEntry& entry, Tunables& t, const Tunables* from, const std::string& file) {
  std::vector<std::pair<std::string, std::string>> sources;  // tunable, source
  for (const TunableSpec& spec : tunable_table()) {
    if (!entry.reads(spec)) continue;
    if (spec.is_set(t)) {
      sources.push_back({spec.name, "command line"});
    } else if (from && spec.is_set(*from)) {
      spec.set(t, spec.get(*from));
      sources.push_back({spec.name, file});
    } else {
      sources.push_back({spec.name, "default"});
    }
  }
  for (const ParamSpec& p : entry.params) {
    if (t.params.count(p.name)) {
      sources.push_back({p.name, "command line"});
    } else if (from && from->params.count(p.name)) {
      t.params[p.name] = from->params.at(p.name);
      sources.push_back({p.name, file});
    } else {
      sources.push_back({p.name, "default"});
    }
  }
  if (sources.empty()) return "default";
  bool one = true;
  for (const auto& s : sources) one = one && s.second == sources.front().second;
  if (one) return sources.front().second;
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : "; ") + s.first + ": " + s.second;
  return out;
}

namespace {
Prepared prepare_this_rank(CLI::App& app, const RunOptions& o, session::Progress* progress) {
  if (app.count("--name") > 0) check_deck_name(o.deck.name);
  const std::optional<SpaceKind> requested = o.space.empty() ? std::nullopt : std::optional(parse_space(o.space));
  const std::string policy_spec =
      o.policy.empty() ? default_policy_name(requested ? *requested : default_space()) : o.policy;
  const auto entries = select_policies(policy_spec);
  std::vector<PlannedRun> runs;
  for (const PolicyEntry* e : entries) {
    const Tunables t = entries.size() == 1 ? o.tunables : tunables_for(*e, o.tunables);
    check_tunables(*e, t);
    runs.push_back({e, placement(*e, requested), t});
  }
  check_results_path(o.output_path);
  const GpShare share{session::mpi::rank(), session::mpi::size()};
  const long long max_device_bytes = o.max_device_mem.empty() ? 0 : parse_bytes(o.max_device_mem, "--max-device-mem");
  // Every input and output, before any work: inputs are regular files, no output is an
  // input (however spelled) or another output. The tuning file from any of its sources.
  const std::string tuning_path = !o.use_tuning || o.tuning == "none" ? std::string()
                                  : o.tuning.empty()                  ? default_tuning_path()
                                                                      : o.tuning;
  std::vector<InputFile> inputs{{"deck", deck_file_of(app)}, {"--input", o.input_path}};
  if (!tuning_path.empty())
    inputs.push_back({o.tuning.empty() ? "tuning file (" + tuning_source() + ")" : "--tuning", tuning_path});
  inputs.insert(inputs.end(), o.more_inputs.begin(), o.more_inputs.end());
  check_files(inputs, output_requests(o));
  if (!o.input_path.empty()) {
    if (const std::string given = deck_option_given(app); !given.empty())
      throw Error("--input " + o.input_path + " cannot be combined with " + given);
  } else {
    check_sizes_given(app);  // "no deck" rather than the first size's range
    validate(o.deck);
  }
  // A bad tuning file is refused before the deck is made.
  std::optional<TuningFile> tuning;
  if (!tuning_path.empty()) tuning = read_tuning_file(tuning_path);
  if (o.input_path.empty()) {
    // Everything above needs neither Kokkos nor the device (an input file is read and
    // checked by make_session_from_file before it starts them).
    const files::StopPhase phase("starting Kokkos");
    runtime::start();
    // Before anything is generated: this rank's arrays against the memory available
    // (docs/reliability.md; files are checked by their readers).
    check_memory_fits("deck " + o.deck.name, o.deck.nbands, share.count(o.deck.ngpown), o.deck.ncouls,
                      o.deck.nend - (long long)o.deck.nstart + 1);
  }
  // Making the deck can take a while (reading, or generating and deriving, its arrays).
  if (progress) {
    const double bytes = o.input_path.empty() ? deck_bytes(o.deck, share) : double(file_size(o.input_path));
    progress->start(o.input_path.empty() ? "generating deck " + o.deck.name : "reading " + o.input_path, 0,
                    bytes / session::prior_setup_rate());
  }
  Prepared p{o.input_path.empty() ? make_session(o.deck, share)
                                  : make_session_from_file(o.input_path, app.count("--name") ? o.deck.name : "", share),
             std::move(runs), tuning_path};
  if (progress) progress->finish();
  p.session.store.enabled = !o.no_reference_cache;
  for (const auto& r : p.runs) plan_chunks(p.session, r.space, max_device_bytes);
  // A rank's work decides its tunables' size class (one rank: the whole deck).
  const std::string size_class = measure::sweep::size_class(p.session.host.updates());
  for (auto& r : p.runs) {
    const TuningEntry* e = nullptr;
    if (tuning) {
      const SpaceInfo where = space_info(r.space);
      e = tuning->find(where.device, where.backend, r.entry->name, size_class);
    }
    r.tunables_source = apply_tuning(*r.entry, r.tunables, e ? &e->tunables : nullptr, "tuning file " + tuning_path);
    if (!o.resolve_planned) continue;
    try {
      resolve(p.session, *r.entry, r.space, r.tunables);
    } catch (const Error& err) {
      if (!e) throw;
      throw Error("tuning file " + tuning_path + ": the entry for " + r.entry->name + " cannot run: " + err.what());
    }
  }
  return p;
}
}  // namespace

Prepared prepare(CLI::App& app, const RunOptions& o, session::Progress* progress) {
  std::optional<Prepared> p;
  session::mpi::collectively([&] { p.emplace(prepare_this_rank(app, o, progress)); });
  // Every rank runs the same deck (its data's digest: one rank given another deck file,
  // seed or input would add its sums to the others') with the same tunables (a tuning
  // file differs between ranks when $HOME or $GPP_TUNING_FILE does).
  std::string plan = "deck " + p->session.deck_digest;
  for (const auto& r : p->runs)
    plan += "; " + r.entry->name + " on the " + to_string(r.space) + ": " + describe_tunables(r.tunables);
  session::mpi::agree(session::mpi::compare_with_rank0("deck and tunables", plan));
  // Every rank has started its device: which GPU each drives, two on one refused.
  check_placement(shared_device_allowed());
  complete_share(p->session);
  return std::move(*p);
}

std::string describe_plan_provenance(const RunRecord& r, const std::vector<PlannedRun>& runs) {
  RunRecord head = r;
  head.runs.clear();
  for (const auto& planned : runs) {
    PolicyRun run;
    run.space = space_info(planned.space);
    head.runs.push_back(run);
  }
  return record::describe_provenance(head);
}

void write_outputs(const RunOptions& o, const RunRecord& r) {
  // Rank 0 writes. On several ranks the others wait for its outcome, so that a write that
  // fails (a full disk) ends every rank as a collective error does: the one line and exit
  // 1, not MPI_Abort, whose end under Open MPI is a launcher's notice, now and then its
  // crash.
  const files::StopPhase phase("writing the output files");
  const auto write = [&] {
    // The sweep's CSV and tuning file (more_outputs) are its own to write.
    if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(r));
    if (!o.csv_path.empty()) write_file_atomically(o.csv_path, measure::sweep::csv_header() + "\n" + csv_rows(r));
    if (!o.output_path.empty()) write_results_h5(o.output_path, r);
  };
  if (session::mpi::size() == 1) return write();
  session::mpi::collectively([&] {
    if (session::mpi::rank() == 0) write();
  });
}

std::string describe_branches(const BranchCounts& b) {
  const double n = double(b.total());
  std::ostringstream o;
  const auto pct = [n](double count) { return files::percent_text(count / n, 4); };
  o << "branches: regular " << pct(b.regular) << ", near-pole " << pct(b.near_pole) << ", zero " << pct(b.zero)
    << "; sexcut cutoff " << pct(b.cut) << " of " << b.total() << " terms\n";
  return o.str();
}

double estimated_seconds(Session& s, const std::vector<PlannedRun>& planned, VerifyMode mode, bool arms,
                         bool with_static, int runs) {
  const double updates = s.host.updates();
  double seconds = 0;
  if (with_static)
    seconds +=
        double(s.host.nbands) * s.host.ngpown * s.host.ncouls / session::prior_static_rate(planned.front().space);
  if (const auto k = reference_space(s, mode)) {
    seconds += updates / session::prior_reference_rate(*k);
  } else if (arms && !session::stored_reference(s, default_space())) {
    seconds += updates / session::prior_reference_rate(default_space());
  }
  for (const auto& r : planned) seconds += double(runs) * updates / session::prior_update_rate(r.entry->name, r.space);
  return seconds;
}

void add_static_remainder(Session& s, RunRecord& r, SpaceKind k, session::Progress* progress) {
  // Each G' chunk's part (in slices where it is long), then every rank's (the sum is over
  // n1 and G').
  std::vector<std::complex<double>> achstemp{{0.0, 0.0}};
  double seconds = 0;
  const double per_column_macs = double(s.host.nbands) * s.host.ncouls;
  double per_column = per_column_macs / session::prior_static_rate(k);
  const files::StopPhase phase("the static remainder on the " + std::string(to_string(k)));
  if (progress)
    progress->start("static remainder (" + std::string(to_string(k)) + ")", per_column_macs * s.host.ngpown,
                    per_column * s.host.ngpown, "multiply-adds");
  with_space(k, [&](auto space) {
    s.for_each_chunk(space, [&](const auto& data) {
      for_each_slice(space, data, per_column, false, [&](const auto& piece) {
        space.fence();
        const auto t0 = std::chrono::steady_clock::now();
        achstemp[0] += static_remainder(space, piece);
        space.fence();
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        seconds += t;
        if (progress) progress->advance(piece.ngpown * per_column_macs);
        return t;
      });
    });
  });
  if (progress) progress->finish();
  session::mpi::sum(achstemp);
  r.achstemp = achstemp[0];
  r.static_s = session::mpi::max(seconds);
  r.achstemp_space = space_info(k);
  if (s.reference_achstemp) r.achstemp_rel_error = relative_error(*r.achstemp, *s.reference_achstemp);
}

}  // namespace gpp::commands
