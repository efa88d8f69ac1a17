#include "gpp_json.hpp"

#include "gpp_error.hpp"
#include "gpp_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <set>

namespace gpp::formats {
using files::excerpt;

std::string format_double(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {
void dump_to(const Json& j, std::string& o) {
  switch (j.type()) {
    case Json::value_t::object: {
      o += '{';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) o += ',';
        first = false;
        o += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace);
        o += ':';
        dump_to(it.value(), o);
      }
      o += '}';
      return;
    }
    case Json::value_t::array: {
      o += '[';
      for (std::size_t i = 0; i < j.size(); ++i) {
        if (i) o += ',';
        dump_to(j[i], o);
      }
      o += ']';
      return;
    }
    case Json::value_t::number_float:
      o += format_double(j.get<double>());
      return;
    default:  // strings (escaped, invalid UTF-8 replaced), integers, booleans, null
      o += j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}
}  // namespace

std::string dump_json(const Json& j) {
  std::string o;
  dump_to(j, o);
  return o + "\n";
}

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json json_complex(std::complex<double> z) { return Json::array({json_number(z.real()), json_number(z.imag())}); }

Json json_complex_array(const std::vector<std::complex<double>>& v) {
  Json a = Json::array();
  for (const auto& z : v) a.push_back(json_complex(z));
  return a;
}

Json to_written(const JsonIn& j) {
  switch (j.type()) {
    case JsonIn::value_t::object: {
      Json o = Json::object();
      // Appended without ordered_map's search for an existing key: the keys of a
      // std::map are already unique.
      auto& fields = o.get_ref<Json::object_t&>();
      for (auto it = j.begin(); it != j.end(); ++it) fields.emplace_back(it.key(), to_written(it.value()));
      return o;
    }
    case JsonIn::value_t::array: {
      Json a = Json::array();
      for (const auto& v : j) a.push_back(to_written(v));
      return a;
    }
    case JsonIn::value_t::string:
      return Json(j.get<std::string>());
    case JsonIn::value_t::boolean:
      return Json(j.get<bool>());
    case JsonIn::value_t::number_integer:
      return Json(j.get<std::int64_t>());
    case JsonIn::value_t::number_unsigned:
      return Json(j.get<std::uint64_t>());
    case JsonIn::value_t::number_float:
      return Json(j.get<double>());
    default:
      return Json(nullptr);
  }
}

JsonIn parse_json(const std::string& text, const std::string& what) {
  // Keys seen in each open object: a key given twice is refused (nlohmann keeps the last
  // silently), and so is nesting deeper than anything gpp writes.
  std::vector<std::set<std::string>> keys;
  auto check = [&](int depth, JsonIn::parse_event_t event, JsonIn& parsed) {
    switch (event) {
      case JsonIn::parse_event_t::object_start:
      case JsonIn::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth)
          throw Error(what + ": not valid JSON here: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        if (event == JsonIn::parse_event_t::object_start) keys.emplace_back();
        break;
      case JsonIn::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case JsonIn::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
          throw Error(what + ": the key \"" + excerpt(parsed.get<std::string>()) + "\" is given twice in one object");
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return JsonIn::parse(text, check);
  } catch (const JsonIn::exception& e) {
    std::string m = e.what();
    if (const auto close = m.find("] "); m.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      m = m.substr(close + 2);
    throw Error(what + ": not valid JSON: " + excerpt(m, 160));
  }
}

std::string json_kind(const JsonIn& j) {
  switch (j.type()) {
    case JsonIn::value_t::null:
      return "null";
    case JsonIn::value_t::boolean:
      return "a boolean";
    case JsonIn::value_t::string:
      return "a string";
    case JsonIn::value_t::array:
      return "an array";
    case JsonIn::value_t::object:
      return "an object";
    case JsonIn::value_t::number_integer:
    case JsonIn::value_t::number_unsigned:
    case JsonIn::value_t::number_float:
      return "a number";
    default:
      return "binary";
  }
}

}  // namespace gpp::formats
