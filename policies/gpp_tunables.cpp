#include "gpp_tunables.hpp"

#include "gpp_error.hpp"

#include <algorithm>

namespace gpp {

const std::vector<TunableSpec>& tunable_table() {
  static const std::vector<TunableSpec> table = {
      {"band_block", "band-block", "Bands per cache block (v6 onwards)", &Tunables::band_block},
      {"ig_block", "ig-block", "G per cache block (v6 onwards)", &Tunables::ig_block},
      {"team_size", "team-size", "Threads per team (TeamPolicy steps)", &Tunables::team_size},
      {"vector_length", "vector-length", "Vector lanes per thread (TeamPolicy steps)", &Tunables::vector_length},
      {"tile", "tile", "MDRangePolicy tile sizes, one per rank", nullptr, &Tunables::tile, 3},
  };
  return table;
}

const TunableSpec* find_tunable(const std::string& key) {
  for (const TunableSpec& s : tunable_table())
    if (key == s.option || key == s.name) return &s;
  return nullptr;
}

bool operator==(const Tunables& a, const Tunables& b) {
  for (const TunableSpec& s : tunable_table())
    if (s.get(a) != s.get(b)) return false;
  return a.params == b.params;
}

TunableValue TunableSpec::get(const Tunables& t) const {
  if (size) return t.*size != 0 ? TunableValue{t.*size} : TunableValue{};
  return t.*sizes;
}

void TunableSpec::set(Tunables& t, const TunableValue& v) const {
  if (size)
    t.*size = v.empty() ? 0 : v.front();
  else
    t.*sizes = v;
}

std::string tunable_text(const TunableValue& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

std::string describe_params(const Tunables& t) {
  std::string s;
  for (const auto& [name, value] : t.params) s += (s.empty() ? "" : " ") + name + "=" + value;
  return s;
}

std::string describe_tunables(const Tunables& t) {
  std::string s;
  for (const TunableSpec& spec : tunable_table())
    if (spec.is_set(t)) s += (s.empty() ? "" : " ") + std::string(spec.name) + "=" + tunable_text(spec.get(t));
  if (!t.params.empty()) s += (s.empty() ? "" : " ") + describe_params(t);
  return s.empty() ? "none" : s;
}

namespace {

// A value as given, cut short (main prints every message as one escaped line).
std::string cut(const std::string& text) { return text.size() > 40 ? text.substr(0, 40) + "..." : text; }
std::string quoted(const std::string& text) { return "'" + cut(text) + "'"; }

std::string at_most() { return "must be at most " + std::to_string(kMaxTunable); }

// One size from decimal digits (no sign, no spaces, no other base: 010 is ten), checked
// against the limits: "" and `n` set, or why not. A number of any length that is too large
// is called too large.
std::string read_size(const std::string& text, long long& n) {
  const bool negative = text.size() > 1 && text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    return "expected a positive integer, got " + quoted(text);
  const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
  if (negative || first == digits.size()) return "must be a positive integer (got " + cut(text) + ")";
  if (digits.size() - first > 9) return at_most() + " (got " + cut(text) + ")";
  n = std::stoll(digits);
  return size_why_not(n);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (const char c : s)
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  return out;
}

}  // namespace

std::string size_why_not(long long n) {
  if (n <= 0) return "must be a positive integer (got " + std::to_string(n) + ")";
  if (n > kMaxTunable) return at_most() + " (got " + std::to_string(n) + ")";
  return "";
}

std::string TunableSpec::why_not(const TunableValue& v) const {
  if (v.empty()) return "no value";
  if (int(v.size()) > max_sizes)
    return "takes at most " + std::to_string(max_sizes) + " sizes (got " + tunable_text(v) + ")";
  for (const int s : v)
    if (const std::string why = size_why_not(s); !why.empty()) return why;
  return "";
}

TunableValue TunableSpec::parse(const std::string& text, const std::string& what) const {
  const std::string opt = (what.empty() ? std::string("--") + option : what) + ": ";
  std::vector<std::string> parts{text};
  if (!one_size()) {
    const bool x = text.find('x') != std::string::npos, comma = text.find(',') != std::string::npos;
    if (x && comma) throw Error(opt + "give one " + name + ", as 128x1x1 or 128,1,1 (got " + quoted(text) + ")");
    parts = split(text, comma ? ',' : 'x');
  }
  TunableValue v;
  for (const std::string& p : parts) {
    long long n = 0;
    if (const std::string why = read_size(p, n); !why.empty()) throw Error(opt + why);
    v.push_back(int(n));
  }
  if (const std::string why = why_not(v); !why.empty()) throw Error(opt + why);
  return v;
}

std::vector<TunableValue> TunableSpec::parse_grid(const std::string& text) const {
  const std::string opt = std::string("--") + option;
  if (text.empty()) throw Error(opt + ": no values");
  std::vector<TunableValue> out;
  auto add = [&](const TunableValue& v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    if (out.size() > kMaxGridValues) throw Error(opt + ": more than " + std::to_string(kMaxGridValues) + " values");
  };
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw Error(opt + " " + quoted(text) + ": an empty item");
    const std::vector<std::string> range = split(item, ':');
    if (range.size() == 1) {
      add(parse(item));
      continue;
    }
    if (!one_size() || range.size() != 3)
      throw Error(opt + " " + item + ": expected a value" + (one_size() ? " or a range a:b:xK or a:b:+K" : ""));
    const int a = parse(range[0]).front(), b = parse(range[1]).front();
    if (b < a)
      throw Error(opt + " " + item + ": the range ends (" + range[1] + ") before it starts (" + range[0] + ")");
    const std::string& step = range[2];
    if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
      throw Error(opt + " " + item + ": the step must be xK (geometric) or +K (arithmetic), got " + quoted(step));
    long long k = 0;
    if (const std::string why = read_size(step.substr(1), k); !why.empty() || k < 1)
      throw Error(opt + " " + item + ": the step " + quoted(step) + " needs a positive integer K");
    if (step[0] == 'x' && k < 2) throw Error(opt + " " + item + ": a geometric step needs a factor of 2 or more");
    std::size_t n = 0;
    for (long long v = a; v <= b; v = step[0] == 'x' ? v * k : v + k) {
      if (++n > kMaxGridValues)
        throw Error(opt + " " + item + ": the range has more than " + std::to_string(kMaxGridValues) + " values");
      add({int(v)});
    }
  }
  return out;
}

}  // namespace gpp
