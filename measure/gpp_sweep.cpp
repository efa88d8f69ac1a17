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

namespace gpp::measure::sweep {
using files::excerpt;
using files::kMaxCsvBytes;
using files::read_input_file;
using formats::format_double;
using formats::Json;
using formats::json_number;

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

int int_field(const std::string& at, const std::string& name, const std::string& v) {
  if (v.empty()) return 0;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (errno || *end || x < 0 || x > 1000000000)
    throw Error(at + "column " + name + ": '" + excerpt(v) + "' is not a count");
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

namespace {

using formats::Field;

Json count_or_empty(int v) { return v > 0 ? Json(v) : Json(nullptr); }

Field<Row> text(const char* name, std::string Row::*m) {
  return {name, [m](const Row& r) { return Json(r.*m); },
          [m](Row& r, const std::string& t, const std::string&) { r.*m = t; }};
}
Field<Row> count(const char* name, int DeckSizes::*m) {
  return {name, [m](const Row& r) { return Json(r.sizes.*m); },
          [m, name](Row& r, const std::string& t, const std::string& at) { r.sizes.*m = int_field(at, name, t); }};
}
Field<Row> tunable(const char* name, int Tunables::*m) {
  return {name, [m](const Row& r) { return count_or_empty(r.tunables.*m); },
          [m, name](Row& r, const std::string& t, const std::string& at) { r.tunables.*m = int_field(at, name, t); }};
}
/// A number that may be absent (an empty cell, NaN in the row).
Field<Row> measured(const char* name, double Row::*m) {
  return {name, [m](const Row& r) { return json_number(r.*m); },
          [m, name](Row& r, const std::string& t, const std::string& at) {
            r.*m = t.empty() ? NAN : real_field(at, name, t);
          }};
}

formats::Table<Row> make_csv_table() {
  return {
      {"schema_version", [](const Row&) { return Json(1); }},  // checked through the header
      text("date", &Row::date),
      text("git", &Row::git),
      text("version", &Row::version),
      text("kokkos", &Row::kokkos),
      text("backend", &Row::backend),
      text("space", &Row::space),
      text("device", &Row::device),
      text("deck", &Row::deck),
      count("nbands", &DeckSizes::nbands),
      count("ngpown", &DeckSizes::ngpown),
      count("ncouls", &DeckSizes::ncouls),
      count("nw", &DeckSizes::nw),
      {"updates", [](const Row& r) { return Json(r.updates); },
       [](Row& r, const std::string& t, const std::string& at) {
         r.updates = t.empty() ? NAN : real_field(at, "updates", t);
       }},
      text("policy", &Row::policy),
      tunable("band_block", &Tunables::band_block),
      tunable("ig_block", &Tunables::ig_block),
      tunable("team_size", &Tunables::team_size),
      tunable("vector_length", &Tunables::vector_length),
      {"tile", [](const Row& r) { return Json(tile_text(r.tunables.tile)); },
       [](Row& r, const std::string& t, const std::string& at) {
         if (t.empty()) return;
         try {
           r.tunables.tile = parse_tiles("tile", t).front();
         } catch (const Error& e) {
           throw Error(at + e.what());
         }
       }},
      {"repeats", [](const Row& r) { return Json(r.repeats); },
       [](Row& r, const std::string& t, const std::string& at) { r.repeats = int_field(at, "repeats", t); }},
      measured("time_min_s", &Row::time_min_s),
      measured("time_median_s", &Row::time_median_s),
      measured("time_max_s", &Row::time_max_s),
      measured("updates_per_s", &Row::updates_per_s),
      measured("gflops", &Row::gflops),
      measured("rel_error", &Row::rel_error),
      text("status", &Row::status),
      text("reason", &Row::reason),
      {"params", [](const Row& r) { return Json(describe_params(r.tunables)); },
       [](Row& r, const std::string& t, const std::string& at) {
         for (const std::string& p : split(t, ' ')) {
           if (p.empty()) continue;
           try {
             r.tunables.params.insert(parse_param("params", p));
           } catch (const Error& e) {
             throw Error(at + e.what());
           }
         }
       }},
  };
}

}  // namespace

const formats::Table<Row>& csv_table() {
  static const formats::Table<Row> t = make_csv_table();
  return t;
}

const std::string& csv_header() {
  static const std::string h = formats::csv_header(csv_table());
  return h;
}

std::string csv_line(const Row& r) { return formats::csv_line(csv_table(), r); }

CsvFile read_sweep_csv(const std::string& path) {
  return parse_sweep_csv(read_input_file("--resume", path, kMaxCsvBytes), "--resume " + path);
}

CsvFile parse_sweep_csv(std::string text, const std::string& where) {
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
  if (records.empty() || records.front() != formats::parse_csv(csv_header()).front())
    throw Error(where + ": not a sweep CSV of this version (its header differs from docs/formats.md's)");
  CsvFile out;
  out.lines = formats::csv_data_records(text);  // the data lines as written
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& fields = records[r];
    if (fields.size() == 1 && fields[0].empty()) continue;
    const std::string at = where + ": row " + std::to_string(r) + ": ";
    Row row = formats::read_csv_cells(csv_table(), fields, at);
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
    const double t[3] = {row.time_min_s, row.time_median_s, row.time_max_s};
    const char* names[3] = {"time_min_s", "time_median_s", "time_max_s"};
    if (row.status == "invalid") {
      if (std::isfinite(t[0]) || std::isfinite(t[1]) || std::isfinite(t[2]) || std::isfinite(row.updates_per_s))
        throw Error(at + "an invalid point has times");
    } else {
      for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(t[k])) throw Error(at + "a point that ran has no " + names[k]);
        if (!(t[k] > 0) || t[k] > 3.2e7)
          throw Error(at + names[k] + " " + format_double(t[k]) + " is not a time a run can take");
      }
      if (!(t[0] <= t[1] && t[1] <= t[2])) throw Error(at + "the times are not min <= median <= max");
      if (!std::isfinite(row.updates)) throw Error(at + "column updates: '' is not a finite number");
      if (!std::isfinite(row.updates_per_s)) throw Error(at + "column updates_per_s: '' is not a finite number");
      const double expect = row.sizes.updates(), rate = row.updates_per_s;
      if (!(std::fabs(row.updates - expect) <= 1e-9 * expect) || !(std::fabs(rate - row.updates / t[1]) <= 1e-6 * rate))
        throw Error(at + "updates and updates_per_s do not agree with the sizes and time_median_s");
      // A rate no machine reaches (an H100 does about 3e11 updates/s) is forged, not measured.
      if (rate > 1e14)
        throw Error(at + "updates_per_s " + format_double(rate) + " is faster than any machine runs this kernel");
    }
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
      {"nbands", std::to_string(old.sizes.nbands), std::to_string(now.sizes.nbands)},
      {"ngpown", std::to_string(old.sizes.ngpown), std::to_string(now.sizes.ngpown)},
      {"ncouls", std::to_string(old.sizes.ncouls), std::to_string(now.sizes.ncouls)},
      {"nw", std::to_string(old.sizes.nw), std::to_string(now.sizes.nw)}};
  for (const auto& [field, a, b] : fields)
    if (std::string d = differs(field, a, b); !d.empty()) return d;
  return "";
}

bool same_point(const Row& a, const Row& b) {
  return a.policy == b.policy && a.space == b.space && a.sizes == b.sizes &&
         a.tunables.band_block == b.tunables.band_block && a.tunables.ig_block == b.tunables.ig_block &&
         a.tunables.team_size == b.tunables.team_size && a.tunables.vector_length == b.tunables.vector_length &&
         a.tunables.tile == b.tunables.tile && a.tunables.params == b.tunables.params;
}

}  // namespace gpp::measure::sweep
