// TOML decks (docs/guide/decks.md), read as `gpp run DECK.toml` reads them: the file
// checked as a deck (a regular text file of at most 1 MiB), CLI11's TOML reader with
// gpp's key checks, then the checks `gpp run` makes of the options the deck set before
// any work (commands/gpp_command.cpp, prepare): the deck's name, the policies and their
// tunables, the sizes given, the deck's parameters. An accepted deck's parameters must
// pass validate(), read the same a second time, and make the same deck when given as
// command-line options instead of a file.
#include "fuzz_support.hpp"

#include "gpp_cli.hpp"
#include "gpp_command.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_session.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

struct Read {
  gpp::commands::RunOptions options;
  bool help = false;
};

Read read_deck(const std::vector<std::string>& args) {
  using namespace gpp;
  using namespace gpp::commands;
  Read r;
  RunOptions& o = r.options;
  CLI::App app{"fuzz", "gpp run"};
  add_run_options(app, o, "run");
  if (parse(app, "run", args) >= 0) {
    r.help = true;
    return r;
  }
  if (app.count("--name") > 0) check_deck_name(o.deck.name);
  const std::optional<SpaceKind> requested = o.space.empty() ? std::nullopt : std::optional(parse_space(o.space));
  const auto entries =
      select_policies(o.policy.empty() ? default_policy_name(requested ? *requested : default_space()) : o.policy);
  for (const PolicyEntry* e : entries)
    check_tunables(*e, entries.size() == 1 ? o.tunables : tunables_for(*e, o.tunables));
  check_results_path(o.output_path);
  if (!o.max_device_mem.empty()) session::parse_bytes(o.max_device_mem, "--max-device-mem");
  if (!o.input_path.empty()) {
    if (const std::string given = deck_option_given(app); !given.empty())
      throw Error("--input " + o.input_path + " cannot be combined with " + given);
  } else {
    check_sizes_given(app);
    validate(o.deck);
  }
  return r;
}

bool same(const gpp::DeckParams& a, const gpp::DeckParams& b) {
  return a.name == b.name && a.generator == b.generator && a.nbands == b.nbands && a.ngpown == b.ngpown &&
         a.ncouls == b.ncouls && a.nvband == b.nvband && a.nstart == b.nstart && a.nend == b.nend && a.seed == b.seed &&
         a.gamma == b.gamma && a.sexcut == b.sexcut && a.e_lk == b.e_lk && a.dw == b.dw && a.efermi == b.efermi &&
         a.tol == b.tol && a.skipped_gp == b.skipped_gp;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  const std::string path = write_input("deck.toml", data, size);
  refused_or_valid([&] { return read_deck({path}); },
                   [&](const Read& r) {
                     if (r.help || !r.options.input_path.empty()) return;
                     const gpp::DeckParams& p = r.options.deck;
                     gpp::validate(p);
                     const Read again = read_deck({path});
                     expect(same(p, again.options.deck), "the same deck file read twice gives two decks");
                     // The deck's keys as options: the same parameters (a deck file is the
                     // options written down).
                     const std::vector<std::string> args = {"--name=" + p.name,
                                                            "--generator=" + p.generator,
                                                            "--nbands=" + std::to_string(p.nbands),
                                                            "--ngpown=" + std::to_string(p.ngpown),
                                                            "--ncouls=" + std::to_string(p.ncouls),
                                                            "--nvband=" + std::to_string(p.nvband),
                                                            "--nstart=" + std::to_string(p.nstart),
                                                            "--nend=" + std::to_string(p.nend),
                                                            "--seed=" + std::to_string(p.seed),
                                                            "--gamma=" + number(p.gamma),
                                                            "--sexcut=" + number(p.sexcut),
                                                            "--e-lk=" + number(p.e_lk),
                                                            "--dw=" + number(p.dw),
                                                            "--efermi=" + number(p.efermi),
                                                            "--tol=" + number(p.tol),
                                                            "--skipped-gp=" + std::to_string(p.skipped_gp)};
                     Read options;
                     try {
                       options = read_deck(args);
                     } catch (const gpp::Error& e) {
                       violated(std::string("an accepted deck's parameters are refused as options: ") + e.what());
                     }
                     expect(same(p, options.options.deck),
                            "an accepted deck's parameters as options give another deck");
                   });
  return 0;
}
