#pragma once
// Input files of either format, chosen by name (and, for reading, by content).
#include "gpp_input.hpp"

#include <cstdint>
#include <string>

namespace gpp::formats {

/// What reading an input file cost: the read itself and validate() after it.
struct ReadStats {
  std::int64_t bytes = 0;  // file size
  double read_s = 0;       // open, read, parse (records or datasets)
  double check_s = 0;      // validate(): sizes, indices, every value finite
};

enum class DeckFormat { Dat, Hdf5 };

/// "Fortran unformatted (.dat)" or "HDF5 (.h5)".
const char* describe(DeckFormat f);

/// The format a file of this name is written in: .dat, .h5 or .hdf5 (gpp::Error otherwise).
DeckFormat deck_format_for_writing(const std::string& path);

/// The format of an existing file: HDF5 if it is named .h5/.hdf5 or starts with the
/// HDF5 signature, the Fortran layout otherwise.
DeckFormat deck_format_for_reading(const std::string& path);

/// read_dat or read_h5_deck.
InputDeck read_deck_file(const std::string& path, ReadStats* stats = nullptr);

/// write_dat or write_h5_deck, by the name's extension.
void write_deck_file(const InputDeck& in, const std::string& path);

}  // namespace gpp::formats
