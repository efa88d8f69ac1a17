#pragma once
// Every View type of the project, named after the Fortran array it mirrors (spec
// section 1). All are LayoutLeft so that the first (Fortran) index is stride-1.
#include "gpp_error.hpp"

#include <Kokkos_Core.hpp>

#include <complex>
#include <string>
#include <vector>

namespace gpp {

using complex_t = Kokkos::complex<double>;

template <class MemorySpace>
struct ViewTypes {
  static_assert(Kokkos::is_memory_space<MemorySpace>::value, "MemorySpace must be a Kokkos memory space");
  /// complex (rows, cols), Fortran order: aqsntemp(ncouls, nbands), I_eps_array(ncouls, ngpown), ...
  using ComplexMatrix = Kokkos::View<complex_t**, Kokkos::LayoutLeft, MemorySpace>;
  /// real (rows, cols), Fortran order: wx_array_t(nw, nbands)
  using RealMatrix = Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace>;
  /// real (n): occ_array(nbands), vcoul_loc(ngpown)
  using RealVector = Kokkos::View<double*, Kokkos::LayoutLeft, MemorySpace>;
};

/// The derived arrays the kernel reads, in one memory space.
template <class MemorySpace>
struct GppData {
  using Types = ViewTypes<MemorySpace>;
  using memory_space = MemorySpace;

  int nbands = 0;  // local bands (peinf_ntband_dist)
  int ngpown = 0;  // local G'
  int ncouls = 0;  // G
  int nw = 0;      // frequencies iw = nstart..nend
  int nstart = 0, nend = 0;
  double limitone = 0, limittwo = 0, sexcut = 0;

  typename Types::ComplexMatrix aqsntemp;        // (ncouls, nbands)  M(n1, G)
  typename Types::ComplexMatrix aqsmtemp_local;  // (ngpown, nbands)  M(n1, G') gathered, 0 for skipped G'
  typename Types::ComplexMatrix I_eps_array;     // (ncouls, ngpown)  inverse dielectric matrix - delta
  typename Types::ComplexMatrix wtilde_array;    // (ncouls, ngpown)  plasmon-pole frequencies
  typename Types::RealMatrix wx_array_t;         // (nw, nbands)      E - E_n1, TOL_Zero clamp applied
  typename Types::RealVector occ_array;          // (nbands)          1, 0.5 or 0
  typename Types::RealVector vcoul_loc;          // (ngpown)          v(G'), 0 for skipped G'

  // Step v7 of the paper: the same data stored contiguous in band.
  typename Types::ComplexMatrix aqsmtemp_local_bt;  // (nbands, ngpown)
  typename Types::RealMatrix wx_array_bt;           // (nbands, nw)

  /// Bytes of every array above.
  std::size_t bytes() const {
    return sizeof(complex_t) * (aqsntemp.span() + aqsmtemp_local.span() + I_eps_array.span() + wtilde_array.span() +
                                aqsmtemp_local_bt.span()) +
           sizeof(double) * (wx_array_t.span() + occ_array.span() + vcoul_loc.span() + wx_array_bt.span());
  }

  /// Number of (band, G', G, frequency) terms.
  double updates() const { return double(nbands) * ngpown * double(ncouls) * nw; }
};

/// Every field of `from` but its arrays (sizes, frequencies, limits) into `to`, whose
/// arrays live in another memory space or hold other columns.
template <class To, class From>
void copy_scalars(const GppData<From>& from, GppData<To>& to) {
  to.nbands = from.nbands;
  to.ngpown = from.ngpown;
  to.ncouls = from.ncouls;
  to.nw = from.nw;
  to.nstart = from.nstart;
  to.nend = from.nend;
  to.limitone = from.limitone;
  to.limittwo = from.limittwo;
  to.sexcut = from.sexcut;
}

/// A deck's sizes as its outputs report them (run records, sweep and roofline rows): bands,
/// G' columns (every rank's), G rows and frequencies. Copied as one value, compared as one.
struct DeckSizes {
  int nbands = 0, ngpown = 0, ncouls = 0, nw = 0;
  double updates() const { return double(nbands) * ngpown * double(ncouls) * nw; }
  bool operator==(const DeckSizes& o) const {
    return nbands == o.nbands && ngpown == o.ngpown && ncouls == o.ncouls && nw == o.nw;
  }
  bool operator!=(const DeckSizes& o) const { return !(*this == o); }
};

/// The kernel's result: sums over all terms, before the start values are applied.
struct SigmaSums {
  std::vector<std::complex<double>> sch_sum;  // (nw)
  std::vector<std::complex<double>> ssx_sum;  // (nw)
};

}  // namespace gpp
