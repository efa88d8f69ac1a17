#pragma once
// Text that gpp reads (a deck file must be text) and writes (an error message is one
// printable line, whatever bytes it quotes).
#include <string>

namespace gpp::app {

/// `text` as one printable line: control characters and bytes that are not UTF-8 are
/// written as escapes (\n, \x89), so that an error message naming a file, a deck or a
/// value is always exactly one line.
std::string one_line(const std::string& text);

/// True when `text` is UTF-8 without control characters other than newline, carriage
/// return and tab.
bool is_text(const std::string& text);

}  // namespace gpp::app
