#include "gpp_record.hpp"

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
double PolicyRun::median() const {
  if (times.empty()) return NAN;
  std::vector<double> t = times;
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

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

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string o = "\"";
  for (char c : v) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string tile_text(const std::vector<int>& tile) {
  std::string s;
  for (std::size_t i = 0; i < tile.size(); ++i) s += (i ? "x" : "") + std::to_string(tile[i]);
  return s;
}

void json_space(Json& j, const std::string& key, const SpaceInfo& s) {
  j.begin_object(key)
      .value("kind", to_string(s.kind))
      .value("backend", s.backend)
      .value("device", s.device)
      .value("concurrency", s.concurrency)
      .end_object();
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
  Json j;
  j.begin_object()
      .value("schema_version", RunRecord::kSchemaVersion)
      .value("kind", "gpp-record")
      .value("command", r.command)
      .value("date", r.date)
      .string_array("command_line", r.command_line);
  j.begin_object("build")
      .value("program", "gpp")
      .value("version", r.build.version)
      .value("git", r.build.git)
      .value("kokkos_version", r.build.kokkos_version)
      .value("kokkos_backends", r.build.kokkos_backends)
      .value("compiler", r.build.compiler)
      .value("cxx_flags", r.build.cxx_flags)
      .value("build_type", r.build.build_type)
      .value("kokkos_kernels_gemm", r.build.kokkos_kernels)
      .value("hdf5", r.build.hdf5)
      .end_object();
  const DeckInfo& d = r.deck;
  j.begin_object("deck")
      .value("name", d.name)
      .value("source", d.source)
      .value("generator", d.generator)
      .value("input_path", d.input_path);
  if (d.seed >= 0)
    j.value("seed", d.seed);
  else
    j.null("seed");
  j.value("nbands", d.nbands)
      .value("ngpown", d.ngpown)
      .value("ncouls", d.ncouls)
      .value("nw", d.nw)
      .value("nstart", d.nstart)
      .value("nend", d.nend)
      .value("nvband", d.nvband)
      .value("updates", d.updates)
      .value("reference_provenance", d.reference_provenance)
      .end_object();
  j.begin_object("setup")
      .value("setup_s", r.setup_s)
      .value("read_s", r.read_s)
      .value("check_s", r.check_s)
      .value("read_bytes", r.read_bytes)
      .value("transfer_s", r.transfer_s)
      .value("data_bytes", r.data_bytes)
      .value("device_mem_peak_bytes", r.device_mem_peak_bytes)
      .end_object();
  if (r.achstemp) {
    j.begin_object("static_remainder").complex("achstemp", *r.achstemp).value("time_s", r.static_s);
    if (r.achstemp_space) json_space(j, "space", *r.achstemp_space);
    if (r.achstemp_rel_error)
      j.value("rel_error", *r.achstemp_rel_error);
    else
      j.null("rel_error");
    j.end_object();
  }
  if (r.branches) {
    const auto& b = *r.branches;
    j.begin_object("branches")
        .value("regular", (long long)b.regular)
        .value("near_pole", (long long)b.near_pole)
        .value("zero", (long long)b.zero)
        .value("cutoff", (long long)b.cut)
        .end_object();
  }
  j.begin_object("verification")
      .value("against", r.target.against)
      .value("tolerance", r.target.tolerance)
      .value("reference_s", r.reference_s);
  if (r.target.performed()) j.complex_array("achtemp", r.reference.achtemp).complex_array("asxtemp", r.reference.asxtemp);
  j.end_object();
  j.begin_array("runs");
  for (const auto& run : r.runs) {
    j.begin_object().value("policy", run.policy);
    json_space(j, "space", run.space);
    json_tunables(j, "tunables", run.tunables);
    j.value("tunables_source", run.tunables_source);
    j.value("status", run.status).value("reason", run.reason).value("repeats", int(run.times.size()));
    j.number_array("times_s", run.times)
        .value("time_median_s", run.median())
        .value("time_min_s", run.min())
        .value("time_max_s", run.max())
        .value("updates_per_s", d.updates / run.median());
    if (run.flops > 0 && !run.times.empty())
      j.value("flops_counted", run.flops).value("gflops", run.flops / run.median() / 1e9);
    j.value("rel_error", run.rel_error)
        .value("verified", run.verified)
        .complex_array("achtemp", run.result.achtemp)
        .complex_array("asxtemp", run.result.asxtemp)
        .value("ranks", run.ranks)
        .number_array("rank_kernel_median_s", run.rank_kernel_s)
        .value("comm_median_s", run.comm_s)
        .value("chunks", run.chunks)
        .end_object();
  }
  j.end_array();
  j.value("ranks", r.ranks).string_array("rank_placement", r.rank_placement);
  j.value("passed", r.passed());
  j.end_object();
  return j.str();
}

const std::string& csv_header() {
  static const std::string h =
      "schema_version,date,git,version,kokkos,backend,space,device,deck,nbands,ngpown,ncouls,nw,updates,"
      "policy,band_block,ig_block,team_size,vector_length,tile,repeats,time_min_s,time_median_s,"
      "time_max_s,updates_per_s,gflops,rel_error,status,reason";
  return h;
}

std::string csv_rows(const RunRecord& r) {
  std::ostringstream o;
  o.precision(17);
  auto opt = [](int v) { return v > 0 ? std::to_string(v) : std::string(); };
  const DeckInfo& d = r.deck;
  for (const auto& run : r.runs) {
    const bool ran = !run.times.empty();
    o << RunRecord::kSchemaVersion << "," << r.date << "," << csv_field(r.build.git) << "," << csv_field(r.build.version)
      << "," << csv_field(r.build.kokkos_version) << "," << csv_field(run.space.backend) << ","
      << to_string(run.space.kind) << "," << csv_field(run.space.device) << "," << csv_field(d.name) << "," << d.nbands
      << "," << d.ngpown << "," << d.ncouls << "," << d.nw << "," << d.updates << "," << csv_field(run.policy) << ","
      << opt(run.tunables.band_block) << "," << opt(run.tunables.ig_block) << "," << opt(run.tunables.team_size) << ","
      << opt(run.tunables.vector_length) << "," << tile_text(run.tunables.tile) << "," << run.times.size() << ",";
    if (ran) {
      o << run.min() << "," << run.median() << "," << run.max() << "," << d.updates / run.median() << ",";
      if (run.flops > 0) o << run.flops / run.median() / 1e9;
    } else {
      o << ",,,,";
    }
    o << "," << (ran && r.target.performed() ? format_double(run.rel_error) : "") << "," << run.status << ","
      << csv_field(run.reason) << "\n";
  }
  return o.str();
}

std::string describe_provenance(const RunRecord& r) {
  std::ostringstream o;
  o << "gpp " << r.build.version << " (git " << r.build.git << "), " << r.build.build_type << " build, "
    << r.build.compiler << "\n"
    << "kokkos: " << r.build.kokkos_version << ", backends " << r.build.kokkos_backends << "\n";
  std::vector<std::string> seen;
  for (const auto& run : r.runs) {
    const std::string line = std::string("space ") + to_string(run.space.kind) + ": " + run.space.backend +
                             " (concurrency " + std::to_string(run.space.concurrency) + "), device: " + run.space.device;
    if (std::find(seen.begin(), seen.end(), line) == seen.end()) {
      seen.push_back(line);
      o << line << "\n";
    }
  }
  return o.str();
}

}  // namespace gpp::app
