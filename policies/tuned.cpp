// GPU policy beyond the paper (the default on GPU backends). The structure of v8 (a
// team per G' and band block, threads over G, band-contiguous wx and aqsmtemp_local),
// with all frequencies in one pass (up to GPP_MAX_NW) and the fused physics: the
// (G, G') invariants are computed once per thread, I_eps*mat and occ*Omega2*mat once per
// band, one real reciprocal per term in the regular arm, and ssx skipped for empty
// bands (uniform per band, so no divergence).
#include "gpp_kernels.hpp"

#include <algorithm>

namespace gpp {
namespace {

// At most 128 registers per thread (two 256-thread teams' worth per SM). Measured on
// the H200, mini-app deck (3 frequencies): unbounded, the kernel took 148 registers and
// one team per SM, 0.60 s; capped it spills 152 bytes per thread, 0.29 s. Splitting
// the frequencies into passes of two avoids the spills but took 0.49 s: every pass
// streams aqsntemp through L2 again (nbands x ncouls x 16 B per G', 440 GB a pass on
// that deck), which costs more than the spills. So one pass takes every frequency, up
// to GPP_MAX_NW; beyond that, passes of GPP_MAX_NW.
using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
using Member = Policy::member_type;

/// Frequencies [w0, w0 + NW) of one team: sch*mat and occ*ssx*mat over the team's G'
/// and band block, then vcoul and the factor 0.5.
template <int NW>
struct TunedBody {
  kernels::Inputs in;
  int band_block, w0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member, SigmaAccum<NW>& acc) const {
    using Scratch = ExecSpace::scratch_memory_space;
    const int igp = member.league_rank() % in.ngpown;
    const int n_begin = (member.league_rank() / in.ngpown) * band_block;
    const int n_end = n_begin + band_block < in.nbands ? n_begin + band_block : in.nbands;
    SigmaAccum<NW> mine;  // over this thread's G
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
            physics::fused_term<true>(p, in.wx_array_bt(n1, w0 + w), P, Q, in.limittwo, sch_mat, ssx_mat);
            mine.sch[w] += sch_mat;
            mine.ssx[w] += ssx_mat;
          }
        } else {
          for (int w = 0; w < NW; ++w) {
            complex_t sch_mat, ssx_mat;
            physics::fused_term<false>(p, in.wx_array_bt(n1, w0 + w), P, P, in.limittwo, sch_mat, ssx_mat);
            mine.sch[w] += sch_mat;
          }
        }
      }
    });
    SigmaAccum<NW> team_total;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, member.team_size()), [&](const int, SigmaAccum<NW>& a) { a += mine; },
        PlusReducer<SigmaAccum<NW>, Scratch>(team_total));
    const double vcoul = in.vcoul_loc(igp);
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      for (int w = 0; w < NW; ++w) {
        acc.sch[w] += 0.5 * vcoul * team_total.sch[w];
        acc.ssx[w] += vcoul * team_total.ssx[w];
      }
    });
  }
};

/// One pass over frequencies [w0, w0 + NW); checks the team size first.
template <int NW>
void tuned_pass(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode, const int w0,
                SigmaSums& s) {
  const int band_block = or_default(t.band_block, 64);
  const int league = d.ngpown * ((d.nbands + band_block - 1) / band_block);
  const TunedBody<NW> body{kernels::Inputs(d), band_block, w0};
  const int max_team = Policy(space, league, 1).team_size_max(body, Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name());
  // 128 threads measured 1.5-2% faster than 256 on the H200 (si214, mini-app deck).
  const int team_size = t.team_size > 0 ? t.team_size : std::min(128, max_team);
  if (mode == RunMode::Check) return;
  SigmaAccum<NW> r;
  Kokkos::parallel_reduce("gpp::tuned", Policy(space, league, team_size), body, SigmaReducer<NW>(r));
  store(r, s, w0);
}

}  // namespace

SigmaSums run_tuned(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  SigmaSums s{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  for (int w0 = 0; w0 < d.nw; w0 += GPP_MAX_NW) {
    dispatch_nw(std::min(GPP_MAX_NW, d.nw - w0),
                [&](auto nw) { tuned_pass<decltype(nw)::value>(space, d, t, mode, w0, s); });
  }
  return s;
}

}  // namespace gpp
