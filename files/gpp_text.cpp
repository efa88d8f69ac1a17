#include "gpp_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <string>
#include <vector>

namespace gpp::files {

namespace {
// Length of the printable character (ASCII or well-formed UTF-8) at text[i], 0 if none.
std::size_t printable_length(const std::string& text, std::size_t i) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  const unsigned char c = s[i];
  if (c >= 0x20 && c < 0x7f) return 1;
  if (c < 0xc2 || c > 0xf4) return 0;
  const std::size_t want = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  bool ok = i + want <= n;
  for (std::size_t k = 1; ok && k < want; ++k) ok = (s[i + k] & 0xc0) == 0x80;
  if (ok && want == 3) ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);
  if (ok && want == 4) ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
  return ok ? want : 0;
}
}  // namespace

bool is_text(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = printable_length(text, i);
    if (len == 0 && text[i] != '\n' && text[i] != '\r' && text[i] != '\t') return false;
    i += len > 0 ? len : 1;
  }
  return true;
}

namespace {
// The longest prefix of text[from, from + max) that ends on a UTF-8 boundary.
std::size_t boundary_before(const std::string& text, std::size_t from, std::size_t max) {
  std::size_t end = std::min(text.size(), from + max);
  while (end > from && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return end;
}
// The first byte at or after `at` that starts a UTF-8 sequence.
std::size_t boundary_after(const std::string& text, std::size_t at) {
  while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80) ++at;
  return at;
}
std::string escaped(const std::string& text);

// Words longer than kMaxWord keep their head and tail; the whole stops after kMaxLine.
std::string shortened(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= kMaxLine) {
      out += "... [" + std::to_string(text.size()) + " bytes in all]";
      break;
    }
    std::size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    if (end - i > kMaxWord) {
      const std::size_t head = boundary_before(text, i, 100);
      const std::size_t tail = boundary_after(text, end - 40);
      out.append(text, i, head - i);
      out += "...";
      out.append(text, tail, end - tail);
      out += " [" + std::to_string(end - i) + " bytes]";
    } else {
      out.append(text, i, end - i);
    }
    if (end < text.size()) out += ' ';
    i = end + 1;
  }
  return out;
}
}  // namespace

std::string excerpt(const std::string& text, std::size_t max) {
  if (text.size() <= max) return escaped(text);
  return escaped(text.substr(0, boundary_before(text, 0, max))) + "... [" + std::to_string(text.size()) + " bytes]";
}

std::string one_line(const std::string& text) { return escaped(shortened(text)); }

namespace {
std::string escaped(const std::string& text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const std::size_t len = printable_length(text, i);
    if (len > 0) {
      out.append(text, i, len);
      i += len;
      continue;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
    ++i;
  }
  return out;
}
}  // namespace

namespace {
// Edits from a to b: insertions, deletions, substitutions and swaps of neighbours (the
// optimal string alignment distance), case ignored.
std::size_t edits(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  const auto low = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}
}  // namespace

std::string number_text(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", std::clamp(digits, 1, 17), value);
  return buf;
}

std::string percent_text(double fraction, int digits) {
  const double v = 100 * fraction;
  digits = std::clamp(digits, 1, 12);
  char buf[64];
  if (!std::isfinite(v))
    std::snprintf(buf, sizeof buf, "%s", std::isnan(v) ? "n/a" : v > 0 ? "inf%" : "-inf%");
  else if (v == 0)
    std::snprintf(buf, sizeof buf, "0%%");
  else if (std::fabs(v) >= std::pow(10.0, digits))  // where %g would write an exponent
    std::snprintf(buf, sizeof buf, "%.0f%%", v);
  else if (std::fabs(v) >= 1e-4)
    std::snprintf(buf, sizeof buf, "%.*g%%", digits, v);  // %g stays in fixed notation down to 1e-4
  else
    std::snprintf(buf, sizeof buf, "%s0.0001%%", v > 0 ? "<" : ">-");
  return buf;
}

std::string nearest(const std::string& given, const std::vector<std::string>& known) {
  if (given.empty() || given.size() > 200) return "";
  const std::size_t allowed = std::max<std::size_t>(1, given.size() / 3);
  std::vector<std::string> best;
  std::size_t best_d = allowed + 1;
  for (const std::string& k : known) {
    if (k.size() > given.size() + allowed || given.size() > k.size() + allowed) continue;
    const std::size_t e = edits(given, k);
    if (e < best_d) {
      best = {k};
      best_d = e;
    } else if (e == best_d && std::find(best.begin(), best.end(), k) == best.end()) {
      best.push_back(k);
    }
  }
  if (best.empty() || best.size() > 3) return "";
  std::string out;
  for (std::size_t i = 0; i < best.size(); ++i) out += (i == 0 ? "" : i + 1 == best.size() ? " or " : ", ") + best[i];
  return out;
}

}  // namespace gpp::files
