#include "gpp_io_cli.hpp"

#include "gpp_cli.hpp"
#include "gpp_deck_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_memory.hpp"

#include <climits>

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
                                             args[i - 1] == "--json" || args[i - 1] == "--deck");
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

void write_results_h5(const std::string& path, const Session& s, const std::vector<PolicyRun>& runs,
                      const Provenance& prov, bool passed, std::optional<double> achstemp_rel_error) {
  H5Record h(path);
  std::string policies;
  for (const auto& r : runs) policies += (policies.empty() ? "" : ",") + r.policy;
  h.attribute("/", "format", "gpp-results")
      .attribute("/", "format_version", 1)
      .attribute("/", "passed", passed)
      .attribute("/", "policies", policies);
  h.attribute("provenance", "program", prov.program)
      .attribute("provenance", "version", prov.version)
      .attribute("provenance", "git", prov.git_hash)
      .attribute("provenance", "kokkos_version", prov.kokkos_version)
      .attribute("provenance", "backend", prov.backend)
      .attribute("provenance", "device", prov.device)
      .attribute("provenance", "concurrency", prov.concurrency)
      .attribute("provenance", "kokkos_kernels_gemm", prov.kokkos_kernels);
  const auto& d = s.host;
  h.attribute("deck", "name", s.params.name)
      .attribute("deck", "source", s.source)
      .attribute("deck", "nbands", d.nbands)
      .attribute("deck", "ngpown", d.ngpown)
      .attribute("deck", "ncouls", d.ncouls)
      .attribute("deck", "nw", d.nw)
      .attribute("deck", "nstart", d.nstart)
      .attribute("deck", "nend", d.nend)
      .attribute("deck", "nvband", s.input.nvband)
      .attribute("deck", "updates", d.updates());
  if (s.synthetic && s.params.generator == "random") h.attribute("deck", "seed", (long long)s.params.seed);
  std::vector<int> iw;
  for (int w = d.nstart; w <= d.nend; ++w) iw.push_back(w);
  h.dataset("/", "iw", iw);
  h.dataset("/", "achstemp", s.achstemp);
  h.attribute("timings", "setup_s", s.setup_s)
      .attribute("timings", "read_s", s.read_s)
      .attribute("timings", "read_bytes", (long long)s.read_bytes)
      .attribute("timings", "check_s", s.check_s)
      .attribute("timings", "transfer_s", s.transfer_s)
      .attribute("timings", "static_s", s.static_s)
      .attribute("timings", "reference_s", s.reference_s);
  h.attribute("verification", "against", s.target.against)
      .attribute("verification", "tolerance", s.target.tolerance)
      .attribute("verification", "passed", passed);
  if (s.target.performed()) {
    h.dataset("verification", "achtemp", s.reference.achtemp).dataset("verification", "asxtemp", s.reference.asxtemp);
    double worst = 0;
    for (const auto& r : runs) worst = std::max(worst, r.rel_error);
    h.attribute("verification", "rel_error", worst);
  }
  if (achstemp_rel_error) h.attribute("verification", "achstemp_rel_error", *achstemp_rel_error);
  for (const auto& r : runs) {
    const std::string g = "runs/" + r.policy;
    h.dataset(g, "achtemp", r.result.achtemp)
        .dataset(g, "asxtemp", r.result.asxtemp)
        .dataset(g, "times_s", r.times)
        .attribute(g, "tunables", describe_tunables(r.tunables))
        .attribute(g, "repeats", int(r.times.size()))
        .attribute(g, "time_median_s", r.median())
        .attribute(g, "time_min_s", r.min())
        .attribute(g, "time_max_s", r.max())
        .attribute(g, "updates_per_s", d.updates() / r.median())
        .attribute(g, "rel_error", r.rel_error)
        .attribute(g, "verified", r.verified);
  }
  // The first (with one --policy, the only) run's results at the top, as links.
  if (!runs.empty())
    for (const char* name : {"achtemp", "asxtemp", "times_s"})
      h.link(std::string("/") + name, "/runs/" + runs[0].policy + "/" + name);
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

Session open_session(CLI::App& app, const DeckParams& deck, const std::string& input_path,
                     const std::vector<const PolicyEntry*>& policies, const Tunables& tunables) {
  if (policies.size() == 1) check_tunables(*policies[0], tunables);
  if (!input_path.empty()) {
    if (const std::string given = deck_option_given(app); !given.empty())
      throw Error("--input " + input_path + " cannot be combined with " + given);
  } else {
    check_sizes_given(app);
    validate(deck);
    check_team_counts(policies, tunables, deck.nbands, deck.ngpown);
    check_memory_fits("deck " + deck.name, deck.nbands, deck.ngpown, deck.ncouls, deck.nend - (long long)deck.nstart + 1);
  }
  Session s = input_path.empty() ? make_session(deck)
                                 : make_session_from_file(input_path, app.count("--name") ? deck.name : "");
  if (!input_path.empty()) check_team_counts(policies, tunables, s.host.nbands, s.host.ngpown);
  for (const PolicyEntry* e : policies)
    e->check(ExecSpace(), s.device, policies.size() == 1 ? tunables : tunables_for(*e, tunables));
  return s;
}

}  // namespace gpp::app
