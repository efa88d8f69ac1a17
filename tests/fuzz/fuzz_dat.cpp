// The original Fortran input file (.dat, docs/io.md), read as `gpp run --input FILE.dat`
// reads it. An accepted file must derive cleanly and be written back byte for byte
// (docs/io.md: a .dat file gpp writes from what it read is the same file).
#include "fuzz_decks.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  const std::string path = write_input("input.dat", data, size);
  refused_or_valid([&] { return read_as_run_does(path); },
                   [&](const gpp::session::Session& s) {
                     check_accepted(s);
                     if (gpp::formats::deck_format_for_reading(path) != gpp::formats::DeckFormat::Dat) return;
                     const std::string back = WorkDir::get().file("back.dat");
                     try {
                       gpp::formats::write_deck_file(s.input, back);
                     } catch (const gpp::Error& e) {
                       violated(std::string("an accepted .dat file cannot be written back: ") + e.what());
                     }
                     const std::string bytes = read_back(back);
                     expect(bytes.size() == size && std::memcmp(bytes.data(), data, size) == 0,
                            "an accepted .dat file is written back with other bytes");
                   });
  return 0;
}
