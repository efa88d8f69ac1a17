#include "gpp_startup.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gpp::app {
namespace {

// A whole non-negative decimal integer of at most 9 digits (no sign, no spaces).
bool small_count(const std::string& v, bool allow_zero) {
  if (v.empty() || v.size() > 9) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  return allow_zero || std::stol(v) > 0;
}

// INT or INT,INT (KOKKOS_NUM_DEVICES / --kokkos-num-devices).
bool count_list(const std::string& v) {
  const auto comma = v.find(',');
  if (comma == std::string::npos) return small_count(v, false);
  return small_count(v.substr(0, comma), false) && small_count(v.substr(comma + 1), true);
}

struct Setting {
  const char* env;         // environment variable, nullptr if none
  const char* option;      // --kokkos-NAME (also accepted by Kokkos 3.4 without "kokkos-")
  const char* legacy;      // Kokkos 3.4's unprefixed spelling, nullptr if none
  enum { Count, CountOrZero, CountList, Flag, Text } kind;
};

const Setting kSettings[] = {
    {"KOKKOS_NUM_THREADS", "--kokkos-num-threads", nullptr, Setting::Count},
    {nullptr, "--kokkos-threads", "--threads", Setting::Count},
    {"KOKKOS_NUMA", "--kokkos-numa", "--numa", Setting::Count},
    {"KOKKOS_DEVICE_ID", "--kokkos-device-id", "--device-id", Setting::CountOrZero},
    {nullptr, "--kokkos-device", "--device", Setting::CountOrZero},
    {"KOKKOS_NUM_DEVICES", "--kokkos-num-devices", "--num-devices", Setting::CountList},
    {nullptr, "--kokkos-ndevices", "--ndevices", Setting::CountList},
    {"KOKKOS_SKIP_DEVICE", nullptr, nullptr, Setting::CountOrZero},
    {"KOKKOS_RAND_DEVICES", nullptr, nullptr, Setting::Flag},
    {"KOKKOS_DISABLE_WARNINGS", "--kokkos-disable-warnings", nullptr, Setting::Flag},
    {"KOKKOS_TUNE_INTERNALS", "--kokkos-tune-internals", nullptr, Setting::Flag},
    {"KOKKOS_PRINT_CONFIGURATION", "--kokkos-print-configuration", nullptr, Setting::Flag},
};

std::string expected(const Setting& s) {
  switch (s.kind) {
    case Setting::Count:
      return "a positive integer";
    case Setting::CountOrZero:
      return "a non-negative integer";
    case Setting::CountList:
      return "a positive integer, or two separated by a comma";
    case Setting::Flag:
      return "on, off, true, false, yes, no, 1 or 0";
    default:
      return "a value";
  }
}

bool valid(const Setting& s, const std::string& v) {
  switch (s.kind) {
    case Setting::Count:
      return small_count(v, false);
    case Setting::CountOrZero:
      return small_count(v, true);
    case Setting::CountList:
      return count_list(v);
    case Setting::Flag: {
      std::string l;
      for (char c : v) l += char(std::tolower(static_cast<unsigned char>(c)));
      for (const char* ok : {"on", "off", "true", "false", "yes", "no", "1", "0"})
        if (l == ok) return true;
      return false;
    }
    default:
      return true;
  }
}

// Printable form of a value for a one-line message.
std::string shown(const std::string& v) {
  std::string out;
  for (unsigned char c : v.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return "'" + out + (v.size() > 40 ? "...'" : "'");
}

}  // namespace

std::string check_startup(int argc, char* argv[]) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, reported as an I/O error.
  std::signal(SIGXFSZ, SIG_IGN);
  for (const Setting& s : kSettings) {
    if (!s.env) continue;
    const char* v = std::getenv(s.env);
    if (v && !valid(s, v))
      return std::string("environment variable ") + s.env + "=" + shown(v) + ": expected " + expected(s);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) continue;
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    for (const Setting& s : kSettings) {
      const bool match = (s.option && name == s.option) || (s.legacy && name == s.legacy);
      if (!match) continue;
      if (s.kind == Setting::Flag) {
        if (eq != std::string::npos && !valid(s, a.substr(eq + 1)))
          return "option " + name + "=" + shown(a.substr(eq + 1)) + ": expected " + expected(s);
      } else if (eq == std::string::npos) {
        return "option " + name + " needs a value: " + name + "=N (" + expected(s) + ")";
      } else if (!valid(s, a.substr(eq + 1))) {
        return "option " + name + "=" + shown(a.substr(eq + 1)) + ": expected " + expected(s);
      }
    }
  }
  return "";
}

}  // namespace gpp::app

namespace gpp::app {

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

std::string one_line(const std::string& text) {
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

}  // namespace gpp::app
