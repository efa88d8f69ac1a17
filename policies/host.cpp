// CPU policy (OpenMP/Serial; the default on host backends): G' across threads. For each
// G', bands and G are blocked so that the invariants of a G block (the fused form's
// PairTerms, computed once per G block and band block) and the band block's rows stay
// in L1/L2, and the innermost loop runs over contiguous G. All frequencies in one
// reduction; vcoul and the factor 0.5 applied once per G'; ssx skipped for empty bands.
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

constexpr int kMaxIgBlock = 256;  // the per-thread buffer of pair invariants

// The per-thread buffer of a G block's pair invariants (up to 256 x 96 bytes). On host
// backends it is on the heap, one row per thread (UniqueToken): on the stack it
// overflowed small stacks (ulimit -s 32, issue 10). A GPU keeps a local array.
template <bool Heap>
struct PairBuffer {
  explicit PairBuffer(int) {}
  template <class F>
  KOKKOS_INLINE_FUNCTION void with(const F& f) const {
    physics::PairTerms pair[kMaxIgBlock];
    f(pair);
  }
};
template <>
struct PairBuffer<true> {
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  Kokkos::View<physics::PairTerms**, Kokkos::LayoutRight, ExecSpace::memory_space> rows;
  explicit PairBuffer(int ig_block)
      : rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::host::pair_terms"), token.size(), ig_block) {}
  template <class F>
  KOKKOS_INLINE_FUNCTION void with(const F& f) const {
    const int id = token.acquire();
    f(&rows(id, 0));
    token.release(id);
  }
};
constexpr bool kHostBackend = Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;

template <int NW>
SigmaSums host_policy(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  const kernels::Inputs in(d);
  const int band_block = or_default(t.band_block, 32);
  const int ig_block = or_default(t.ig_block, 128);
  if (ig_block > kMaxIgBlock)
    throw Error("--ig-block " + std::to_string(ig_block) + " exceeds the host policy's maximum of " +
                std::to_string(kMaxIgBlock));
  SigmaAccum<NW> result;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  const PairBuffer<kHostBackend> buffer(ig_block);
  Kokkos::parallel_reduce(
      "gpp::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, d.ngpown),
      KOKKOS_LAMBDA(const int igp, SigmaAccum<NW>& acc) {
       buffer.with([&](physics::PairTerms* pair) {
        SigmaAccum<NW> g;  // sch*mat and occ*ssx*mat for this G'
        for (int nb0 = 0; nb0 < in.nbands; nb0 += band_block) {
          const int nb1 = nb0 + band_block < in.nbands ? nb0 + band_block : in.nbands;
          for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
            const int len = ig0 + ig_block < in.ncouls ? ig_block : in.ncouls - ig0;
            for (int k = 0; k < len; ++k)
              pair[k] = physics::pair_terms(in.wtilde_array(ig0 + k, igp), in.I_eps_array(ig0 + k, igp), in.sexcut);
            for (int n1 = nb0; n1 < nb1; ++n1) {
              const complex_t aqsm = in.aqsmtemp_local(igp, n1);
              const double occ = in.occ_array(n1);
              double wx[NW];
              for (int w = 0; w < NW; ++w) wx[w] = in.wx_array_t(w, n1);
              for (int k = 0; k < len; ++k) {
                const complex_t mat = physics::matngmatmgp(aqsm, in.aqsntemp(ig0 + k, n1));
                const complex_t P = pair[k].I_eps * mat;
                if (occ != 0.0) {
                  const complex_t Q = occ * pair[k].Omega2 * mat;
                  for (int w = 0; w < NW; ++w) {
                    complex_t sch_mat, ssx_mat;
                    physics::fused_term<true>(pair[k], wx[w], P, Q, in.limittwo, sch_mat, ssx_mat);
                    g.sch[w] += sch_mat;
                    g.ssx[w] += ssx_mat;
                  }
                } else {
                  for (int w = 0; w < NW; ++w) {
                    complex_t sch_mat, ssx_mat;
                    physics::fused_term<false>(pair[k], wx[w], P, P, in.limittwo, sch_mat, ssx_mat);
                    g.sch[w] += sch_mat;
                  }
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
       });
      },
      SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

}  // namespace

SigmaSums run_host(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return host_policy<decltype(nw)::value>(space, d, t, mode); });
}

}  // namespace gpp
