#include "gpp_cli.hpp"

#include "gpp_deck_path.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace gpp::app {

void add_deck_options(CLI::App& app, DeckParams& p) {
  // A deck is a path or, from any directory, the name of an installed deck (gpp_deck_path.hpp).
  app.set_config("--deck,deck", "", "Deck: a TOML file of deck keys, or a deck's name (small, si214, ...)", false)
      ->transform([](const std::string& given) { return resolve_deck(given); });
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.add_option("--name", p.name, "Deck name")->capture_default_str();
  app.add_option("--generator", p.generator, "Synthetic data: random (non-uniform, every branch) or uniform (mini-app constants)")
      ->capture_default_str();
  app.add_option("--nbands", p.nbands, "Bands (peinf_ntband_dist)");
  app.add_option("--ngpown", p.ngpown, "Local G' (ngpown)");
  app.add_option("--ncouls", p.ncouls, "G vectors (ncouls)");
  app.add_option("--nvband", p.nvband, "Occupied (valence) bands");
  app.add_option("--nstart", p.nstart, "First frequency index iw")->capture_default_str();
  app.add_option("--nend", p.nend, "Last frequency index iw")->capture_default_str();
  app.add_option("--seed", p.seed, "Seed of the random generator")->capture_default_str();
  app.add_option("--gamma", p.gamma, "Broadening gamma (limittwo = gamma^2)")->capture_default_str();
  app.add_option("--sexcut", p.sexcut, "Screened-exchange cutoff factor")->capture_default_str();
  app.add_option("--e-lk,--e_lk", p.e_lk, "Energy of the state (e_lk)")->capture_default_str();
  app.add_option("--dw", p.dw, "Frequency step (sig_dw)")->capture_default_str();
  app.add_option("--efermi", p.efermi, "Fermi level")->capture_default_str();
  app.add_option("--tol", p.tol, "Fermi-level tolerance (occupation 0.5 within it)")->capture_default_str();
  app.add_option("--skipped-gp,--skipped_gp", p.skipped_gp, "G' mapped outside 1..ncouls (random generator)")
      ->capture_default_str();
}

void add_tunable_options(CLI::App& app, Tunables& t) {
  app.add_option("--band-block", t.band_block, "Bands per cache block (v6 onwards)")->check(CLI::PositiveNumber);
  app.add_option("--ig-block", t.ig_block, "G per cache block (v6 onwards)")->check(CLI::PositiveNumber);
  app.add_option("--team-size", t.team_size, "Threads per team (TeamPolicy steps)")->check(CLI::PositiveNumber);
  app.add_option("--vector-length", t.vector_length, "Vector lanes per thread (TeamPolicy steps)")
      ->check(CLI::PositiveNumber);
  app.add_option("--tile", t.tile, "MDRangePolicy tile sizes, one per rank (e.g. --tile 1,1,128)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
}

void add_timing_options(CLI::App& app, int& repeat, int& warmup) {
  app.add_option("--repeat", repeat, "Timed repeats after the warm-up")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed runs before the timed ones")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void add_input_option(CLI::App& app, std::string& input_path) {
  app.add_option("--input", input_path,
                 "Read the input from a file instead of a deck: the original Fortran .dat or an HDF5 deck (.h5)");
}

void add_verify_options(CLI::App& app, std::string& verify, double& rtol) {
  app.add_option("--verify", verify,
                 "auto (closed form, stored reference, host reference up to 2e9 updates, else device reference), "
                 "host, device, none")
      ->check(CLI::IsMember({"auto", "host", "device", "none"}))
      ->capture_default_str();
  app.add_option("--rtol", rtol, "Relative tolerance of verification")->check(CLI::PositiveNumber)->capture_default_str();
}

void add_space_option(CLI::App& app, std::string& space) {
  app.add_option("--space", space,
                 std::string("Execution space: device or host (default: each policy on the device where it runs "
                             "there, else on the host; this build: ") +
                     (kHasDeviceSpace ? std::string("device ") + DeviceExec::name() + ", host " + HostExec::name()
                                      : std::string("host ") + HostExec::name() + " only") +
                     ")");
}

VerifyMode parse_verify_mode(const std::string& s) {
  if (s == "none") return VerifyMode::None;
  if (s == "host") return VerifyMode::Host;
  if (s == "device") return VerifyMode::Device;
  return VerifyMode::Auto;
}

int parse(CLI::App& app, const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> storage;
  storage.push_back("gpp " + command);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    const std::string extras = "INI was not able to parse ";
    if (msg.rfind(extras, 0) == 0) msg = "unknown deck key '" + msg.substr(extras.size()) + "'";
    std::cerr << "gpp " << command << ": error: " << msg << "\n";
    return e.get_exit_code() != 0 ? e.get_exit_code() : 1;
  }
  return -1;
}

std::vector<const PolicyEntry*> select_policies(const std::string& spec) {
  std::vector<const PolicyEntry*> out;
  if (spec == "all") {
    for (const auto& e : policy_registry()) out.push_back(&e);
    return out;
  }
  std::stringstream ss(spec);
  for (std::string name; std::getline(ss, name, ',');) {
    if (name.empty()) throw Error("empty policy name in '" + spec + "'");
    out.push_back(&find_policy(name));
  }
  if (out.empty()) throw Error("no policy named");
  return out;
}

Tunables tunables_for(const PolicyEntry& entry, const Tunables& t) {
  auto reads = [&](const char* n) {
    return std::find(entry.tunables.begin(), entry.tunables.end(), n) != entry.tunables.end();
  };
  Tunables r;
  if (reads("band-block")) r.band_block = t.band_block;
  if (reads("ig-block")) r.ig_block = t.ig_block;
  if (reads("team-size")) r.team_size = t.team_size;
  if (reads("vector-length")) r.vector_length = t.vector_length;
  if (reads("tile")) r.tile = t.tile;
  return r;
}

int cmd_policies(const std::vector<std::string>& args) {
  CLI::App app{"List every execution policy with its tunables", "gpp policies"};
  if (int rc = parse(app, "policies", args); rc >= 0) return rc;
  for (const auto& e : policy_registry()) {
    std::string tun, defaults;
    for (const auto& t : e.tunables) tun += (tun.empty() ? "" : " ") + ("--" + t);
    for (const SpaceKind k : {SpaceKind::Device, SpaceKind::Host})
      if ((k == SpaceKind::Host || kHasDeviceSpace) && e.runs_on(k) && default_policy_name(k) == e.name)
        defaults += (defaults.empty() ? " (default on the " : " and the ") + std::string(to_string(k));
    std::cout << std::left << std::setw(16) << e.name << " " << e.description
              << " [tunables: " << (tun.empty() ? "none" : tun) << "] [runs on: " << e.spaces() << "]"
              << (defaults.empty() ? "" : defaults + ")") << "\n";
  }
  return 0;
}

}  // namespace gpp::app
