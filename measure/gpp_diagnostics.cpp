#include "gpp_diagnostics.hpp"

#include "gpp_mdrange.hpp"
#include "gpp_physics.hpp"
#include "gpp_reducer.hpp"

namespace gpp {

template <class ExecSpace>
BranchCounts branch_statistics(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d) {
  Tunables tile;
  compat::ScopedRegion region("gpp::diagnostics::branches");
  const auto I_eps_array = d.I_eps_array;
  const auto wtilde_array = d.wtilde_array;
  const auto wx_array_t = d.wx_array_t;
  const double limittwo = d.limittwo, sexcut = d.sexcut;
  const int nbands = d.nbands, nw = d.nw;
  BranchCounts counts;
  // A term's arm does not depend on G' beyond (ig, igp) and the band's wx.
  Kokkos::parallel_reduce(
      "gpp::diagnostics::branch_counts", make_mdrange<2>(space, {d.ncouls, d.ngpown}, tile),
      KOKKOS_LAMBDA(const int ig, const int igp, BranchCounts& c) {
        const complex_t wtilde = wtilde_array(ig, igp);
        const complex_t I_eps = I_eps_array(ig, igp);
        for (int n1 = 0; n1 < nbands; ++n1)
          for (int w = 0; w < nw; ++w) {
            complex_t sch, ssx;
            int branch;
            bool cut;
            physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, wx_array_t(w, n1), limittwo, sexcut, sch, ssx,
                                                      branch, cut);
            c.regular += branch == physics::kRegular;
            c.near_pole += branch == physics::kNearPole;
            c.zero += branch == physics::kZero;
            c.cut += cut;
          }
      },
      PlusReducer<BranchCounts>(counts));
  return counts;
}

template BranchCounts branch_statistics(const HostExec&, const GppData<HostExec::memory_space>&);
#if GPP_HAS_DEVICE_SPACE
template BranchCounts branch_statistics(const DeviceExec&, const GppData<DeviceExec::memory_space>&);
#endif

}  // namespace gpp
