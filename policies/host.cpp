// CPU policy (OpenMP/Serial): G' across threads; for each thread, blocks of bands and
// G so that the G block of wtilde and I_eps stays in L1 while the band block streams
// through, and the innermost loop runs over contiguous G. All frequencies in one
// reduction; vcoul and the factor 0.5 applied once per G'.
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

template <int NW>
SigmaSums host_policy(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  const kernels::Inputs in(d);
  const int band_block = or_default(t.band_block, 32);
  const int ig_block = or_default(t.ig_block, 512);
  SigmaAccum<NW> result;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  Kokkos::parallel_reduce(
      "gpp::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, d.ngpown),
      KOKKOS_LAMBDA(const int igp, SigmaAccum<NW>& acc) {
        SigmaAccum<NW> g;  // sums for this G', before vcoul
        for (int nb0 = 0; nb0 < in.nbands; nb0 += band_block) {
          const int nb1 = nb0 + band_block < in.nbands ? nb0 + band_block : in.nbands;
          for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
            const int ig1 = ig0 + ig_block < in.ncouls ? ig0 + ig_block : in.ncouls;
            for (int n1 = nb0; n1 < nb1; ++n1) {
              const complex_t aqsm = in.aqsmtemp_local(igp, n1);
              const double occ = in.occ_array(n1);
              double wx[NW];
              for (int w = 0; w < NW; ++w) wx[w] = in.wx_array_t(w, n1);
              for (int ig = ig0; ig < ig1; ++ig) {
                const complex_t mat = physics::matngmatmgp(aqsm, in.aqsntemp(ig, n1));
                const complex_t wtilde = in.wtilde_array(ig, igp);
                const complex_t I_eps = in.I_eps_array(ig, igp);
                for (int w = 0; w < NW; ++w) {
                  complex_t sch, ssx;
                  physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, wx[w], in.limittwo, in.sexcut, sch, ssx);
                  g.ssx[w] += occ * ssx * mat;
                  g.sch[w] += sch * mat;
                }
              }
            }
          }
        }
        const double vcoul = in.vcoul_loc(igp);
        for (int w = 0; w < NW; ++w) {
          acc.ssx[w] += vcoul * g.ssx[w];
          acc.sch[w] += 0.5 * vcoul * g.sch[w];
        }
      },
      SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

}  // namespace

SigmaSums run_host(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return host_policy<decltype(nw)::value>(space, d, t, mode); });
}

}  // namespace gpp
