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

namespace {
// (re + i im) += (ar + i ai)(er + i ei): one entry of the static remainder's product.
inline void add_product(double& re, double& im, const double ar, const double ai, const double er, const double ei) {
  re += ar * er - ai * ei;
  im += ar * ei + ai * er;
}
}  // namespace

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
    // On a CPU a block of 2 bands x 4 columns of S at a time: each G's values of the
    // block's columns are loaded once for eight products, and the block's sixteen sums are
    // independent chains, each summed in vector lanes over G (`omp simd`; g++ vectorises
    // such a reduction over named scalars, and leaves the loop scalar where the sums are an
    // array). Columns are contiguous (LayoutLeft); a block at the edge repeats the last
    // band or column and stores only its own entries.
    //
    // Blocks are taken for the cache: a task is a panel of kPanel columns and a group of
    // kGroup bands, over G in tiles of kTile. The panel's tile of I_eps (kPanel x kTile
    // values, 1 MiB) stays in the core's L2 while every band pair of the group passes over
    // it, and each band pair's tile of aqsntemp in L1 while the panel's column quads pass
    // over it; without the tiles every 4 columns streamed all of aqsntemp from memory,
    // which bound the product by the memory's speed on 16 cores. S gathers the tiles' sums.
    constexpr int kBands = 2, kCols = 4, kPanel = 64, kGroup = 64, kTile = 1024;
    const int nbands = d.nbands, ngpown = d.ngpown;
    const int panels = (ngpown + kPanel - 1) / kPanel, groups = (nbands + kGroup - 1) / kGroup;
    Kokkos::deep_copy(space, S, complex_t(0.0, 0.0));
    Kokkos::parallel_for(
        "gpp::static::product_blocked",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, (long long)panels * groups),
        [=](const long long task) {
          const int n_begin = int(task % groups) * kGroup, n_end = std::min(nbands, n_begin + kGroup);
          const int c_begin = int(task / groups) * kPanel, c_end = std::min(ngpown, c_begin + kPanel);
          const auto column = [](const auto& m, const int c) { return reinterpret_cast<const double*>(&m(0, c)); };
          for (int t0 = 0; t0 < ncouls; t0 += kTile) {
            const int t1 = std::min(ncouls, t0 + kTile);
            for (int n0 = n_begin; n0 < n_end; n0 += kBands) {
              const double* const a0 = column(aqsntemp, n0);
              const double* const a1 = column(aqsntemp, std::min(n0 + 1, nbands - 1));
              for (int g0 = c_begin; g0 < c_end; g0 += kCols) {
                const double* const e0 = column(I_eps_array, g0);
                const double* const e1 = column(I_eps_array, std::min(g0 + 1, ngpown - 1));
                const double* const e2 = column(I_eps_array, std::min(g0 + 2, ngpown - 1));
                const double* const e3 = column(I_eps_array, std::min(g0 + 3, ngpown - 1));
                double r00 = 0, r01 = 0, r02 = 0, r03 = 0, r10 = 0, r11 = 0, r12 = 0, r13 = 0;
                double i00 = 0, i01 = 0, i02 = 0, i03 = 0, i10 = 0, i11 = 0, i12 = 0, i13 = 0;
#pragma omp simd reduction(+ : r00, r01, r02, r03, r10, r11, r12, r13, i00, i01, i02, i03, i10, i11, i12, i13)
                for (int ig = t0; ig < t1; ++ig) {
                  const double ar0 = a0[2 * ig], ai0 = a0[2 * ig + 1], ar1 = a1[2 * ig], ai1 = a1[2 * ig + 1];
                  const double er0 = e0[2 * ig], ei0 = e0[2 * ig + 1], er1 = e1[2 * ig], ei1 = e1[2 * ig + 1];
                  const double er2 = e2[2 * ig], ei2 = e2[2 * ig + 1], er3 = e3[2 * ig], ei3 = e3[2 * ig + 1];
                  add_product(r00, i00, ar0, ai0, er0, ei0);
                  add_product(r01, i01, ar0, ai0, er1, ei1);
                  add_product(r02, i02, ar0, ai0, er2, ei2);
                  add_product(r03, i03, ar0, ai0, er3, ei3);
                  add_product(r10, i10, ar1, ai1, er0, ei0);
                  add_product(r11, i11, ar1, ai1, er1, ei1);
                  add_product(r12, i12, ar1, ai1, er2, ei2);
                  add_product(r13, i13, ar1, ai1, er3, ei3);
                }
                const double re[kBands][kCols] = {{r00, r01, r02, r03}, {r10, r11, r12, r13}};
                const double im[kBands][kCols] = {{i00, i01, i02, i03}, {i10, i11, i12, i13}};
                for (int i = 0; i < kBands; ++i)
                  for (int j = 0; j < kCols; ++j)
                    if (n0 + i < n_end && g0 + j < c_end) S(n0 + i, g0 + j) -= complex_t(re[i][j], im[i][j]);
              }
            }
          }
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
