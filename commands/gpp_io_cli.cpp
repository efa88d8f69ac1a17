#include "gpp_io_cli.hpp"

#include "gpp_cli.hpp"
#include "gpp_deck_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_outputs.hpp"
#include "gpp_memory.hpp"

#include <climits>

#include <algorithm>

namespace gpp::commands {
using formats::have_hdf5;

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

bool names_input_file(const std::string& word) {
  return ends_with(word, ".dat") || ends_with(word, ".h5") || ends_with(word, ".hdf5");
}

std::vector<std::string> input_file_as_option(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {  // the rest are positionals, as the user wrote them
      out.insert(out.end(), args.begin() + std::ptrdiff_t(i), args.end());
      break;
    }
    if (a.size() > 1 && a[0] == '-') {
      // An option's value is the option's, whatever its name (--name si214.h5,
      // --tuning-out tune.dat): only a word standing alone can be the input file. A flag
      // (--no-branch-stats) takes none: CLI11 gives it a type size of one and expects none.
      out.push_back(a);
      const CLI::Option* o = a.find('=') == std::string::npos ? app.get_option_no_throw(a) : nullptr;
      if (o && o->get_type_size_max() > 0 && o->get_expected_max() > 0 && i + 1 < args.size()) out.push_back(args[++i]);
      continue;
    }
    if (names_input_file(a)) out.push_back("--input");
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

void check_team_counts(const std::vector<const PolicyEntry*>& policies, const Tunables& tunables, long long nbands,
                       long long ngpown) {
  // The TeamPolicy steps launch one team per (G', band block): with a small --band-block
  // on a large deck that count would overflow the launch's int league size.
  for (const PolicyEntry* e : policies) {
    const Tunables t = policies.size() == 1 ? tunables : tunables_for(*e, tunables);
    if (t.band_block <= 0) continue;
    const long long teams = ngpown * ((nbands + t.band_block - 1) / t.band_block);
    if (teams > INT_MAX)
      throw Error("--band-block " + std::to_string(t.band_block) + " makes " + std::to_string(teams) +
                  " teams (ngpown " + std::to_string(ngpown) + " x band blocks), more than one launch can have (" +
                  std::to_string(INT_MAX) + "): use a larger --band-block");
  }
}

}  // namespace gpp::commands
