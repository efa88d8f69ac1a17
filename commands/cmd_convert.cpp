// `gpp convert IN OUT`: between synthetic decks (.toml or deck options), the original
// Fortran .dat layout and HDF5 decks, in every direction (docs/io.md).
#include "gpp_cli.hpp"
#include "gpp_compat.hpp"
#include "gpp_deck_io.hpp"
#include "gpp_fortran_io.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_memory.hpp"
#include "gpp_outputs.hpp"
#include "gpp_reference.hpp"
#include "gpp_stop.hpp"
#include "gpp_runtime.hpp"

#include <sys/stat.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace gpp::commands {
using files::check_files;
using formats::dat_holds_frequencies;
using formats::deck_format_for_reading;
using formats::deck_format_for_writing;
using formats::DeckFormat;
using formats::read_deck_file;
using formats::ReadStats;
using formats::write_deck_file;
using session::check_memory_fits;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool is_toml(const std::string& s) { return s.size() > 5 && s.compare(s.size() - 5, 5, ".toml") == 0; }

// IN is a deck when it is a .toml file or no file at all: then a deck's name (small,
// si214), found as gpp run finds it. An input file is named .dat, .h5 or .hdf5, or is a
// file of another name (read by its content).
bool in_is_deck(const std::string& in) {
  if (is_toml(in)) return true;
  struct stat st;
  return !names_input_file(in) && ::stat(in.c_str(), &st) != 0 && errno == ENOENT;
}

struct ConvertArgs {
  DeckParams deck;
  std::vector<std::string> files;  // [IN] OUT
  bool no_reference = false;
};

void add_options(CLI::App& app, ConvertArgs& a) {
  add_deck_options(app, a.deck);
  // IN is a positional of its own (a .toml, .dat or .h5), so the deck file is --deck only.
  set_deck_file_option(app, "--deck");
  app.add_option("files", a.files, "[IN] OUT: IN a deck (.toml), .dat or .h5 (none: the deck options); OUT .dat or .h5")
      ->expected(1, 2)
      ->required();
  app.add_flag("--no-reference", a.no_reference,
               "Store no reference: for a synthetic deck, skip computing the host reference (the slow part for "
               "large decks); for an input file, drop the stored one");
}

std::string mib(std::int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  return buf;
}

std::string rate(std::int64_t bytes, double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g s (%.3g GB/s)", s, s > 0 ? bytes / s / 1e9 : 0.0);
  return buf;
}

}  // namespace

int cmd_convert(const std::vector<std::string>& args) {
  const char* about =
      "Convert between a synthetic deck, the original Fortran .dat layout and HDF5 decks\n"
      "  gpp convert deck.toml out.dat|out.h5 [deck options] [--no-reference]\n"
      "  gpp convert --nbands N ... out.dat|out.h5 [--no-reference]\n"
      "  gpp convert in.dat|in.h5 out.dat|out.h5 [--no-reference]";
  ConvertArgs a;
  auto make_app = [&] {
    auto app = std::make_unique<CLI::App>(about, "gpp convert");
    add_options(*app, a);
    return app;
  };
  auto app = make_app();
  if (int rc = parse(*app, "convert", args); rc >= 0) return rc;
  if (a.files.size() == 2 && in_is_deck(a.files[0])) {
    // `gpp convert DECK OUT ...` is `gpp convert --deck DECK OUT ...`.
    std::vector<std::string> again{"--deck", a.files[0]};
    bool dropped = false;
    for (const auto& s : args) {
      if (!dropped && s == a.files[0]) {
        dropped = true;
        continue;
      }
      again.push_back(s);
    }
    a = ConvertArgs{};
    app = make_app();
    if (int rc = parse(*app, "convert", again); rc >= 0) return rc;
  }
  const bool from_file = a.files.size() == 2;
  const std::string out = a.files.back();

  // Everything that can be refused is checked before any work.
  const DeckFormat out_format = deck_format_for_writing(out);
  // IN (or the deck file) a regular file, OUT writable and not IN however spelled.
  const CLI::Option* deck_file = app->get_config_ptr();
  check_files({{"IN", from_file ? a.files[0] : std::string()},
               {"--deck", deck_file && deck_file->count() > 0 ? deck_file->as<std::string>() : std::string()}},
              {{"OUT", out}});
  if (from_file) {
    if (const std::string given = deck_option_given(*app); !given.empty())
      throw Error(a.files[0] + ": an input file cannot be combined with " + given);
  } else {
    if (deck_option_given(*app).empty())
      throw Error("nothing to convert into " + out +
                  ": give IN OUT, or a deck (.toml, --deck or deck options) and OUT");
    check_sizes_given(*app);
    validate(a.deck);
    check_memory_fits("deck " + a.deck.name, a.deck.nbands, a.deck.ngpown, a.deck.ncouls,
                      a.deck.nend - (long long)a.deck.nstart + 1);
    if (out_format == DeckFormat::Dat && !dat_holds_frequencies(a.deck.nstart, a.deck.nend))
      throw Error(out + ": a .dat file holds iw = 1..3, the deck has iw = " + std::to_string(a.deck.nstart) + ".." +
                  std::to_string(a.deck.nend));
  }

  // Kokkos is not started for convert: its host loops run on Kokkos's host space where
  // that needs no device (a CPU build), else on this thread (a GPU build, which converts
  // without its GPU; docs/install.md).
  runtime::need_host_views();
  std::ostringstream log;  // printed only when everything succeeded
  InputDeck in;
  if (from_file) {
    ReadStats stats;
    {
      const files::StopPhase phase("reading " + a.files[0]);
      in = read_deck_file(a.files[0], &stats);
    }
    log << "read: " << a.files[0] << " (" << describe(deck_format_for_reading(a.files[0])) << "), " << mib(stats.bytes)
        << " in " << rate(stats.bytes, stats.read_s) << "; checked in " << stats.check_s << " s\n";
    if (a.no_reference && in.has_reference()) {
      in.asxtempref.clear();
      in.achtempref.clear();
      log << "reference: dropped (--no-reference)\n";
    } else {
      log << "reference: " << (in.has_reference() ? "stored, kept" : "none stored") << "\n";
    }
  } else {
    compat::ScopedRegion region("gpp::setup");
    auto t0 = std::chrono::steady_clock::now();
    {
      const files::StopPhase phase("generating deck " + a.deck.name);
      in = generate(a.deck);
    }
    log << "generated: " << a.deck.name << " (" << a.deck.generator << " generator";
    if (a.deck.generator == "random") log << ", seed " << a.deck.seed;
    log << ") in " << seconds_since(t0) << " s\n";
    if (a.no_reference) {
      log << "reference: none (--no-reference)\n";
    } else {
      // The host reference: literal physics, compensated sums (core/gpp_reference.hpp).
      t0 = std::chrono::steady_clock::now();
      const files::StopPhase phase("the host reference (the results the file stores)");
      const SigmaResult ref = apply_start_values(reference_sums(derive(in)), in.asxtemp0, in.achtemp0);
      in.asxtempref = ref.asxtemp;
      in.achtempref = ref.achtemp;
      log << "reference: host reference computed in " << seconds_since(t0) << " s\n";
    }
  }
  log << "sizes: nbands=" << in.peinf_ntband_dist << " ngpown=" << in.ngpown << " ncouls=" << in.ncouls
      << " nw=" << in.nw() << " (iw " << in.nstart << ".." << in.nend << ")\n";

  const auto t0 = std::chrono::steady_clock::now();
  {
    const files::StopPhase phase("writing " + out);
    write_deck_file(in, out);
  }
  const double write_s = seconds_since(t0);
  struct stat st;
  const std::int64_t bytes = ::stat(out.c_str(), &st) == 0 ? std::int64_t(st.st_size) : 0;
  log << "wrote: " << out << " (" << describe(out_format) << "), " << mib(bytes) << " in " << rate(bytes, write_s)
      << "\n";
  std::cout << log.str();
  return 0;
}

}  // namespace gpp::commands
