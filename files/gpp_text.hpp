#pragma once
// Text that gpp reads (a deck file must be text) and writes (an error message is one
// printable line, whatever bytes it quotes).
#include <cstddef>
#include <string>
#include <vector>

namespace gpp::files {

/// `text` as one printable line: control characters and bytes that are not UTF-8 are
/// written as escapes (\n, \x89), so that an error message naming a file, a deck or a
/// value is always exactly one line. It is also short: a word (a run without spaces)
/// longer than kMaxWord bytes keeps its head and tail with its length between them
/// ("xxxx...xxxx [1048576 bytes]"), and the line stops after kMaxLine bytes, so that a
/// refused 1 MB argument is never echoed whole.
std::string one_line(const std::string& text);
inline constexpr std::size_t kMaxWord = 160, kMaxLine = 4000;

/// At most `max` bytes of `text` (cut at a UTF-8 boundary) as one printable line, with
/// "... [N bytes]" when it was cut: what a message quotes of a value it refuses.
std::string excerpt(const std::string& text, std::size_t max = 60);

/// True when `text` is UTF-8 without control characters other than newline, carriage
/// return and tab.
bool is_text(const std::string& text);

/// `fraction` as a percentage people read, with `digits` significant digits: "220%",
/// "9.4%", "0.012%", "<0.0001%" (never "2.2e+02%").
std::string percent_text(double fraction, int digits = 2);

/// A number in a message, with `digits` significant digits ("1e-10", "0.0123", "inf",
/// "nan"): std::to_string writes six decimals, which makes 1e-10 "0.000000".
std::string number_text(double value, int digits = 3);

/// The name of `known` nearest to `given` (a misspelt deck, option or policy: letters
/// missing, extra, changed or swapped), "a or b" when two or three are as near, or ""
/// when none is near enough to be what was meant (at most a third of its letters
/// changed, one for a short name).
std::string nearest(const std::string& given, const std::vector<std::string>& known);

}  // namespace gpp::files
