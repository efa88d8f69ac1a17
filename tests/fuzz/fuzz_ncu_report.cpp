// Nsight Compute's raw CSV report (`ncu --csv --page raw`), read as `gpp roofline --ncu`
// reads the report of the child it ran (commands/cmd_roofline.cpp). The report is another
// program's output, read back from a file: an accepted one gives counters that are finite
// and not negative, summed over at least one kernel.
#include "fuzz_support.hpp"

#include "gpp_inputs.hpp"
#include "gpp_roofline.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  const std::string path = write_input("report.csv", data, size);
  refused_or_valid(
      [&] {
        return gpp::measure::parse_ncu_raw_csv(
            gpp::files::read_input_file("ncu report", path, gpp::files::kMaxCsvBytes));
      },
      [&](const gpp::measure::NcuCounters& c) {
        expect(c.kernels > 0, "a report without a kernel row");
        for (const double v : {c.dadd, c.dmul, c.dfma, c.bytes_l1, c.bytes_l2, c.bytes_dram, c.time_s})
          expect(std::isfinite(v) && v >= 0, "a counter that is not a finite count");
        if (c.registers) expect(std::isfinite(*c.registers) && *c.registers >= 0, "registers not a finite count");
        if (c.occupancy_pct)
          expect(std::isfinite(*c.occupancy_pct) && *c.occupancy_pct >= 0, "an occupancy that is not finite");
      });
  return 0;
}
