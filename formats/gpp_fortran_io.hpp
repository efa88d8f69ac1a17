#pragma once
// The original benchmark's input file (gpp214unformatted.dat, docs/io.md): Fortran
// sequential unformatted, each record framed by its byte count as a 4-byte
// little-endian integer before and after it. The record table, the conventions and the
// error messages are in docs/io.md.
#include "gpp_deck_io.hpp"
#include "gpp_input.hpp"

#include <cstdint>
#include <string>

namespace gpp::formats {

/// Reads a .dat file. Every record marker is checked on both sides against the size the
/// header implies (and against what is left of the file) before anything is allocated;
/// the payload of each array record is read straight into the InputDeck's storage (one
/// read per record); then validate(). A stored reference (records 17, 18) that is zero
/// for every iw = nstart..nend counts as "none stored". Throws gpp::Error, one line:
/// "FILE: record N (name): what is wrong".
InputDeck read_dat(const std::string& path, ReadStats* stats = nullptr);

/// Writes `in` in the same layout, through a temporary name and a rename. A .dat file
/// holds iw = 1..3, so it needs 1 <= nstart <= nend <= 3; without a reference records
/// 17 and 18 are zero for iw = nstart..nend.
void write_dat(const InputDeck& in, const std::string& path);

/// Records 15..18 as write_dat writes them: in.records_15_18 with the entries for
/// iw = nstart..nend taken from asxtemp0, achtemp0 and the reference (zero if none, with
/// the sign of the zeros the file read had).
/// Needs 1 <= nstart <= nend <= 3.
std::array<std::array<std::complex<double>, 3>, 4> dat_records_15_18(const InputDeck& in);

/// True when a .dat file can hold the frequencies iw = nstart..nend (1 <= nstart <= nend <= 3).
inline bool dat_holds_frequencies(int nstart, int nend) { return 1 <= nstart && nstart <= nend && nend <= 3; }

/// The size of the .dat file write_dat makes of `in`.
std::int64_t dat_file_bytes(const InputDeck& in);

}  // namespace gpp::formats
