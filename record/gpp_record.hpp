#pragma once
// One run record: everything a `gpp run`, `gpp bench` or `gpp sweep` did and found,
// filled once and serialised by every writer (text, RESULT line, JSON, CSV, HDF5).
// Adding an output field is one field here and one line in each writer that shows it.
#include "gpp_diagnostics.hpp"
#include "gpp_policy.hpp"
#include "gpp_result.hpp"
#include "gpp_sweep.hpp"

#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace gpp::record {

/// What this binary is: fixed when it was built.
struct BuildInfo {
  std::string version, git;
  std::string kokkos_version, kokkos_backends;  // e.g. "4.6.1", "Cuda, OpenMP"
  std::string compiler, cxx_flags, build_type;
  bool kokkos_kernels = false, hdf5 = false;
};
BuildInfo this_build();

/// Where one policy ran.
struct SpaceInfo {
  SpaceKind kind = SpaceKind::Host;
  std::string backend;  // Kokkos' name of the execution space: Cuda, OpenMP, Serial
  std::string device;   // GPU name or host CPU model
  int concurrency = 0;
};
SpaceInfo space_info(SpaceKind k);

/// The deck a record is about.
struct DeckInfo {
  std::string name, source, generator;  // generator: random, uniform, or file
  std::string input_path;               // the input file, "" for synthetic decks
  long long seed = -1;                  // random synthetic decks only
  DeckSizes sizes;
  int nstart = 0, nend = 0, nvband = 0;
  double updates = 0;
  std::string reference_provenance;  // how a stored reference was made ("" if none)
};

/// One policy's timed runs.
struct PolicyRun {
  std::string policy;
  SpaceInfo space;
  Tunables tunables;  // the values that ran, defaults resolved
  // Where the requested values came from: "default", "command line", "tuning file PATH",
  // "sweep", "tune", or per tunable ("band_block: command line; team_size: tuning file PATH").
  std::string tunables_source = "default";
  std::vector<double> times;  // seconds, warm-up excluded
  SigmaResult result;
  double rel_error = 0;  // worst over all runs (warm-up included)
  bool verified = false;
  std::string status = "ok";  // ok | wrong (failed verification) | invalid (could not run)
  std::string reason;         // invalid: why
  double flops = 0;           // FP64 FLOPs of one evaluation counted for this policy (0: not counted)
  double min() const;
  double median() const;
  double max() const;
  // MPI over G' and chunks (docs/mpi.md): times above are the slowest rank's kernel time
  // plus the reduction; here each rank's median kernel time, the reduction's median.
  int ranks = 1;
  std::vector<double> rank_kernel_s;  // per rank, in rank order
  double comm_s = 0;                  // MPI_Allreduce of the 4*nw sums
  int chunks = 1;                     // G' chunks per pass on this space (--max-device-mem)
  int launches = 1;                   // launches per timed run (chunks, and slices of a long run)
  // Each repeat's pass with the chunks' copies that were not hidden behind kernels (the
  // slowest rank's, plus the reduction); equal to `times` but for those copies. An
  // unchunked run copies its data once, before its passes (RunRecord::transfer_s).
  std::vector<double> times_with_transfers;
  double stream_bytes = 0;   // host -> device bytes each pass streams (0: unchunked)
  double stream_copy_s = 0;  // of each pass: the streamed copies' own time (device timers; -1: unknown)
  double median_with_transfers() const;
};

/// A command's wall time in phases that add up to it (docs/formats.md): setup (start-up,
/// the deck generated or read, checked and derived, the chunk plan, tunables resolved),
/// host -> device copies not hidden behind kernels, kernels (every pass of every policy,
/// warm-ups included, and the static remainder, with their host-side work), verification
/// (the reference pass, which also counts the branch statistics), and the output.
struct TimeToSolution {
  double setup_s = 0, transfer_s = 0, kernel_s = 0, verification_s = 0, output_s = 0;
  double total_s = 0;  // the wall time since gpp started: the sum of the five
};

/// Where the verification reference came from (docs/formats.md, docs/wall-time.md).
struct ReferenceOrigin {
  // "computed" (this command's pass), "stored" (the user's store of references), "input
  // file" (its records 17-18), "closed form", or "none"
  std::string source = "none";
  std::string date;    // computed or stored: when its pass ran (UTC, ISO 8601)
  std::string space;   // computed or stored: "host" or "device", where its pass ran
  std::string device;  // computed or stored: that space's device or CPU model
  double pass_s = 0;   // computed or stored: what its pass took
  std::string file;    // the stored file read, or written by this command ("" if none)
};

struct RunRecord {
  static constexpr int kSchemaVersion = 1;
  std::string command;                       // run | bench | sweep
  std::string date;                          // UTC, ISO 8601
  std::vector<std::string> command_line;     // argv
  std::vector<std::string> kokkos_warnings;  // what Kokkos wrote on stderr as it started
  BuildInfo build;
  DeckInfo deck;
  // setup
  double setup_s = 0, read_s = 0, check_s = 0, transfer_s = 0;
  long long read_bytes = 0, data_bytes = 0, device_mem_peak_bytes = -1;
  double transfer_bytes = 0;   // copied once to the device (the whole share, or bands and resident G')
  double transfer_copy_s = 0;  // of transfer_s: the copies' own time (device timers; -1: unknown)
  // the static remainder
  std::optional<std::complex<double>> achstemp;
  std::optional<SpaceInfo> achstemp_space;
  double static_s = 0;
  std::optional<double> achstemp_rel_error;
  // branch fractions (the literal physics' arms), when counted
  std::optional<measure::BranchCounts> branches;
  // what every run was checked against
  Verification target;  // against, tolerance
  SigmaResult reference;
  double reference_s = 0;
  ReferenceOrigin reference_origin;

  std::vector<PolicyRun> runs;

  // Filled by the commands that time their phases (run, bench); a record is written during
  // its output phase, so its output_s and total_s stop there (the text's last line has
  // the final ones).
  std::optional<TimeToSolution> time_to_solution;

  int ranks = 1;                            // MPI ranks (docs/mpi.md)
  std::vector<std::string> rank_placement;  // per rank: "host HOST, DEVICE" (MPI builds)

  /// Every run verified (or verification off) and achstemp within tolerance.
  bool passed() const;
};

/// Today's date and time, UTC, ISO 8601.
std::string utc_now();

// ---- the record's parts as tables of fields (JSON objects, HDF5 attributes) ----

const formats::Table<BuildInfo>& build_fields();               // "build"
const formats::Table<DeckInfo>& deck_fields();                 // "deck"
const formats::Table<TimeToSolution>& time_fields();           // "time_to_solution"
const formats::Table<RunRecord>& setup_fields();               // "setup"
const formats::Table<RunRecord>& static_fields();              // "static_remainder" (where achstemp was computed)
const formats::Table<measure::BranchCounts>& branch_fields();  // "branches" (where counted)
const formats::Table<RunRecord>& verification_fields();        // "verification"
/// One run of a record (its rates need the deck's updates).
struct RunView {
  const RunRecord* rec;
  const PolicyRun* run;
};
const formats::Table<RunView>& run_fields();  // each of "runs"

// ---- writers: each serialises the whole record ----

/// The grep-able line of one run: RESULT deck=... policy=... space=... (values are
/// validated names or numbers: no spaces, '=' or newlines can appear in them).
std::string result_line(const RunRecord& r, const PolicyRun& run);

/// The record as JSON (one schema for run, bench and sweep; docs/formats.md).
std::string to_json(const RunRecord& r);

/// The sweep CSV row (docs/formats.md "Sweep CSV"; its fields: measure::sweep::csv_table()) of one
/// run of the record, as a row and as its line (no newline); every run's lines, each
/// ending in a newline.
measure::sweep::Row row_of(const RunRecord& r, const PolicyRun& run);
std::string csv_row(const RunRecord& r, const PolicyRun& run);
std::string csv_rows(const RunRecord& r);

/// The HDF5 results file of a run (layout in docs/io.md), written atomically
/// (gpp_record_h5.cpp).
void write_results_h5(const std::string& path, const RunRecord& r);

/// Provenance lines of the text output.
std::string describe_provenance(const RunRecord& r);

}  // namespace gpp::record
