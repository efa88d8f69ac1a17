#include "gpp_roofline.hpp"

#include "gpp_csv.hpp"

#include "gpp_inputs.hpp"
#include "gpp_json.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace gpp::measure {
using files::excerpt;
using files::kMaxCsvBytes;
using files::kMaxJsonBytes;
using files::read_input_file;
using formats::dump_json;
using formats::Json;
using formats::json_kind;
using formats::json_number;
using formats::JsonIn;
using formats::parse_json;

namespace {
std::string bytes_text(double b) {
  std::ostringstream o;
  if (b >= 1048576.0)
    o << b / 1048576.0 << " MiB";
  else
    o << b / 1024.0 << " KiB";
  return o.str();
}
}  // namespace

std::vector<BandwidthLevel> pick_levels(const std::vector<ceilings::SweepPoint>& sweep, const backend::Properties& c,
                                        bool host, const std::vector<ceilings::SweepPoint>& rotated) {
  std::vector<BandwidthLevel> levels;
  if (sweep.empty()) return levels;
  const double units = c.units > 0 ? c.units : 1;
  const double l1 = c.l1_bytes * units;
  const double l2 = host ? c.l2_bytes * units : c.l2_bytes;
  const double l3 = host ? c.l3_bytes : 0;
  // The best point of `pts` with lo < working set <= hi, as level `name`.
  auto best_of = [&](const std::vector<ceilings::SweepPoint>& pts, double lo, double hi, const std::string& name,
                     const std::string& why) {
    const ceilings::SweepPoint* b = nullptr;
    for (const auto& p : pts)
      if (p.working_set_bytes > lo && p.working_set_bytes <= hi && (!b || p.gbs > b->gbs)) b = &p;
    if (b) levels.push_back({name, b->gbs, b->working_set_bytes, why});
  };
  auto best = [&](double lo, double hi, const std::string& name, const std::string& why) {
    best_of(sweep, lo, hi, name, why);
  };
  if (!host && !rotated.empty() && l2 > 0) {
    if (rotated.back().working_set_bytes >= 4 * l2)
      best_of(rotated, 4 * l2 - 1, 1e300, "HBM",
              "best of the rotated sweep at working sets >= 4 x L2 (" + bytes_text(l2) + ")");
    else
      best_of(rotated, rotated.back().working_set_bytes - 1, 1e300, "HBM",
              "the largest working set of the rotated sweep: not 4 x beyond L2, so possibly an L2 rate");
    best_of(rotated, 0, l2 / 2, "L2",
            "best of the rotated sweep (no L1 reuse) at working sets <= L2/2 = " + bytes_text(l2 / 2));
    if (l1 > 0)
      best(0, l1 / 2, "L1", "best of the sweep at working sets <= L1 x multiprocessors/2 = " + bytes_text(l1 / 2));
    return levels;
  }
  const double last_cache = l3 > 0 ? l3 : l2;
  const double largest = sweep.back().working_set_bytes;
  const std::string memory = host ? "DRAM" : "HBM";
  if (last_cache > 0 && largest >= 4 * last_cache) {
    best(4 * last_cache - 1, 1e300, memory,
         "best of the sweep at working sets >= 4 x the last cache level (" + bytes_text(last_cache) + ")");
  } else {
    best(largest - 1, largest, memory,
         "the largest working set of the sweep (" + bytes_text(largest) +
             "): not 4 x beyond the last cache level, so possibly a cache rate");
  }
  if (l3 > 0 && l2 > 0)
    best(l2, l3 / 2, "L3",
         "best of the sweep at working sets in (L2 x threads, L3/2] = (" + bytes_text(l2) + ", " + bytes_text(l3 / 2) +
             "]");
  if (l2 > 0 && l1 > 0)
    best(l1 > 0 ? l1 : 0, l2 / 2, "L2",
         std::string("best of the sweep at working sets in (L1 total, L2") + (host ? " x threads" : "") + "/2] = (" +
             bytes_text(l1) + ", " + bytes_text(l2 / 2) + "]");
  if (l1 > 0)
    best(0, l1 / 2, "L1",
         std::string("best of the sweep at working sets <= L1 x ") + (host ? "threads" : "multiprocessors") +
             "/2 = " + bytes_text(l1 / 2));
  return levels;
}

namespace {
template <class Row>
using Fields = formats::Table<Row>;

constexpr const char* kFp64Peak = "FP64 FMA peak";

// A name a ceilings file gives (read back: the device and backend a roofline is for).
formats::Field<CeilingsFile> name_field(const char* name, std::string CeilingsFile::*m) {
  formats::Field<CeilingsFile> f = formats::member(name, m);
  f.from_json = [m, name](CeilingsFile& c, const JsonIn& v, const std::string& where) {
    if (!v.is_string() || v.get<std::string>().empty()) throw Error(where + name + " is not a name");
    c.*m = v.get<std::string>();
  };
  return f;
}

// A positive finite rate, at most 1e9 G/s (a billion times an H100): what a measurement
// can give, not a forged or garbage value.
double rate(const JsonIn& v, const std::string& where, const char* name) {
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() < 1e9))
    throw Error(where + name + " is not a positive finite rate");
  return v.get<double>();
}

/// The ceilings file's parts (docs/formats.md "Ceilings JSON"), declared once.
const Fields<CeilingsFile>& device_fields() {
  static const Fields<CeilingsFile> t = {
      name_field("name", &CeilingsFile::device),
      name_field("backend", &CeilingsFile::backend),
      formats::member("space", &CeilingsFile::space),
      {"sm_clock_mhz",
       [](const CeilingsFile& c) { return c.clock_mhz > 0 ? json_number(c.clock_mhz) : Json(nullptr); }},
      {"multiprocessors",
       [](const CeilingsFile& c) { return c.multiprocessors > 0 ? Json(c.multiprocessors) : Json(nullptr); }},
      formats::member("concurrency", &CeilingsFile::concurrency),
      // Device memory; null on the host space.
      {"memory_bytes",
       [](const CeilingsFile& c) { return c.memory_bytes > 0 ? Json((long long)c.memory_bytes) : Json(nullptr); }},
      {"memory_free_bytes",
       [](const CeilingsFile& c) { return c.memory_bytes > 0 ? Json((long long)c.memory_free_bytes) : Json(nullptr); }},
  };
  return t;
}

/// The FP64 peak, the one entry of "compute".
const Fields<CeilingsFile>& compute_fields() {
  static const Fields<CeilingsFile> t = {
      {"name", [](const CeilingsFile&) { return Json(kFp64Peak); }},
      {"gflops",
       [](const CeilingsFile& c) { return json_number(c.fp64.value); },
       {},
       [](CeilingsFile& c, const JsonIn& v, const std::string& where) { c.fp64.value = rate(v, where, "gflops"); }},
      {"fma_ratio", [](const CeilingsFile&) { return Json(1.0); }},
      {"method", [](const CeilingsFile& c) { return Json(c.fp64.method); }},
  };
  return t;
}

const Fields<BandwidthLevel>& level_fields() {
  static const Fields<BandwidthLevel> t = {
      {"level",
       [](const BandwidthLevel& b) { return Json(b.level); },
       {},
       [](BandwidthLevel& b, const JsonIn& v, const std::string& where) {
         if (!v.is_string()) throw Error(where + "level is " + json_kind(v) + ", not a name");
         b.level = v.get<std::string>();
         if (b.level != "HBM" && b.level != "DRAM" && b.level != "L3" && b.level != "L2" && b.level != "L1")
           throw Error(where + "level \"" + excerpt(b.level, 20) + "\" is not HBM, DRAM, L3, L2 or L1");
       }},
      {"gbs",
       [](const BandwidthLevel& b) { return json_number(b.gbs); },
       {},
       [](BandwidthLevel& b, const JsonIn& v, const std::string& where) { b.gbs = rate(v, where, "gbs"); }},
      {"working_set_bytes", [](const BandwidthLevel& b) { return Json((long long)b.working_set_bytes); }},
      formats::member("method", &BandwidthLevel::method),
  };
  return t;
}

const Fields<ceilings::SweepPoint>& sweep_fields() {
  static const Fields<ceilings::SweepPoint> t = {
      {"working_set_bytes", [](const ceilings::SweepPoint& p) { return Json((long long)p.working_set_bytes); }},
      formats::member("gbs", &ceilings::SweepPoint::gbs),
  };
  return t;
}

/// One host-link point, with the method the file states once for all of them.
struct LinkRow {
  const ceilings::LinkPoint* point;
  const std::string* method;
};
const Fields<LinkRow>& link_fields() {
  static const Fields<LinkRow> t = {
      {"direction", [](const LinkRow& r) { return Json(r.point->direction); }},
      {"host_memory", [](const LinkRow& r) { return Json(r.point->memory); }},
      {"gbs", [](const LinkRow& r) { return json_number(r.point->gbs); }},
      {"bytes", [](const LinkRow& r) { return Json((long long)r.point->bytes); }},
      {"method", [](const LinkRow& r) { return Json(*r.method); }},
  };
  return t;
}

template <class Row, class Items, class Make>
Json json_array(const Fields<Row>& t, const Items& items, Make make) {
  Json a = Json::array();
  for (const auto& item : items) a.push_back(formats::json_object(t, make(item)));
  return a;
}
}  // namespace

std::string to_json(const CeilingsFile& c) {
  Json j = Json::object();
  j["schema_version"] = 1;
  j["kind"] = "gpp-ceilings";
  j["date"] = c.date;
  j["gpp"] = Json{{"version", c.version}, {"git", c.git}};
  j["device"] = formats::json_object(device_fields(), c);
  j["compute"] = Json::array({formats::json_object(compute_fields(), c)});
  const auto same = [](const auto& x) { return x; };
  j["bandwidth"] = json_array(level_fields(), c.bandwidth, same);
  j["sweep"] = json_array(sweep_fields(), c.sweep, same);
  if (!c.sweep_rotated.empty()) j["sweep_rotated"] = json_array(sweep_fields(), c.sweep_rotated, same);
  if (!c.host_link.empty())
    j["host_link"] = json_array(link_fields(), c.host_link, [&](const ceilings::LinkPoint& p) {
      return LinkRow{&p, &c.host_link_method};
    });
  return dump_json(j);
}

CeilingsSummary parse_ceilings(const std::string& text, const std::string& path) {
  const std::string file = "--ceilings " + path + ": ";
  const JsonIn doc = parse_json(text, "--ceilings " + path);
  if (!doc.is_object()) throw Error(file + "not a JSON object");
  if (!doc.contains("kind") || doc["kind"] != "gpp-ceilings")
    throw Error(file + "not a gpp ceilings file (kind gpp-ceilings)");
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_unsigned() || doc["schema_version"] != 1)
    throw Error(file + "schema_version must be 1");
  CeilingsSummary c;
  const auto device = doc.find("device");
  if (device == doc.end() || !device->is_object()) throw Error(file + "no \"device\" object");
  const CeilingsFile d = formats::read_json_object(device_fields(), *device, file + "device: ");
  c.device = d.device;
  c.backend = d.backend;
  const auto compute = doc.find("compute");
  if (compute == doc.end() || !compute->is_array()) throw Error(file + "no \"compute\" array");
  for (std::size_t i = 0; i < compute->size(); ++i) {
    const JsonIn& e = (*compute)[i];
    const std::string where = file + "compute[" + std::to_string(i) + "]: ";
    if (!e.is_object()) throw Error(file + "compute[" + std::to_string(i) + "] is not an object");
    if (e.contains("name") && e["name"] == kFp64Peak) {
      if (c.fp64_peak_gflops > 0) throw Error(file + "two FP64 FMA peaks in compute");
      c.fp64_peak_gflops = formats::read_json_object(compute_fields(), e, where).fp64.value;
    }
  }
  if (!(c.fp64_peak_gflops > 0)) throw Error(file + "no positive FP64 FMA peak");
  if (const auto bw = doc.find("bandwidth"); bw != doc.end()) {
    if (!bw->is_array()) throw Error(file + "\"bandwidth\" is not an array");
    for (std::size_t i = 0; i < bw->size(); ++i)
      formats::read_json_object(level_fields(), (*bw)[i], file + "bandwidth[" + std::to_string(i) + "]: ");
  }
  return c;
}

CeilingsSummary read_ceilings(const std::string& path) {
  return parse_ceilings(read_input_file("--ceilings", path, kMaxJsonBytes), path);
}

// ---- Nsight Compute raw CSV ----

namespace {

// One line of ncu's report: its fields (the report quotes every field).
std::vector<std::string> split_csv_line(const std::string& line) {
  auto records = formats::parse_csv(line);
  return records.empty() ? std::vector<std::string>{} : records.front();
}

// Multiplier of a unit of ncu's units row to the base unit (byte, second, inst, ...).
double unit_scale(const std::string& unit) {
  static const std::pair<const char*, double> prefixes[] = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"K", 1e3},     {"M", 1e6},        {"G", 1e9},           {"T", 1e12},
      {"n", 1e-9},    {"u", 1e-6},       {"m", 1e-3}};
  // Durations in ncu's short forms (the raw page of ncu 2025.3 writes "ns").
  static const std::pair<const char*, double> times[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  for (const auto& [u, s] : times)
    if (unit == u) return s;
  static const char* bases[] = {"byte", "second", "inst", "cycle"};
  for (const char* base : bases) {
    const std::string b = base;
    if (unit == b) return 1.0;
    for (const auto& [p, s] : prefixes)
      if (unit == std::string(p) + b) return s;
  }
  return 1.0;  // %, register/thread, counts without a unit
}

double number(const std::string& field, const std::string& column) {
  std::string s;
  for (char ch : field)
    if (ch != ',' && ch != ' ') s += ch;
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw Error("ncu report: column " + column + " holds '" + excerpt(field) + "', not a count or rate");
}

}  // namespace

const std::vector<std::string>& ncu_metrics() {
  static const std::vector<std::string> m = {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
                                             "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
                                             "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
                                             "l1tex__t_bytes.sum",
                                             "lts__t_bytes.sum",
                                             "dram__bytes.sum",
                                             "gpu__time_duration.sum",
                                             "launch__registers_per_thread",
                                             "sm__warps_active.avg.pct_of_peak_sustained_active"};
  return m;
}

NcuCounters parse_ncu_raw_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header, units;
  while (std::getline(in, line))
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  if (header.empty()) throw Error("ncu report: no raw CSV header (a line starting with \"ID\")");
  if (!std::getline(in, line)) throw Error("ncu report: no units row after the header");
  units = split_csv_line(line);
  if (units.size() != header.size()) throw Error("ncu report: the units row has a different number of columns");
  auto column = [&](const std::string& name, bool required) -> int {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      if (required) throw Error("ncu report: no column " + name);
      return -1;
    }
    return int(it - header.begin());
  };
  const auto& m = ncu_metrics();
  const int c_dadd = column(m[0], true), c_dmul = column(m[1], true), c_dfma = column(m[2], true),
            c_l1 = column(m[3], true), c_l2 = column(m[4], true), c_dram = column(m[5], true),
            c_time = column(m[6], true), c_regs = column(m[7], false), c_occ = column(m[8], false);
  NcuCounters c;
  double occ_weighted = 0, occ_weight = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') break;  // the table ends; ncu may log more after it
    const auto f = split_csv_line(line);
    if (f.size() != header.size())
      throw Error("ncu report: a kernel row has " + std::to_string(f.size()) + " columns, the header " +
                  std::to_string(header.size()));
    auto get = [&](int col) { return number(f[col], header[col]) * unit_scale(units[col]); };
    ++c.kernels;
    c.dadd += get(c_dadd);
    c.dmul += get(c_dmul);
    c.dfma += get(c_dfma);
    c.bytes_l1 += get(c_l1);
    c.bytes_l2 += get(c_l2);
    c.bytes_dram += get(c_dram);
    const double t = get(c_time);
    c.time_s += t;
    if (c_regs >= 0) c.registers = std::max(c.registers.value_or(0.0), get(c_regs));
    if (c_occ >= 0) {
      occ_weighted += get(c_occ) * t;
      occ_weight += t;
    }
  }
  if (c.kernels == 0) throw Error("ncu report: no kernel rows (did the NVTX range match any launch?)");
  if (c_occ >= 0 && occ_weight > 0) c.occupancy_pct = occ_weighted / occ_weight;
  return c;
}

// ---- roofline CSV ----

namespace {

using RF = formats::Field<RooflineRow>;

Json opt(const std::optional<double>& v) { return v ? json_number(*v) : Json(nullptr); }

/// What Nsight Compute's counters give: FP64 FLOPs (an FMA is two) and their intensities.
std::optional<double> flops_profiled(const RooflineRow& r) {
  if (!r.ncu) return std::nullopt;
  return r.ncu->dadd + r.ncu->dmul + 2 * r.ncu->dfma;
}
std::optional<double> intensity(const RooflineRow& r, double NcuCounters::*bytes) {
  if (!r.ncu || !((*r.ncu).*bytes > 0)) return std::nullopt;
  return *flops_profiled(r) / ((*r.ncu).*bytes);
}
double gflops_counted(const RooflineRow& r) { return r.time_s > 0 ? r.flops_counted / r.time_s / 1e9 : NAN; }
std::optional<double> gflops_profiled(const RooflineRow& r) {
  if (!r.ncu || !(r.time_s > 0)) return std::nullopt;
  return *flops_profiled(r) / r.time_s / 1e9;
}
double fma_ratio(const RooflineRow& r) {
  if (!r.ncu) return r.fma_ratio_counted;
  const double inst = r.ncu->dadd + r.ncu->dmul + r.ncu->dfma;
  return inst > 0 ? r.ncu->dfma / inst : NAN;
}
RF counter(const char* name, double NcuCounters::*m) {
  return {name, [m](const RooflineRow& r) { return r.ncu ? json_number((*r.ncu).*m) : Json(nullptr); }};
}
RF ai(const char* name, double NcuCounters::*bytes) {
  return {name, [bytes](const RooflineRow& r) { return opt(intensity(r, bytes)); }};
}

formats::Table<RooflineRow> make_roofline_table() {
  return {
      {"schema_version", [](const RooflineRow&) { return Json(1); }},
      formats::member("date", &RooflineRow::date),
      formats::member("git", &RooflineRow::git),
      formats::member("device", &RooflineRow::device),
      formats::member("backend", &RooflineRow::backend),
      formats::member("space", &RooflineRow::space),
      formats::member("deck", &RooflineRow::deck),
      formats::member("nbands", &RooflineRow::sizes, &DeckSizes::nbands),
      formats::member("ngpown", &RooflineRow::sizes, &DeckSizes::ngpown),
      formats::member("ncouls", &RooflineRow::sizes, &DeckSizes::ncouls),
      formats::member("nw", &RooflineRow::sizes, &DeckSizes::nw),
      formats::member("updates", &RooflineRow::updates),
      formats::member("policy", &RooflineRow::policy),
      formats::member("tunables", &RooflineRow::tunables),
      formats::member("repeats", &RooflineRow::repeats),
      formats::member("time_s", &RooflineRow::time_s),
      formats::member("flops_counted", &RooflineRow::flops_counted),
      formats::member("reciprocals_counted", &RooflineRow::reciprocals_counted),
      formats::member("flops_nominal", &RooflineRow::flops_nominal),
      formats::member("bytes_compulsory", &RooflineRow::bytes_compulsory),
      formats::member("profiler", &RooflineRow::profiler),
      formats::member("clock_control", &RooflineRow::clock_control),
      {"flops_profiled", [](const RooflineRow& r) { return opt(flops_profiled(r)); }},
      counter("dadd", &NcuCounters::dadd),
      counter("dmul", &NcuCounters::dmul),
      counter("dfma", &NcuCounters::dfma),
      counter("bytes_l1", &NcuCounters::bytes_l1),
      counter("bytes_l2", &NcuCounters::bytes_l2),
      counter("bytes_dram", &NcuCounters::bytes_dram),
      {"byte_definition",
       [](const RooflineRow& r) {
         return r.ncu ? Json("raw:l1tex__t_bytes,lts__t_bytes,dram__bytes") : Json(nullptr);
       }},
      ai("ai_l1", &NcuCounters::bytes_l1),
      ai("ai_l2", &NcuCounters::bytes_l2),
      ai("ai_dram", &NcuCounters::bytes_dram),
      {"ai_compulsory",
       [](const RooflineRow& r) {
         return json_number(r.bytes_compulsory > 0 ? r.flops_counted / r.bytes_compulsory : NAN);
       }},
      {"gflops_counted", [](const RooflineRow& r) { return json_number(gflops_counted(r)); }},
      {"gflops_profiled", [](const RooflineRow& r) { return opt(gflops_profiled(r)); }},
      {"fma_ratio", [](const RooflineRow& r) { return json_number(fma_ratio(r)); }},
      {"pct_fp64_peak",
       [](const RooflineRow& r) {
         if (!r.fp64_peak_gflops) return Json(nullptr);
         const std::optional<double> p = gflops_profiled(r);
         return json_number(100 * (p ? *p : gflops_counted(r)) / *r.fp64_peak_gflops);
       }},
      {"registers", [](const RooflineRow& r) { return r.ncu ? opt(r.ncu->registers) : Json(nullptr); }},
      {"occupancy_pct", [](const RooflineRow& r) { return r.ncu ? opt(r.ncu->occupancy_pct) : Json(nullptr); }},
  };
}

}  // namespace

const formats::Table<RooflineRow>& roofline_csv_table() {
  static const formats::Table<RooflineRow> t = make_roofline_table();
  return t;
}

const std::string& roofline_csv_header() {
  static const std::string h = formats::csv_header(roofline_csv_table());
  return h;
}

std::string roofline_csv_row(const RooflineRow& r) { return formats::csv_line(roofline_csv_table(), r) + "\n"; }

std::vector<std::string> roofline_point_key(const std::vector<std::string>& cells) {
  std::vector<std::string> key;
  for (const char* name :
       {"git", "device", "backend", "space", "deck", "nbands", "ngpown", "ncouls", "nw", "policy", "tunables"}) {
    const std::size_t c = formats::field_index(roofline_csv_table(), name);
    key.push_back(c < cells.size() ? cells[c] : std::string());
  }
  return key;
}

std::vector<std::vector<std::string>> read_roofline_points(const std::string& path) {
  const std::string text = read_input_file("--resume", path, kMaxCsvBytes);
  const std::size_t columns = roofline_csv_table().size();
  std::string records = roofline_csv_header() + "\n";
  for (const auto& line : formats::csv_data_records(text)) records += line + "\n";
  if (text.substr(0, text.find('\n')) != roofline_csv_header())
    throw Error("--resume " + path +
                ": not a roofline CSV of this version (its header differs from docs/formats.md's)");
  std::vector<std::vector<std::string>> keys;
  const auto all = formats::parse_csv(records);
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].size() != columns)
      throw Error("--resume " + path + ": row " + std::to_string(i) + " has " + std::to_string(all[i].size()) +
                  " fields, not " + std::to_string(columns));
    keys.push_back(roofline_point_key(all[i]));
  }
  return keys;
}

}  // namespace gpp::measure
