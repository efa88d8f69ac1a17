#pragma once
// A table of fields: the one declaration of a kind of row gpp writes (a sweep CSV row, a
// roofline row, the parts of a run record). Each field has its name (the CSV column, the
// JSON key, the HDF5 attribute) and how a row shows it, as a JSON value; a field of a row
// gpp reads back also says how the text of its CSV cell sets it. The CSV header, the CSV
// line, the JSON object, the HDF5 attributes and the CSV reader all come from the table, so
// an output field is one line of it.
#include "gpp_csv.hpp"
#include "gpp_error.hpp"
#include "gpp_json.hpp"

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpp::formats {

template <class Row>
struct Field {
  std::string name;
  std::function<Json(const Row&)> get;
  /// Sets the field from its CSV cell's text (`where` starts an error message); empty for
  /// a field that is not read back (derived from others, or a constant checked elsewhere).
  std::function<void(Row&, const std::string& text, const std::string& where)> set = {};
  /// Sets the field from its member of a JSON object gpp reads back (its value, checked);
  /// empty for a field not read from JSON.
  std::function<void(Row&, const JsonIn& value, const std::string& where)> from_json = {};
  /// A JSON member the row may lack (its reader is then not called; the row keeps its
  /// default); else a missing member is refused.
  bool optional = false;
};

template <class Row>
using Table = std::vector<Field<Row>>;

/// A field that shows the member `m` of a row as it is: numbers that are not integers
/// through json_number (NaN and infinities as null), everything else as its JSON value.
template <class Row, class T>
Field<Row> member(const char* name, T Row::*m) {
  return {name, [m](const Row& r) {
            if constexpr (std::is_floating_point_v<T>)
              return json_number(r.*m);
            else
              return Json(r.*m);
          }};
}

/// The same for a member `m` of the row's member `part` (a deck's sizes in a row).
template <class Row, class Part, class T>
Field<Row> member(const char* name, Part Row::*part, T Part::*m) {
  return {name, [part, m](const Row& r) {
            if constexpr (std::is_floating_point_v<T>)
              return json_number(r.*part.*m);
            else
              return Json(r.*part.*m);
          }};
}

/// A scalar JSON value as a CSV cell: integers in decimal, other numbers as %.17g, text
/// quoted where CSV needs it, true/false, null (a value not measured, not applicable) as an
/// empty cell. Throws gpp::Error for an array or an object: a CSV field is one value.
std::string csv_cell(const Json& v);

/// The names, comma-separated: the CSV header (no newline).
template <class Row>
std::string csv_header(const Table<Row>& t) {
  std::string h;
  for (const auto& f : t) h += (h.empty() ? "" : ",") + f.name;
  return h;
}

/// One row as a CSV line (no newline).
template <class Row>
std::string csv_line(const Table<Row>& t, const Row& r) {
  std::string line;
  for (std::size_t i = 0; i < t.size(); ++i) line += (i ? "," : "") + csv_cell(t[i].get(r));
  return line;
}

/// A field's value where the row has no such field at all (not even null): left out of
/// the JSON object, an empty CSV cell.
inline Json absent() { return Json(Json::value_t::discarded); }

/// One row as a JSON object, its keys in the table's order (absent() values left out).
template <class Row>
Json json_object(const Table<Row>& t, const Row& r) {
  Json o = Json::object();
  for (const auto& f : t)
    if (Json v = f.get(r); !v.is_discarded()) o[f.name] = std::move(v);
  return o;
}

/// The row a CSV record's cells give, cell i for field i (the caller has checked the
/// header is the table's): every field with a reader reads its cell. gpp::Error for a
/// record with another number of cells, or a cell its field refuses.
template <class Row>
Row read_csv_cells(const Table<Row>& t, const std::vector<std::string>& cells, const std::string& where) {
  if (cells.size() != t.size())
    throw Error(where + "has " + std::to_string(cells.size()) + " fields, not " + std::to_string(t.size()));
  Row r;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].set) t[i].set(r, cells[i], where);
  return r;
}

/// The row a JSON object gives: every field with a JSON reader reads its member, which must
/// be there unless the field is optional (members the table does not name are the
/// caller's). gpp::Error naming `where` for a value that is not an object, a missing member
/// or a value its field refuses.
template <class Row>
Row read_json_object(const Table<Row>& t, const JsonIn& o, const std::string& where) {
  if (!o.is_object()) throw Error(where + "is " + json_kind(o) + ", not an object");
  Row r;
  for (const auto& f : t) {
    if (!f.from_json) continue;
    const auto it = o.find(f.name);
    if (it == o.end()) {
      if (f.optional) continue;
      throw Error(where + "no \"" + f.name + "\"");
    }
    f.from_json(r, *it, where);
  }
  return r;
}

/// The index of the field `name` (t.size() when there is none).
template <class Row>
std::size_t field_index(const Table<Row>& t, const std::string& name) {
  std::size_t i = 0;
  while (i < t.size() && t[i].name != name) ++i;
  return i;
}

/// The members of a JSON object the table does not name, as they are.
template <class Row>
JsonIn unknown_members(const Table<Row>& t, const JsonIn& o) {
  JsonIn rest = JsonIn::object();
  for (auto it = o.begin(); it != o.end(); ++it)
    if (field_index(t, it.key()) == t.size()) rest[it.key()] = it.value();
  return rest;
}

}  // namespace gpp::formats
