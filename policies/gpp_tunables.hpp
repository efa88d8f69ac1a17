#pragma once
// The tunables: the strategy parameters of the policies (cache blocks, team shape, MDRange
// tiles). Each is declared once, as a row of tunable_table(): its name in every record (JSON
// key, CSV column, text), its command-line option and description, its member of Tunables,
// how its value is written as text and read back, and the limits every source is held to
// (the command line, a sweep's grid, a resumed sweep CSV, a tuning file). The CLI, sweep,
// tune, tuning files, roofline and the records loop over the table; a policy says which
// tunables it reads in its registry line (policies/registry.cpp) and reads the plain members.
#include <map>
#include <string>
#include <vector>

namespace gpp {

/// Strategy parameters. In a request, 0 (or an empty tile, an absent param) means the
/// policy's default; after a runner has seen them (resolve), the values that run.
struct Tunables {
  int band_block = 0;     // bands per cache block (v6+)
  int ig_block = 0;       // G per cache block (v6+)
  int team_size = 0;      // threads per team (TeamPolicy steps)
  int vector_length = 0;  // vector lanes per thread (TeamPolicy steps)
  std::vector<int> tile;  // MDRangePolicy tile sizes, one per rank
  /// A policy's named code-path choices (PolicyEntry::params): name -> value (--param
  /// NAME=VALUE); a resolved set names every param of the policy.
  std::map<std::string, std::string> params;
};

/// Every tunable of the table and every param equal.
bool operator==(const Tunables& a, const Tunables& b);
inline bool operator!=(const Tunables& a, const Tunables& b) { return !(a == b); }

/// The largest value of any tunable (blocks, teams, lanes, tile sizes), from every
/// source (command line, sweep grid, tuning file, sweep CSV): 2^20 keeps block arithmetic
/// (n + block) and tile products far inside int and long with sizes up to 2^30.
inline constexpr int kMaxTunable = 1 << 20;

/// "" when `n` is a size gpp takes (1..kMaxTunable), else why not ("must be at most
/// 1048576 (got 100000000)").
std::string size_why_not(long long n);

/// One tunable's value: its sizes; {} when not set (the policy's default), one size for
/// a block, a team or lanes, one per rank for a tile.
using TunableValue = std::vector<int>;

/// A member of Tunables holding one size, or one size per rank. Through aliases: nvcc writes
/// `int Tunables::*m` out as `int (Tunables::*m)`, which g++ -Wall then reports (-Wparentheses).
using TunableSize = int Tunables::*;
using TunableSizes = std::vector<int> Tunables::*;

/// One row of the table.
struct TunableSpec {
  const char* name;              // band_block: JSON key, CSV column, name in the text form
  const char* option;            // band-block: --band-block; the name in PolicyEntry::tunables
  const char* help;              // what it sets (the option's description)
  TunableSize size = nullptr;    // a one-size tunable's member, or
  TunableSizes sizes = nullptr;  // a tunable of one size per rank (a tile)
  int max_sizes = 1;             // most sizes of a value

  bool one_size() const { return size != nullptr; }
  TunableValue get(const Tunables& t) const;
  void set(Tunables& t, const TunableValue& v) const;
  bool is_set(const Tunables& t) const { return !get(t).empty(); }

  /// "" when `v` is a value gpp takes (1 to max_sizes sizes, each 1..kMaxTunable), else why
  /// not ("must be at most 1048576 (got 100000000)"). The one check of every source.
  std::string why_not(const TunableValue& v) const;
  /// A value from its text (its text form: 64, 128x1x1; a tile also as 128,1,1), checked
  /// by why_not. gpp::Error "WHAT: why" otherwise, WHAT being `what` or --OPTION (the line
  /// gpp run prints).
  TunableValue parse(const std::string& text, const std::string& what = "") const;
  /// A grid's values: a comma-separated list of values and, for a one-size tunable,
  /// ranges a:b:xK (a, a*K, ... up to b; K >= 2) and a:b:+K (K >= 1); duplicates dropped,
  /// the order of first appearance kept; every value checked as parse() checks it. At
  /// most kMaxGridValues values. gpp::Error naming the option and the item otherwise.
  std::vector<TunableValue> parse_grid(const std::string& text) const;
};

/// Most values one grid option may list.
inline constexpr std::size_t kMaxGridValues = 4096;

/// "64", "128x1x1"; "" for a value not set: the text form in records, CSV cells, messages
/// and command lines (--tile takes it as it is printed).
std::string tunable_text(const TunableValue& v);

/// Every tunable, in the order records list them (and a sweep's grid varies them: the
/// last fastest).
const std::vector<TunableSpec>& tunable_table();

/// The row whose option (band-block) or name (band_block) is `key`; null when none is.
const TunableSpec* find_tunable(const std::string& key);

/// "loops=vector rcp_empty=share": the params of `t`, in name order ("" for none).
std::string describe_params(const Tunables& t);

/// "band_block=64 tile=128x1x1 loops=scalar": the tunables that are set, then the params;
/// "none" when nothing is set.
std::string describe_tunables(const Tunables& t);

}  // namespace gpp
