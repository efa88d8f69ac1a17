#pragma once
// HDF5 decks (every input array under its Fortran name, complex as the compound {r, i}
// that h5py reads as complex128) and HDF5 result records. Layout: docs/io.md.
#include "gpp_deck_io.hpp"
#include "gpp_input.hpp"

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace gpp::formats {

/// True when this build reads and writes HDF5 (CMake found HDF5).
bool have_hdf5();

/// Reads an HDF5 deck: root attributes for the scalars, one dataset per array. Presence,
/// type, rank and shape of each are checked before anything is read, then validate().
/// Throws gpp::Error, one line: "FILE: dataset NAME ...", "FILE: attribute NAME ...".
InputDeck read_h5_deck(const std::string& path, ReadStats* stats = nullptr);

/// Writes `in` as an HDF5 deck, through a temporary name and a rename. A Fortran
/// (rows, cols) array is stored with HDF5 dims [cols][rows]: the same bytes, and h5py
/// sees the natural [igp][ig] order.
void write_h5_deck(const InputDeck& in, const std::string& path);

/// A small HDF5 record writer for result files: groups are created on first use
/// ("" or "/" is the root), attributes and datasets are written at once. Everything
/// goes to a temporary file that commit() closes and renames; without commit() the
/// temporary file is removed.
class H5Record {
 public:
  explicit H5Record(const std::string& path);
  ~H5Record();
  H5Record(const H5Record&) = delete;
  H5Record& operator=(const H5Record&) = delete;

  H5Record& attribute(const std::string& group, const std::string& name, const std::string& value);
  H5Record& attribute(const std::string& group, const std::string& name, const char* value) {
    return attribute(group, name, std::string(value));
  }
  H5Record& attribute(const std::string& group, const std::string& name, double value);
  H5Record& attribute(const std::string& group, const std::string& name, long long value);
  H5Record& attribute(const std::string& group, const std::string& name, int value) {
    return attribute(group, name, (long long)value);
  }
  H5Record& attribute(const std::string& group, const std::string& name, bool value) {
    return attribute(group, name, (long long)value);
  }
  /// Complex data as the compound {r, i} of doubles (h5py: complex128).
  H5Record& dataset(const std::string& group, const std::string& name, const std::vector<std::complex<double>>& v);
  H5Record& dataset(const std::string& group, const std::string& name, std::complex<double> scalar);
  H5Record& dataset(const std::string& group, const std::string& name, const std::vector<double>& v);
  H5Record& dataset(const std::string& group, const std::string& name, const std::vector<int>& v);
  /// A soft link `name` (absolute path) to the object at `target` (absolute path).
  H5Record& link(const std::string& name, const std::string& target);
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpp::formats
