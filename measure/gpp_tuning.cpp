#include "gpp_tuning.hpp"

#include "gpp_table.hpp"

#include "gpp_inputs.hpp"
#include "gpp_text.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>
#include <utility>

namespace gpp::measure {
using files::excerpt;
using files::kMaxJsonBytes;
using files::one_line;
using files::read_input_file;
using formats::dump_json;
using formats::format_double;
using formats::Json;
using formats::json_kind;
using formats::JsonIn;
using formats::member;
using formats::parse_json;
using formats::to_written;

namespace {

const char* const kKnownFileFields[] = {"schema_version", "kind", "entries"};

// The key is a C string: with a std::string made from a literal at the call, GCC 13's
// -Wdangling-reference takes the returned reference for one into that temporary.
const JsonIn& member(const JsonIn& o, const char* key, JsonIn::value_t kind, const char* kind_name,
                     const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end()) throw Error(where + "no \"" + key + "\"");
  if (it->type() != kind) throw Error(where + "\"" + key + "\" is " + json_kind(*it) + ", not " + kind_name);
  return *it;
}

// The value of the member `key`: a short printable name.
std::string short_name(const JsonIn& v, const char* key, const std::string& where) {
  if (!v.is_string()) throw Error(where + "\"" + key + "\" is " + json_kind(v) + ", not a string");
  const std::string s = v.get<std::string>();
  if (s.empty()) throw Error(where + "\"" + key + "\" is empty");
  if (s.size() > 256 || one_line(s) != s) throw Error(where + "\"" + key + "\" is not a short printable name");
  return s;
}

// A tunable as gpp run accepts it: for a one-size tunable an integer, for a tile an array
// of integers, each held to the table's check.
TunableValue tunable_value(const TunableSpec& spec, const JsonIn& v, const std::string& where) {
  const auto size = [&](const JsonIn& n) {
    if (!n.is_number_integer()) throw Error(where + "is " + json_kind(n) + ", not an integer");
    // beyond long long (up to 2^64 - 1): too large, said with the number as written
    const bool huge = n.is_number_unsigned() && n.get<unsigned long long>() > (unsigned long long)kMaxTunable;
    const long long x = huge ? kMaxTunable + 1LL : n.get<long long>();
    if (const std::string why = size_why_not(x); !why.empty())
      throw Error(where + why.substr(0, why.find(" (got ")) + " (got " + excerpt(n.dump(), 40) + ")");
    return int(x);
  };
  TunableValue value;
  if (spec.one_size()) {
    value.push_back(size(v));
  } else {
    if (!v.is_array() || v.empty())
      throw Error(where + "is " + (v.is_array() ? std::string("an empty array") : json_kind(v)) +
                  ", not an array of sizes");
    for (const JsonIn& s : v) value.push_back(size(s));
  }
  if (const std::string why = spec.why_not(value); !why.empty()) throw Error(where + why);
  return value;
}

bool known(const std::string& key, const char* const* begin, const char* const* end) {
  for (auto* k = begin; k != end; ++k)
    if (key == *k) return true;
  return false;
}

std::string home_config_path() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.config/gpp/tuning.json" : std::string();
}

bool exists(const std::string& p) {
  struct stat st;
  return !p.empty() && ::stat(p.c_str(), &st) == 0;
}

bool same_key(const TuningEntry& a, const TuningEntry& b) {
  return a.device == b.device && a.backend == b.backend && a.policy == b.policy && a.size_class == b.size_class;
}

}  // namespace

void check_time(double seconds, const std::string& what) {
  if (!std::isfinite(seconds) || !(seconds > 0) || seconds > 3.2e7)
    throw Error(what + " is not a time a run can take (a positive number of seconds, at most a year; got " +
                format_double(seconds) + ")");
}

const TuningEntry* TuningFile::find(const std::string& device, const std::string& backend, const std::string& policy,
                                    const std::string& size_class) const {
  for (const auto& e : entries)
    if (e.device == device && e.backend == backend && e.policy == policy && e.size_class == size_class) return &e;
  for (const auto& e : entries)  // an entry for every size
    if (e.device == device && e.backend == backend && e.policy == policy && e.size_class == "any") return &e;
  return nullptr;
}

void TuningFile::merge(const TuningEntry& e) {
  for (auto& old : entries)
    if (same_key(old, e)) {
      JsonIn unknown = old.unknown;
      for (auto it = e.unknown.begin(); it != e.unknown.end(); ++it) unknown[it.key()] = it.value();
      old = e;
      old.unknown = std::move(unknown);
      return;
    }
  entries.push_back(e);
}

bool TuningFile::erase(const std::string& device, const std::string& backend, const std::string& policy,
                       const std::string& size_class) {
  const auto n = entries.size();
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const TuningEntry& e) {
                                 return e.device == device && e.backend == backend && e.policy == policy &&
                                        e.size_class == size_class;
                               }),
                entries.end());
  return entries.size() != n;
}

namespace {
using EF = formats::Field<TuningEvidence>;

/// A finite JSON number, else gpp::Error naming the member.
double finite(const JsonIn& v, const std::string& name, const std::string& where) {
  if (!v.is_number()) throw Error(where + "\"" + name + "\" is " + json_kind(v) + ", not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Error(where + "\"" + name + "\" is not finite");
  return x;
}

/// A number of the evidence; `check` refuses values it cannot hold (by throwing).
EF number(const char* name, double TuningEvidence::*m,
          void (*check)(double, const std::string& where, const std::string& name)) {
  return {name,
          [m](const TuningEvidence& v) { return Json(v.*m); },
          {},
          [m, name, check](TuningEvidence& v, const JsonIn& j, const std::string& where) {
            v.*m = finite(j, name, where);
            check(v.*m, where, name);
          }};
}
void any(double, const std::string&, const std::string&) {}
void a_time(double t, const std::string& where, const std::string& name) { check_time(t, where + name); }
void a_spread(double s, const std::string& where, const std::string& name) {
  if (s < 0) throw Error(where + "\"" + name + "\" is negative");
}

/// The evidence of a tuning entry (docs/formats.md), declared once: written and read back.
const formats::Table<TuningEvidence>& evidence_fields() {
  static const formats::Table<TuningEvidence> t = {
      {"test",
       [](const TuningEvidence& v) { return Json(v.test); },
       {},
       [](TuningEvidence& v, const JsonIn& j, const std::string& where) {
         if (!j.is_string()) throw Error(where + "\"test\" is " + json_kind(j) + ", not a string");
         v.test = j.get<std::string>();
       }},
      {"repeats",
       [](const TuningEvidence& v) { return Json(v.repeats); },
       {},
       [](TuningEvidence& v, const JsonIn& j, const std::string& where) {
         const double n = finite(j, "repeats", where);
         if (n < 1 || n > 1e6 || n != std::floor(n)) throw Error(where + "\"repeats\" is not a count");
         v.repeats = int(n);
       }},
      number("p_value", &TuningEvidence::p_value,
             [](double p, const std::string& where, const std::string&) {
               if (!(p >= 0 && p <= 1)) throw Error(where + "\"p_value\" is not a probability");
             }),
      number("gain", &TuningEvidence::gain, any),
      number("time_median_s", &TuningEvidence::time_median_s, a_time),
      number("spread", &TuningEvidence::spread, a_spread),
      number("default_time_median_s", &TuningEvidence::default_time_median_s, a_time),
      number("default_spread", &TuningEvidence::default_spread, a_spread),
  };
  return t;
}

TuningEvidence parse_evidence(const JsonIn& e, const std::string& where) {
  return formats::read_json_object(evidence_fields(), e, where);
}

Json json_evidence(const TuningEvidence& v) { return formats::json_object(evidence_fields(), v); }
}  // namespace

namespace {
using TF = formats::Field<TuningEntry>;

// An entry's tunables, each as gpp run accepts it (its policy checks them after).
Tunables read_tunables(const JsonIn& tun, const std::string& where) {
  if (!tun.is_object()) throw Error(where + "\"tunables\" is " + json_kind(tun) + ", not an object");
  Tunables t;
  for (auto it = tun.begin(); it != tun.end(); ++it) {
    const std::string& k = it.key();
    const JsonIn& v = it.value();
    const std::string w = where + "tunables." + excerpt(k, 40) + " ";
    if (const TunableSpec* spec = find_tunable(k); spec && k == spec->name) {
      spec->set(t, tunable_value(*spec, v, w));
    } else if (k == "params") {
      if (!v.is_object()) throw Error(w + "is " + json_kind(v) + ", not an object of NAME: VALUE");
      for (auto p = v.begin(); p != v.end(); ++p) {
        if (!p.value().is_string())
          throw Error(w + excerpt(p.key(), 40) + " is " + json_kind(p.value()) + ", not a string");
        try {
          const auto [name, value] = parse_param("params", p.key() + "=" + p.value().get<std::string>());
          t.params[name] = value;
        } catch (const Error& err) {
          throw Error(where + err.what());
        }
      }
    } else {
      std::string known;
      for (const TunableSpec& spec : tunable_table()) known += std::string(spec.name) + ", ";
      throw Error(where + "unknown tunable \"" + excerpt(k, 40) + "\" (" + known + "params)");
    }
  }
  return t;
}

TF name_field(const char* name, std::string TuningEntry::*m) {
  return {name,
          [m](const TuningEntry& e) { return Json(e.*m); },
          {},
          [m, name](TuningEntry& e, const JsonIn& v, const std::string& where) { e.*m = short_name(v, name, where); }};
}

TF text_field(const char* name, std::string TuningEntry::*m) {
  return {name,
          [m](const TuningEntry& e) { return Json(e.*m); },
          {},
          [m, name](TuningEntry& e, const JsonIn& v, const std::string& where) {
            if (!v.is_string()) throw Error(where + "\"" + name + "\" is " + json_kind(v) + ", not a string");
            e.*m = v.get<std::string>();
          },
          true};
}

/// A tuning file's entry (docs/formats.md), declared once: written and read back. The
/// checks that need several fields (the policy's tunables, one entry per key) are
/// parse_tuning's.
const formats::Table<TuningEntry>& entry_fields() {
  static const formats::Table<TuningEntry> t = {
      name_field("device", &TuningEntry::device),
      name_field("backend", &TuningEntry::backend),
      name_field("policy", &TuningEntry::policy),
      {"size_class",
       [](const TuningEntry& e) { return Json(e.size_class); },
       {},
       [](TuningEntry& e, const JsonIn& v, const std::string& where) {
         e.size_class = short_name(v, "size_class", where);
         if (e.size_class != "small" && e.size_class != "medium" && e.size_class != "large" && e.size_class != "any")
           throw Error(where + "size_class \"" + e.size_class + "\" is not small, medium, large or any");
       }},
      {"tunables",
       [](const TuningEntry& e) { return json_tunables(e.tunables); },
       {},
       [](TuningEntry& e, const JsonIn& v, const std::string& where) { e.tunables = read_tunables(v, where); }},
      {"time_median_s",
       [](const TuningEntry& e) { return e.time_median_s > 0 ? Json(e.time_median_s) : formats::absent(); },
       {},
       [](TuningEntry& e, const JsonIn& v, const std::string& where) {
         e.time_median_s = finite(v, "time_median_s", where);
         check_time(e.time_median_s, where + "time_median_s");
       },
       true},
      text_field("deck", &TuningEntry::deck),
      text_field("date", &TuningEntry::date),
      {"evidence",
       [](const TuningEntry& e) { return e.evidence ? json_evidence(*e.evidence) : formats::absent(); },
       {},
       [](TuningEntry& e, const JsonIn& v, const std::string& where) {
         e.evidence = parse_evidence(v, where + "evidence: ");
       },
       true},
  };
  return t;
}
}  // namespace

TuningFile parse_tuning(const std::string& text, const std::string& path) {
  const std::string file = "tuning file " + path + ": ";
  const JsonIn doc = parse_json(text, "tuning file " + path);
  if (!doc.is_object()) throw Error(file + "not a JSON object");
  const JsonIn& version = member(doc, "schema_version", JsonIn::value_t::number_unsigned, "a version number", file);
  if (version.get<unsigned long long>() != unsigned(TuningFile::kSchemaVersion))
    throw Error(file + "schema_version " + version.dump() + " is not one this gpp reads (1)");
  if (member(doc, "kind", JsonIn::value_t::string, "a string", file).get<std::string>() != "gpp-tuning")
    throw Error(file + "\"kind\" is not \"gpp-tuning\"");
  TuningFile out;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!known(it.key(), std::begin(kKnownFileFields), std::end(kKnownFileFields))) out.unknown[it.key()] = it.value();
  const JsonIn& entries = member(doc, "entries", JsonIn::value_t::array, "an array", file);
  if (entries.size() > kMaxTuningEntries)
    throw Error(file + std::to_string(entries.size()) + " entries, more than " + std::to_string(kMaxTuningEntries));
  std::set<std::tuple<std::string, std::string, std::string, std::string>> keys;  // n log n, not n^2
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = file + "entries[" + std::to_string(i) + "]: ";
    const JsonIn& e = entries[i];
    if (!e.is_object()) throw Error(where + "not an object");
    TuningEntry t = formats::read_json_object(entry_fields(), e, where);
    try {
      check_tunables(find_policy(t.policy), t.tunables);
    } catch (const Error& err) {
      throw Error(where + err.what());
    }
    t.unknown = formats::unknown_members(entry_fields(), e);
    if (!keys.insert({t.device, t.backend, t.policy, t.size_class}).second)
      throw Error(where + "a second entry for " + t.policy + " on " + t.device + " (" + t.backend + "), " +
                  t.size_class);
    out.entries.push_back(std::move(t));
  }
  return out;
}

TuningFile read_tuning_file(const std::string& path) {
  return parse_tuning(read_input_file("tuning file", path, kMaxJsonBytes), path);
}

Json json_tunables(const Tunables& t) {
  Json j = Json::object();
  for (const TunableSpec& spec : tunable_table()) {
    if (!spec.is_set(t)) continue;
    const TunableValue v = spec.get(t);
    j[spec.name] = spec.one_size() ? Json(v.front()) : Json(v);
  }
  if (!t.params.empty()) {
    Json p = Json::object();
    for (const auto& [name, value] : t.params) p[name] = value;
    j["params"] = std::move(p);
  }
  return j;
}

std::string to_json(const TuningFile& f) {
  Json j = Json::object();
  j["schema_version"] = TuningFile::kSchemaVersion;
  j["kind"] = "gpp-tuning";
  Json entries = Json::array();
  for (const auto& e : f.entries) {
    Json o = formats::json_object(entry_fields(), e);
    auto& fields = o.get_ref<Json::object_t&>();
    for (auto it = e.unknown.begin(); it != e.unknown.end(); ++it)
      fields.emplace_back(it.key(), to_written(it.value()));
    entries.push_back(std::move(o));
  }
  j["entries"] = std::move(entries);
  auto& fields = j.get_ref<Json::object_t&>();
  for (auto it = f.unknown.begin(); it != f.unknown.end(); ++it) fields.emplace_back(it.key(), to_written(it.value()));
  return dump_json(j);
}

std::string default_tuning_path() {
  if (const char* env = std::getenv("GPP_TUNING_FILE"); env && *env) return env;
  const std::string home = home_config_path();
  return exists(home) ? home : std::string();
}

std::string tuning_source() {
  const char* env = std::getenv("GPP_TUNING_FILE");
  return env && *env ? "$GPP_TUNING_FILE" : "~/.config/gpp/tuning.json";
}

std::string default_tuning_out_path() {
  if (const char* env = std::getenv("GPP_TUNING_FILE"); env && *env) return env;
  const std::string home = home_config_path();
  if (home.empty()) throw Error("no --tuning-out and neither $GPP_TUNING_FILE nor $HOME is set");
  // ~/.config and ~/.config/gpp, as `mkdir -p` would.
  for (std::size_t slash = home.find("/.config"); slash != std::string::npos; slash = home.find('/', slash + 1)) {
    const std::string dir = home.substr(0, slash);
    if (dir.size() > std::strlen(std::getenv("HOME")) && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      throw Error("cannot create " + dir + ": " + std::strerror(errno));
  }
  return home;
}

}  // namespace gpp::measure
