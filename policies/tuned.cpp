// GPU policy beyond the paper (the default on a device). The structure of v8 (a team
// per G' and band block, threads over G, band-contiguous wx and aqsmtemp_local), with
// every frequency in one pass and the fused physics (core/gpp_physics.hpp: fused_band):
// the (G, G') invariants computed once per thread, I_eps*mat and occ*Omega2*mat once per
// band, one real reciprocal per term in the regular arm, ssx skipped for empty bands.
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

// Bands of aqsntemp loaded ahead of the one computed (software pipelining of the L2 loads).
constexpr int kAhead = 1;

template <int NW, class ExecSpace>
SigmaSums tuned(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  // At most 128 registers per thread for 256-thread teams (two teams per SM): the
  // 3- and 4-frequency kernels need ~150 unbounded, which leaves one team per SM
  // (mini-app deck, H200: 0.60 s unbounded, 0.29 s capped although NW=3 spills 152 B).
  // Tried and measured slower on the H200 (docs/performance.md): frequencies in passes
  // of two, which avoids the spills (0.49 s: every pass streams aqsntemp through L2
  // again), and this body as a functor with a frequency offset (+4% si214, +9%
  // mini-app; its register allocation differs, not analysed further).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  using Member = typename Policy::member_type;
  using Scratch = typename ExecSpace::scratch_memory_space;
  using Order = kernels::BandContiguous;
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  const int band_block = or_default(t.band_block, 64);
  const int league = d.ngpown * ((d.nbands + band_block - 1) / band_block);

  const auto body = KOKKOS_LAMBDA(const Member& member, SigmaAccum<NW>& acc) {
    const int igp = member.league_rank() % in.ngpown;
    const int n_begin = (member.league_rank() / in.ngpown) * band_block;
    const int n_end = n_begin + band_block < in.nbands ? n_begin + band_block : in.nbands;
    SigmaAccum<NW> team_total;  // sch*mat and occ*ssx*mat over the team's G and bands
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, in.ncouls),
        [&](const int ig, SigmaAccum<NW>& mine) {
          const physics::PairTerms p = physics::pair_terms(in.wtilde_array(ig, igp), in.I_eps_array(ig, igp), in.sexcut);
          // aqsntemp(G, band) comes from L2 (each element is read once per G' team): the
          // elements of the next kAhead bands are loaded before this band is computed, so
          // that their latency overlaps the arithmetic (past the block's last band the
          // last one is loaded again: no branch).
          complex_t ahead[kAhead];
          for (int j = 0; j < kAhead; ++j) ahead[j] = in.aqsntemp(ig, n_begin + j < n_end ? n_begin + j : n_end - 1);
          for (int n1 = n_begin; n1 < n_end; ++n1) {
            const complex_t aqsn = ahead[0];
            for (int j = 0; j + 1 < kAhead; ++j) ahead[j] = ahead[j + 1];
            ahead[kAhead - 1] = in.aqsntemp(ig, n1 + kAhead < n_end ? n1 + kAhead : n_end - 1);
            physics::fused_band(p, Order::aqsm(in, igp, n1), aqsn, in.occ_array(n1),
                                [&](const int w) { return Order::wx(in, w, n1); }, in.limittwo, mine);
          }
        },
        PlusReducer<SigmaAccum<NW>, Scratch>(team_total));
    const double vcoul = in.vcoul_loc(igp);
    Kokkos::single(Kokkos::PerTeam(member), [&]() { physics::add_gp_weighted(acc, team_total, vcoul); });
  };

  SigmaAccum<NW> result;
  const int max_team = Policy(space, league, 1).team_size_max(body, Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name());
  // 128 threads measured 1.5-2% faster than 256 on the H200 (si214, mini-app deck).
  const int team_size = t.team_size > 0 ? t.team_size : (128 < max_team ? 128 : max_team);
  t.band_block = band_block;
  t.team_size = team_size;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  Kokkos::parallel_reduce("gpp::tuned", Policy(space, league, team_size), body, SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

}  // namespace

template <class ExecSpace>
SigmaSums run_tuned(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return tuned<decltype(nw)::value>(space, d, t, mode); });
}
GPP_INSTANTIATE_RUNNER(run_tuned)

}  // namespace gpp
