#pragma once
// The grid of `gpp sweep`: value lists and ranges of each tunable, their product per
// policy (restricted to the tunables the policy reads), the size class of a deck, and
// the sweep CSV read back (for --resume). No Kokkos work happens here.
#include "gpp_policy.hpp"
#include "gpp_table.hpp"
#include "gpp_types.hpp"

#include <cmath>

#include <string>
#include <vector>

namespace gpp::measure::sweep {

/// Most values one option may list, and most points one policy's grid may have.
inline constexpr std::size_t kMaxValues = 4096;
inline constexpr std::size_t kMaxPoints = 100000;

/// A comma-separated list of positive integers and ranges: `a:b:xK` (a, a*K, a*K^2, ...
/// up to b; K >= 2) and `a:b:+K` (a, a+K, ... up to b; K >= 1). Duplicates are dropped,
/// the order of first appearance kept. Throws gpp::Error naming `option`.
std::vector<int> parse_values(const std::string& option, const std::string& spec);

/// A comma-separated list of tiles, each sizes joined by 'x' (`128x1x1,64x2x1`).
std::vector<std::vector<int>> parse_tiles(const std::string& option, const std::string& spec);

/// The values listed for each tunable (empty: not swept), and for each param named
/// (--param NAME=V1,V2), in the order given.
struct Axes {
  std::vector<int> band_block, ig_block, team_size, vector_length;
  std::vector<std::vector<int>> tile;
  std::vector<std::pair<std::string, std::vector<std::string>>> params;
};

/// `--param NAME=V1,V2` into `a`'s params (a name given twice, an empty value or a
/// repeated one is refused).
void add_param_axis(Axes& a, const std::string& spec);

/// Option names ("band-block", ...) of the tunables `a` lists (params not included).
std::vector<std::string> listed(const Axes& a);

/// Throws gpp::Error when `a` lists a tunable none of `policies` reads.
void check_axes_used(const Axes& a, const std::vector<const PolicyEntry*>& policies);

/// The cartesian product of the axes `policy_tunables` names (option names, as in
/// PolicyEntry::tunables); tunables the policy lacks stay 0 (default). One point with
/// every default when the policy reads none of the listed tunables. The last listed
/// tunable varies fastest (band_block, ig_block, team_size, vector_length, tile).
/// The params' axes come last (varying fastest), those the policy has (`policy_params`).
std::vector<Tunables> expand(const Axes& a, const std::vector<std::string>& policy_tunables,
                             const std::vector<ParamSpec>& policy_params = {});

/// small (< 1e9 updates), medium (< 1e11), large.
std::string size_class(double updates);

/// "128x1x1" <-> {128, 1, 1}; "" <-> {}.
std::string tile_text(const std::vector<int>& tile);

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
/// known policy and status, tunables gpp run accepts, and for a row that ran (ok, wrong)
/// times a run can give (finite, 0 < min <= median <= max, at most a year) that agree
/// with its updates_per_s; a row that did not run (invalid) has no times. Whether the
/// rows are of this run's device, build and deck is the caller's check (same_origin).
struct CsvFile {
  std::vector<std::string> lines;  // the data records as written (no header, no newline)
  std::vector<Row> rows;
};
CsvFile read_sweep_csv(const std::string& path);
/// The same, from text (`where` starts every message); a last line without its newline
/// (a writer killed mid-row) is left out.
CsvFile parse_sweep_csv(std::string text, const std::string& where);

/// Same configuration: policy, space, deck sizes and every tunable.
bool same_point(const Row& a, const Row& b);

/// "" when `old` was measured where `now` is (device, backend, build: git, version and
/// Kokkos, deck: name and sizes), else the first field that differs with both values.
std::string origin_difference(const Row& old, const Row& now);

}  // namespace gpp::measure::sweep
