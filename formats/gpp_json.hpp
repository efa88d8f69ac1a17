#pragma once
// JSON, read and written through nlohmann/json. Documents gpp writes (the run record,
// the ceilings file, the tuning file) are nlohmann::ordered_json (fields in the order
// written), dumped compact with numbers of 17 significant digits (they read back to the
// same double; null for NaN and Inf) and strings escaped, bytes that are not valid UTF-8
// replaced by U+FFFD. Documents gpp reads are nlohmann::json: its objects are std::maps,
// so reading costs n log n in the keys (ordered_json's objects are vectors searched from
// the front on every insertion: a crafted object of many keys would take the square of
// their number); a key given twice in one object and nesting deeper than kMaxJsonDepth
// are refused.
#include <nlohmann/json.hpp>

#include <complex>
#include <string>
#include <vector>

namespace gpp::formats {

using Json = nlohmann::ordered_json;  // written
using JsonIn = nlohmann::json;        // read

inline constexpr int kMaxJsonDepth = 64;

/// The document as text: compact, one newline at the end.
std::string dump_json(const Json& j);

/// 17 significant digits, JSON-safe ("null" for NaN/Inf).
std::string format_double(double v);

/// A JSON number for `v`: null when it is not finite.
Json json_number(double v);
/// [re, im], and an array of those.
Json json_complex(std::complex<double> z);
Json json_complex_array(const std::vector<std::complex<double>>& v);

/// A document read, to be written again (fields gpp does not know, kept by a merge): in
/// linear time, its objects' fields in key order.
Json to_written(const JsonIn& j);

/// One JSON document. gpp::Error "WHAT: not valid JSON: ..." (a short excerpt of the
/// parser's message) for anything else, a key twice in one object or too deep nesting.
JsonIn parse_json(const std::string& text, const std::string& what);

/// "a number", "a string", ...: the kind of a value, for messages.
std::string json_kind(const JsonIn& j);

}  // namespace gpp::formats
