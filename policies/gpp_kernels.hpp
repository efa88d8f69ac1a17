#pragma once
// Kernel bodies shared by several steps of the paper. Each policy file instantiates one
// of these with its physics form and options; the physics itself is in core/.
#include "gpp_mdrange.hpp"
#include "gpp_physics.hpp"
#include "gpp_reducer.hpp"

#include <algorithm>
#include <string>

namespace gpp::kernels {

/// The views and scalars a kernel reads, captured by value in lambdas.
struct Inputs {
  ViewTypes<DeviceMemory>::ComplexMatrix aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, aqsmtemp_local_bt;
  ViewTypes<DeviceMemory>::RealMatrix wx_array_t, wx_array_bt;
  ViewTypes<DeviceMemory>::RealVector occ_array, vcoul_loc;
  double limittwo, sexcut;
  int nbands, ngpown, ncouls, nw;
  explicit Inputs(const DeviceData& d)
      : aqsntemp(d.aqsntemp), aqsmtemp_local(d.aqsmtemp_local), I_eps_array(d.I_eps_array),
        wtilde_array(d.wtilde_array), aqsmtemp_local_bt(d.aqsmtemp_local_bt), wx_array_t(d.wx_array_t),
        wx_array_bt(d.wx_array_bt), occ_array(d.occ_array), vcoul_loc(d.vcoul_loc), limittwo(d.limittwo),
        sexcut(d.sexcut), nbands(d.nbands), ngpown(d.ngpown), ncouls(d.ncouls), nw(d.nw) {}
};

template <int NW>
SigmaSums to_sums(const SigmaAccum<NW>& a) {
  SigmaSums s{std::vector<std::complex<double>>(NW), std::vector<std::complex<double>>(NW)};
  store(a, s);
  return s;
}

/// Steps v0..v3: MDRange<3> over G, G', band (G fastest, so coalesced on GPUs, as the
/// paper's collapse(3) with G innermost), every frequency inside, one reduction.
template <class Form, int NW>
SigmaSums collapse3(const std::string& label, const ExecSpace& space, const DeviceData& d, const Tunables& t,
                    const RunMode mode) {
  const Inputs in(d);
  SigmaAccum<NW> result;
  const auto policy = make_mdrange<3>(space, {d.ncouls, d.ngpown, d.nbands}, t.tile);
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
          acc.ssx[w] += vcoul * occ * ssx * mat;
          acc.sch[w] += vcoul * sch * mat * 0.5;
        }
      },
      SigmaReducer<NW>(result));
  return to_sums(result);
}

/// Step v4: MDRange<2> over G, G'; the band loop sequential in each thread, so wtilde
/// and I_eps are loaded once per thread; every frequency in one reduction.
template <int NW>
SigmaSums collapse2(const std::string& label, const ExecSpace& space, const DeviceData& d, const Tunables& t,
                    const RunMode mode) {
  const Inputs in(d);
  SigmaAccum<NW> result;
  const auto policy = make_mdrange<2>(space, {d.ncouls, d.ngpown}, t.tile);
  if (mode == RunMode::Check) return to_sums(result);
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
            physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, in.wx_array_t(w, n1), in.limittwo, in.sexcut,
                                                        sch, ssx);
            mine.ssx[w] += vcoul * occ * ssx * mat;
            mine.sch[w] += vcoul * sch * mat * 0.5;
          }
        }
        acc += mine;
      },
      SigmaReducer<NW>(result));
  return to_sums(result);
}

/// Step v5: as v4 for one frequency w; the caller loops over frequencies (one reduction
/// of two complex sums each).
inline SigmaAccum<1> collapse2_one_frequency(const std::string& label, const ExecSpace& space, const Inputs& in,
                                             const int w, const Tunables& t) {
  SigmaAccum<1> result;
  Kokkos::parallel_reduce(
      label, make_mdrange<2>(space, {in.ncouls, in.ngpown}, t.tile),
      KOKKOS_LAMBDA(const int ig, const int igp, SigmaAccum<1>& acc) {
        const complex_t wtilde = in.wtilde_array(ig, igp);
        const complex_t I_eps = in.I_eps_array(ig, igp);
        const double vcoul = in.vcoul_loc(igp);
        SigmaAccum<1> mine;  // in registers, as in v4
        for (int n1 = 0; n1 < in.nbands; ++n1) {
          const complex_t mat = physics::matngmatmgp(in.aqsmtemp_local(igp, n1), in.aqsntemp(ig, n1));
          complex_t sch, ssx;
          physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, in.wx_array_t(w, n1), in.limittwo, in.sexcut, sch,
                                                      ssx);
          mine.ssx[0] += vcoul * in.occ_array(n1) * ssx * mat;
          mine.sch[0] += vcoul * sch * mat * 0.5;
        }
        acc += mine;
      },
      SigmaReducer<1>(result));
  return result;
}

/// Options of the blocked TeamPolicy steps.
struct BlockedOptions {
  bool band_contiguous;  // v7: wx and aqsmtemp_local read from their band-contiguous copies
  int default_team_size;
};

/// The team body of steps v6..v8 for frequency w: one team per (G', band block); the
/// team's threads sweep G in blocks of ig_block, each thread keeping wtilde and I_eps
/// of its G in registers while it runs over the band block.
template <class Member>
struct BlockedBody {
  Inputs in;
  int w, band_block, ig_block;
  bool band_contiguous;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member, SigmaAccum<1>& acc) const {
    using Scratch = typename Member::execution_space::scratch_memory_space;
    const int igp = member.league_rank() % in.ngpown;  // neighbouring teams share a band block
    const int n_begin = (member.league_rank() / in.ngpown) * band_block;
    const int n_end = n_begin + band_block < in.nbands ? n_begin + band_block : in.nbands;
    SigmaAccum<1> mine;  // this thread's sums over its G and the band block
    for (int ig0 = 0; ig0 < in.ncouls; ig0 += ig_block) {
      const int ig1 = ig0 + ig_block < in.ncouls ? ig0 + ig_block : in.ncouls;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, ig0, ig1), [&](const int ig) {
        const complex_t wtilde = in.wtilde_array(ig, igp);
        const complex_t I_eps = in.I_eps_array(ig, igp);
        SigmaAccum<1> part;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(member, n_begin, n_end),
            [&](const int n1, SigmaAccum<1>& a) {
              const complex_t aqsm = band_contiguous ? in.aqsmtemp_local_bt(n1, igp) : in.aqsmtemp_local(igp, n1);
              const double wx = band_contiguous ? in.wx_array_bt(n1, w) : in.wx_array_t(w, n1);
              const complex_t mat = physics::matngmatmgp(aqsm, in.aqsntemp(ig, n1));
              complex_t sch, ssx;
              physics::sigma_term<physics::OptimisedForm>(wtilde, I_eps, wx, in.limittwo, in.sexcut, sch, ssx);
              a.ssx[0] += in.occ_array(n1) * ssx * mat;
              a.sch[0] += sch * mat;
            },
            PlusReducer<SigmaAccum<1>, Scratch>(part));
        mine += part;
      });
    }
    // One contribution per thread (vector lanes hold identical copies of `mine`).
    SigmaAccum<1> team_total;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, member.team_size()), [&](const int, SigmaAccum<1>& a) { a += mine; },
        PlusReducer<SigmaAccum<1>, Scratch>(team_total));
    const double vcoul = in.vcoul_loc(igp);
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      acc.ssx[0] += vcoul * team_total.ssx[0];
      acc.sch[0] += 0.5 * vcoul * team_total.sch[0];
    });
  }
};

/// Steps v6..v8: BlockedBody for each frequency (one reduction per frequency).
/// LaunchBounds is the v8 register cap (Kokkos::LaunchBounds<512, 1>: 512 threads per
/// block leave 128 registers each).
template <class LaunchBounds>
SigmaSums blocked(const std::string& label, const ExecSpace& space, const DeviceData& d, const Tunables& t,
                  const BlockedOptions& opt, const RunMode mode) {
  using Policy = Kokkos::TeamPolicy<ExecSpace, LaunchBounds>;
  const int band_block = or_default(t.band_block, 64);
  const int vector_length = or_default(t.vector_length, 1);
  const int league = d.ngpown * ((d.nbands + band_block - 1) / band_block);
  BlockedBody<typename Policy::member_type> body{Inputs(d), 0, band_block, t.ig_block, opt.band_contiguous};

  if (vector_length > Policy::vector_length_max() || (vector_length & (vector_length - 1)) != 0)
    throw Error("--vector-length " + std::to_string(vector_length) + " must be a power of two up to " +
                std::to_string(Policy::vector_length_max()) + " on " + ExecSpace::name());
  const int max_team = Policy(space, league, 1, vector_length).team_size_max(body, Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name() + " with --vector-length " +
                std::to_string(vector_length));
  const int team_size = t.team_size > 0 ? t.team_size : std::min(opt.default_team_size, max_team);
  // By default one G per thread per block: a smaller block would leave threads idle.
  if (body.ig_block <= 0) body.ig_block = team_size;

  SigmaSums sums{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  if (mode == RunMode::Check) return sums;
  for (int w = 0; w < d.nw; ++w) {
    body.w = w;
    SigmaAccum<1> result;
    Kokkos::parallel_reduce(label, Policy(space, league, team_size, vector_length), body, SigmaReducer<1>(result));
    sums.sch_sum[w] = {result.sch[0].real(), result.sch[0].imag()};
    sums.ssx_sum[w] = {result.ssx[0].real(), result.ssx[0].imag()};
  }
  return sums;
}

}  // namespace gpp::kernels
