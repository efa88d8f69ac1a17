#pragma once
// Command-line pieces shared by the gpp commands.
#include "gpp_commands.hpp"
#include "gpp_input.hpp"
#include "gpp_policy.hpp"
#include "gpp_session.hpp"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace gpp::commands {

/// The deck file option `names` (a TOML config file), checked before it is opened: a
/// regular text file of at most 1 MiB, no key given twice.
void set_deck_file_option(CLI::App& app, const std::string& names);

/// The deck file (positional or --deck, a TOML config file) and every deck key as an
/// option; command-line values override the deck's.
void add_deck_options(CLI::App& app, DeckParams& p);

/// Refuses a synthetic deck (deck file and options) that does not set nbands, ngpown and
/// ncouls, saying which are missing (an empty deck file is said to be empty).
void check_sizes_given(CLI::App& app);

/// An option per tunable of tunable_table() (--band-block, ..., --tile), each value held to
/// the table's check as it is parsed.
void add_tunable_options(CLI::App& app, Tunables& t);

/// A positive finite number (CLI11's PositiveNumber states its range as two 309-digit numbers).
CLI::Validator positive_number();

/// --repeat and --warmup.
void add_timing_options(CLI::App& app, int& repeat, int& warmup);

/// --input FILE (.dat or .h5) instead of a deck.
void add_input_option(CLI::App& app, std::string& input_path);

/// --space device|host.
void add_space_option(CLI::App& app, std::string& space);

/// --verify, --rtol and --no-reference-cache.
void add_verify_options(CLI::App& app, std::string& verify, double& rtol, bool& no_reference_cache);
session::VerifyMode parse_verify_mode(const std::string& s);

/// Parse args (without the command name) into app, on every rank (collective). Returns -1
/// on success, 0 after printing the help; a refusal (an option, an empty value, the deck
/// file) throws session::mpi::CollectiveError on every rank, which main prints once. For an app with
/// --input, a lone FILE.dat (.h5, .hdf5) is read as --input FILE.dat.
int parse(CLI::App& app, const std::string& command, const std::vector<std::string>& args);

/// The policies a --policy value names ("all" or a comma-separated list).
std::vector<const PolicyEntry*> select_policies(const std::string& spec);

/// Only the tunables `entry` reads (for runs over several policies).
Tunables tunables_for(const PolicyEntry& entry, const Tunables& t);

/// The Kokkos backends this binary was compiled with ("Serial,OpenMP").
std::string kokkos_backends();

}  // namespace gpp::commands
