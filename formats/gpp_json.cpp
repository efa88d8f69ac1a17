#include "gpp_json.hpp"

#include <cmath>
#include <cstdio>

namespace gpp::app {

std::string format_double(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {
/// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n;
  unsigned cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values beyond U+10FFFF are not valid UTF-8.
  static const unsigned min_for[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}
}  // namespace

std::string json_quote(const std::string& s) {
  std::string o = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') o += "\\\"";
    else if (c == '\\') o += "\\\\";
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c < 0x20 || c == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        o += "\\ufffd";
        ++i;
        continue;
      }
      o.append(s, i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return o + "\"";
}

void Json::key(const std::string& k) {
  if (!first_.back()) out_ << ",";
  first_.back() = false;
  if (!k.empty()) out_ << json_quote(k) << ":";
}
Json& Json::begin_object(const std::string& k) {
  key(k);
  out_ << "{";
  first_.push_back(true);
  return *this;
}
Json& Json::end_object() {
  out_ << "}";
  first_.pop_back();
  return *this;
}
Json& Json::begin_array(const std::string& k) {
  key(k);
  out_ << "[";
  first_.push_back(true);
  return *this;
}
Json& Json::end_array() {
  out_ << "]";
  first_.pop_back();
  return *this;
}
Json& Json::value(const std::string& k, const std::string& v) {
  key(k);
  out_ << json_quote(v);
  return *this;
}
Json& Json::value(const std::string& k, double v) {
  key(k);
  out_ << format_double(v);
  return *this;
}
Json& Json::value(const std::string& k, long long v) {
  key(k);
  out_ << v;
  return *this;
}
Json& Json::value(const std::string& k, bool v) {
  key(k);
  out_ << (v ? "true" : "false");
  return *this;
}
Json& Json::null(const std::string& k) {
  key(k);
  out_ << "null";
  return *this;
}
Json& Json::complex(const std::string& k, std::complex<double> z) {
  key(k);
  out_ << "[" << format_double(z.real()) << "," << format_double(z.imag()) << "]";
  return *this;
}
Json& Json::complex_array(const std::string& k, const std::vector<std::complex<double>>& v) {
  begin_array(k);
  for (const auto& z : v) complex("", z);
  return end_array();
}
Json& Json::number_array(const std::string& k, const std::vector<double>& v) {
  begin_array(k);
  for (const double x : v) value("", x);
  return end_array();
}
Json& Json::string_array(const std::string& k, const std::vector<std::string>& v) {
  begin_array(k);
  for (const auto& x : v) value("", x);
  return end_array();
}

}  // namespace gpp::app
