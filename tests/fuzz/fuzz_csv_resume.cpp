// The CSV files given to --resume (docs/formats.md): a sweep CSV (`gpp sweep`, `tune`,
// `bench --resume`, read by measure/gpp_sweep.cpp, then each row's space as the campaign
// reads it) and a roofline CSV (`gpp roofline --resume`). Every input goes to both readers:
// each refuses the other's file by its header. An accepted sweep CSV must be a fixed point
// of the writer (its rows written again read back the same, as a resumed campaign
// rewrites them); an accepted roofline CSV gives one point per row.
#include "fuzz_support.hpp"

#include "gpp_roofline.hpp"
#include "gpp_spaces.hpp"
#include "gpp_sweep.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace {

std::string lines_of(const std::vector<gpp::measure::sweep::Row>& rows) {
  std::string text = gpp::measure::sweep::csv_header() + "\n";
  for (const auto& r : rows) text += gpp::measure::sweep::csv_line(r) + "\n";
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  namespace sweep = gpp::measure::sweep;
  const std::string path = write_input("resume.csv", data, size);
  refused_or_valid(
      [&] {
        sweep::CsvFile f = sweep::read_sweep_csv(path);
        for (const auto& row : f.rows) gpp::parse_space(row.space);  // the campaign's next read (PointRows)
        return f;
      },
      [&](const sweep::CsvFile& f) {
        expect(f.rows.size() == f.lines.size(), "a sweep CSV's rows and lines differ in number");
        for (const auto& r : f.rows) {
          expect(r.status == "ok" || r.status == "wrong" || r.status == "invalid", "a row of an unknown status");
          gpp::check_tunables(gpp::find_policy(r.policy), r.tunables);
          if (r.status != "invalid")
            expect(r.time_min_s > 0 && r.time_min_s <= r.time_median_s && r.time_median_s <= r.time_max_s &&
                       std::isfinite(r.time_max_s) && std::isfinite(r.updates_per_s),
                   "a row that ran without ordered finite times and rate");
        }
        const std::string written = lines_of(f.rows);
        sweep::CsvFile back;
        try {
          back = sweep::parse_sweep_csv(written, "written again");
        } catch (const gpp::Error& e) {
          violated(std::string("an accepted sweep CSV, written again, is refused: ") + e.what());
        }
        expect(back.rows.size() == f.rows.size(), "written again, the sweep CSV has another number of rows");
        expect(lines_of(back.rows) == written, "written again, the sweep CSV's rows are written otherwise");
        for (std::size_t i = 0; i < f.rows.size(); ++i)
          expect(sweep::same_point(f.rows[i], back.rows[i]), "written again, a row is another point");
      });
  refused_or_valid([&] { return gpp::measure::read_roofline_points(path); },
                   [&](const std::vector<std::vector<std::string>>& keys) {
                     for (const auto& k : keys) expect(k.size() == 11, "a roofline point without its 11 key fields");
                   });
  return 0;
}
