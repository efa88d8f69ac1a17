#pragma once
// Command-line pieces for input and output files: `gpp run --input/--output` and
// `gpp convert` (docs/io.md).
#include "gpp_record.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpp::commands {

/// The first deck option (or deck file) given to `app`, "" if none; --name does not count.
std::string deck_option_given(CLI::App& app);

/// Whether a word on the command line names an input file (.dat, .h5, .hdf5) rather than a deck.
bool names_input_file(const std::string& word);

/// `gpp run FILE.dat` (or .h5, .hdf5) means `gpp run --input FILE`: args so rewritten, for
/// an `app` with --input (parse does it). The value of one of app's options is never taken
/// for the file.
std::vector<std::string> input_file_as_option(const CLI::App& app, const std::vector<std::string>& args);

/// Refuses a --band-block that makes more teams (ngpown x band blocks) than one launch
/// can have, for each of `policies` (`tunables` as given to the command).
void check_team_counts(const std::vector<const PolicyEntry*>& policies, const Tunables& tunables, long long nbands,
                       long long ngpown);

/// Refuses an --output name that is not .h5/.hdf5, or a build without HDF5.
void check_results_path(const std::string& path);

}  // namespace gpp::commands
