#pragma once
// A small streaming JSON writer: objects, arrays, numbers with 17 significant digits
// (null for NaN/Inf), strings escaped and always valid UTF-8.
#include <complex>
#include <sstream>
#include <string>
#include <vector>

namespace gpp::app {

class Json {
 public:
  Json& begin_object(const std::string& key = "");
  Json& end_object();
  Json& begin_array(const std::string& key = "");
  Json& end_array();
  Json& value(const std::string& key, const std::string& v);
  Json& value(const std::string& key, const char* v) { return value(key, std::string(v)); }
  Json& value(const std::string& key, double v);
  Json& value(const std::string& key, long long v);
  Json& value(const std::string& key, int v) { return value(key, (long long)v); }
  Json& value(const std::string& key, bool v);
  Json& null(const std::string& key);
  Json& complex(const std::string& key, std::complex<double> z);
  Json& complex_array(const std::string& key, const std::vector<std::complex<double>>& v);
  Json& number_array(const std::string& key, const std::vector<double>& v);
  Json& string_array(const std::string& key, const std::vector<std::string>& v);
  std::string str() const { return out_.str() + "\n"; }

 private:
  void key(const std::string& k);
  std::ostringstream out_;
  std::vector<bool> first_{true};
};

/// 17 significant digits, JSON-safe ("null" for NaN/Inf).
std::string format_double(double v);

/// A JSON string literal: quotes, backslashes and control characters escaped, bytes that
/// are not valid UTF-8 replaced by U+FFFD.
std::string json_quote(const std::string& s);

}  // namespace gpp::app
