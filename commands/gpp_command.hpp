#pragma once
// What `gpp run`, `gpp bench` and `gpp sweep` share: their options, and a prepare step
// that refuses everything that can be refused (deck, input file, policies, spaces,
// tunables, output paths) before any work or output.
#include "gpp_cli.hpp"
#include "gpp_counts.hpp"
#include "gpp_record.hpp"
#include "gpp_outputs.hpp"
#include "gpp_session.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpp::commands {

struct RunOptions {
  DeckParams deck;
  Tunables tunables;
  std::string policy, space, verify = "auto", input_path, json_path, csv_path, output_path;
  int repeat = 3, warmup = 1;
  double rtol = kDefaultRtol;
  bool no_reference_cache = false;  // --no-reference-cache
  // --tuning FILE ("": the default place, docs/formats.md; "none": no file). Commands
  // that choose their tunables themselves (sweep, tune) turn both off.
  std::string tuning;
  bool use_tuning = true;
  bool resolve_planned = true;  // resolve every planned run's tunables in prepare()
  // --max-device-mem (gpp run): most bytes of data a space holds at once; G' beyond it
  // run in chunks (docs/mpi.md). "": the default (what the device has free).
  std::string max_device_mem;
  // The files a command reads and writes besides the deck, --input, the tuning file and
  // --json/--csv/--output (a resumed CSV, a ceilings file, a tuning file to write): all
  // checked together, before any work (files/gpp_outputs.hpp).
  std::vector<files::InputFile> more_inputs;
  std::vector<files::OutputRequest> more_outputs;
};

/// The options of `command` (run, bench or sweep): deck, --input, --policy, --space,
/// timing, verification, tunables, and the output files it writes.
void add_run_options(CLI::App& app, RunOptions& o, const std::string& command);

/// One policy to run, where, and with which requested tunables.
struct PlannedRun {
  const PolicyEntry* entry;
  SpaceKind space;
  Tunables tunables;                        // requested (0: default), tuning file values filled in
  std::string tunables_source = "default";  // record::PolicyRun::tunables_source
};

struct Prepared {
  session::Session session;
  std::vector<PlannedRun> runs;
  std::string tuning_path;  // the tuning file read ("" if none)
};

/// Fills the tunables `t` leaves at 0 (not given on the command line) from `from` (a
/// tuning file's entry, may be null) for the tunables `entry` reads, and says where
/// each value came from: "default", "command line", "tuning file PATH", or per tunable
/// ("band_block: command line; team_size: tuning file PATH") when they differ.
std::string apply_tuning(const PolicyEntry& entry, Tunables& t, const Tunables* from, const std::string& file);

/// Opens the session (this rank's share of G', docs/mpi.md) and checks every planned run
/// (its tunables resolved on its space), every input file and every output path. Nothing
/// has been printed when this returns or throws. Collective: an error on any rank is
/// thrown on every rank (session::mpi::CollectiveError); then every rank checks that it runs the
/// same deck (a digest of its data) with the same tunables as rank 0.
/// Making the deck reports on `progress` (may be null) where it is long.
Prepared prepare(CLI::App& app, const RunOptions& o, session::Progress* progress = nullptr);

/// The outputs `o` asks for, with their options (more_outputs included).
std::vector<files::OutputRequest> output_requests(const RunOptions& o);

/// The deck file given to `app` ("" if none).
std::string deck_file_of(CLI::App& app);

/// The provenance lines (record/gpp_record.hpp) of a command about to run `runs`: the
/// build, Kokkos and the spaces the runs will use. Printed first, before the long work.
std::string describe_plan_provenance(const record::RunRecord& r, const std::vector<PlannedRun>& runs);

/// Writes the record to every output `o` asks for (JSON, CSV, HDF5 results), each whole
/// (files/gpp_atomic_file.hpp), before a result is printed; rank 0 only.
void write_outputs(const RunOptions& o, const record::RunRecord& r);

/// The branch fractions line of the text output.
std::string describe_branches(const measure::BranchCounts& b);

/// The arm of every term of the session's deck, counted once: what the FLOP count of
/// every point needs (docs/roofline.md, "Counting"). The session's arms where its
/// reference pass counted them, else one pass of the fast reference on the default space.
struct WorkCounter {
  measure::counts::Shape shape;
  measure::counts::ArmCounts arms;
  WorkCounter(session::Session& s, session::Progress* progress = nullptr)
      : shape(measure::counts::shape_of(s.host)), arms(arm_counts(s, progress)) {}
  /// The counted FP64 FLOPs of one evaluation of `run`'s point, 0 for a point that did not run.
  double flops(const record::PolicyRun& run) const {
    if (run.times.empty()) return 0;
    try {
      return measure::counts::count_policy(run.policy, shape, arms, run.tunables).ops.flops();
    } catch (const Error&) {
      return 0;  // a policy without a count: the gflops column stays empty
    }
  }
};

/// What a command's work on the session is expected to take before any of it ran (the
/// priors of session/gpp_estimate.hpp): the reference pass (or the arms' pass where
/// `arms` and the target needs none), the static remainder on the first run's space where
/// `with_static`, and `runs` runs of each planned policy. No pass where the reference cache
/// holds the deck's (looked up here once: collective).
double estimated_seconds(session::Session& s, const std::vector<PlannedRun>& planned, session::VerifyMode mode,
                         bool arms, bool with_static, int runs);

/// Computes achstemp on the first run's space into the record, checked against the
/// reference's when the session has one; in G' slices where it is long, reported on
/// `progress` (may be null).
void add_static_remainder(session::Session& s, record::RunRecord& r, SpaceKind k,
                          session::Progress* progress = nullptr);

}  // namespace gpp::commands
