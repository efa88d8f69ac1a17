#include "gpp_static.hpp"

#include "gpp_compat.hpp"
#include "gpp_backend.hpp"
#include "gpp_physics.hpp"

#include <algorithm>
#include <type_traits>

namespace gpp {

bool static_remainder_uses_kokkos_kernels() {
#ifdef GPP_HAVE_KOKKOSKERNELS
  return true;
#else
  return false;
#endif
}

template <class ExecSpace>
std::complex<double> static_remainder(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename ExecSpace::memory_space>::accessible);
  compat::ScopedRegion region("gpp::static_remainder");
  using Matrix = typename ViewTypes<typename ExecSpace::memory_space>::ComplexMatrix;
  Matrix S(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gpp::static::S"), d.nbands, d.ngpown);
#ifdef GPP_HAVE_KOKKOSKERNELS
  compat::gemm(space, "T", "N", complex_t(-1.0, 0.0), d.aqsntemp, d.I_eps_array, complex_t(0.0, 0.0), S);
#else
  const auto aqsntemp = d.aqsntemp;
  const auto I_eps_array = d.I_eps_array;
  const int ncouls = d.ncouls;
  if constexpr (std::is_same_v<typename ExecSpace::memory_space, Kokkos::HostSpace>) {
    // On a CPU a block of kBands x kCols entries of S at a time: each G's values of the
    // block's columns are loaded once for kBands x kCols products, and the block's
    // accumulators are independent chains (one dot product per entry was a single chain
    // of dependent FMAs, two loads per product). Columns are contiguous (LayoutLeft); a
    // block at the edge repeats the last band or column and stores only its own entries.
    constexpr int kBands = 2, kCols = 4;
    const int nbands = d.nbands, ngpown = d.ngpown;
    const int band_blocks = (nbands + kBands - 1) / kBands, col_blocks = (ngpown + kCols - 1) / kCols;
    Kokkos::parallel_for("gpp::static::product_blocked",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, (long long)band_blocks * col_blocks),
                         [=](const long long b) {
                           const int n0 = int(b % band_blocks) * kBands, g0 = int(b / band_blocks) * kCols;
                           const complex_t* a[kBands];
                           const complex_t* e[kCols];
                           for (int i = 0; i < kBands; ++i) a[i] = &aqsntemp(0, std::min(n0 + i, nbands - 1));
                           for (int j = 0; j < kCols; ++j) e[j] = &I_eps_array(0, std::min(g0 + j, ngpown - 1));
                           double re[kBands][kCols] = {}, im[kBands][kCols] = {};
                           for (int ig = 0; ig < ncouls; ++ig) {
                             for (int i = 0; i < kBands; ++i) {
                               const double ar = a[i][ig].real(), ai = a[i][ig].imag();
                               for (int j = 0; j < kCols; ++j) {
                                 const double er = e[j][ig].real(), ei = e[j][ig].imag();
                                 re[i][j] += ar * er - ai * ei;
                                 im[i][j] += ar * ei + ai * er;
                               }
                             }
                           }
                           for (int i = 0; i < kBands; ++i)
                             for (int j = 0; j < kCols; ++j)
                               if (n0 + i < nbands && g0 + j < ngpown)
                                 S(n0 + i, g0 + j) = complex_t(-re[i][j], -im[i][j]);
                         });
  } else {
    Kokkos::parallel_for(
        "gpp::static::product",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>(
            space, {0, 0}, {d.nbands, d.ngpown}),
        KOKKOS_LAMBDA(const int n1, const int igp) {
          complex_t s(0.0, 0.0);
          for (int ig = 0; ig < ncouls; ++ig) s -= aqsntemp(ig, n1) * I_eps_array(ig, igp);
          S(n1, igp) = s;
        });
  }
#endif
  backend::sample_memory();  // S is the largest temporary of a run
  const auto aqsmtemp_local = d.aqsmtemp_local;
  const auto vcoul_loc = d.vcoul_loc;
  complex_t achstemp(0.0, 0.0);
  Kokkos::parallel_reduce(
      "gpp::static::sum", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {d.nbands, d.ngpown}),
      KOKKOS_LAMBDA(const int n1, const int igp, complex_t& acc) {
        acc += 0.5 * vcoul_loc(igp) * Kokkos::conj(aqsmtemp_local(igp, n1)) * S(n1, igp);
      },
      achstemp);
  return {achstemp.real(), achstemp.imag()};
}

template std::complex<double> static_remainder(const HostExec&, const GppData<HostExec::memory_space>&);
#if GPP_HAS_DEVICE_SPACE
template std::complex<double> static_remainder(const DeviceExec&, const GppData<DeviceExec::memory_space>&);
#endif

}  // namespace gpp
