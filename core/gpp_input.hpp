#pragma once
// The kernel's input as the original benchmark file holds it (docs/io.md), the derived
// arrays the benchmark builds from it, and the synthetic generators.
#include "gpp_types.hpp"

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gpp {

using HostComplexMatrix = ViewTypes<Kokkos::HostSpace>::ComplexMatrix;

/// Everything one input file (or one synthetic deck) holds, on the host, named as in
/// the Fortran benchmark. Indices stored in the int arrays are 1-based, as in the file.
struct InputDeck {
  // record 1
  int sig_ntband = 0, gvec_ng = 0, ncoul = 0, epsmpi_ngpown_max = 0, peinf_ntband_max = 0;
  // record 2
  int peinf_ntband_dist = 0, ipe = 0, ispin = 1, ngpown = 0, ncouls = 0;
  std::vector<int> peinf_indext_dist;  // (peinf_ntband_max) local band -> true band
  std::vector<double> wfnkq_ekq;       // (sig_ntband) band energies
  // record 5
  int nstart = 0, nend = 0, sig_fdf = 0;
  double sig_dw = 0, sig_gamma = 0, e_lk = 0;
  std::vector<int> inv_igp_index;  // (epsmpi_ngpown_max) local G' -> index into indinv
  std::vector<int> indinv;         // (gvec_ng)
  HostComplexMatrix aqsmtemp;      // (ncouls, peinf_ntband_max)
  // record 9
  int nvband = 0;
  double tol = 0, efermi = 0;
  std::vector<double> vcoul;  // (ncoul)
  // record 11
  double sexcut = 0, limittwo = 0, limitone = 0;  // limittwo/limitone as read; recomputed
  HostComplexMatrix wtilde_array;                 // (ncouls, ngpown)
  HostComplexMatrix I_eps_array;                  // (ncouls, ngpown)
  HostComplexMatrix aqsntemp;                     // (ncouls, peinf_ntband_max)
  // Not of the file: its four matrices were asked for in 2 MiB pages (a generated deck,
  // runtime::advise_huge_pages).
  bool huge_pages = false;
  // records 15..18, one value per frequency iw = nstart..nend
  std::vector<std::complex<double>> asxtemp0, achtemp0;
  std::vector<std::complex<double>> asxtempref, achtempref;  // empty when none is stored
  // Records 15..18 of a .dat file hold asxtemp, achtemp, asxtempref, achtempref for
  // iw = 1..3. The entries for iw outside nstart..nend are kept here, unused, so that a
  // file written back is byte-identical (docs/io.md); those inside are zero here (the
  // vectors above hold them), with the file's sign bits in records 17 and 18 of a file
  // that stores no reference (its -0 written back as -0).
  std::array<std::array<std::complex<double>, 3>, 4> records_15_18{};

  int nw() const { return nend - nstart + 1; }
  bool has_reference() const { return !asxtempref.empty(); }
};

/// Largest size (bands, G', G) accepted from any input: block and index arithmetic in
/// int (n + block, with blocks up to 2^20) then never overflows.
inline constexpr int kMaxSize = 1 << 30;

/// The G' columns one MPI rank holds (docs/mpi.md): global column j (0-based) belongs to
/// rank j % nranks, where it is local column j / nranks; cyclic, as BerkeleyGW deals out
/// G', so that every rank gets a share of the skipped and the expensive columns. The
/// default is the whole deck (one rank).
struct GpShare {
  int rank = 0, nranks = 1;
  /// Local columns of a deck with `ngpown` columns in all.
  int count(int ngpown) const { return ngpown / nranks + (rank < ngpown % nranks ? 1 : 0); }
  /// Global (0-based) index of local column `local`.
  long long global(int local) const { return rank + (long long)local * nranks; }
  bool whole() const { return nranks == 1; }
};

/// Parameters of a synthetic deck (the keys of a TOML deck).
struct DeckParams {
  std::string name = "deck";
  std::string generator = "random";  // random | uniform
  int nbands = 0, ngpown = 0, ncouls = 0, nvband = 0;
  int nstart = 2, nend = 3;
  std::uint64_t seed = 12345;
  double gamma = 0.5;  // broadening; limittwo = gamma^2
  double sexcut = 4.0;
  double e_lk = -1.5;  // energy of the state whose self-energy is computed
  double dw = 0.5;     // frequency step
  double efermi = 0.0;
  double tol = 1e-3;   // |e - efermi| < tol puts a band at the Fermi level (occupation 0.5)
  int skipped_gp = 1;  // G' whose index falls outside 1..ncouls (random generator)
};

/// Largest magnitude of an energy gpp accepts (e_lk, dw, efermi, tol, gamma, a file's band
/// energies), in the deck's unit (eV or Ry), and of a frequency index (nstart, nend).
inline constexpr double kMaxEnergy = 1e6;
inline constexpr int kMaxFrequencyIndex = 1000000;
/// Smallest gamma: limittwo = gamma^2 stays a positive normal double.
inline constexpr double kMinGamma = 1e-150;

/// The physical parameters every input path shares (a TOML deck's gamma, dw; a file's
/// sig_gamma, sig_dw), with the names to report them under.
struct PhysicsParameters {
  double gamma, sexcut, tol, e_lk, dw, efermi;
  int nstart, nend;
  const char* gamma_name;
  const char* dw_name;
};

/// Each parameter within its range (kMaxEnergy and the others above): the one check used by
/// synthetic decks, .dat and HDF5 files alike. Throws gpp::Error naming the first bad
/// parameter and its range.
void check_physics_parameters(const PhysicsParameters& p);

/// Throws gpp::Error naming the first bad parameter.
void validate(const DeckParams& p);

/// Throws gpp::Error unless `name` can label every output: 1 to 128 characters, none a
/// control character (so no output line or record can be forged through it).
void check_deck_name(const std::string& name);

/// Seeded, non-uniform data in which every branch of the kernel is taken. With a share
/// of G', only its columns of wtilde_array, I_eps_array and inv_igp_index are made (and
/// ngpown is the local count): the same numbers the whole deck has in those columns.
InputDeck generate_random(const DeckParams& p, const GpShare& share = {});

/// The public C++ mini-apps' constant data (their closed form: docs/guide/decks.md).
InputDeck generate_uniform(const DeckParams& p, const GpShare& share = {});

/// Dispatch on p.generator.
InputDeck generate(const DeckParams& p, const GpShare& share = {});

/// The deck as one rank of `share` holds it: its columns of wtilde_array and
/// I_eps_array (copied), its entries of inv_igp_index, ngpown and epsmpi_ngpown_max the
/// local count; everything else (bands, G, references) as in `in`.
InputDeck keep_share(const InputDeck& in, const GpShare& share);

/// Sizes consistent, indices in range, every real and complex value finite. Throws
/// gpp::Error naming the array and the (1-based) index.
void validate(const InputDeck& in);

/// validate(in), its message prefixed with "cannot write PATH: " (the writers' check).
void validate_before_writing(const InputDeck& in, const std::string& path);

/// The derived arrays, as the benchmark builds them, in host memory. The large matrices share storage
/// with `in` (no copy).
GppData<Kokkos::HostSpace> derive(const InputDeck& in);

/// The arrays indexed by G' (and the G' count) of `h`, copied into `d`'s memory space:
/// what changes from one chunk of G' columns to the next (Session::for_each_chunk).
template <class MemorySpace>
void copy_gp_arrays(const GppData<Kokkos::HostSpace>& h, GppData<MemorySpace>& d) {
  auto copy = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(MemorySpace(), v); };
  d.ngpown = h.ngpown;
  d.aqsmtemp_local = copy(h.aqsmtemp_local);
  d.I_eps_array = copy(h.I_eps_array);
  d.wtilde_array = copy(h.wtilde_array);
  d.vcoul_loc = copy(h.vcoul_loc);
  d.aqsmtemp_local_bt = copy(h.aqsmtemp_local_bt);
}

/// Copy of host data into MemorySpace (no copy when MemorySpace is host-accessible).
template <class MemorySpace>
GppData<MemorySpace> to_memory_space(const GppData<Kokkos::HostSpace>& h) {
  GppData<MemorySpace> d;
  copy_scalars(h, d);
  auto copy = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(MemorySpace(), v); };
  d.aqsntemp = copy(h.aqsntemp);
  d.wx_array_t = copy(h.wx_array_t);
  d.occ_array = copy(h.occ_array);
  d.wx_array_bt = copy(h.wx_array_bt);
  copy_gp_arrays(h, d);
  return d;
}

}  // namespace gpp
