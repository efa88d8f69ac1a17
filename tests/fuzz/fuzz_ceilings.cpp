// Ceilings files (docs/formats.md, "Ceilings JSON"), read as `gpp roofline --ceilings FILE`
// reads them. An accepted file gives a device and a backend by name and an FP64 peak that
// is a positive finite rate below the reader's bound.
#include "fuzz_support.hpp"

#include "gpp_roofline.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  const std::string path = write_input("ceilings.json", data, size);
  refused_or_valid([&] { return gpp::measure::read_ceilings(path); },
                   [&](const gpp::measure::CeilingsSummary& c) {
                     expect(!c.device.empty() && !c.backend.empty(), "a ceilings file without a device or backend");
                     expect(std::isfinite(c.fp64_peak_gflops) && c.fp64_peak_gflops > 0 && c.fp64_peak_gflops < 1e9,
                            "an FP64 peak that is not a positive finite rate below 1e9 GFLOP/s");
                   });
  return 0;
}
