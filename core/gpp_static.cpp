#include "gpp_static.hpp"

#include "gpp_compat.hpp"
#include "gpp_backend.hpp"
#include "gpp_physics.hpp"

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
  Kokkos::parallel_for(
      "gpp::static::product",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>(
          space, {0, 0}, {d.nbands, d.ngpown}),
      KOKKOS_LAMBDA(const int n1, const int igp) {
        complex_t s(0.0, 0.0);
        for (int ig = 0; ig < ncouls; ++ig) s -= aqsntemp(ig, n1) * I_eps_array(ig, igp);
        S(n1, igp) = s;
      });
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
