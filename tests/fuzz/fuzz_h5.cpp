// HDF5 decks (docs/io.md), read as `gpp run --input FILE.h5` reads them: the structure in
// a forked child first, then the datasets (formats/gpp_hdf5_io.cpp). An accepted deck must
// derive cleanly, come back bit for bit through the HDF5 writer, and through the .dat
// writer where a .dat file can hold its frequencies (`gpp convert`).
#include "fuzz_decks.hpp"
#include "gpp_fortran_io.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpp::fuzz;
  const std::string path = write_input("input.h5", data, size);
  refused_or_valid([&] { return read_as_run_does(path); },
                   [&](const gpp::session::Session& s) {
                     check_accepted(s);
                     check_round_trip(s.input, "back.h5");
                     if (!gpp::formats::dat_holds_frequencies(s.input.nstart, s.input.nend)) return;
                     // A .dat file always has records 17 and 18: a stored reference of zeros
                     // reads back as none stored (docs/io.md).
                     gpp::InputDeck expected = s.input;
                     bool zero = true;
                     for (std::size_t i = 0; i < expected.asxtempref.size(); ++i)
                       zero = zero && expected.asxtempref[i] == 0.0 && expected.achtempref[i] == 0.0;
                     if (zero) expected.asxtempref.clear(), expected.achtempref.clear();
                     check_round_trip(expected, "back.dat");
                   });
  return 0;
}
