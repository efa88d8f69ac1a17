// GPU policy beyond the paper (the default on GPU backends). The structure of v8 (a
// team per G' and band block, threads over G, band-contiguous wx and aqsmtemp_local),
// with all frequencies in one pass and the fused physics: the (G, G') invariants are
// computed once per thread, I_eps*mat and occ*Omega2*mat once per band, one real
// reciprocal per term in the regular arm, and ssx skipped for empty bands (uniform per
// band, so no divergence).
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

template <int NW>
SigmaSums tuned(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  // At most 128 registers per thread for 256-thread teams (two teams per SM): the
  // 3- and 4-frequency kernels need ~150 unbounded, which leaves one team per SM
  // (mini-app deck, H200: 0.60 s unbounded, 0.29 s capped although NW=3 spills 152 B).
  // Tried and measured slower on the H200 (docs/performance.md): frequencies in passes
  // of two, which avoids the spills (0.49 s: every pass streams aqsntemp through L2
  // again), and this body as a functor with a frequency offset (+4% si214, +9%
  // mini-app; its register allocation differs, not analysed further).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  using Member = Policy::member_type;
  using Scratch = ExecSpace::scratch_memory_space;
  const kernels::Inputs in(d);
  const int band_block = or_default(t.band_block, 64);
  const int nblocks = (d.nbands + band_block - 1) / band_block;
  const int league = d.ngpown * nblocks;

  const auto body = KOKKOS_LAMBDA(const Member& member, SigmaAccum<NW>& acc) {
    const int igp = member.league_rank() % in.ngpown;
    const int n_begin = (member.league_rank() / in.ngpown) * band_block;
    const int n_end = n_begin + band_block < in.nbands ? n_begin + band_block : in.nbands;
    SigmaAccum<NW> mine;  // sch*mat and occ*ssx*mat over this thread's G
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, in.ncouls), [&](const int ig) {
      const physics::PairTerms p = physics::pair_terms(in.wtilde_array(ig, igp), in.I_eps_array(ig, igp), in.sexcut);
      for (int n1 = n_begin; n1 < n_end; ++n1) {
        const complex_t mat = physics::matngmatmgp(in.aqsmtemp_local_bt(n1, igp), in.aqsntemp(ig, n1));
        const complex_t P = p.I_eps * mat;
        const double occ = in.occ_array(n1);
        if (occ != 0.0) {
          const complex_t Q = occ * p.Omega2 * mat;
          for (int w = 0; w < NW; ++w) {
            complex_t sch_mat, ssx_mat;
            physics::fused_term<true>(p, in.wx_array_bt(n1, w), P, Q, in.limittwo, sch_mat, ssx_mat);
            mine.sch[w] += sch_mat;
            mine.ssx[w] += ssx_mat;
          }
        } else {
          for (int w = 0; w < NW; ++w) {
            complex_t sch_mat, ssx_mat;
            physics::fused_term<false>(p, in.wx_array_bt(n1, w), P, P, in.limittwo, sch_mat, ssx_mat);
            mine.sch[w] += sch_mat;
          }
        }
      }
    });
    SigmaAccum<NW> team_total;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, member.team_size()), [&](const int, SigmaAccum<NW>& a) { a += mine; },
        PlusReducer<SigmaAccum<NW>, Scratch>(team_total));
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      const double vcoul = in.vcoul_loc(igp);
      for (int w = 0; w < NW; ++w) {
        acc.sch[w] += 0.5 * vcoul * team_total.sch[w];
        acc.ssx[w] += vcoul * team_total.ssx[w];
      }
    });
  };

  SigmaAccum<NW> result;
  const int max_team = Policy(space, league, 1).team_size_max(body, Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name());
  // 128 threads measured 1.5-2% faster than 256 on the H200 (si214, mini-app deck).
  const int team_size = t.team_size > 0 ? t.team_size : (128 < max_team ? 128 : max_team);
  if (mode == RunMode::Check) return kernels::to_sums(result);
  Kokkos::parallel_reduce("gpp::tuned", Policy(space, league, team_size), body, SigmaReducer<NW>(result));
  return kernels::to_sums(result);
}

}  // namespace

SigmaSums run_tuned(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return tuned<decltype(nw)::value>(space, d, t, mode); });
}

}  // namespace gpp
