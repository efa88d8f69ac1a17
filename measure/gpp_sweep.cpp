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

// Why `entry` would refuse the value `v` of `spec` (check_tunables, as gpp run checks it),
// "" when it takes it.
std::string refusal(const PolicyEntry& entry, const TunableSpec& spec, const TunableValue& v) {
  Tunables t;
  spec.set(t, v);
  try {
    check_tunables(entry, t);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
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

void add_axis(Axes& a, const TunableSpec& spec, const std::string& text) {
  a.tunables[spec.option] = spec.parse_grid(text);
}

std::vector<std::string> listed(const Axes& a) {
  std::vector<std::string> out;
  for (const TunableSpec& spec : tunable_table())
    if (a.tunables.count(spec.option)) out.push_back(spec.option);
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
  for (const TunableSpec& spec : tunable_table()) {
    const auto axis = a.tunables.find(spec.option);
    if (axis == a.tunables.end()) continue;
    std::string names;
    std::vector<const PolicyEntry*> readers;
    for (const PolicyEntry* e : policies) {
      names += (names.empty() ? "" : ", ") + e->name;
      if (e->reads(spec)) readers.push_back(e);
    }
    if (readers.empty())
      throw Error(std::string("--") + spec.option + ": none of the selected policies (" + names + ") has this tunable");
    // Every value is one a policy that reads it takes, as gpp run would take it, and every
    // such policy takes one of the values. why[i][j]: why policy i refuses value j ("" if not).
    const std::vector<TunableValue>& values = axis->second;
    std::vector<std::vector<std::string>> why(readers.size());
    for (std::size_t i = 0; i < readers.size(); ++i)
      for (const TunableValue& v : values) why[i].push_back(refusal(*readers[i], spec, v));
    for (std::size_t j = 0; j < values.size(); ++j) {
      bool taken = false;
      for (std::size_t i = 0; i < readers.size(); ++i) taken = taken || why[i][j].empty();
      if (!taken) throw Error(why[0][j]);
    }
    for (std::size_t i = 0; i < readers.size(); ++i)
      if (std::none_of(why[i].begin(), why[i].end(), [](const std::string& w) { return w.empty(); }))
        throw Error(why[i][0]);
  }
}

std::vector<Tunables> expand(const Axes& a, const PolicyEntry& entry) {
  std::vector<Tunables> points{Tunables{}};
  // Each axis varies faster than the ones before it.
  const auto multiply = [&](const std::size_t n, const auto& set) {
    if (points.size() * n > kMaxPoints)
      throw Error("the grid has more than " + std::to_string(kMaxPoints) + " points per policy");
    std::vector<Tunables> next;
    for (const Tunables& p : points)
      for (std::size_t i = 0; i < n; ++i) {
        Tunables t = p;
        set(t, i);
        next.push_back(t);
      }
    points = std::move(next);
  };
  for (const TunableSpec& spec : tunable_table()) {
    const auto axis = a.tunables.find(spec.option);
    if (axis == a.tunables.end() || !entry.reads(spec)) continue;
    std::vector<TunableValue> values;
    for (const TunableValue& v : axis->second)
      if (refusal(entry, spec, v).empty()) values.push_back(v);
    multiply(values.size(), [&](Tunables& t, std::size_t i) { spec.set(t, values[i]); });
  }
  for (const auto& [name, values] : a.params) {
    if (!entry.param(name)) continue;
    const std::string& param = name;  // (C++17 lambdas cannot capture a structured binding)
    const std::vector<std::string>& vs = values;
    multiply(vs.size(), [&](Tunables& t, std::size_t i) { t.params[param] = vs[i]; });
  }
  return points;
}

std::string size_class(double updates) {
  if (updates < 1e9) return "small";
  if (updates < 1e11) return "medium";
  return "large";
}

namespace {

using formats::Field;

Field<Row> text(const char* name, std::string Row::*m) {
  return {name, [m](const Row& r) { return Json(r.*m); },
          [m](Row& r, const std::string& t, const std::string&) { r.*m = t; }};
}
Field<Row> count(const char* name, int DeckSizes::*m) {
  return {name, [m](const Row& r) { return Json(r.sizes.*m); },
          [m, name](Row& r, const std::string& t, const std::string& at) { r.sizes.*m = int_field(at, name, t); }};
}
/// A tunable's cell: its text form (64, 128x1x1; empty when not set), read back with the
/// check of every other source.
Field<Row> tunable(const TunableSpec& spec) {
  return {spec.name, [&spec](const Row& r) { return Json(tunable_text(spec.get(r.tunables))); },
          [&spec](Row& r, const std::string& t, const std::string& at) {
            if (!t.empty()) spec.set(r.tunables, spec.parse(t, at + "column " + spec.name));
          }};
}
/// A number that may be absent (an empty cell, NaN in the row).
Field<Row> measured(const char* name, double Row::*m) {
  return {name, [m](const Row& r) { return json_number(r.*m); },
          [m, name](Row& r, const std::string& t, const std::string& at) {
            r.*m = t.empty() ? NAN : real_field(at, name, t);
          }};
}

formats::Table<Row> make_csv_table() {
  formats::Table<Row> t = {
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
  // The tunables, in the table's order, after the policy.
  auto at = t.begin() + std::ptrdiff_t(formats::field_index(t, "policy") + 1);
  for (const TunableSpec& spec : tunable_table()) at = t.insert(at, tunable(spec)) + 1;
  return t;
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
    // Tunables as gpp run takes them: each value by its cell; ones the policy has.
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
  return a.policy == b.policy && a.space == b.space && a.sizes == b.sizes && a.tunables == b.tunables;
}

}  // namespace gpp::measure::sweep
