// GPU policy beyond the paper (the default on a device). Teams over (G' group, G range,
// band block), threads over the range's G, every frequency of a pass in one kernel (at
// most GPP_MAX_NW: PolicyEntry::run makes the passes), the fused physics
// (core/gpp_physics.hpp: empty_band_unweighted, occupied_band): the (G, G') invariants
// computed once per thread, what depends on (band, G, G') once per band, one real
// reciprocal per term, the regular arm under masks and the near-pole arm where it is due.
//
// Where it departs from v8 (each trade-off is written where the code makes it; what each
// measured is in docs/lab/gpu-tuned.md):
//  - occupied and empty bands in two launches over a band order (band_blocks): the empty
//    bands' kernel has no ssx, so it needs fewer registers and is compiled for more warps
//    per SM (TunedPolicyBounds, gpp_tuned_shape.hpp); neither kernel branches on occ;
//  - the occupied kernel sums sch and Y (physics::occupied_term: ssx's regular arm in
//    partial fractions, half of sch minus a term of sch's shape), and a team turns them
//    into ssx = occ (sch - Y) once; a block of bands therefore never holds two occupations;
//  - K G' per thread (TunedBody). In the occupied kernel the G' weights are folded into
//    each band's terms (0.5 vcoul into I_eps, ssx's vcoul as the ratio 2), so the G' of a
//    thread share one set of accumulators; the empty kernel keeps a sum per G' and
//    frequency without the pair's factor WIw (physics::empty_band_unweighted) and
//    multiplies it by WIw once per block: per band and G' mat and Im(wtilde) mat, 6 FP64
//    operations where U and Im(wtilde) U take 10;
//  - a block's per-band values staged in team scratch memory (TeamScratch);
//  - each (G' group, band block) cut into up to four ranges of G, a team each (g_ranges):
//    shorter teams, and the teams in flight reading fewer of aqsntemp's columns;
//  - the empty kernel's band loop without the regular arm's test where a warp's pairs are
//    regular for every wx of the block (TunedBody::block_regular), two frequencies there
//    sharing one reciprocal, an odd count's first three one (physics::
//    empty_band_unweighted_shared);
//  - a band's terms from U = WIw mat and Im(wtilde) U (physics::band_terms): fewer FP64
//    instructions per band than from mat, and no spills in the empty kernel's checked loop;
//  - the occupied kernel's near-pole arms shared out over the warp (TunedBody::near_pass),
//    and aqsntemp's element two bands ahead prefetched into L1 (TunedBody::bands);
//  - the band loops' bands an iteration from the shape (tuned_shape::split_unroll,
//    occupied_unroll, empty_unroll): on sm_90 two where the launch bounds give a kernel
//    128 registers (two frequencies, and the empty kernel at three), twice the
//    independent work a thread for fewer warps (TunedBody::bands);
//  - in occupied blocks without a wx < 0, passes of at most two frequencies, the regular
//    terms summed as W = U / cden and wx W without the pair's factor WIw
//    (physics::occupied_band_split: 14 FP64 operations a term where occupied_term<false>
//    takes 19, and 6 a band and G' where 10), turned into sch and Y at the end of each run;
//  - on a GPU, the occupied blocks with a wx < 0 in a launch of their own where they fill
//    several waves of the device (si510, not si214): each of the two kernels then has the
//    registers for its own band loop (tuned(), kSeparateWaves; the param occupied, which
//    also takes one or separate on any space);
//  - the sexcut test and Y's choice of term only in occupied blocks with a wx < 0, which
//    band_blocks packs into as few blocks as it can (physics::occupied_term<false>
//    elsewhere, whose sums are FMAs under the regular arm's predicate; with the test, the
//    arm's mask applied once, to 1/|cden|^2); a term off the regular arm flagged for the
//    near-pole pass, which tells the near-pole arm from the zero arm;
//  - conj(wdiff) U and conj(wsum) U as FMAs on dr and sr (backend::mul_add): left to
//    itself nvcc fuses the per-band product Im(wtilde) U instead and leaves a
//    multiplication a term.
#include "gpp_kernels.hpp"
#include "gpp_tuned_shape.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpp {

std::vector<ParamSpec> tuned_params();

namespace {

using namespace tuned_shape;

template <class MemorySpace>
using BandOrder = Kokkos::View<int*, MemorySpace>;

// The bands in the order the kernels take them, and their blocks.
template <class MemorySpace>
struct BandBlocks {
  BandOrder<MemorySpace> order;  // the occupied bands' blocks, then the empty bands'
  BandOrder<MemorySpace> start;  // block b holds order(start(b) .. start(b+1)-1)
  BandOrder<MemorySpace> cut;    // 1 where block b holds a wx < 0 (the sexcut test may apply)
  int occupied_plain = 0;        // blocks 0 .. occupied_plain-1: occupied, without a wx < 0
  int occupied_blocks = 0, blocks = 0;
};

// Occupied bands first, grouped by occupation (largest first), in each group those whose
// every wx is >= 0 first (then the others; each in increasing band order), then the empty
// ones in increasing order; blocks of at most band_block bands, none across two
// occupations: the occupied kernel applies the block's occupation once, to its sums
// (physics::occupied_term). An occupied block without a wx < 0 leaves the sexcut test out
// (physics::occupied_term<false>); the order packs the bands that need it (those below
// the state, states with E_n > E) into as few blocks as it can (2 of si214's 6 occupied
// blocks at 96 bands per block, 3 of 15 at 32, where the bands in their own order, a
// permutation of the energies, put one in every block). The occupied blocks without a wx < 0
// then come first, in that order, then those with one: a kernel may take either kind alone
// (tuned()).
//
// Every copy here runs on `space` and is fenced there, never through Kokkos' global fence
// (deep_copy without a space): the next G' chunk's copy, on an instance of its own, must
// keep running beside this kernel (session/gpp_chunks.hpp).
template <class ExecSpace, class MemorySpace>
BandBlocks<MemorySpace> band_blocks(const ExecSpace& space, const GppData<MemorySpace>& d, const int band_block) {
  const auto occ = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.occ_array);
  const auto wx = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.wx_array_bt);
  Kokkos::deep_copy(space, occ, d.occ_array);
  Kokkos::deep_copy(space, wx, d.wx_array_bt);
  space.fence();
  std::vector<int> negative(d.nbands, 0);
  for (int n = 0; n < d.nbands; ++n)
    for (int w = 0; w < d.nw; ++w) negative[n] |= wx(n, w) < 0.0;
  std::vector<int> order;
  for (int n = 0; n < d.nbands; ++n)
    if (occ(n) != 0.0) order.push_back(n);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return occ(x) > occ(y) || (occ(x) == occ(y) && negative[x] < negative[y]); });
  const int n_occupied = int(order.size());
  for (int n = 0; n < d.nbands; ++n)
    if (occ(n) == 0.0) order.push_back(n);
  std::vector<int> start;
  int occupied_blocks = 0;
  for (int k = 0; k < d.nbands; ++k) {
    const bool first_empty = k == n_occupied;
    if (k == 0 || first_empty || k - start.back() == band_block ||
        (k < n_occupied && !(occ(order[k]) == occ(order[start.back()]))))
      start.push_back(k);
    if (k < n_occupied) occupied_blocks = int(start.size());
  }
  start.push_back(d.nbands);
  const int blocks = int(start.size()) - 1;
  std::vector<int> cut(blocks, 0);
  for (int b = 0; b < blocks; ++b)
    for (int k = start[b]; k < start[b + 1]; ++k) cut[b] |= negative[order[k]];
  // One array on the device, one allocation and one copy a call: the blocks' bands (order),
  // where each block starts (blocks + 1) and its cut flag (blocks), the occupied blocks
  // without a wx < 0 moved ahead of those with one.
  std::vector<int> packed;
  packed.reserve(d.nbands + 2 * blocks + 1);
  std::vector<int> packed_start, packed_cut;
  const auto take = [&](const int b) {
    packed_start.push_back(int(packed.size()));
    packed.insert(packed.end(), order.begin() + start[b], order.begin() + start[b + 1]);
    packed_cut.push_back(cut[b]);
  };
  for (int b = 0; b < occupied_blocks; ++b)
    if (!cut[b]) take(b);
  const int occupied_plain = int(packed_start.size());
  for (int b = 0; b < occupied_blocks; ++b)
    if (cut[b]) take(b);
  for (int b = occupied_blocks; b < blocks; ++b) take(b);
  packed_start.push_back(d.nbands);
  packed.insert(packed.end(), packed_start.begin(), packed_start.end());
  packed.insert(packed.end(), packed_cut.begin(), packed_cut.end());
  const BandOrder<MemorySpace> all(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::tuned::band_blocks"),
                                   packed.size());
  using HostInts = Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(space, all, HostInts(packed.data(), packed.size()));
  space.fence();  // before the host vector goes
  BandBlocks<MemorySpace> r;
  r.occupied_plain = occupied_plain;
  r.occupied_blocks = occupied_blocks;
  r.blocks = blocks;
  const std::size_t nb = std::size_t(d.nbands), ns = std::size_t(blocks) + 1;
  r.order = Kokkos::subview(all, Kokkos::make_pair(std::size_t(0), nb));
  r.start = Kokkos::subview(all, Kokkos::make_pair(nb, nb + ns));
  r.cut = Kokkos::subview(all, Kokkos::make_pair(nb + ns, packed.size()));
  return r;
}

// The G ranges each (G' group, band block) is cut into, a team per range: `count` ranges
// of `len` G (a multiple of the team, the last one shorter), from `asked` (a power of two:
// where G are few, count is smaller).
struct GRanges {
  int asked = 1, count = 1, len = 0;
};

// g_ranges=auto on a GPU: the fewest ranges, at most kMaxAutoRanges, whose aqsntemp columns
// of a band block fit kRangeL2Share of the L2 (tuned_shape::ranges_fit). Shorter teams leave
// less of each kernel's last wave idle, and the teams in flight (neighbours share a block
// and a range) read fewer distinct columns than when each sweeps every G of its block; more
// than four ranges cost more than they gave (what each measured: docs/lab/gpu-tuned.md).
// Host spaces: one range. g_ranges: auto, or a power of two (tuned_params).
template <class ExecSpace>
GRanges g_ranges(const ExecSpace& space, const std::string& value, const int ncouls, const int block,
                 const int team_size) {
  GRanges r;
  if (value != "auto") {
    r.asked = std::stoi(value);
  } else if constexpr (kind_of<ExecSpace>() == SpaceKind::Device) {
    static_assert(sizeof(complex_t) == 16, "ranges_fit counts 16 bytes an element of aqsntemp");
    const double l2 = backend::properties(space).l2_bytes;
    while (r.asked < kMaxAutoRanges && !ranges_fit(ncouls, block, r.asked, l2)) r.asked *= 2;
  }
  (void)space;
  const int per = (ncouls + r.asked - 1) / r.asked;
  r.len = (per + team_size - 1) / team_size * team_size;
  r.count = (ncouls + r.len - 1) / r.len;
  return r;
}

// Waves of teams (the device's multiprocessors times the occupied kernel's teams on each)
// the occupied blocks with a wx < 0 must fill to get a kernel of their own (the param
// occupied=auto), counted in teams over every G of a block (one G range), as measured.
constexpr double kSeparateWaves = 4.0;

// A team's scratch memory, carved here and nowhere else: the kernel takes these arrays in
// this order, and `bytes` (the launch's request) sizes the same arrays from the same counts.
//  - staged: per band of the block wx(NW), occ, aqsm of the K G' (re, im), `stride` values;
//    after the last band the range of the block's wx at each frequency (lo, hi);
//  - staged_off: where each band's column of aqsntemp starts, in bytes from column 0 (a
//    thread adds it to its G's address: one instruction where the index arithmetic of
//    aqsntemp(ig, n) took ten), with two entries more than the block's bands (the last band
//    again), so that the next band's load and the prefetch of the one after it need no test;
//  - staged_i: whether each wx < 0 (the sexcut test's condition), `int_stride` ints a band;
//  - occupied bands only, the near-pole pass's: pair_slots, per thread and G' j, wtilde and
//    Iw at (c + 4 j) * team + rank (c = 0..3: Re, Im wtilde, Re, Im Iw); ig_slot, each
//    thread's G; queue, kOccupiedRun entries per thread.
template <int NW, int K, bool Occupied, class Scratch>
struct TeamScratch {
  static constexpr int stride = NW + 1 + 2 * K, int_stride = NW;
  using Doubles = Kokkos::View<double*, Scratch, Kokkos::MemoryUnmanaged>;
  using Offsets = Kokkos::View<std::int64_t*, Scratch, Kokkos::MemoryUnmanaged>;
  using Ints = Kokkos::View<int*, Scratch, Kokkos::MemoryUnmanaged>;
  using Queue = Kokkos::View<std::uint16_t*, Scratch, Kokkos::MemoryUnmanaged>;

  // Each array's length for a block of `bands` bands and a team of `team` threads (I: int in
  // the kernel, std::size_t for the request).
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I staged_count(const I bands) {
    return bands * stride + 2 * NW;
  }
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I offset_count(const I bands) {
    return bands + 2;
  }
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I sign_count(const I bands) {
    return bands * int_stride;
  }
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I slot_count(const I team) {
    return Occupied ? team * 4 * K : 0;
  }
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I ig_count(const I team) {
    return Occupied ? team : 0;
  }
  template <class I>
  KOKKOS_FORCEINLINE_FUNCTION static I queue_count(const I team) {
    return Occupied ? team * kOccupiedRun : 0;
  }

  // Bytes per team (Kokkos pads each array to its alignment).
  static std::size_t bytes(const int bands, const int team) {
    const std::size_t b = bands, t = team;
    const std::size_t near = Occupied ? Doubles::shmem_size(slot_count(t)) + Ints::shmem_size(ig_count(t)) +
                                            Queue::shmem_size(queue_count(t))
                                      : 0;
    return Doubles::shmem_size(staged_count(b)) + Offsets::shmem_size(offset_count(b)) +
           Ints::shmem_size(sign_count(b)) + near;
  }

  Doubles staged;
  Offsets staged_off;
  Ints staged_i;
  Doubles pair_slots;
  Ints ig_slot;
  Queue queue;
  double* wx_range;  // (lo, hi) of frequency w at 2 w, 2 w + 1
  int team;

  KOKKOS_FORCEINLINE_FUNCTION TeamScratch(const Scratch& space, const int bands, const int team_size)
      : staged(space, staged_count(bands)), staged_off(space, offset_count(bands)), staged_i(space, sign_count(bands)),
        pair_slots(space, slot_count(team_size)), ig_slot(space, ig_count(team_size)),
        queue(space, queue_count(team_size)), wx_range(&staged(bands * stride)), team(team_size) {}

  KOKKOS_FORCEINLINE_FUNCTION const double* band(const int i) const { return &staged(i * stride); }
  KOKKOS_FORCEINLINE_FUNCTION double& pair_slot(const int c, const int j, const int rank) const {
    return pair_slots((c + 4 * j) * team + rank);
  }
};

// aqsntemp's element of a band for the G whose column-0 address is `an`.
KOKKOS_FORCEINLINE_FUNCTION complex_t aqsn_at(const char* const an, const std::int64_t offset) {
  return *reinterpret_cast<const complex_t*>(an + offset);
}

// What a thread's band loop reads besides the staged values: where its G's elements of
// aqsntemp start, its G, its rank in the team, the team's G' group and the block's bands.
struct ThreadG {
  const char* an;
  int ig, me, g, nb, end;  // end: one past the team's last G (its G range's)
  double cut16;
};

template <bool Occupied, int NW>
using TunedPolicyBounds = Kokkos::LaunchBounds<kMaxTeam, Occupied ? occupied_blocks(NW) : empty_blocks(NW)>;

// One team's sums: a G' group of K G' per thread (aqsntemp(G, band) is loaded once for all
// of them, and their terms are independent chains) over one block of bands, all occupied or
// all empty (Occupied), the team's threads over G. The pieces below are what operator()
// composes; all are inlined into the kernel. Kind: which occupied blocks the kernel takes
// (tuned() chooses): both kinds, each taking the sexcut test where it holds a wx < 0, or one
// kind in a kernel of its own, whose registers serve that kind's band loop alone.
enum class Blocks { Both, Plain, Cut };
template <int NW, bool Occupied, Blocks Kind, class ExecSpace>
struct TunedBody {
  static constexpr int K = Occupied ? kOccupiedGp : kEmptyGp;
  using MemorySpace = typename ExecSpace::memory_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace, TunedPolicyBounds<Occupied, NW>>;
  using Member = typename Policy::member_type;
  using ScratchSpace = typename ExecSpace::scratch_memory_space;
  using Scratch = TeamScratch<NW, K, Occupied, ScratchSpace>;

  kernels::Inputs<MemorySpace> in;
  BandOrder<MemorySpace> order, start, block_cut;  // BandBlocks' order, start and cut
  std::int64_t column_bytes;  // aqsntemp(ig, n) at (ig + n * column) elements from aqsntemp(0, 0) (LayoutLeft)
  int groups, b_begin, band_block;
  int ranges, range_len;  // the G ranges of a (G' group, band block): a team takes one

  // The group's G' (past ngpown: the last G' again, with weight 0).
  KOKKOS_FORCEINLINE_FUNCTION void group_gp(const int g, int (&igp)[K], double (&vcoul)[K]) const {
    for (int j = 0; j < K; ++j) {
      const int q = g * K + j;
      igp[j] = q < in.ngpown ? q : in.ngpown - 1;
      vcoul[j] = q < in.ngpown ? in.vcoul_loc(igp[j]) : 0.0;
    }
  }

  // The block's bands order(kb .. kb + nb - 1) staged, by the whole team.
  KOKKOS_FORCEINLINE_FUNCTION void stage(const Member& member, const Scratch& s, const int kb, const int nb,
                                         const int (&igp)[K]) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nb), [&](const int i) {
      const int n1 = order(kb + i);
      s.staged_off(i) = n1 * column_bytes;
      if (i == nb - 1) s.staged_off(i + 1) = s.staged_off(i + 2) = n1 * column_bytes;
      double* v = &s.staged(i * Scratch::stride);
      for (int w = 0; w < NW; ++w) {
        v[w] = in.wx_array_bt(n1, w);
        s.staged_i(i * Scratch::int_stride + w) = v[w] < 0.0;
      }
      v[NW] = in.occ_array(n1);
      for (int j = 0; j < K; ++j) {
        const complex_t m = in.aqsmtemp_local_bt(n1, igp[j]);
        v[NW + 1 + 2 * j] = m.real();
        v[NW + 2 + 2 * j] = m.imag();
      }
    });
  }

  // Empty bands: the range of the block's wx at each frequency, by the team's first thread.
  KOKKOS_FORCEINLINE_FUNCTION void stage_wx_range(const Member& member, const Scratch& s, const int nb) const {
    if (member.team_rank() == 0)
      for (int w = 0; w < NW; ++w) {
        double lo = s.staged(w), hi = s.staged(w);
        for (int i = 1; i < nb; ++i) {
          const double x = s.staged(i * Scratch::stride + w);
          lo = x < lo ? x : lo;
          hi = x > hi ? x : hi;
        }
        s.wx_range[2 * w] = lo;
        s.wx_range[2 * w + 1] = hi;
      }
  }

  // The (G, G') invariants of a thread's G and the group's G', computed once per thread;
  // sch's G' weight 0.5 vcoul folded in (ssx's: vcoul, ratio 2). Occupied bands also leave
  // them, and the G, where the near-pole pass of another thread of the warp reads them.
  KOKKOS_FORCEINLINE_FUNCTION void pair_terms(const Scratch& s, const int ig, const int me, const int (&igp)[K],
                                              const double (&vcoul)[K], physics::PairTerms (&p)[K]) const {
    for (int j = 0; j < K; ++j)
      p[j] = physics::pair_terms(in.wtilde_array(ig, igp[j]), in.I_eps_array(ig, igp[j]), in.sexcut, in.limittwo,
                                 0.5 * vcoul[j]);
    if constexpr (Occupied) {
      for (int j = 0; j < K; ++j) {
        s.pair_slot(0, j, me) = p[j].wr;
        s.pair_slot(1, j, me) = p[j].wi;
        s.pair_slot(2, j, me) = p[j].Iw.real();
        s.pair_slot(3, j, me) = p[j].Iw.imag();
      }
      s.ig_slot(me) = ig;
    }
  }

  // Empty bands: whether the regular arm's test can be left out of the band loop, which
  // takes the test's instructions out of nearly every band: every term of the warp's pairs
  // is regular for every wx in the block's range (physics::empty_block_regular; so for every
  // empty block of si214, si510 and the mini-app deck), a vote, so that the whole warp takes
  // one branch. With two frequencies or more, also every |wdiff|^2 in the range where the
  // frequencies may share reciprocals (physics::empty_block_shared).
  KOKKOS_FORCEINLINE_FUNCTION bool block_regular(const Scratch& s, const physics::PairTerms (&p)[K]) const {
    bool regular = true;
    for (int j = 0; j < K; ++j)
      for (int w = 0; w < NW; ++w)
        regular = regular & (NW > 1 ? physics::empty_block_shared<NW>(p[j], s.wx_range[2 * w], s.wx_range[2 * w + 1])
                                    : physics::empty_block_regular(p[j], s.wx_range[2 * w], s.wx_range[2 * w + 1]));
    return backend::warp_all(regular);
  }

  // The near-pole arms of an occupied run (the set bits of near_bits, physics::occupied_band),
  // gathered: a warp whose threads are all here (backend::warp_together) queues its set bits
  // of a G' and frequency in team scratch (each thread's at its place in the warp's count,
  // warp_exclusive_sum) and its threads take the queue's entries in turn, so that a warp
  // computes ceil(flagged / 32) arms where the thread with the most (about 3 times as many on
  // si214's data) set the pace. Any thread may add any arm to its sum (the team adds them
  // all), from the arm's thread's slots. Elsewhere (a warp cut short by the range's end, a
  // host thread) a thread computes its own.
  KOKKOS_FORCEINLINE_FUNCTION void near_pass(const Scratch& s, const ThreadG& t, const int r0,
                                             const unsigned (&near_bits)[K][NW], SigmaAccum<NW>& mine) const {
    const int me = t.me, team = s.team;
    const int first = me - me % backend::kWarpLanes;
    const bool together = backend::warp_together(
        me, first + backend::kWarpLanes <= team && t.ig - (me - first) + backend::kWarpLanes <= t.end);
    const int width = together ? backend::kWarpLanes : 1, base = together ? first : me;
    for (int j = 0; j < K; ++j)
      for (int w = 0; w < NW; ++w) {
        // (the padding's G' has weight 0: its near-pole arms are not computed)
        const unsigned bits = t.g * K + j < in.ngpown ? near_bits[j][w] : 0u;
        const int count = compat::popcount(bits);
        int total = count;
        int at = together ? backend::warp_exclusive_sum(count, total) : 0;
        for (unsigned m = bits; m != 0u; m &= m - 1u)
          s.queue(base * kOccupiedRun + at++) = std::uint16_t((me - base) * kOccupiedRun + compat::countr_zero(m));
        if (together) backend::warp_sync();
        for (int k = me - base; k < total; k += width) {
          const int entry = s.queue(base * kOccupiedRun + k);
          const int src = base + entry / kOccupiedRun, i = r0 + entry % kOccupiedRun;
          const double* v = s.band(i);
          const complex_t aqsm(v[NW + 1 + 2 * j], v[NW + 2 + 2 * j]);
          const complex_t Iw(s.pair_slot(2, j, src), s.pair_slot(3, j, src));
          const char* const a = reinterpret_cast<const char*>(in.aqsntemp.data() + s.ig_slot(src));
          const complex_t aqsn = aqsn_at(a, s.staged_off(i));
          mine.ssx[w] -=
              physics::near_pole_of_band(s.pair_slot(0, j, src), s.pair_slot(1, j, src), Iw, aqsm, aqsn, v[w], t.cut16);
        }
        if (together) backend::warp_sync();  // before the queue is written again
      }
  }

  // A thread's band loop over the block. Tested: occupied bands, the sexcut test (a block
  // with a wx < 0); empty bands, the regular arm's test. Occupied bands go in runs of at
  // most kOccupiedRun bands, each followed by its near-pole pass; empty bands in one run, each G''s
  // sums without its factor WIw (physics::empty_band_unweighted) in `part`. `next` holds
  // the first band's element of aqsntemp.
  template <bool Tested>
  KOKKOS_FORCEINLINE_FUNCTION void bands(const Scratch& s, const ThreadG& t, const physics::PairTerms (&p)[K],
                                         complex_t& next, complex_t (&part)[K][NW], SigmaAccum<NW>& mine) const {
    const int nb = t.nb;
    const int run = Occupied ? kOccupiedRun : nb;
    // occupied blocks without a wx < 0: the regular terms' sums in the split form
    // (physics::occupied_band_split), folded into sch and Y at the end of each run, for
    // passes of at most kSplitMaxNw frequencies
    constexpr bool split = Occupied && !Tested && NW <= kSplitMaxNw;
    [[maybe_unused]] physics::PairSplit q[K];
    if constexpr (split)
      for (int j = 0; j < K; ++j) q[j] = physics::pair_split(p[j]);
    // Bands an iteration of this loop: the shape's (tuning/<arch>.json, where each value's
    // measurement is named): more independent chains a thread where the launch bounds give
    // the registers to hold them without a spill.
    [[maybe_unused]] constexpr int unroll = split      ? split_unroll(NW)
                                            : Occupied ? occupied_unroll(NW)
                                                       : empty_unroll(NW);
    for (int r0 = 0; r0 < nb; r0 += run) {
      const int r1 = nb < r0 + run ? nb : r0 + run;
      unsigned near_bits[K][NW];
      for (int j = 0; j < K; ++j)
        for (int w = 0; w < NW; ++w) near_bits[j][w] = 0u;
      [[maybe_unused]] complex_t a_acc[K][NW], b_acc[K][NW];
      if constexpr (split)
        for (int j = 0; j < K; ++j)
          for (int w = 0; w < NW; ++w) a_acc[j][w] = b_acc[j][w] = complex_t(0.0, 0.0);
      unsigned bit = 1u;  // the band's bit in near_bits (shifted a band at a time: one instruction)
      GPP_CUDA_UNROLL(unroll)
      for (int i = r0; i < r1; ++i, bit <<= 1) {
        const complex_t aqsn = next;
        backend::prefetch_l1(t.an + s.staged_off(i + 2));
        const double* v = s.band(i);
        // occupied bands: each G''s mat first, which frees aqsn's registers early;
        // ptxas still issues the next band's load late in the band (at 128
        // registers), hence the prefetch above (no register waits on it)
        [[maybe_unused]] complex_t mat[K];
        if constexpr (Occupied)
          for (int j = 0; j < K; ++j)
            mat[j] = physics::matngmatmgp(complex_t(v[NW + 1 + 2 * j], v[NW + 2 + 2 * j]), aqsn);
        next = aqsn_at(t.an, s.staged_off(i + 1));
        const int* neg = &s.staged_i(i * Scratch::int_stride);
        // (no lambda inside the if constexpr below: nvcc 13 rejects one in the discarded
        // branch of an extended lambda, and this loop must stay free to move into one)
        const auto wx = [&](const int w) { return v[w]; };
        const auto wx_negative = [&](const int w) { return neg[w] != 0; };
        for (int j = 0; j < K; ++j) {
          if constexpr (split) {
            physics::occupied_band_split(q[j], mat[j], wx, a_acc[j], b_acc[j], near_bits[j], bit);
          } else if constexpr (Occupied) {
            physics::occupied_band<Tested>(p[j], mat[j], wx, wx_negative, mine, near_bits[j], bit);
          } else {
            const complex_t aqsm(v[NW + 1 + 2 * j], v[NW + 2 + 2 * j]);
            if constexpr (Tested || NW == 1)
              physics::empty_band_unweighted<Tested>(p[j], aqsm, aqsn, wx, part[j]);
            else
              physics::empty_band_unweighted_shared(p[j], aqsm, aqsn, wx, part[j]);
          }
        }
      }
      if constexpr (split)  // each G''s wtilde and WIw from the pair's slots (read once a run)
        for (int j = 0; j < K; ++j) {
          const complex_t wtilde(s.pair_slot(0, j, t.me), s.pair_slot(1, j, t.me));
          const complex_t WIw = wtilde * complex_t(s.pair_slot(2, j, t.me), s.pair_slot(3, j, t.me));
          for (int w = 0; w < NW; ++w)
            physics::occupied_split_fold(WIw, wtilde, a_acc[j][w], b_acc[j][w], mine.sch[w], mine.ssx[w]);
        }
      if constexpr (Occupied) near_pass(s, t, r0, near_bits, mine);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member, SigmaAccum<NW>& acc) const {
    // Neighbouring teams share a band block and a G range (g_ranges).
    const int g = member.league_rank() % groups;
    const int range = (member.league_rank() / groups) % ranges;
    const int block = b_begin + member.league_rank() / groups / ranges;
    const int ig0 = range * range_len, ig1 = in.ncouls < ig0 + range_len ? in.ncouls : ig0 + range_len;
    const int kb = start(block), ke = start(block + 1);
    const bool block_has_cut = block_cut(block) != 0;  // read by the kernel of both kinds alone
    int igp[K];
    double vcoul[K];
    group_gp(g, igp, vcoul);
    const Scratch scratch(member.team_scratch(0), band_block, member.team_size());
    const int me = member.team_rank();
    stage(member, scratch, kb, ke - kb, igp);
    member.team_barrier();
    if constexpr (!Occupied) {
      stage_wx_range(member, scratch, ke - kb);
      member.team_barrier();
    }
    const double cut16 = 16.0 * in.sexcut * in.sexcut;
    SigmaAccum<NW> team_total;  // weighted sch*mat and occ*ssx*mat over the team's G, G' and bands
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, ig0, ig1),
        [&](const int ig, SigmaAccum<NW>& mine) {
          physics::PairTerms p[K];
          pair_terms(scratch, ig, me, igp, vcoul, p);
          // aqsntemp(G, band) comes from L2 (each element is read once per G' group): the
          // next band's element is loaded before this band is computed (past the block's
          // last band the last one again, staged_off's extra entries: no test), and the
          // one two bands ahead is prefetched into L1.
          const ThreadG t{reinterpret_cast<const char*>(in.aqsntemp.data() + ig), ig, me, g, ke - kb, ig1, cut16};
          complex_t next = aqsn_at(t.an, scratch.staged_off(0));
          [[maybe_unused]] complex_t part[K][NW];
          if constexpr (!Occupied)
            for (int j = 0; j < K; ++j)
              for (int w = 0; w < NW; ++w) part[j][w] = complex_t(0.0, 0.0);
          if constexpr (Occupied && Kind == Blocks::Both) {  // the sexcut test where the block has a wx < 0
            if (block_has_cut)                               // (the whole team's branch)
              bands<true>(scratch, t, p, next, part, mine);
            else
              bands<false>(scratch, t, p, next, part, mine);
          } else if constexpr (Occupied) {
            bands<Kind == Blocks::Cut>(scratch, t, p, next, part, mine);
          } else {
            if (block_regular(scratch, p))
              bands<false>(scratch, t, p, next, part, mine);
            else
              bands<true>(scratch, t, p, next, part, mine);
            for (int j = 0; j < K; ++j)
              for (int w = 0; w < NW; ++w) mine.sch[w] += p[j].WIw * part[j][w];
          }
        },
        PlusReducer<SigmaAccum<NW>, ScratchSpace>(team_total));
    // Occupied bands: team_total.ssx holds Y (physics::occupied_term); the block has one
    // occupation (band_blocks) and the ssx weight vcoul is 2 sch weights.
    if constexpr (Occupied)
      for (int w = 0; w < NW; ++w)
        team_total.ssx[w] = physics::occupied_ssx(team_total.sch[w], team_total.ssx[w], scratch.staged(NW), 2.0);
    Kokkos::single(Kokkos::PerTeam(member), [&]() { acc += team_total; });
  }
};

// The sums over the bands of blocks b_begin .. b_end-1, all occupied or all empty, weighted.
template <int NW, bool Occupied, Blocks Kind, class ExecSpace>
SigmaAccum<NW> tuned_part(const ExecSpace& space, const kernels::Inputs<typename ExecSpace::memory_space>& in,
                          const BandBlocks<typename ExecSpace::memory_space>& blocks, const int b_begin,
                          const int b_end, const int band_block, const int team_size, const GRanges& r) {
  using Body = TunedBody<NW, Occupied, Kind, ExecSpace>;
  SigmaAccum<NW> result;
  if (b_end <= b_begin) return result;
  const int groups = (in.ngpown + Body::K - 1) / Body::K;
  const int league = groups * (b_end - b_begin) * r.count;
  const Body body{in,
                  blocks.order,
                  blocks.start,
                  blocks.cut,
                  std::int64_t(in.aqsntemp.stride(1)) * std::int64_t(sizeof(complex_t)),
                  groups,
                  b_begin,
                  band_block,
                  r.count,
                  r.len};
  auto policy = typename Body::Policy(space, league, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Body::Scratch::bytes(band_block, team_size)));
  Kokkos::parallel_reduce(!Occupied             ? "gpp::tuned(empty)"
                          : Kind == Blocks::Cut ? "gpp::tuned(occupied, sexcut)"
                                                : "gpp::tuned(occupied)",
                          policy, body, SigmaReducer<NW>(result));
  return result;
}

template <int NW, class ExecSpace>
SigmaSums tuned(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  // Both kernels launch kMaxTeam-thread teams at most (their launch bounds).
  using Policy = Kokkos::TeamPolicy<ExecSpace, TunedPolicyBounds<false, NW>>;
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  // No band block given: on a GPU the shape's choice for this deck's G and the L2
  // (tuned_shape::default_band_block), on a host the file's.
  int auto_block = kDefaultBandBlock;
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Device)
    auto_block = default_band_block(d.ncouls, backend::properties(space).l2_bytes);
  const int band_block = or_default(t.band_block, auto_block);
  // A block never holds more bands than the deck: the kernels use the smaller (so that
  // k + band_block cannot overflow), and its per-band values must fit in team scratch.
  const int block = band_block < d.nbands ? band_block : d.nbands;
  const int max_team = Policy(space, 1, 1)
                           .team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&, SigmaAccum<NW>&){},
                                          Kokkos::ParallelReduceTag());
  if (t.team_size > max_team)
    throw Error("--team-size " + std::to_string(t.team_size) + " exceeds the " + std::to_string(max_team) +
                " threads this kernel can launch on " + ExecSpace::name());
  const int team_size = t.team_size > 0 ? t.team_size : (kDefaultTeamSize < max_team ? kDefaultTeamSize : max_team);
  const std::size_t scratch_empty = TunedBody<NW, false, Blocks::Both, ExecSpace>::Scratch::bytes(block, team_size);
  const std::size_t scratch_occupied = TunedBody<NW, true, Blocks::Both, ExecSpace>::Scratch::bytes(block, team_size);
  const std::size_t scratch = scratch_empty > scratch_occupied ? scratch_empty : scratch_occupied;
  const std::size_t scratch_max = Policy::scratch_size_max(0);
  if (scratch > scratch_max)
    throw Error("--band-block " + std::to_string(band_block) + ": tuned stages " + std::to_string(block) +
                " bands' values in team scratch memory, " + std::to_string(scratch) +
                " bytes per team, more than the " + std::to_string(scratch_max) + " " + ExecSpace::name() +
                " allows; take a smaller band block");
  t.band_block = band_block;
  t.team_size = team_size;
  // check_tunables has checked the values; occupied is written back as given (auto: the
  // choice below), g_ranges as resolved (auto: the count it took, which a run given it
  // repeats)
  const std::vector<ParamSpec> specs = tuned_params();
  const std::string occupied = param_value(t, specs[0]);
  const GRanges ranges = g_ranges(space, param_value(t, specs[1]), d.ncouls, block, team_size);
  t.params = {{specs[0].name, occupied}, {specs[1].name, std::to_string(ranges.asked)}};
  SigmaAccum<NW> result;
  if (mode == RunMode::Check) return kernels::to_sums(result);
  const auto blocks = band_blocks(space, d, block);
  // occupied=auto: the occupied blocks with a wx < 0 in a kernel of their own where their
  // teams fill at least kSeparateWaves waves of the device: there the band loop of each
  // kernel runs without the spills it has in a kernel that holds both; where they fill
  // fewer, the last wave, partly empty, costs more than that (docs/lab/gpu-tuned.md). Host
  // spaces have no waves: one kernel.
  bool separate = occupied == "separate";
  if constexpr (kind_of<ExecSpace>() == SpaceKind::Device)
    if (occupied == "auto") {
      const double groups = (in.ngpown + kOccupiedGp - 1) / kOccupiedGp;
      const double cut_teams = groups * (blocks.occupied_blocks - blocks.occupied_plain);
      const double resident = double(backend::properties(space).units) * occupied_blocks(NW) * (kMaxTeam / team_size);
      separate = blocks.occupied_plain > 0 && cut_teams >= kSeparateWaves * resident;
    }
  if (separate) {
    result +=
        tuned_part<NW, true, Blocks::Plain>(space, in, blocks, 0, blocks.occupied_plain, block, team_size, ranges);
    result += tuned_part<NW, true, Blocks::Cut>(space, in, blocks, blocks.occupied_plain, blocks.occupied_blocks, block,
                                                team_size, ranges);
  } else {
    result +=
        tuned_part<NW, true, Blocks::Both>(space, in, blocks, 0, blocks.occupied_blocks, block, team_size, ranges);
  }
  result += tuned_part<NW, false, Blocks::Both>(space, in, blocks, blocks.occupied_blocks, blocks.blocks, block,
                                                team_size, ranges);
  return kernels::to_sums(result);
}

}  // namespace

// tuned's params (policies/registry.cpp), the default first.
std::vector<ParamSpec> tuned_params() {
  return {{"occupied",
           {"auto", "one", "separate"},
           "the occupied bands' kernels: auto (on a GPU, the blocks with a negative frequency in a kernel of their own "
           "where they fill four waves of the device, else one), one (one kernel takes every occupied block), "
           "separate (the blocks with a negative frequency in a kernel of their own)"},
          {"g_ranges",
           {"auto", "1", "2", "4", "8", "16", "32"},
           "the G ranges a band block is cut into, a team per range: auto (on a GPU the fewest, at most 4, whose "
           "aqsntemp columns of a block fit a quarter of its L2; on a host one), or that many"}};
}

template <class ExecSpace>
SigmaSums run_tuned(const ExecSpace& space, const DataFor<ExecSpace>& d, Tunables& t, const RunMode mode) {
  return dispatch_nw(d.nw, [&](auto nw) { return tuned<decltype(nw)::value>(space, d, t, mode); });
}
GPP_INSTANTIATE_RUNNER(run_tuned)

}  // namespace gpp
