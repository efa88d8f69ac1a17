// The API's tunables, text by name, and the policies' gpp::Tunables: the one place that
// knows both (a new tunable of the policies is one line in each table below).
#include "gpp_api_internal.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace gpp::api {
namespace {

// The integer tunables: the API's name and the field of gpp::Tunables.
using IntField = int Tunables::*;
const std::vector<std::pair<std::string, IntField>>& int_fields() {
  static const std::vector<std::pair<std::string, IntField>> fields = {{"band-block", &Tunables::band_block},
                                                                       {"ig-block", &Tunables::ig_block},
                                                                       {"team-size", &Tunables::team_size},
                                                                       {"vector-length", &Tunables::vector_length}};
  return fields;
}

int positive(const std::string& name, const std::string& text) {
  const auto bad = [&] {
    return gpp::Error("tunable " + name + " = '" + text.substr(0, 40) + "': expected an integer in 1.." +
                      std::to_string(kMaxTunable));
  };
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw bad();
  const int v = std::stoi(text);
  if (v < 1 || v > kMaxTunable) throw bad();
  return v;
}

bool reads(const PolicyEntry& entry, const std::string& name) {
  return std::find(entry.tunables.begin(), entry.tunables.end(), name) != entry.tunables.end();
}

}  // namespace

Tunables internal_tunables(const PolicyEntry& entry, const std::map<std::string, std::string>& given) {
  Tunables t;
  for (const auto& entry_given : given) {
    // Named copies, not a structured binding: clang before 16 refuses a lambda's capture
    // of a structured binding (C++17).
    const std::string& name = entry_given.first;
    const std::string& value = entry_given.second;
    const auto field =
        std::find_if(int_fields().begin(), int_fields().end(), [&](const auto& f) { return f.first == name; });
    if (field != int_fields().end()) {
      t.*(field->second) = positive(name, value);
    } else if (name == "tile") {
      std::string rest = value;
      std::replace(rest.begin(), rest.end(), 'x', ',');
      for (std::size_t at = 0; at <= rest.size();) {
        const std::size_t comma = std::min(rest.find(',', at), rest.size());
        t.tile.push_back(positive("tile", rest.substr(at, comma - at)));
        at = comma + 1;
      }
    } else if (!entry.param(name)) {
      std::string known;
      for (const std::string& n : entry.tunables) known += (known.empty() ? "" : ", ") + n;
      for (const ParamSpec& p : entry.params) known += (known.empty() ? "" : ", ") + p.name;
      throw gpp::Error("policy " + entry.name + " has no tunable " + name +
                       (known.empty() ? std::string(" (it has none)") : " (its tunables: " + known + ")"));
    } else {
      t.params[name] = value;
    }
    if ((field != int_fields().end() || name == "tile") && !reads(entry, name))
      throw gpp::Error("policy " + entry.name + " has no tunable " + name);
  }
  check_tunables(entry, t);
  return t;
}

std::map<std::string, std::string> public_tunables(const Tunables& t) {
  std::map<std::string, std::string> out;
  for (const auto& [name, field] : int_fields())
    if (t.*field > 0) out[name] = std::to_string(t.*field);
  if (!t.tile.empty()) {
    std::string tile;
    for (const int v : t.tile) tile += (tile.empty() ? "" : ",") + std::to_string(v);
    out["tile"] = tile;
  }
  for (const auto& [name, value] : t.params) out[name] = value;
  return out;
}

std::string merge_tuning(const PolicyEntry& entry, Tunables& t, const Tunables& from, const std::string& source) {
  std::vector<std::pair<std::string, std::string>> sources;  // tunable, where its value came from
  for (const auto& [name, field] : int_fields()) {
    if (!reads(entry, name)) continue;
    if (t.*field > 0) {
      sources.push_back({name, "caller"});
    } else if (from.*field > 0) {
      t.*field = from.*field;
      sources.push_back({name, source});
    } else {
      sources.push_back({name, "default"});
    }
  }
  if (reads(entry, "tile")) {
    sources.push_back({"tile", !t.tile.empty() ? "caller" : !from.tile.empty() ? source : "default"});
    if (t.tile.empty()) t.tile = from.tile;
  }
  for (const ParamSpec& p : entry.params) {
    if (t.params.count(p.name)) {
      sources.push_back({p.name, "caller"});
    } else if (from.params.count(p.name)) {
      t.params[p.name] = from.params.at(p.name);
      sources.push_back({p.name, source});
    } else {
      sources.push_back({p.name, "default"});
    }
  }
  if (sources.empty()) return "default";  // a policy without tunables
  const bool one =
      std::all_of(sources.begin(), sources.end(), [&](const auto& s) { return s.second == sources.front().second; });
  if (one) return sources.front().second;
  std::string out;
  for (const auto& [name, where] : sources) out += (out.empty() ? "" : "; ") + name + ": " + where;
  return out;
}

}  // namespace gpp::api
