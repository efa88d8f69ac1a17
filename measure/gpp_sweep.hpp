#pragma once
// The grid of `gpp sweep`: value lists and ranges of each tunable, their product per
// policy (restricted to the tunables the policy reads), the size class of a deck, and
// the sweep CSV read back (for --resume). No Kokkos work happens here.
#include "gpp_policy.hpp"
#include "gpp_table.hpp"
#include "gpp_types.hpp"

#include <cmath>

#include <map>
#include <string>
#include <vector>

namespace gpp::measure::sweep {

/// Most points one policy's grid may have.
inline constexpr std::size_t kMaxPoints = 100000;

/// The values listed for each tunable (by its option; not there: not swept), and for each
/// param named (--param NAME=V1,V2), in the order given.
struct Axes {
  std::map<std::string, std::vector<TunableValue>> tunables;
  std::vector<std::pair<std::string, std::vector<std::string>>> params;
};

/// `--OPTION TEXT` of a grid into `a`: its values (TunableSpec::parse_grid: lists, ranges,
/// every value held to the check of gpp run).
void add_axis(Axes& a, const TunableSpec& spec, const std::string& text);

/// `--param NAME=V1,V2` into `a`'s params (a name given twice, an empty value or a
/// repeated one is refused).
void add_param_axis(Axes& a, const std::string& spec);

/// Option names ("band-block", ...) of the tunables `a` lists, in the table's order
/// (params not included).
std::vector<std::string> listed(const Axes& a);

/// Throws gpp::Error, before any work, when `a` lists a tunable none of `policies` reads, a
/// value none of the policies reading it takes (check_tunables: a tile of another rank),
/// or values none of which one of those policies takes; or a param value none takes.
void check_axes_used(const Axes& a, const std::vector<const PolicyEntry*>& policies);

/// The cartesian product of the axes of the tunables `entry` reads, each over the values
/// it takes (a tile of its rank); tunables it lacks stay 0 (default). One point with every
/// default when it reads none of the listed tunables. The tunables vary in the table's
/// order, the last fastest (band_block first, tile last); the params' axes come last
/// (varying fastest), those the policy has.
std::vector<Tunables> expand(const Axes& a, const PolicyEntry& entry);

/// small (< 1e9 updates), medium (< 1e11), large.
std::string size_class(double updates);

/// One row of a sweep CSV (docs/formats.md "Sweep CSV"): one point of a sweep, tune or
/// bench. Declared once, as the table of fields csv_table(): the CSV header, the line a
/// campaign appends and the reader of a resumed file all come from it.
struct Row {
  std::string date, git, version, kokkos;    // when, and the build that measured it
  std::string backend, space, device, deck;  // where, and what
  DeckSizes sizes;
  double updates = 0;  // band x G' x G x frequency updates of one evaluation
  std::string policy;
  Tunables tunables;  // the values that ran, defaults resolved
  int repeats = 0;
  double time_min_s = NAN, time_median_s = NAN, time_max_s = NAN;  // NaN: the point did not run
  double updates_per_s = NAN;
  double gflops = NAN;     // NaN: the policy's FLOPs not counted
  double rel_error = NAN;  // NaN: not verified
  std::string status;      // ok | wrong | invalid
  std::string reason;      // invalid: why
};

/// The sweep CSV's fields, in its columns' order.
const formats::Table<Row>& csv_table();
/// Its header line and one row's line (no newline).
const std::string& csv_header();
std::string csv_line(const Row& r);

/// A sweep CSV's rows (a regular file of at most kMaxCsvBytes): its header must be
/// csv_header() exactly (else gpp::Error naming `path`), each row must have every field, a
/// known policy and status, tunables gpp run accepts (the table's check and the
/// policy's), and for a row that ran (ok, wrong) times a run can give (finite, 0 < min <=
/// median <= max, at most a year) that agree with its updates_per_s; a row that did not run (invalid) has no times. Whether the
/// rows are of this run's device, build and deck is the caller's check (same_origin).
struct CsvFile {
  std::vector<std::string> lines;  // the data records as written (no header, no newline)
  std::vector<Row> rows;
};
CsvFile read_sweep_csv(const std::string& path);
/// The same, from text (`where` starts every message); a last line without its newline
/// (a writer killed mid-row) is left out.
CsvFile parse_sweep_csv(std::string text, const std::string& where);

/// Same configuration: policy, space, deck sizes and every tunable (Tunables' ==).
bool same_point(const Row& a, const Row& b);

/// "" when `old` was measured where `now` is (device, backend, build: git, version and
/// Kokkos, deck: name and sizes), else the first field that differs with both values.
std::string origin_difference(const Row& old, const Row& now);

}  // namespace gpp::measure::sweep
