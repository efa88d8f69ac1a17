// Step v0 of the paper: collapse(3) over band, G', G (G innermost: MDRange<3> with G as
// dimension 0, see gpp_mdrange.hpp); the frequency loop unrolled
// inside; the literal physics (complex divide, abs, 3-way branch); every sum in one
// reduction.
#include "gpp_mdrange.hpp"
#include "gpp_physics.hpp"
#include "gpp_reducer.hpp"

namespace gpp {
namespace {

template <int NW>
SigmaSums v0_collapse3(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  const auto aqsntemp = d.aqsntemp;
  const auto aqsmtemp_local = d.aqsmtemp_local;
  const auto I_eps_array = d.I_eps_array;
  const auto wtilde_array = d.wtilde_array;
  const auto wx_array_t = d.wx_array_t;
  const auto occ_array = d.occ_array;
  const auto vcoul_loc = d.vcoul_loc;
  const double limittwo = d.limittwo, sexcut = d.sexcut;

  SigmaAccum<NW> result;
  const auto policy = make_mdrange<3>(space, {d.ncouls, d.ngpown, d.nbands}, t.tile);
  SigmaSums s{std::vector<std::complex<double>>(NW), std::vector<std::complex<double>>(NW)};
  if (mode == RunMode::Check) return s;
  Kokkos::parallel_reduce(
      "gpp::v0_collapse3", policy,
      KOKKOS_LAMBDA(const int ig, const int igp, const int n1, SigmaAccum<NW>& acc) {
        const complex_t mat = physics::matngmatmgp(aqsmtemp_local(igp, n1), aqsntemp(ig, n1));
        const complex_t wtilde = wtilde_array(ig, igp);
        const complex_t I_eps = I_eps_array(ig, igp);
        const double vcoul = vcoul_loc(igp);
        const double occ = occ_array(n1);
        for (int w = 0; w < NW; ++w) {
          complex_t sch, ssx;
          physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wx_array_t(w, n1), limittwo, sexcut, sch, ssx);
          acc.ssx[w] += vcoul * occ * ssx * mat;
          acc.sch[w] += vcoul * sch * mat * 0.5;
        }
      },
      SigmaReducer<NW>(result));
  store(result, s);
  return s;
}

}  // namespace

SigmaSums run_v0_collapse3(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return v0_collapse3<decltype(nw)::value>(space, d, t, mode); });
}

}  // namespace gpp
