#include "gpp_record.hpp"

#include "gpp_csv.hpp"
#include "gpp_sweep.hpp"

#include "gpp_build_info.hpp"
#include "gpp_compat.hpp"
#include "gpp_backend.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_json.hpp"
#include "gpp_outputs.hpp"
#include "gpp_runtime.hpp"
#include "gpp_tuning.hpp"
#include "gpp_static.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#ifndef GPP_CXX_COMPILER
#define GPP_CXX_COMPILER "unknown"
#endif
#ifndef GPP_CXX_FLAGS
#define GPP_CXX_FLAGS ""
#endif
#ifndef GPP_BUILD_TYPE
#define GPP_BUILD_TYPE ""
#endif

namespace gpp::record {
using formats::dump_json;
using formats::have_hdf5;
using formats::Json;
using formats::json_complex;
using formats::json_complex_array;
using formats::json_number;
using measure::BranchCounts;
using measure::json_tunables;

BuildInfo this_build() {
  BuildInfo b;
  b.version = build_info::version();
  b.git = build_info::git_hash();
  b.kokkos_version = compat::kokkos_version_string();
  b.kokkos_backends = kHasDeviceSpace ? std::string(DeviceExec::name()) + ", " + HostExec::name() : HostExec::name();
  b.compiler = GPP_CXX_COMPILER;
  b.cxx_flags = GPP_CXX_FLAGS;
  b.build_type = GPP_BUILD_TYPE;
  b.kokkos_kernels = static_remainder_uses_kokkos_kernels();
  b.hdf5 = have_hdf5();
  return b;
}

SpaceInfo space_info(SpaceKind k) {
  return with_space(k, [&](auto space) {
    SpaceInfo s;
    s.kind = k;
    s.backend = space.name();
    s.device = backend::name(space);
    s.concurrency = space.concurrency();
    return s;
  });
}

double PolicyRun::min() const { return times.empty() ? NAN : *std::min_element(times.begin(), times.end()); }
double PolicyRun::max() const { return times.empty() ? NAN : *std::max_element(times.begin(), times.end()); }
namespace {
double median_of(std::vector<double> t) {
  if (t.empty()) return NAN;
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
}  // namespace
double PolicyRun::median() const { return median_of(times); }
double PolicyRun::median_with_transfers() const { return median_of(times_with_transfers); }

bool RunRecord::passed() const {
  for (const auto& r : runs)
    if (r.status != "ok" || (target.performed() && !r.verified)) return false;
  return !achstemp_rel_error || *achstemp_rel_error <= target.tolerance;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

namespace {

std::string num(double v, int digits = 6) {
  if (!std::isfinite(v)) return "nan";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

/// A RESULT-line value: anything but printable ASCII without spaces and '=' is replaced,
/// so that a value can never end the line or start another key.
std::string token(const std::string& v) {
  std::string o;
  for (const char c : v) o += (c > ' ' && c < 0x7F && c != '=') ? c : '_';
  return o.empty() ? "_" : o;
}

const char* verified_word(const RunRecord& r, const PolicyRun& run) {
  if (run.status == "invalid") return "invalid";
  if (!r.target.performed()) return "skipped";
  return run.verified ? "yes" : "no";
}

Json json_space(const SpaceInfo& s) {
  Json j = Json::object();
  j["kind"] = to_string(s.kind);
  j["backend"] = s.backend;
  j["device"] = s.device;
  j["concurrency"] = s.concurrency;
  return j;
}

Json text_or_null(const std::string& v) { return v.empty() ? Json(nullptr) : Json(v); }

Json json_numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(json_number(x));
  return a;
}

}  // namespace

using formats::member;

const formats::Table<BuildInfo>& build_fields() {
  static const formats::Table<BuildInfo> t = {
      {"program", [](const BuildInfo&) { return Json("gpp"); }},
      member("version", &BuildInfo::version),
      member("git", &BuildInfo::git),
      member("kokkos_version", &BuildInfo::kokkos_version),
      member("kokkos_backends", &BuildInfo::kokkos_backends),
      member("compiler", &BuildInfo::compiler),
      member("cxx_flags", &BuildInfo::cxx_flags),
      member("build_type", &BuildInfo::build_type),
      member("kokkos_kernels_gemm", &BuildInfo::kokkos_kernels),
      member("hdf5", &BuildInfo::hdf5),
  };
  return t;
}

const formats::Table<DeckInfo>& deck_fields() {
  static const formats::Table<DeckInfo> t = {
      member("name", &DeckInfo::name),
      member("source", &DeckInfo::source),
      member("generator", &DeckInfo::generator),
      member("input_path", &DeckInfo::input_path),
      {"seed", [](const DeckInfo& d) { return d.seed >= 0 ? Json(d.seed) : Json(nullptr); }},
      member("nbands", &DeckInfo::sizes, &DeckSizes::nbands),
      member("ngpown", &DeckInfo::sizes, &DeckSizes::ngpown),
      member("ncouls", &DeckInfo::sizes, &DeckSizes::ncouls),
      member("nw", &DeckInfo::sizes, &DeckSizes::nw),
      member("nstart", &DeckInfo::nstart),
      member("nend", &DeckInfo::nend),
      member("nvband", &DeckInfo::nvband),
      member("updates", &DeckInfo::updates),
      member("reference_provenance", &DeckInfo::reference_provenance),
  };
  return t;
}

const formats::Table<TimeToSolution>& time_fields() {
  static const formats::Table<TimeToSolution> t = {
      member("setup_s", &TimeToSolution::setup_s),   member("transfer_s", &TimeToSolution::transfer_s),
      member("kernel_s", &TimeToSolution::kernel_s), member("verification_s", &TimeToSolution::verification_s),
      member("output_s", &TimeToSolution::output_s), member("total_s", &TimeToSolution::total_s),
  };
  return t;
}

const formats::Table<RunRecord>& setup_fields() {
  static const formats::Table<RunRecord> t = {
      member("setup_s", &RunRecord::setup_s),
      member("read_s", &RunRecord::read_s),
      member("check_s", &RunRecord::check_s),
      member("read_bytes", &RunRecord::read_bytes),
      member("transfer_s", &RunRecord::transfer_s),
      member("transfer_bytes", &RunRecord::transfer_bytes),
      member("transfer_copy_s", &RunRecord::transfer_copy_s),
      {"read_gbs",
       [](const RunRecord& r) {
         return r.read_s > 0 ? json_number(double(r.read_bytes) / r.read_s / 1e9) : Json(nullptr);
       }},
      member("data_bytes", &RunRecord::data_bytes),
      member("device_mem_peak_bytes", &RunRecord::device_mem_peak_bytes),
  };
  return t;
}

const formats::Table<RunRecord>& static_fields() {
  static const formats::Table<RunRecord> t = {
      {"achstemp", [](const RunRecord& r) { return r.achstemp ? json_complex(*r.achstemp) : Json(nullptr); }},
      member("time_s", &RunRecord::static_s),
      {"space",
       [](const RunRecord& r) { return r.achstemp_space ? json_space(*r.achstemp_space) : formats::absent(); }},
      {"rel_error",
       [](const RunRecord& r) { return r.achstemp_rel_error ? json_number(*r.achstemp_rel_error) : Json(nullptr); }},
  };
  return t;
}

const formats::Table<BranchCounts>& branch_fields() {
  static const formats::Table<BranchCounts> t = {
      member("regular", &BranchCounts::regular),
      member("near_pole", &BranchCounts::near_pole),
      member("zero", &BranchCounts::zero),
      member("cutoff", &BranchCounts::cut),
  };
  return t;
}

const formats::Table<RunRecord>& verification_fields() {
  static const formats::Table<RunRecord> t = {
      {"against", [](const RunRecord& r) { return Json(r.target.against); }},
      {"tolerance", [](const RunRecord& r) { return json_number(r.target.tolerance); }},
      member("reference_s", &RunRecord::reference_s),
      member("reference_source", &RunRecord::reference_origin, &ReferenceOrigin::source),
      {"reference_date", [](const RunRecord& r) { return text_or_null(r.reference_origin.date); }},
      {"reference_space", [](const RunRecord& r) { return text_or_null(r.reference_origin.space); }},
      {"reference_device", [](const RunRecord& r) { return text_or_null(r.reference_origin.device); }},
      {"reference_pass_s",
       [](const RunRecord& r) {
         return r.reference_origin.date.empty() ? Json(nullptr) : json_number(r.reference_origin.pass_s);
       }},
      {"reference_file", [](const RunRecord& r) { return text_or_null(r.reference_origin.file); }},
      {"achtemp",
       [](const RunRecord& r) {
         return r.target.performed() ? json_complex_array(r.reference.achtemp) : formats::absent();
       }},
      {"asxtemp",
       [](const RunRecord& r) {
         return r.target.performed() ? json_complex_array(r.reference.asxtemp) : formats::absent();
       }},
  };
  return t;
}

const formats::Table<RunView>& run_fields() {
  using F = formats::Field<RunView>;
  auto of = [](const char* name, auto get) -> F {
    return {name, [get](const RunView& v) { return Json(get(*v.run)); }};
  };
  auto measure = [](const char* name, auto get) -> F {
    return {name, [get](const RunView& v) { return json_number(get(*v.run)); }};
  };
  static const formats::Table<RunView> t = {
      of("policy", [](const PolicyRun& p) { return p.policy; }),
      {"space", [](const RunView& v) { return json_space(v.run->space); }},
      {"tunables", [](const RunView& v) { return json_tunables(v.run->tunables); }},
      of("tunables_source", [](const PolicyRun& p) { return p.tunables_source; }),
      of("status", [](const PolicyRun& p) { return p.status; }),
      of("reason", [](const PolicyRun& p) { return p.reason; }),
      of("repeats", [](const PolicyRun& p) { return int(p.times.size()); }),
      {"times_s", [](const RunView& v) { return json_numbers(v.run->times); }},
      measure("time_median_s", [](const PolicyRun& p) { return p.median(); }),
      measure("time_min_s", [](const PolicyRun& p) { return p.min(); }),
      measure("time_max_s", [](const PolicyRun& p) { return p.max(); }),
      {"updates_per_s", [](const RunView& v) { return json_number(v.rec->deck.updates / v.run->median()); }},
      // Only for a run that ran and whose FLOPs are counted.
      {"flops_counted",
       [](const RunView& v) {
         return v.run->flops > 0 && !v.run->times.empty() ? json_number(v.run->flops) : formats::absent();
       }},
      {"gflops",
       [](const RunView& v) {
         return v.run->flops > 0 && !v.run->times.empty() ? json_number(v.run->flops / v.run->median() / 1e9)
                                                          : formats::absent();
       }},
      measure("rel_error", [](const PolicyRun& p) { return p.rel_error; }),
      of("verified", [](const PolicyRun& p) { return p.verified; }),
      {"achtemp", [](const RunView& v) { return json_complex_array(v.run->result.achtemp); }},
      {"asxtemp", [](const RunView& v) { return json_complex_array(v.run->result.asxtemp); }},
      of("ranks", [](const PolicyRun& p) { return p.ranks; }),
      {"rank_kernel_median_s", [](const RunView& v) { return json_numbers(v.run->rank_kernel_s); }},
      measure("comm_median_s", [](const PolicyRun& p) { return p.comm_s; }),
      of("chunks", [](const PolicyRun& p) { return p.chunks; }),
      of("launches", [](const PolicyRun& p) { return p.launches; }),
      {"times_with_transfers_s", [](const RunView& v) { return json_numbers(v.run->times_with_transfers); }},
      measure("time_with_transfers_median_s", [](const PolicyRun& p) { return p.median_with_transfers(); }),
      measure("stream_bytes_per_pass", [](const PolicyRun& p) { return p.stream_bytes; }),
      measure("stream_copy_s_per_pass", [](const PolicyRun& p) { return p.stream_copy_s; }),
  };
  return t;
}

std::string result_line(const RunRecord& r, const PolicyRun& run) {
  std::ostringstream o;
  o << "RESULT deck=" << token(r.deck.name) << " policy=" << token(run.policy) << " space=" << to_string(run.space.kind)
    << " backend=" << token(run.space.backend) << " nw=" << r.deck.sizes.nw << " time_median_s=" << num(run.median())
    << " updates_per_s=" << num(r.deck.updates / run.median()) << " rel_error=" << num(run.rel_error, 3)
    << " verified=" << verified_word(r, run) << " ranks=" << r.ranks;
  return o.str();
}

std::string to_json(const RunRecord& r) {
  Json j = Json::object();
  j["schema_version"] = RunRecord::kSchemaVersion;
  j["kind"] = "gpp-record";
  j["command"] = r.command;
  j["date"] = r.date;
  j["command_line"] = r.command_line;
  j["kokkos_warnings"] = r.kokkos_warnings;
  j["build"] = formats::json_object(build_fields(), r.build);
  j["deck"] = formats::json_object(deck_fields(), r.deck);
  j["setup"] = formats::json_object(setup_fields(), r);
  if (r.achstemp) j["static_remainder"] = formats::json_object(static_fields(), r);
  if (r.branches) j["branches"] = formats::json_object(branch_fields(), *r.branches);
  j["verification"] = formats::json_object(verification_fields(), r);
  Json runs = Json::array();
  for (const auto& run : r.runs) runs.push_back(formats::json_object(run_fields(), RunView{&r, &run}));
  j["runs"] = std::move(runs);
  j["time_to_solution"] = r.time_to_solution ? formats::json_object(time_fields(), *r.time_to_solution) : Json(nullptr);
  j["ranks"] = r.ranks;
  j["rank_placement"] = r.rank_placement;
  j["passed"] = r.passed();
  return dump_json(j);
}

measure::sweep::Row row_of(const RunRecord& r, const PolicyRun& run) {
  measure::sweep::Row o;
  o.date = r.date;
  o.git = r.build.git;
  o.version = r.build.version;
  o.kokkos = r.build.kokkos_version;
  o.backend = run.space.backend;
  o.space = to_string(run.space.kind);
  o.device = run.space.device;
  o.deck = r.deck.name;
  o.sizes = r.deck.sizes;
  o.updates = r.deck.updates;
  o.policy = run.policy;
  o.tunables = run.tunables;
  o.repeats = int(run.times.size());
  if (!run.times.empty()) {
    o.time_min_s = run.min();
    o.time_median_s = run.median();
    o.time_max_s = run.max();
    o.updates_per_s = r.deck.updates / run.median();
    if (run.flops > 0) o.gflops = run.flops / run.median() / 1e9;
    if (r.target.performed()) o.rel_error = run.rel_error;
  }
  o.status = run.status;
  o.reason = run.reason;
  return o;
}

std::string csv_row(const RunRecord& r, const PolicyRun& run) { return measure::sweep::csv_line(row_of(r, run)); }

std::string csv_rows(const RunRecord& r) {
  std::string o;
  for (const auto& run : r.runs) o += csv_row(r, run) + "\n";
  return o;
}

std::string describe_provenance(const RunRecord& r) {
  std::ostringstream o;
  o << "gpp " << r.build.version << " (git " << r.build.git << "), " << r.build.build_type << " build, "
    << r.build.compiler << "\n"
    << "kokkos: " << r.build.kokkos_version << ", backends " << r.build.kokkos_backends << "\n";
  for (const std::string& w : r.kokkos_warnings) o << "kokkos warning: " << w << "\n";
  if (!runtime::thread_note().empty()) o << runtime::thread_note() << "\n";
  std::vector<std::string> seen;
  for (const auto& run : r.runs) {
    const std::string line = std::string("space ") + to_string(run.space.kind) + ": " + run.space.backend +
                             " (concurrency " + std::to_string(run.space.concurrency) +
                             "), device: " + run.space.device;
    if (std::find(seen.begin(), seen.end(), line) == seen.end()) {
      seen.push_back(line);
      o << line << "\n";
    }
  }
  return o.str();
}

}  // namespace gpp::record
