#include "gpp_table.hpp"

#include <cmath>

namespace gpp::formats {

std::string csv_cell(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      return "";
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
      return std::to_string(v.get<long long>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<unsigned long long>());
    case Json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) ? format_double(d) : "";
    }
    case Json::value_t::string:
      return csv_field(v.get<std::string>());
    default:
      throw Error("a CSV cell holds one value, not " + std::string(v.type_name()));
  }
}

}  // namespace gpp::formats
