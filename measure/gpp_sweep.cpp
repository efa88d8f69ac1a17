#include "gpp_sweep.hpp"

#include "gpp_inputs.hpp"
#include "gpp_csv.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

namespace gpp::app::sweep {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

/// A positive int written in decimal digits only (no sign, no spaces).
long long positive(const std::string& option, const std::string& item, const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(option + " " + item + ": '" + text + "' is not a positive integer");
  const long long v = std::stoll(text);
  if (v <= 0) throw Error(option + " " + item + ": values must be positive (got " + text + ")");
  return v;
}

void add_unique(std::vector<int>& out, long long v) {
  if (std::find(out.begin(), out.end(), int(v)) == out.end()) out.push_back(int(v));
}

bool reads(const std::vector<std::string>& tunables, const char* name) {
  return std::find(tunables.begin(), tunables.end(), name) != tunables.end();
}

double real_field(const std::string& at, const char* name, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
  if (v.empty() || errno || *end || !std::isfinite(x))
    throw Error(at + "column " + name + ": '" + excerpt(v) + "' is not a finite number");
  return x;
}

int int_field(const std::string& path, const std::string& name, const std::string& v) {
  if (v.empty()) return 0;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (errno || *end || x < 0 || x > 1000000000)
    throw Error(path + ": column " + name + ": '" + excerpt(v) + "' is not a count");
  return int(x);
}

}  // namespace

std::vector<int> parse_values(const std::string& option, const std::string& spec) {
  if (spec.empty()) throw Error(option + ": no values");
  std::vector<int> out;
  for (const std::string& item : split(spec, ',')) {
    if (item.empty()) throw Error(option + " " + spec + ": empty item");
    const auto parts = split(item, ':');
    if (parts.size() == 1) {
      add_unique(out, positive(option, item, item));
    } else if (parts.size() == 3) {
      const long long a = positive(option, item, parts[0]), b = positive(option, item, parts[1]);
      if (b < a)
        throw Error(option + " " + item + ": the range ends (" + parts[1] + ") before it starts (" + parts[0] + ")");
      const std::string& step = parts[2];
      if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
        throw Error(option + " " + item + ": the step must be xK (geometric) or +K (arithmetic), got '" + step + "'");
      const long long k = positive(option, item, step.substr(1));
      if (step[0] == 'x' && k < 2) throw Error(option + " " + item + ": a geometric step needs a factor of 2 or more");
      std::size_t n = 0;
      for (long long v = a; v <= b; v = step[0] == 'x' ? v * k : v + k) {
        if (++n > kMaxValues)
          throw Error(option + " " + item + ": the range has more than " + std::to_string(kMaxValues) + " values");
        add_unique(out, v);
      }
    } else {
      throw Error(option + " " + item + ": expected a value or a range a:b:xK or a:b:+K");
    }
    if (out.size() > kMaxValues) throw Error(option + ": more than " + std::to_string(kMaxValues) + " values");
  }
  return out;
}

std::vector<std::vector<int>> parse_tiles(const std::string& option, const std::string& spec) {
  if (spec.empty()) throw Error(option + ": no values");
  std::vector<std::vector<int>> out;
  for (const std::string& item : split(spec, ',')) {
    if (item.empty()) throw Error(option + " " + spec + ": empty item");
    std::vector<int> tile;
    for (const std::string& s : split(item, 'x')) tile.push_back(int(positive(option, item, s)));
    if (tile.size() > 3) throw Error(option + " " + item + ": a tile has at most 3 sizes");
    if (std::find(out.begin(), out.end(), tile) == out.end()) out.push_back(tile);
  }
  return out;
}

std::vector<std::string> listed(const Axes& a) {
  std::vector<std::string> out;
  if (!a.band_block.empty()) out.push_back("band-block");
  if (!a.ig_block.empty()) out.push_back("ig-block");
  if (!a.team_size.empty()) out.push_back("team-size");
  if (!a.vector_length.empty()) out.push_back("vector-length");
  if (!a.tile.empty()) out.push_back("tile");
  return out;
}

void add_param_axis(Axes& a, const std::string& spec) {
  const std::size_t eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  std::vector<std::string> values;
  for (const std::string& v : split(eq == std::string::npos ? std::string() : spec.substr(eq + 1), ',')) {
    parse_param("--param", name + "=" + v);  // NAME=VALUE with each value
    if (std::find(values.begin(), values.end(), v) != values.end())
      throw Error("--param " + excerpt(spec) + ": " + v + " is listed twice");
    values.push_back(v);
  }
  if (eq == std::string::npos) parse_param("--param", spec);
  for (const auto& [n, v] : a.params)
    if (n == name) throw Error("--param " + name + " is given twice (list its values: --param " + name + "=A,B)");
  a.params.push_back({name, values});
}

void check_axes_used(const Axes& a, const std::vector<const PolicyEntry*>& policies) {
  for (const auto& [name, values] : a.params) {
    bool used = false;
    for (const PolicyEntry* e : policies) {
      if (e->param(name)) {
        used = true;
        Tunables t;
        for (const std::string& v : values) {
          t.params[name] = v;
          check_tunables(*e, t);  // a value the policy does not take
        }
      }
    }
    if (!used) throw Error("--param " + name + ": none of the selected policies has this param");
  }
  for (const std::string& name : listed(a)) {
    bool used = false;
    std::string names;
    for (const PolicyEntry* e : policies) {
      used = used || reads(e->tunables, name.c_str());
      names += (names.empty() ? "" : ", ") + e->name;
    }
    if (!used) throw Error("--" + name + ": none of the selected policies (" + names + ") has this tunable");
  }
}

std::vector<Tunables> expand(const Axes& a, const std::vector<std::string>& policy_tunables,
                             const std::vector<ParamSpec>& policy_params) {
  std::vector<Tunables> points{Tunables{}};
  auto axis = [&](const char* name, const auto& values, auto set) {
    if (values.empty() || !reads(policy_tunables, name)) return;
    std::vector<Tunables> next;
    if (points.size() * values.size() > kMaxPoints)
      throw Error("the grid has more than " + std::to_string(kMaxPoints) + " points per policy");
    for (const Tunables& p : points)
      for (const auto& v : values) {
        Tunables t = p;
        set(t, v);
        next.push_back(t);
      }
    points = std::move(next);
  };
  axis("band-block", a.band_block, [](Tunables& t, int v) { t.band_block = v; });
  axis("ig-block", a.ig_block, [](Tunables& t, int v) { t.ig_block = v; });
  axis("team-size", a.team_size, [](Tunables& t, int v) { t.team_size = v; });
  axis("vector-length", a.vector_length, [](Tunables& t, int v) { t.vector_length = v; });
  axis("tile", a.tile, [](Tunables& t, const std::vector<int>& v) { t.tile = v; });
  for (const auto& [name, values] : a.params) {
    // (a copy: C++17 lambdas cannot capture a structured binding, and clang refuses it)
    const std::string& param = name;
    const bool has =
        std::any_of(policy_params.begin(), policy_params.end(), [&](const ParamSpec& p) { return p.name == param; });
    if (!has) continue;
    std::vector<Tunables> next;
    if (points.size() * values.size() > kMaxPoints)
      throw Error("the grid has more than " + std::to_string(kMaxPoints) + " points per policy");
    for (const Tunables& p : points)
      for (const std::string& v : values) {
        Tunables t = p;
        t.params[name] = v;
        next.push_back(t);
      }
    points = std::move(next);
  }
  return points;
}

std::string size_class(double updates) {
  if (updates < 1e9) return "small";
  if (updates < 1e11) return "medium";
  return "large";
}

std::string tile_text(const std::vector<int>& tile) {
  std::string s;
  for (std::size_t i = 0; i < tile.size(); ++i) s += (i ? "x" : "") + std::to_string(tile[i]);
  return s;
}

CsvFile read_sweep_csv(const std::string& path, const std::string& header) {
  return parse_sweep_csv(read_input_file("--resume", path, kMaxCsvBytes), header, "--resume " + path);
}

CsvFile parse_sweep_csv(std::string text, const std::string& header, const std::string& where) {
  // A last row without its newline is one a killed writer left incomplete: not a row.
  if (const auto nl = text.rfind('\n'); nl != std::string::npos && nl + 1 < text.size()) {
    std::size_t quotes = 0;
    for (std::size_t i = 0; i <= nl; ++i) quotes += text[i] == '"';
    if (quotes % 2 == 0) text.erase(nl + 1);
  }
  std::vector<std::vector<std::string>> records;
  try {
    records = formats::parse_csv(text);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  const auto want = formats::parse_csv(header).front();
  if (records.empty() || records.front() != want)
    throw Error(where + ": not a sweep CSV of this version (its header differs from docs/formats.md's)");
  auto col = [&](const char* name) { return std::size_t(std::find(want.begin(), want.end(), name) - want.begin()); };
  CsvFile out;
  out.lines = formats::csv_data_records(text);  // the data lines as written
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& fields = records[r];
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != want.size())
      throw Error(where + ": row " + std::to_string(r) + " has " + std::to_string(fields.size()) + " fields, not " +
                  std::to_string(want.size()));
    Row row;
    row.policy = fields[col("policy")];
    row.space = fields[col("space")];
    row.device = fields[col("device")];
    row.backend = fields[col("backend")];
    row.deck = fields[col("deck")];
    row.status = fields[col("status")];
    row.nbands = int_field(where, "nbands", fields[col("nbands")]);
    row.ngpown = int_field(where, "ngpown", fields[col("ngpown")]);
    row.ncouls = int_field(where, "ncouls", fields[col("ncouls")]);
    row.nw = int_field(where, "nw", fields[col("nw")]);
    row.tunables.band_block = int_field(where, "band_block", fields[col("band_block")]);
    row.tunables.ig_block = int_field(where, "ig_block", fields[col("ig_block")]);
    row.tunables.team_size = int_field(where, "team_size", fields[col("team_size")]);
    row.tunables.vector_length = int_field(where, "vector_length", fields[col("vector_length")]);
    if (const std::string& t = fields[col("tile")]; !t.empty()) {
      try {
        row.tunables.tile = parse_tiles("tile", t).front();
      } catch (const Error& e) {
        throw Error(where + ": row " + std::to_string(r) + ": " + e.what());
      }
    }
    const std::string at = where + ": row " + std::to_string(r) + ": ";
    for (const std::string& p : split(fields[col("params")], ' ')) {
      if (p.empty()) continue;
      try {
        row.tunables.params.insert(parse_param("params", p));
      } catch (const Error& e) {
        throw Error(at + e.what());
      }
    }
    row.git = fields[col("git")];
    row.version = fields[col("version")];
    row.kokkos = fields[col("kokkos")];
    if (row.status != "ok" && row.status != "wrong" && row.status != "invalid")
      throw Error(at + "unknown status '" + excerpt(row.status) + "'");
    // Tunables as gpp run takes them: at most kMaxTunable, ones the policy has.
    for (const int v :
         {row.tunables.band_block, row.tunables.ig_block, row.tunables.team_size, row.tunables.vector_length})
      if (v > kMaxTunable)
        throw Error(at + "a tunable " + std::to_string(v) + " is not at most " + std::to_string(kMaxTunable));
    for (const int v : row.tunables.tile)
      if (v > kMaxTunable)
        throw Error(at + "a tile size " + std::to_string(v) + " is not at most " + std::to_string(kMaxTunable));
    try {
      check_tunables(find_policy(row.policy), row.tunables);
    } catch (const Error& e) {
      throw Error(at + e.what());
    }
    // Times: a row that ran has them, each a time a run can take, in order, agreeing with
    // its rate; a forged or garbage time never becomes a best point.
    double t[3] = {NAN, NAN, NAN};
    const char* names[3] = {"time_min_s", "time_median_s", "time_max_s"};
    bool any = false;
    for (int k = 0; k < 3; ++k) {
      const std::string& v = fields[col(names[k])];
      if (v.empty()) continue;
      any = true;
      t[k] = real_field(at, names[k], v);
    }
    const std::string& rate_text = fields[col("updates_per_s")];
    const std::string& updates_text = fields[col("updates")];
    if (row.status == "invalid") {
      if (any || !rate_text.empty()) throw Error(at + "an invalid point has times");
    } else {
      for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(t[k])) throw Error(at + "a point that ran has no " + names[k]);
        if (!(t[k] > 0) || t[k] > 3.2e7)
          throw Error(at + names[k] + " " + fields[col(names[k])] + " is not a time a run can take");
      }
      if (!(t[0] <= t[1] && t[1] <= t[2])) throw Error(at + "the times are not min <= median <= max");
      const double updates = real_field(at, "updates", updates_text), rate = real_field(at, "updates_per_s", rate_text);
      const double expect = double(row.nbands) * row.ngpown * double(row.ncouls) * row.nw;
      if (!(std::fabs(updates - expect) <= 1e-9 * expect) || !(std::fabs(rate - updates / t[1]) <= 1e-6 * rate))
        throw Error(at + "updates and updates_per_s do not agree with the sizes and time_median_s");
      // A rate no machine reaches (an H100 does about 3e11 updates/s) is forged, not measured.
      if (rate > 1e14) throw Error(at + "updates_per_s " + rate_text + " is faster than any machine runs this kernel");
    }
    row.time_median_s = t[1];
    out.rows.push_back(row);
  }
  if (out.rows.size() != out.lines.size())
    throw Error(where + ": the rows could not be told apart (" + std::to_string(out.rows.size()) + " records, " +
                std::to_string(out.lines.size()) + " lines)");
  return out;
}

std::string origin_difference(const Row& old, const Row& now) {
  auto differs = [](const char* field, const std::string& a, const std::string& b) {
    return a == b ? std::string() : std::string(field) + " '" + excerpt(a) + "' (this run: '" + excerpt(b) + "')";
  };
  // A named array: nvcc 11.8 cannot deduce a range-for over a braced list of tuples.
  const std::tuple<const char*, std::string, std::string> fields[] = {
      {"device", old.device, now.device},
      {"backend", old.backend, now.backend},
      {"git", old.git, now.git},
      {"version", old.version, now.version},
      {"kokkos", old.kokkos, now.kokkos},
      {"deck", old.deck, now.deck},
      {"nbands", std::to_string(old.nbands), std::to_string(now.nbands)},
      {"ngpown", std::to_string(old.ngpown), std::to_string(now.ngpown)},
      {"ncouls", std::to_string(old.ncouls), std::to_string(now.ncouls)},
      {"nw", std::to_string(old.nw), std::to_string(now.nw)}};
  for (const auto& [field, a, b] : fields)
    if (std::string d = differs(field, a, b); !d.empty()) return d;
  return "";
}

bool same_point(const Row& a, const Row& b) {
  return a.policy == b.policy && a.space == b.space && a.nbands == b.nbands && a.ngpown == b.ngpown &&
         a.ncouls == b.ncouls && a.nw == b.nw && a.tunables.band_block == b.tunables.band_block &&
         a.tunables.ig_block == b.tunables.ig_block && a.tunables.team_size == b.tunables.team_size &&
         a.tunables.vector_length == b.tunables.vector_length && a.tunables.tile == b.tunables.tile &&
         a.tunables.params == b.tunables.params;
}

}  // namespace gpp::app::sweep
