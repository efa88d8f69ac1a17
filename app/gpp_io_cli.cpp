#include "gpp_io_cli.hpp"

#include "gpp_cli.hpp"
#include "gpp_deck_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_memory.hpp"

#include <climits>

#include <algorithm>

namespace gpp::app {
namespace {
bool ends_with(const std::string& s, const char* tail) {
  const std::string t = tail;
  return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}
}  // namespace

std::string deck_option_given(CLI::App& app) {
  if (const CLI::Option* config = app.get_config_ptr(); config && config->count() > 0) return "a deck file";
  for (const char* name : {"--generator", "--nbands", "--ngpown", "--ncouls", "--nvband", "--nstart", "--nend",
                           "--seed", "--gamma", "--sexcut", "--e-lk", "--dw", "--efermi", "--tol", "--skipped-gp"})
    if (const CLI::Option* o = app.get_option_no_throw(name); o && o->count() > 0) return name;
  return "";
}

std::vector<std::string> input_file_as_option(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool after_file_option = i > 0 && (args[i - 1] == "--input" || args[i - 1] == "--output" ||
                                             args[i - 1] == "--json" || args[i - 1] == "--csv" ||
                                             args[i - 1] == "--deck");
    if (!after_file_option && !a.empty() && a[0] != '-' &&
        (ends_with(a, ".dat") || ends_with(a, ".h5") || ends_with(a, ".hdf5")))
      out.push_back("--input");
    out.push_back(a);
  }
  return out;
}

void check_results_path(const std::string& path) {
  if (path.empty()) return;
  if (!ends_with(path, ".h5") && !ends_with(path, ".hdf5"))
    throw Error("--output " + path + ": results files are HDF5, name it .h5 (--json writes JSON)");
  if (!have_hdf5()) throw Error("--output " + path + ": this gpp was built without HDF5 (use --json)");
}

void write_results_h5(const std::string& path, const RunRecord& r) {
  H5Record h(path);
  std::string policies;
  for (const auto& run : r.runs) policies += (policies.empty() ? "" : ",") + run.policy;
  h.attribute("/", "format", "gpp-results")
      .attribute("/", "format_version", 2)
      .attribute("/", "schema_version", RunRecord::kSchemaVersion)
      .attribute("/", "command", r.command)
      .attribute("/", "date", r.date)
      .attribute("/", "passed", r.passed())
      .attribute("/", "policies", policies);
  std::string argv;
  for (const auto& a : r.command_line) argv += (argv.empty() ? "" : " ") + a;
  h.attribute("/", "command_line", argv);
  h.attribute("build", "program", "gpp")
      .attribute("build", "version", r.build.version)
      .attribute("build", "git", r.build.git)
      .attribute("build", "kokkos_version", r.build.kokkos_version)
      .attribute("build", "kokkos_backends", r.build.kokkos_backends)
      .attribute("build", "compiler", r.build.compiler)
      .attribute("build", "cxx_flags", r.build.cxx_flags)
      .attribute("build", "build_type", r.build.build_type)
      .attribute("build", "kokkos_kernels_gemm", r.build.kokkos_kernels);
  const DeckInfo& d = r.deck;
  h.attribute("deck", "name", d.name)
      .attribute("deck", "source", d.source)
      .attribute("deck", "generator", d.generator)
      .attribute("deck", "input_path", d.input_path)
      .attribute("deck", "nbands", d.nbands)
      .attribute("deck", "ngpown", d.ngpown)
      .attribute("deck", "ncouls", d.ncouls)
      .attribute("deck", "nw", d.nw)
      .attribute("deck", "nstart", d.nstart)
      .attribute("deck", "nend", d.nend)
      .attribute("deck", "nvband", d.nvband)
      .attribute("deck", "updates", d.updates);
  if (d.seed >= 0) h.attribute("deck", "seed", d.seed);
  std::vector<int> iw;
  for (int w = d.nstart; w <= d.nend; ++w) iw.push_back(w);
  h.dataset("/", "iw", iw);
  if (r.achstemp) h.dataset("/", "achstemp", *r.achstemp);
  h.attribute("timings", "setup_s", r.setup_s)
      .attribute("timings", "read_s", r.read_s)
      .attribute("timings", "read_bytes", r.read_bytes)
      .attribute("timings", "check_s", r.check_s)
      .attribute("timings", "transfer_s", r.transfer_s)
      .attribute("timings", "static_s", r.static_s)
      .attribute("timings", "reference_s", r.reference_s);
  h.attribute("verification", "against", r.target.against)
      .attribute("verification", "tolerance", r.target.tolerance)
      .attribute("verification", "passed", r.passed());
  if (r.target.performed()) {
    h.dataset("verification", "achtemp", r.reference.achtemp).dataset("verification", "asxtemp", r.reference.asxtemp);
    double worst = 0;
    for (const auto& run : r.runs) worst = std::max(worst, run.rel_error);
    h.attribute("verification", "rel_error", worst);
  }
  if (r.achstemp_rel_error) h.attribute("verification", "achstemp_rel_error", *r.achstemp_rel_error);
  for (const auto& run : r.runs) {
    const std::string g = "runs/" + run.policy + (r.runs.size() > 1 ? "@" + std::string(to_string(run.space.kind)) : "");
    h.dataset(g, "achtemp", run.result.achtemp)
        .dataset(g, "asxtemp", run.result.asxtemp)
        .dataset(g, "times_s", run.times)
        .attribute(g, "space", to_string(run.space.kind))
        .attribute(g, "backend", run.space.backend)
        .attribute(g, "device", run.space.device)
        .attribute(g, "tunables", describe_tunables(run.tunables))
        .attribute(g, "repeats", int(run.times.size()))
        .attribute(g, "time_median_s", run.median())
        .attribute(g, "time_min_s", run.min())
        .attribute(g, "time_max_s", run.max())
        .attribute(g, "updates_per_s", d.updates / run.median())
        .attribute(g, "rel_error", run.rel_error)
        .attribute(g, "verified", run.verified);
  }
  // The first (with one --policy, the only) run's results at the top, as links.
  if (!r.runs.empty()) {
    const std::string g = "/runs/" + r.runs[0].policy + (r.runs.size() > 1 ? "@" + std::string(to_string(r.runs[0].space.kind)) : "");
    for (const char* name : {"achtemp", "asxtemp", "times_s"}) h.link(std::string("/") + name, g + "/" + name);
  }
  h.commit();
}

void check_team_counts(const std::vector<const PolicyEntry*>& policies, const Tunables& tunables, long long nbands,
                       long long ngpown) {
  // The TeamPolicy steps launch one team per (G', band block): with a small --band-block
  // on a large deck that count would overflow the launch's int league size.
  for (const PolicyEntry* e : policies) {
    const Tunables t = policies.size() == 1 ? tunables : tunables_for(*e, tunables);
    if (t.band_block <= 0) continue;
    const long long teams = ngpown * ((nbands + t.band_block - 1) / t.band_block);
    if (teams > INT_MAX)
      throw Error("--band-block " + std::to_string(t.band_block) + " makes " + std::to_string(teams) + " teams (ngpown " +
                  std::to_string(ngpown) + " x band blocks), more than one launch can have (" + std::to_string(INT_MAX) +
                  "): use a larger --band-block");
  }
}

}  // namespace gpp::app
