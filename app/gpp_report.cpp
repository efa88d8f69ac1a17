#include "gpp_report.hpp"

#include "gpp_build_info.hpp"
#include "gpp_compat.hpp"
#include "gpp_static.hpp"
#include "gpp_types.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>


namespace gpp::app {

Provenance provenance() {
  Provenance p;
  p.version = build_info::version();
  p.git_hash = build_info::git_hash();
  p.kokkos_version = compat::kokkos_version_string();
  p.backend = ExecSpace::name();
  p.device = compat::device_name();
  p.concurrency = ExecSpace().concurrency();
  p.kokkos_kernels = static_remainder_uses_kokkos_kernels();
  return p;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("cannot write " + path + ": " + std::strerror(errno));
    f << content;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw Error("cannot write " + path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error("cannot write " + path + ": " + why);
  }
}

std::string format_double(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {
std::string quote(const std::string& s) {
  std::string o = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}
}  // namespace

void Json::key(const std::string& k) {
  if (!first_.back()) out_ << ",";
  first_.back() = false;
  if (!k.empty()) out_ << quote(k) << ":";
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
  out_ << quote(v);
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
Json& Json::complex_array(const std::string& k, const std::vector<std::complex<double>>& v) {
  begin_array(k);
  for (const auto& z : v) {
    key("");
    out_ << "[" << format_double(z.real()) << "," << format_double(z.imag()) << "]";
  }
  return end_array();
}

}  // namespace gpp::app
