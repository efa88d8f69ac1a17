#include "gpp_deck_io.hpp"

#include "gpp_fortran_io.hpp"
#include "gpp_hdf5_io.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

namespace gpp::formats {
namespace {

std::string extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e;
}

bool hdf5_name(const std::string& path) {
  const std::string e = extension(path);
  return e == ".h5" || e == ".hdf5";
}

}  // namespace

const char* describe(DeckFormat f) { return f == DeckFormat::Dat ? "Fortran unformatted (.dat)" : "HDF5 (.h5)"; }

DeckFormat deck_format_for_writing(const std::string& path) {
  if (hdf5_name(path)) return DeckFormat::Hdf5;
  if (extension(path) == ".dat") return DeckFormat::Dat;
  throw Error(path + ": unknown file type (name it .dat for the Fortran layout or .h5 for HDF5)");
}

DeckFormat deck_format_for_reading(const std::string& path) {
  if (hdf5_name(path)) return DeckFormat::Hdf5;
  // Only regular files are opened here (opening a FIFO would block); the reader reports
  // anything else.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return DeckFormat::Dat;
  char head[8] = {};
  std::ifstream f(path, std::ios::binary);
  f.read(head, sizeof head);
  return f.gcount() == 8 && std::memcmp(head, "\211HDF\r\n\032\n", 8) == 0 ? DeckFormat::Hdf5 : DeckFormat::Dat;
}

InputDeck read_deck_file(const std::string& path, ReadStats* stats) {
  return deck_format_for_reading(path) == DeckFormat::Hdf5 ? read_h5_deck(path, stats) : read_dat(path, stats);
}

void write_deck_file(const InputDeck& in, const std::string& path) {
  if (deck_format_for_writing(path) == DeckFormat::Hdf5)
    write_h5_deck(in, path);
  else
    write_dat(in, path);
}

}  // namespace gpp::formats
