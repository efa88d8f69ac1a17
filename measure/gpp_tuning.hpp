#pragma once
// The tuning file (docs/formats.md "Tuning file"): the best tunables a sweep or `gpp
// tune` found, keyed by device, backend, policy and size class; read by `gpp run` and
// `gpp bench` (--tuning FILE, or the default place).
#include "gpp_json.hpp"
#include "gpp_policy.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpp::measure {

/// Why an entry's tunables beat the policy's defaults (measure/gpp_decide.hpp): the test,
/// and the interleaved repeats it was decided on. Absent in hand-written entries.
struct TuningEvidence {
  std::string test;  // kTuningTest
  int repeats = 0;   // of each point
  double p_value = 1, gain = 0;
  double time_median_s = 0, spread = 0;                  // the entry's tunables
  double default_time_median_s = 0, default_spread = 0;  // the defaults'
};
inline constexpr const char* kTuningTest = "one-sided exact Mann-Whitney U on interleaved repeats";

struct TuningEntry {
  std::string device, backend, policy, size_class;
  Tunables tunables;
  double time_median_s = 0;  // 0: not given (a hand-written entry)
  std::string deck, date;
  std::optional<TuningEvidence> evidence;
  formats::JsonIn unknown = formats::JsonIn::object();  // fields gpp does not know: kept, written back
};

struct TuningFile {
  static constexpr int kSchemaVersion = 1;
  std::vector<TuningEntry> entries;
  formats::JsonIn unknown = formats::JsonIn::object();  // top-level fields gpp does not know

  /// The entry for this key (one of size_class "any" where there is none of the size's
  /// own), or null.
  const TuningEntry* find(const std::string& device, const std::string& backend, const std::string& policy,
                          const std::string& size_class) const;
  /// Adds `e`, replacing the entry with the same key; fields gpp does not know of the
  /// replaced entry are kept (e's own win).
  void merge(const TuningEntry& e);
  /// Removes the entry with this key (the defaults are as fast); false if there was none.
  bool erase(const std::string& device, const std::string& backend, const std::string& policy,
             const std::string& size_class);
};

/// Most entries a tuning file may hold (devices x backends x policies x size classes of
/// a whole centre fit many times over).
inline constexpr std::size_t kMaxTuningEntries = 100000;

/// Reads and checks a tuning file (a regular file of at most kMaxJsonBytes); gpp::Error
/// ("tuning file PATH: ...") for anything wrong in it: not JSON, another schema version
/// or kind, an unknown policy, size class or tunable, a value that is not a positive
/// integer of at most 2^20 (what gpp run accepts), a tunable the policy lacks, a time
/// that is not a positive finite number of seconds, two entries for one key.
TuningFile read_tuning_file(const std::string& path);

/// The same, from text (`path` names it in messages).
TuningFile parse_tuning(const std::string& text, const std::string& path);

/// The file as JSON.
std::string to_json(const TuningFile& f);

/// The tunables as a JSON object (band_block, ..., tile), those that are set: the one
/// form of tunables in tuning files and in run records.
formats::Json json_tunables(const Tunables& t);

/// Throws gpp::Error unless `seconds` is a time a measurement can give: finite, positive,
/// at most a year (a forged or garbage time is never a best point nor a tuning entry).
void check_time(double seconds, const std::string& what);

/// Where `gpp run`/`bench` look when no --tuning is given: $GPP_TUNING_FILE when set
/// and not empty, else ~/.config/gpp/tuning.json when that file exists, else "".
std::string default_tuning_path();
/// Where default_tuning_path() found it: "$GPP_TUNING_FILE" or "~/.config/gpp/tuning.json".
std::string tuning_source();

/// Where `gpp tune` writes when no --tuning-out is given: $GPP_TUNING_FILE when set and
/// not empty, else ~/.config/gpp/tuning.json (its directory created).
std::string default_tuning_out_path();

}  // namespace gpp::measure
