// Tuning files (docs/formats.md, "Tuning file"), read as `gpp run --tuning FILE` and
// `gpp tune` (before it merges into one) read them. An accepted file must name known
// policies with tunables they take, one entry per key, and be a fixed point of the
// writer: written and read back, it is written the same (what `gpp tune` merges into it
// and keeps).
#include "fuzz_support.hpp"

#include "gpp_tuning.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <tuple>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  using gpp::measure::TuningFile;
  const std::string path = write_input("tuning.json", data, size);
  refused_or_valid(
      [&] { return gpp::measure::read_tuning_file(path); },
      [&](const TuningFile& f) {
        std::set<std::tuple<std::string, std::string, std::string, std::string>> keys;
        for (const auto& e : f.entries) {
          gpp::check_tunables(gpp::find_policy(e.policy), e.tunables);
          expect(
              e.size_class == "small" || e.size_class == "medium" || e.size_class == "large" || e.size_class == "any",
              "an entry of an unknown size class");
          expect(!e.device.empty() && !e.backend.empty(), "an entry without a device or backend");
          expect(keys.insert({e.device, e.backend, e.policy, e.size_class}).second, "two entries for one key");
          expect(f.find(e.device, e.backend, e.policy, e.size_class) == &e,
                 "find() does not return an entry by its own key");
        }
        const std::string written = gpp::measure::to_json(f);
        const std::string back_path = WorkDir::get().file("back.json");
        write_input("back.json", reinterpret_cast<const std::uint8_t*>(written.data()), written.size());
        TuningFile back;
        try {
          back = gpp::measure::read_tuning_file(back_path);
        } catch (const gpp::Error& e) {
          violated(std::string("an accepted tuning file, written again, is refused: ") + e.what());
        }
        expect(back.entries.size() == f.entries.size(), "written again, the file has other entries");
        expect(gpp::measure::to_json(back) == written, "written again, the file is written otherwise");
      });
  return 0;
}
