#pragma once
// The roofline pieces of `gpp ceilings` and `gpp roofline` (docs/roofline.md,
// docs/formats.md): the level rule over a bandwidth sweep, the ceilings JSON, Nsight
// Compute's raw CSV, and the roofline CSV rows.
#include "gpp_ceilings.hpp"
#include "gpp_backend.hpp"
#include "gpp_table.hpp"
#include "gpp_types.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpp::measure {

struct BandwidthLevel {
  std::string level;  // HBM | DRAM | L3 | L2 | L1
  double gbs = 0, working_set_bytes = 0;
  std::string method;
};

/// Levels read off a sweep, largest first: each level is the best point of the sweep
/// whose working set lies in the level's window (docs/roofline.md, "Ceilings"):
///   L1: ws <= L1_total/2; L2: L1_total < ws <= L2_total/2; L3 (host): L2_total < ws <= L3/2;
///   HBM/DRAM: ws >= 4 x the largest cache (else the largest ws, said in its method),
/// with L1_total = L1 x units, L2_total = L2 (GPU) or L2 x units (host). A level whose
/// window holds no point is left out. On a GPU with a `rotated` sweep (no L1 reuse,
/// bandwidth_sweep with rotate): L2 is the best rotated point at ws <= L2_total/2 and
/// HBM the best rotated point at ws >= 4 x L2_total (the L1s of a GPU together may hold
/// more than its L2, so the unrotated sweep cannot separate L2 from L1).
std::vector<BandwidthLevel> pick_levels(const std::vector<ceilings::SweepPoint>& sweep, const backend::Properties& c,
                                        bool host, const std::vector<ceilings::SweepPoint>& rotated = {});

struct CeilingsFile {
  std::string date, version, git;
  std::string device, backend, space;
  double clock_mhz = 0;
  int multiprocessors = 0, concurrency = 0;
  double memory_bytes = 0, memory_free_bytes = 0;  // device memory (0: the host space)
  ceilings::Measured fp64;
  std::vector<BandwidthLevel> bandwidth;
  std::vector<ceilings::SweepPoint> sweep, sweep_rotated;  // rotated: GPUs only
  std::vector<ceilings::LinkPoint> host_link;              // GPUs only
  std::string host_link_method;
};
std::string to_json(const CeilingsFile& c);

/// What `gpp roofline` takes from a ceilings file: the machine it was measured on and
/// its FP64 FMA peak.
struct CeilingsSummary {
  std::string device, backend;
  double fp64_peak_gflops = 0;
};

/// Reads and checks a ceilings JSON file (a regular file of at most kMaxJsonBytes):
/// kind gpp-ceilings, schema_version 1, a device with a name and a backend, an "FP64
/// FMA peak" in compute with a positive finite gflops, bandwidth levels with positive
/// finite gbs. gpp::Error ("--ceilings PATH: ...") naming the first problem.
CeilingsSummary read_ceilings(const std::string& path);
CeilingsSummary parse_ceilings(const std::string& text, const std::string& path);

/// Counters of one NVTX range of an `ncu --csv --page raw` report, summed over its kernels.
struct NcuCounters {
  int kernels = 0;
  double dadd = 0, dmul = 0, dfma = 0, bytes_l1 = 0, bytes_l2 = 0, bytes_dram = 0, time_s = 0;
  std::optional<double> registers, occupancy_pct;  // the largest / launch-weighted mean over kernels
};

/// Parses ncu's raw-page CSV (header row, units row, one row per kernel; quoted fields,
/// numbers possibly with thousands separators). Byte and time units are converted from
/// the units row (byte, Kbyte, Mbyte, ...; nsecond, usecond, msecond, second).
/// gpp::Error when a needed metric column is missing or a value is not a number.
NcuCounters parse_ncu_raw_csv(const std::string& text);

/// The metrics gpp roofline asks ncu for.
const std::vector<std::string>& ncu_metrics();

/// One row of the roofline CSV (docs/formats.md), declared once as the table of fields
/// roofline_csv_table(): what is measured here, and the columns derived from it (flops
/// profiled, arithmetic intensities, rates, % of peak) in the table.
struct RooflineRow {
  std::string date, git, device, backend, space, deck, policy, tunables;
  DeckSizes sizes;
  int repeats = 0;
  double updates = 0, time_s = 0, flops_counted = 0, reciprocals_counted = 0, flops_nominal = 0, bytes_compulsory = 0,
         fma_ratio_counted = 0;
  std::string profiler = "none", clock_control;
  std::optional<NcuCounters> ncu;
  std::optional<double> fp64_peak_gflops;
};
const formats::Table<RooflineRow>& roofline_csv_table();
const std::string& roofline_csv_header();
/// One row's line, with its newline.
std::string roofline_csv_row(const RooflineRow& r);

/// The cells of a roofline CSV row that say which point it is (where and what ran: git,
/// device, backend, space, deck, sizes, policy, tunables), from its cells in the table's order.
std::vector<std::string> roofline_point_key(const std::vector<std::string>& cells);

/// The points of a roofline CSV given to `gpp roofline --resume` (a regular file of at most
/// kMaxCsvBytes): its header must be this version's and every complete row have every
/// field; a last row without its newline (a writer killed mid-row) is left out.
/// gpp::Error ("--resume PATH: ...") naming the first problem.
std::vector<std::vector<std::string>> read_roofline_points(const std::string& path);

}  // namespace gpp::measure
