#pragma once
// The tuning file (docs/formats.md "Tuning file"): the best tunables a sweep or `gpp
// tune` found, keyed by device, backend, policy and size class; read by `gpp run` and
// `gpp bench` (--tuning FILE, or the default place).
#include "gpp_policy.hpp"

#include <string>
#include <vector>

namespace gpp::app {

struct TuningEntry {
  std::string device, backend, policy, size_class;
  Tunables tunables;
  double time_median_s = 0;
  std::string deck, date;
};

struct TuningFile {
  static constexpr int kSchemaVersion = 1;
  std::vector<TuningEntry> entries;

  /// The entry for this key, or null.
  const TuningEntry* find(const std::string& device, const std::string& backend, const std::string& policy,
                          const std::string& size_class) const;
  /// Adds `e`, replacing the entry with the same key.
  void merge(const TuningEntry& e);
};

/// Reads and checks a tuning file; gpp::Error ("tuning file PATH: ...") for anything
/// wrong in it: not JSON, another schema version or kind, an unknown policy, size class
/// or tunable, a value that is not a positive integer, a tunable the policy lacks.
TuningFile read_tuning_file(const std::string& path);

/// The same, from text (`path` names it in messages).
TuningFile parse_tuning(const std::string& text, const std::string& path);

/// The file as JSON.
std::string to_json(const TuningFile& f);

class Json;
/// The tunables as a JSON object under `key` (band_block, ..., tile), those that are set:
/// the one form of tunables in tuning files and in run records.
void json_tunables(Json& j, const std::string& key, const Tunables& t);

/// Where `gpp run`/`bench` look when no --tuning is given: $GPP_TUNING_FILE when set
/// and not empty, else ~/.config/gpp/tuning.json when that file exists, else "".
std::string default_tuning_path();

/// Where `gpp tune` writes when no --tuning-out is given: $GPP_TUNING_FILE when set and
/// not empty, else ~/.config/gpp/tuning.json (its directory created).
std::string default_tuning_out_path();

}  // namespace gpp::app
