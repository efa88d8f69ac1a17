#pragma once
// Kernel bodies shared by several steps of the paper. Each policy file instantiates one
// of these with its step's types (physics form, band order, launch bounds); the physics
// itself is in core/gpp_physics.hpp.
#include "gpp_mdrange.hpp"
#include "gpp_physics.hpp"
#include "gpp_reducer.hpp"

#include <algorithm>
#include <string>

namespace gpp::kernels {

/// The views and scalars a kernel reads, captured by value in lambdas.
template <class MemorySpace>
struct Inputs {
  using Types = ViewTypes<MemorySpace>;
  typename Types::ComplexMatrix aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, aqsmtemp_local_bt;
  typename Types::RealMatrix wx_array_t, wx_array_bt;
  typename Types::RealVector occ_array, vcoul_loc;
  double limittwo, sexcut;
  int nbands, ngpown, ncouls, nw;
  explicit Inputs(const GppData<MemorySpace>& d)
      : aqsntemp(d.aqsntemp), aqsmtemp_local(d.aqsmtemp_local), I_eps_array(d.I_eps_array),
        wtilde_array(d.wtilde_array), aqsmtemp_local_bt(d.aqsmtemp_local_bt), wx_array_t(d.wx_array_t),
        wx_array_bt(d.wx_array_bt), occ_array(d.occ_array), vcoul_loc(d.vcoul_loc), limittwo(d.limittwo),
        sexcut(d.sexcut), nbands(d.nbands), ngpown(d.ngpown), ncouls(d.ncouls), nw(d.nw) {}
};

/// Where a kernel reads wx and the gathered G' matrix elements (the paper's step v7).
struct FortranOrder {  // wx_array_t(iw, band), aqsmtemp_local(igp, band): as the Fortran code
  template <class In>
  KOKKOS_FORCEINLINE_FUNCTION static complex_t aqsm(const In& in, int igp, int n1) {
    return in.aqsmtemp_local(igp, n1);
  }
  template <class In>
  KOKKOS_FORCEINLINE_FUNCTION static double wx(const In& in, int w, int n1) {
    return in.wx_array_t(w, n1);
  }
};
struct BandContiguous {  // v7: wx(band, iw), aqsmtemp_local(band, igp), contiguous in band
  template <class In>
  KOKKOS_FORCEINLINE_FUNCTION static complex_t aqsm(const In& in, int igp, int n1) {
    return in.aqsmtemp_local_bt(n1, igp);
  }
  template <class In>
  KOKKOS_FORCEINLINE_FUNCTION static double wx(const In& in, int w, int n1) {
    return in.wx_array_bt(n1, w);
  }
};

template <int NW>
SigmaSums to_sums(const SigmaAccum<NW>& a) {
  SigmaSums s{std::vector<std::complex<double>>(NW), std::vector<std::complex<double>>(NW)};
  store(a, s);
  return s;
}

/// Steps v0..v3: MDRange<3> over G, G', band (G fastest, so coalesced on GPUs, as the
/// paper's collapse(3) with G innermost), every frequency inside, one reduction. Form
/// is the step's physics (literal, reciprocal, two-way, squared cut).
template <class Form, int NW, class ExecSpace>
SigmaSums collapse3(const std::string& label, const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t,
                    const RunMode mode) {
  const Inputs<typename ExecSpace::memory_space> in(d);
  SigmaAccum<NW> result;
  const auto policy = make_mdrange<3>(space, {d.ncouls, d.ngpown, d.nbands}, t);
  if (mode == RunMode::Check) return to_sums(result);
  Kokkos::parallel_reduce(
      label, policy,
      KOKKOS_LAMBDA(const int ig, const int igp, const int n1, SigmaAccum<NW>& acc) {
        const complex_t mat = physics::matngmatmgp(in.aqsmtemp_local(igp, n1), in.aqsntemp(ig, n1));
        const complex_t wtilde = in.wtilde_array(ig, igp);
        const complex_t I_eps = in.I_eps_array(ig, igp);
        const double vcoul = in.vcoul_loc(igp);
        const double occ = in.occ_array(n1);
        for (int w = 0; w < NW; ++w) {
          complex_t sch, ssx;
          physics::sigma_term<Form>(wtilde, I_eps, in.wx_array_t(w, n1), in.limittwo, in.sexcut, sch, ssx);
          physics::add_weighted_term(acc, w, vcoul, occ, sch, ssx, mat);
        }
      },
      SigmaReducer<NW>(result));
  return to_sums(result);
}

/// Steps v4 (W0 = 0, NW = nw: every frequency in one reduction) and v5 (one frequency
/// W0 per reduction, NW = 1): MDRange<2> over G, G'; the band loop sequential in each
/// thread, so wtilde and I_eps are loaded once per thread.
template <int NW, class ExecSpace>
SigmaAccum<NW> collapse2(const std::string& label, const ExecSpace& space, const DataFor<ExecSpace>& d, const int w0,
                         Tunables& t, const RunMode mode) {
  const Inputs<typename ExecSpace::memory_space> in(d);
  SigmaAccum<NW> result;
  const auto policy = make_mdrange<2>(space, {d.ncouls, d.ngpown}, t);
  if (mode == RunMode::Check) return result;
  Kokkos::parallel_reduce(
      label, policy,
      KOKKOS_LAMBDA(const int ig, const int igp, SigmaAccum<NW>& acc) {
        const complex_t wtilde = in.wtilde_array(ig, igp);
        const complex_t I_eps = in.I_eps_array(ig, igp);
        const double vcoul = in.vcoul_loc(igp);
        // The band loop's sums stay in registers (Kokkos' CUDA MDRange reduction keeps
        // `acc` in shared memory): one update of acc per thread, as OpenACC does.
        SigmaAccum<NW> mine;
        for (int n1 = 0; n1 < in.nbands; ++n1) {
          const complex_t mat = physics::matngmatmgp(in.aqsmtemp_local(igp, n1), in.aqsntemp(ig, n1));
          const double occ = in.occ_array(n1);
          for (int w = 0; w < NW; ++w) {
            complex_t sch, ssx;
            physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, in.wx_array_t(w0 + w, n1), in.limittwo,
                                                        in.sexcut, sch, ssx);
            physics::add_weighted_term(mine, w, vcoul, occ, sch, ssx, mat);
          }
        }
        acc += mine;
      },
      SigmaReducer<NW>(result));
  return result;
}

/// The team body of steps v6..v8 for frequency w: one team per (G', band block); the
/// team's threads sweep G in blocks of ig_block, each thread keeping wtilde and I_eps
/// of its G in registers while it runs over the band block (vector lanes over bands).
template <class Member, class Order>
struct BlockedBody {
  Inputs<typename Member::execution_space::memory_space> in;
  int w, band_block, ig_block;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member, SigmaAccum<1>& acc) const {
    using Scratch = typename Member::execution_space::scratch_memory_space;
    const int igp = member.league_rank() % in.ngpown;  // neighbouring teams share a band block
    const int n_begin = (member.league_rank() / in.ngpown) * band_block;
    const int n_end = n_begin + band_block < in.nbands ? n_begin + band_block : in.nbands;
    SigmaAccum<1> mine;  // this thread's sums over its G and the band block
    for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
      const int ig1 = ig_block < in.ncouls - ig0 ? ig0 + ig_block : in.ncouls;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, ig0, ig1), [&](const int ig) {
        const complex_t wtilde = in.wtilde_array(ig, igp);
        const complex_t I_eps = in.I_eps_array(ig, igp);
        SigmaAccum<1> part;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(member, n_begin, n_end),
            [&](const int n1, SigmaAccum<1>& a) {
              const complex_t mat = physics::matngmatmgp(Order::aqsm(in, igp, n1), in.aqsntemp(ig, n1));
              complex_t sch, ssx;
              physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, Order::wx(in, w, n1), in.limittwo, in.sexcut,
                                                          sch, ssx);
              physics::band_term(in.occ_array(n1), sch, ssx, mat, a.sch[0], a.ssx[0]);
            },
            PlusReducer<SigmaAccum<1>, Scratch>(part));
        mine += part;
      });
    }
    // Every thread of the team contributes its sums once (vector lanes hold copies).
    const SigmaAccum<1> team_total = team_sum(member, mine);
    const double vcoul = in.vcoul_loc(igp);
    Kokkos::single(Kokkos::PerTeam(member), [&]() { physics::add_gp_weighted(acc, team_total, vcoul); });
  }
};

/// Steps v6..v8: BlockedBody for each frequency (one reduction per frequency).
/// LaunchBounds is the v8 register cap (Kokkos::LaunchBounds<512, 1>: 512 threads per
/// block leave 128 registers each); DefaultTeam the step's team size.
template <class Order, class LaunchBounds, int DefaultTeam, class ExecSpace>
SigmaSums blocked(const std::string& label, const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t,
                  const RunMode mode) {
  using Policy = Kokkos::TeamPolicy<ExecSpace, LaunchBounds>;
  const int band_block = or_default(t.band_block, 64);
  const int vector_length = or_default(t.vector_length, 1);
  const int league = d.ngpown * ((d.nbands + band_block - 1) / band_block);
  BlockedBody<typename Policy::member_type, Order> body{Inputs<typename ExecSpace::memory_space>(d), 0, band_block,
                                                        t.ig_block};

  if (vector_length > Policy::vector_length_max() || (vector_length & (vector_length - 1)) != 0)
    throw Error("--vector-length " + std::to_string(vector_length) + " must be a power of two up to " +
                std::to_string(Policy::vector_length_max()) + " on " + ExecSpace::name());
  const int max_team = Policy(space, league, 1, vector_length).team_size_max(body, Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name() + " with --vector-length " +
                std::to_string(vector_length));
  const int team_size = t.team_size > 0 ? t.team_size : std::min(DefaultTeam, max_team);
  // By default one G per thread per block: a smaller block would leave threads idle.
  if (body.ig_block <= 0) body.ig_block = team_size;
  t.band_block = band_block;
  t.ig_block = body.ig_block;
  t.team_size = team_size;
  t.vector_length = vector_length;

  SigmaSums sums{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  if (mode == RunMode::Check) return sums;
  for (int w = 0; w < d.nw; ++w) {
    body.w = w;
    SigmaAccum<1> result;
    Kokkos::parallel_reduce(label, Policy(space, league, team_size, vector_length), body, SigmaReducer<1>(result));
    store(result, sums, w);
  }
  return sums;
}

}  // namespace gpp::kernels
