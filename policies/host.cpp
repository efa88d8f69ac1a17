// CPU policy (the default on the host): G' across threads. For each G', bands and G are
// blocked so that the invariants of a G block (the fused form's PairTerms, computed
// once per G block and band block) and the band block's rows stay in L1/L2, and the
// innermost loop runs over contiguous G. All frequencies in one reduction; the G'
// factor applied once per G'; ssx skipped for empty bands (core: fused_band).
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

constexpr int kMaxIgBlock = 256;  // the per-thread buffer of pair invariants

// The per-thread buffer of a G block's pair invariants (up to 256 x 96 bytes), on the
// heap, one row per thread (UniqueToken): on the stack it overflowed small stacks
// (ulimit -s 32, issue 10). The policy is built for host spaces only.
template <class ExecSpace>
struct PairBuffer {
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  Kokkos::View<physics::PairTerms**, Kokkos::LayoutRight, typename ExecSpace::memory_space> rows;
  PairBuffer(const ExecSpace& space, int ig_block)
      : token(space), rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::pair_terms"), token.size(), ig_block) {}
  template <class F>
  KOKKOS_INLINE_FUNCTION void with(const F& f) const {
    const int id = token.acquire();
    f(&rows(id, 0));
    token.release(id);
  }
};

template <int NW, class ExecSpace>
SigmaSums host_policy(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  using Order = kernels::FortranOrder;
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  const int band_block = or_default(t.band_block, 32);
  const int ig_block = or_default(t.ig_block, 128);
  if (ig_block > kMaxIgBlock)
    throw Error("--ig-block " + std::to_string(ig_block) + " exceeds the host policy's maximum of " +
                std::to_string(kMaxIgBlock));
  t.band_block = band_block;
  t.ig_block = ig_block;
  SigmaAccum<NW> result;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  const PairBuffer<ExecSpace> buffer(space, ig_block);
  Kokkos::parallel_reduce(
      "gpp::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, d.ngpown),
      KOKKOS_LAMBDA(const int igp, SigmaAccum<NW>& acc) { buffer.with([&](physics::PairTerms* pair) {
        SigmaAccum<NW> g;  // sch*mat and occ*ssx*mat for this G'
        for (int nb0 = 0; nb0 < in.nbands; nb0 += band_block) {
          const int nb1 = band_block < in.nbands - nb0 ? nb0 + band_block : in.nbands;
          for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
            const int len = ig_block < in.ncouls - ig0 ? ig_block : in.ncouls - ig0;
            for (int k = 0; k < len; ++k)
              pair[k] = physics::pair_terms(in.wtilde_array(ig0 + k, igp), in.I_eps_array(ig0 + k, igp), in.sexcut);
            for (int n1 = nb0; n1 < nb1; ++n1) {
              const complex_t aqsm = Order::aqsm(in, igp, n1);
              const double occ = in.occ_array(n1);
              double wx[NW];
              for (int w = 0; w < NW; ++w) wx[w] = Order::wx(in, w, n1);
              for (int k = 0; k < len; ++k)
                physics::fused_band(pair[k], aqsm, in.aqsntemp(ig0 + k, n1), occ, [&](const int w) { return wx[w]; },
                                    in.limittwo, g);
            }
          }
        }
        physics::add_gp_weighted(acc, g, in.vcoul_loc(igp));
      }); },
      SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

}  // namespace

template <class ExecSpace>
SigmaSums run_host(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return host_policy<decltype(nw)::value>(space, d, t, mode); });
}
// The CPU policy is built for the host space only.
template GPP_RUNNER_SIGNATURE(run_host, ::gpp::HostExec);

}  // namespace gpp
