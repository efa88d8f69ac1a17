#include "gpp_record.hpp"

#include "gpp_csv.hpp"
#include "gpp_sweep.hpp"

#include "gpp_build_info.hpp"
#include "gpp_compat.hpp"
#include "gpp_backend.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_json.hpp"
#include "gpp_outputs.hpp"
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

namespace gpp::app {

BuildInfo build_info() {
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

std::string describe_tunables(const Tunables& t) {
  std::ostringstream o;
  auto add = [&](const char* n, int v) {
    if (v > 0) o << (o.tellp() > 0 ? " " : "") << n << "=" << v;
  };
  add("band_block", t.band_block);
  add("ig_block", t.ig_block);
  add("team_size", t.team_size);
  add("vector_length", t.vector_length);
  if (!t.tile.empty()) {
    o << (o.tellp() > 0 ? " " : "") << "tile=";
    for (std::size_t i = 0; i < t.tile.size(); ++i) o << (i ? "x" : "") << t.tile[i];
  }
  if (!t.params.empty()) o << (o.tellp() > 0 ? " " : "") << describe_params(t);
  return o.tellp() > 0 ? o.str() : "none";
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

Json json_numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(json_number(x));
  return a;
}

}  // namespace

std::string result_line(const RunRecord& r, const PolicyRun& run) {
  std::ostringstream o;
  o << "RESULT deck=" << token(r.deck.name) << " policy=" << token(run.policy) << " space=" << to_string(run.space.kind)
    << " backend=" << token(run.space.backend) << " nw=" << r.deck.nw << " time_median_s=" << num(run.median())
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
  Json build = Json::object();
  build["program"] = "gpp";
  build["version"] = r.build.version;
  build["git"] = r.build.git;
  build["kokkos_version"] = r.build.kokkos_version;
  build["kokkos_backends"] = r.build.kokkos_backends;
  build["compiler"] = r.build.compiler;
  build["cxx_flags"] = r.build.cxx_flags;
  build["build_type"] = r.build.build_type;
  build["kokkos_kernels_gemm"] = r.build.kokkos_kernels;
  build["hdf5"] = r.build.hdf5;
  j["build"] = std::move(build);
  const DeckInfo& d = r.deck;
  Json deck = Json::object();
  deck["name"] = d.name;
  deck["source"] = d.source;
  deck["generator"] = d.generator;
  deck["input_path"] = d.input_path;
  deck["seed"] = d.seed >= 0 ? Json(d.seed) : Json(nullptr);
  deck["nbands"] = d.nbands;
  deck["ngpown"] = d.ngpown;
  deck["ncouls"] = d.ncouls;
  deck["nw"] = d.nw;
  deck["nstart"] = d.nstart;
  deck["nend"] = d.nend;
  deck["nvband"] = d.nvband;
  deck["updates"] = json_number(d.updates);
  deck["reference_provenance"] = d.reference_provenance;
  j["deck"] = std::move(deck);
  Json setup = Json::object();
  setup["setup_s"] = json_number(r.setup_s);
  setup["read_s"] = json_number(r.read_s);
  setup["check_s"] = json_number(r.check_s);
  setup["read_bytes"] = r.read_bytes;
  setup["transfer_s"] = json_number(r.transfer_s);
  setup["transfer_bytes"] = json_number(r.transfer_bytes);
  setup["transfer_copy_s"] = json_number(r.transfer_copy_s);
  setup["read_gbs"] = r.read_s > 0 ? json_number(double(r.read_bytes) / r.read_s / 1e9) : Json(nullptr);
  setup["data_bytes"] = r.data_bytes;
  setup["device_mem_peak_bytes"] = r.device_mem_peak_bytes;
  j["setup"] = std::move(setup);
  if (r.achstemp) {
    Json s = Json::object();
    s["achstemp"] = json_complex(*r.achstemp);
    s["time_s"] = json_number(r.static_s);
    if (r.achstemp_space) s["space"] = json_space(*r.achstemp_space);
    s["rel_error"] = r.achstemp_rel_error ? json_number(*r.achstemp_rel_error) : Json(nullptr);
    j["static_remainder"] = std::move(s);
  }
  if (r.branches) {
    const auto& b = *r.branches;
    Json o = Json::object();
    o["regular"] = (long long)b.regular;
    o["near_pole"] = (long long)b.near_pole;
    o["zero"] = (long long)b.zero;
    o["cutoff"] = (long long)b.cut;
    j["branches"] = std::move(o);
  }
  Json v = Json::object();
  v["against"] = r.target.against;
  v["tolerance"] = json_number(r.target.tolerance);
  v["reference_s"] = json_number(r.reference_s);
  if (r.target.performed()) {
    v["achtemp"] = json_complex_array(r.reference.achtemp);
    v["asxtemp"] = json_complex_array(r.reference.asxtemp);
  }
  j["verification"] = std::move(v);
  Json runs = Json::array();
  for (const auto& run : r.runs) {
    Json o = Json::object();
    o["policy"] = run.policy;
    o["space"] = json_space(run.space);
    o["tunables"] = json_tunables(run.tunables);
    o["tunables_source"] = run.tunables_source;
    o["status"] = run.status;
    o["reason"] = run.reason;
    o["repeats"] = int(run.times.size());
    o["times_s"] = json_numbers(run.times);
    o["time_median_s"] = json_number(run.median());
    o["time_min_s"] = json_number(run.min());
    o["time_max_s"] = json_number(run.max());
    o["updates_per_s"] = json_number(d.updates / run.median());
    if (run.flops > 0 && !run.times.empty()) {
      o["flops_counted"] = json_number(run.flops);
      o["gflops"] = json_number(run.flops / run.median() / 1e9);
    }
    o["rel_error"] = json_number(run.rel_error);
    o["verified"] = run.verified;
    o["achtemp"] = json_complex_array(run.result.achtemp);
    o["asxtemp"] = json_complex_array(run.result.asxtemp);
    o["ranks"] = run.ranks;
    o["rank_kernel_median_s"] = json_numbers(run.rank_kernel_s);
    o["comm_median_s"] = json_number(run.comm_s);
    o["chunks"] = run.chunks;
    o["launches"] = run.launches;
    o["times_with_transfers_s"] = json_numbers(run.times_with_transfers);
    o["time_with_transfers_median_s"] = json_number(run.median_with_transfers());
    o["stream_bytes_per_pass"] = json_number(run.stream_bytes);
    o["stream_copy_s_per_pass"] = json_number(run.stream_copy_s);
    runs.push_back(std::move(o));
  }
  j["runs"] = std::move(runs);
  if (const auto& t = r.time_to_solution) {
    Json o = Json::object();
    o["setup_s"] = json_number(t->setup_s);
    o["transfer_s"] = json_number(t->transfer_s);
    o["kernel_s"] = json_number(t->kernel_s);
    o["verification_s"] = json_number(t->verification_s);
    o["output_s"] = json_number(t->output_s);
    o["total_s"] = json_number(t->total_s);
    j["time_to_solution"] = std::move(o);
  } else {
    j["time_to_solution"] = nullptr;
  }
  j["ranks"] = r.ranks;
  j["rank_placement"] = r.rank_placement;
  j["passed"] = r.passed();
  return dump_json(j);
}

const std::string& csv_header() {
  static const std::string h =
      "schema_version,date,git,version,kokkos,backend,space,device,deck,nbands,ngpown,ncouls,nw,updates,"
      "policy,band_block,ig_block,team_size,vector_length,tile,repeats,time_min_s,time_median_s,"
      "time_max_s,updates_per_s,gflops,rel_error,status,reason,params";
  return h;
}

std::string csv_row(const RunRecord& r, const PolicyRun& run) {
  std::ostringstream o;
  o.precision(17);
  auto opt = [](int v) { return v > 0 ? std::to_string(v) : std::string(); };
  const DeckInfo& d = r.deck;
  const bool ran = !run.times.empty();
  o << RunRecord::kSchemaVersion << "," << r.date << "," << formats::csv_field(r.build.git) << ","
    << formats::csv_field(r.build.version) << "," << formats::csv_field(r.build.kokkos_version) << ","
    << formats::csv_field(run.space.backend) << "," << to_string(run.space.kind) << ","
    << formats::csv_field(run.space.device) << "," << formats::csv_field(d.name) << "," << d.nbands << "," << d.ngpown
    << "," << d.ncouls << "," << d.nw << "," << d.updates << "," << formats::csv_field(run.policy) << ","
    << opt(run.tunables.band_block) << "," << opt(run.tunables.ig_block) << "," << opt(run.tunables.team_size) << ","
    << opt(run.tunables.vector_length) << "," << sweep::tile_text(run.tunables.tile) << "," << run.times.size() << ",";
  if (ran) {
    o << run.min() << "," << run.median() << "," << run.max() << "," << d.updates / run.median() << ",";
    if (run.flops > 0) o << run.flops / run.median() / 1e9;
  } else {
    o << ",,,,";
  }
  o << "," << (ran && r.target.performed() ? format_double(run.rel_error) : "") << "," << run.status << ","
    << formats::csv_field(run.reason) << "," << formats::csv_field(describe_params(run.tunables));
  return o.str();
}

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

}  // namespace gpp::app
