// GPU policy beyond the paper (the default on GPU backends). The structure of v8 (a
// team per G' and band block, threads over G, band-contiguous wx and aqsmtemp_local),
// with frequencies in pairs (one pass for si214's two) and the fused physics: the
// (G, G') invariants are computed once per thread, I_eps*mat and occ*Omega2*mat once per
// band, one real reciprocal per term in the regular arm, and ssx skipped for empty
// bands (uniform per band, so no divergence).
#include "gpp_kernels.hpp"

#include <algorithm>

namespace gpp {
namespace {

// At most 128 registers per thread (two 256-thread teams' worth per SM). Measured on
// the H200: unbounded, the 3-frequency kernel took 148 registers and one team per SM
// (mini-app deck 0.60 s); capped it spilled (0.29 s). Two frequencies per pass fit the
// cap without spilling, so more frequencies run as several passes.
using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
using Member = Policy::member_type;
constexpr int kFrequenciesPerPass = 2;

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

}  // namespace

SigmaSums run_tuned(const ExecSpace& space, const DeviceData& d, const Tunables& t, const RunMode mode) {
  const int band_block = or_default(t.band_block, 64);
  const int league = d.ngpown * ((d.nbands + band_block - 1) / band_block);
  const TunedBody<1> one{kernels::Inputs(d), band_block, 0};
  const TunedBody<kFrequenciesPerPass> pair{kernels::Inputs(d), band_block, 0};
  const int max_team = std::min(Policy(space, league, 1).team_size_max(one, Kokkos::ParallelReduceTag()),
                                Policy(space, league, 1).team_size_max(pair, Kokkos::ParallelReduceTag()));
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name());
  // 128 threads measured 1.5-2% faster than 256 on the H200 (si214, mini-app deck).
  const int team_size = t.team_size > 0 ? t.team_size : std::min(128, max_team);
  SigmaSums s{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  if (mode == RunMode::Check) return s;
  // Any number of frequencies: pairs, then a single one if nw is odd.
  for (int w0 = 0; w0 < d.nw; w0 += kFrequenciesPerPass) {
    if (d.nw - w0 >= kFrequenciesPerPass) {
      SigmaAccum<kFrequenciesPerPass> r;
      Kokkos::parallel_reduce("gpp::tuned", Policy(space, league, team_size),
                              TunedBody<kFrequenciesPerPass>{kernels::Inputs(d), band_block, w0}, SigmaReducer<2>(r));
      store(r, s, w0);
    } else {
      SigmaAccum<1> r;
      Kokkos::parallel_reduce("gpp::tuned", Policy(space, league, team_size),
                              TunedBody<1>{kernels::Inputs(d), band_block, w0}, SigmaReducer<1>(r));
      store(r, s, w0);
    }
  }
  return s;
}

}  // namespace gpp
