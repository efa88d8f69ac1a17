// The HDF5 results file of a run (`--output FILE.h5`; layout in docs/io.md): one more
// writer of the run record, beside the text, RESULT line, JSON and CSV in gpp_record.cpp.
#include "gpp_record.hpp"

#include "gpp_hdf5_io.hpp"

#include <algorithm>

namespace gpp::record {
using formats::H5Record;
using formats::Json;

namespace {
/// A table's JSON object as attributes of `group`: each scalar its attribute (a flag as
/// 0/1, as H5Record writes bools); a null (not known, not applicable) is left out, and so
/// are arrays and objects with `scalars_only` (their datasets are the caller's).
void attributes(H5Record& h, const std::string& group, const Json& o, bool scalars_only = false) {
  for (const auto& [name, v] : o.items()) {
    if (v.is_string())
      h.attribute(group, name, v.get<std::string>());
    else if (v.is_boolean())
      h.attribute(group, name, v.get<bool>());
    else if (v.is_number_integer())
      h.attribute(group, name, v.get<long long>());
    else if (v.is_number())
      h.attribute(group, name, v.get<double>());
    else if (!v.is_null() && !scalars_only)
      throw Error("HDF5 results: field " + name + " of " + group + " is not one value");
  }
}
}  // namespace

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
  std::string kokkos_warnings;
  for (const auto& w : r.kokkos_warnings) kokkos_warnings += (kokkos_warnings.empty() ? "" : "\n") + w;
  h.attribute("/", "kokkos_warnings", kokkos_warnings);
  attributes(h, "build", formats::json_object(build_fields(), r.build));
  attributes(h, "deck", formats::json_object(deck_fields(), r.deck));
  const DeckInfo& d = r.deck;
  std::vector<int> iw;
  for (int w = d.nstart; w <= d.nend; ++w) iw.push_back(w);
  h.dataset("/", "iw", iw);
  if (r.achstemp) h.dataset("/", "achstemp", *r.achstemp);
  // timings: the HDF5 layout's own group (docs/io.md), gathering members of the JSON's
  // setup, static_remainder and verification under its own names.
  h.attribute("timings", "setup_s", r.setup_s)
      .attribute("timings", "read_s", r.read_s)
      .attribute("timings", "read_bytes", r.read_bytes)
      .attribute("timings", "check_s", r.check_s)
      .attribute("timings", "transfer_s", r.transfer_s)
      .attribute("timings", "transfer_bytes", r.transfer_bytes)
      .attribute("timings", "static_s", r.static_s)
      .attribute("timings", "reference_s", r.reference_s);
  if (r.time_to_solution) attributes(h, "time_to_solution", formats::json_object(time_fields(), *r.time_to_solution));
  h.attribute("verification", "against", r.target.against)
      .attribute("verification", "tolerance", r.target.tolerance)
      .attribute("verification", "passed", r.passed())
      .attribute("verification", "reference_source", r.reference_origin.source);
  if (!r.reference_origin.date.empty()) h.attribute("verification", "reference_date", r.reference_origin.date);
  if (r.target.performed()) {
    h.dataset("verification", "achtemp", r.reference.achtemp).dataset("verification", "asxtemp", r.reference.asxtemp);
    double worst = 0;
    for (const auto& run : r.runs) worst = std::max(worst, run.rel_error);
    h.attribute("verification", "rel_error", worst);
  }
  if (r.achstemp_rel_error) h.attribute("verification", "achstemp_rel_error", *r.achstemp_rel_error);
  for (const auto& run : r.runs) {
    const std::string g =
        "runs/" + run.policy + (r.runs.size() > 1 ? "@" + std::string(to_string(run.space.kind)) : "");
    h.dataset(g, "achtemp", run.result.achtemp)
        .dataset(g, "asxtemp", run.result.asxtemp)
        .dataset(g, "times_s", run.times);
    // The JSON record's run (run_fields()), its single values; where the JSON has an
    // object (space, tunables) the file has text.
    attributes(h, g, formats::json_object(run_fields(), RunView{&r, &run}), true);
    h.attribute(g, "space", to_string(run.space.kind))
        .attribute(g, "backend", run.space.backend)
        .attribute(g, "device", run.space.device)
        .attribute(g, "tunables", describe_tunables(run.tunables));
  }
  // The first (with one --policy, the only) run's results at the top, as links.
  if (!r.runs.empty()) {
    const std::string g =
        "/runs/" + r.runs[0].policy + (r.runs.size() > 1 ? "@" + std::string(to_string(r.runs[0].space.kind)) : "");
    for (const char* name : {"achtemp", "asxtemp", "times_s"}) h.link(std::string("/") + name, g + "/" + name);
  }
  h.commit();
}

}  // namespace gpp::record
