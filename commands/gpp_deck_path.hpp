#pragma once
// Where a deck named on the command line is, so that `gpp run si214` works from any
// directory once gpp is installed; and where the other files gpp ships are (the tuning
// defaults, the chart script): the install prefix first, then the source tree.
#include <string>
#include <vector>

namespace gpp::commands {

/// The directories a bare deck name is looked up in, in order: the installed decks
/// (<prefix>/share/gpp/inputs, found from the executable's own location), then, for a
/// binary run from its build tree, the source tree's inputs/.
std::vector<std::string> deck_directories();

/// The file a deck argument names: the path as given (then with ".toml" added when it
/// has no extension); for a bare name (no '/'), NAME and NAME.toml in deck_directories().
/// Throws gpp::Error naming every place it looked.
std::string resolve_deck(const std::string& given);

/// Where the shipped defaults file `relative` (as the build names it: "tuning/sm_90.json")
/// is: installed (<prefix>/share/gpp/tuning/), else, for a binary run from its build tree,
/// in the source tree; `relative` itself where neither holds it.
std::string shipped_tuning_path(const std::string& relative);

/// The places a script users run on gpp's output (tools/NAME: gpp_plot.py) is looked for,
/// in order: installed (<prefix>/share/gpp/tools/NAME, found from the executable's own
/// location), then, for a binary run from its build tree, the source tree's tools/NAME.
std::vector<std::string> shipped_tool_candidates(const std::string& name);

}  // namespace gpp::commands
