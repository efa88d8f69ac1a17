#pragma once
// What gpp checks before Kokkos starts: Kokkos reads its environment variables and
// --kokkos-* options in Kokkos::initialize, where a bad value throws or aborts outside
// any error handling (issue 10). They are checked here first, so that a bad value ends
// in one line and exit 1 like any other bad input.
#include <string>

namespace gpp::app {

/// "" when the environment and the Kokkos options in argv look usable, else one line
/// naming the variable or option and what is wrong. Also makes writing past a file-size
/// limit an I/O error (SIGXFSZ ignored) instead of killing the process.
std::string check_startup(int argc, char* argv[]);

}  // namespace gpp::app

namespace gpp::app {

/// `text` as one printable line: control characters and bytes that are not UTF-8 are
/// written as escapes (\n, \x89), so that an error message naming a file, a deck or a
/// value is always exactly one line.
std::string one_line(const std::string& text);

/// True when `text` is UTF-8 without control characters other than newline, carriage
/// return and tab.
bool is_text(const std::string& text);

}  // namespace gpp::app
