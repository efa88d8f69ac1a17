#pragma once
// Provenance, a minimal JSON writer and atomic file output for the gpp command line.
#include <complex>
#include <sstream>
#include <string>
#include <vector>

namespace gpp::app {

struct Provenance {
  std::string program = "gpp";
  std::string version;
  std::string git_hash;
  std::string kokkos_version;
  std::string backend;
  std::string device;
  int concurrency = 0;
  bool kokkos_kernels = false;
};
Provenance provenance();

/// Writes `content` to `path` through a temporary name in the same directory and a
/// rename, so an interrupted run never leaves a half-written file under `path`.
void write_file_atomically(const std::string& path, const std::string& content);

/// A small streaming JSON writer (objects, arrays, numbers with 17 digits, strings).
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
  Json& complex_array(const std::string& key, const std::vector<std::complex<double>>& v);
  std::string str() const { return out_.str() + "\n"; }

 private:
  void key(const std::string& k);
  std::ostringstream out_;
  std::vector<bool> first_{true};
};

std::string format_double(double v);  // 17 significant digits, JSON-safe (null for NaN/Inf)

}  // namespace gpp::app
