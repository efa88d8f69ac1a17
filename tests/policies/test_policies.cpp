// Every registered policy, on every execution space of the build, against the host
// reference (or the closed form) on decks chosen to break the usual mistakes: permuted
// maps with a skipped G', one frequency, every band occupied, sizes no block divides,
// constant data, and 9 and 32 frequencies (more than GPP_MAX_NW: passes).
#include "gpp_backend.hpp"
#include "gpp_host_shape.hpp"
#include "gpp_policy.hpp"
#include "gpp_reference.hpp"
#include "gpp_test_util.hpp"
#include "gpp_tuning_defaults.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>

namespace gpp::test {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Registry.UnknownPolicyIsAnError");

namespace {

struct Problem {
  DeckParams params;
  InputDeck input;
  std::unique_ptr<SpaceData> data;
  SigmaResult reference;
  int nw() const { return data->host.nw; }
};

// Tolerance: these decks have at most ~2e5 terms per sum, and their results are up to
// ~300x smaller than the sum of magnitudes. Reordering the sum moves
// it by ~sqrt(n)*u*300 ~ 1e-11 at worst, while a wrong index, branch, clamp or
// conjugate moves it by >1e-4. The closed form has its own n*u bound.
constexpr double kTol = 1e-10;

// The deck `p`, its data and its reference (the closed form for a uniform deck).
std::unique_ptr<Problem> make_problem(const DeckParams& p) {
  auto pr = std::make_unique<Problem>();
  pr->params = p;
  pr->input = generate(p);
  pr->data = std::make_unique<SpaceData>(derive(pr->input));
  const SigmaSums ref = p.generator == "uniform" ? closed_form_uniform(p) : reference_sums(pr->data->host);
  pr->reference = apply_start_values(ref, pr->input.asxtemp0, pr->input.achtemp0);
  return pr;
}

const Problem& problem(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  if (cache.empty()) before_finalize().push_back([] { cache.clear(); });
  auto& slot = cache[name];
  if (slot) return *slot;
  DeckParams p;
  if (name == "permuted") {
    p = small_deck(24, 20, 150, 10);
    p.skipped_gp = 2;
  } else if (name == "single_frequency") {
    p = small_deck(20, 16, 128, 8);
    p.nstart = p.nend = 2;
  } else if (name == "all_occupied") {
    p = small_deck(20, 16, 128, 20);
  } else if (name == "odd_sizes") {
    // Not a multiple of any band block (64), G block (128), tile or team size.
    p = small_deck(67, 13, 131, 30);
    p.nstart = 1;
    p.nend = 4;  // GPP_MAX_NW frequencies
  } else if (name == "nine_frequencies") {
    p = small_deck(18, 11, 97, 7);
    p.nstart = 1;
    p.nend = 9;  // passes of 3, 3, 3 with GPP_MAX_NW = 4
  } else if (name == "thirty_two_frequencies") {
    p = small_deck(12, 7, 61, 5);
    p.nstart = 1;
    p.nend = 32;  // wx moves by 15.5 over the frequencies: valence bands' wx change sign
  } else if (name == "uniform") {
    p.generator = "uniform";
    p.nbands = 20;
    p.nvband = 2;
    p.ncouls = 200;
    p.ngpown = 10;
    p.nstart = 1;
    p.nend = 3;
    p.e_lk = 10.0;
    p.dw = 1.0;
  }
  slot = make_problem(p);
  return *slot;
}
// For a literal: no std::string temporary at the call (GCC 13's -Wdangling-reference).
const Problem& problem(const char* name) { return problem(std::string(name)); }

/// The result of `policy` on space `k` with tunables `t`.
SigmaResult run_on(SpaceKind k, const PolicyEntry& e, const Problem& pr, const Tunables& t) {
  const SigmaSums sums = with_space(k, [&](auto space) { return e.run(space, pr.data->on(space), t); });
  return apply_start_values(sums, pr.input.asxtemp0, pr.input.achtemp0);
}

std::string name_of(SpaceKind k) { return to_string(k); }

/// False when the backend cannot launch a team of t.team_size threads for `e`.
bool fits(SpaceKind k, const PolicyEntry& e, const Problem& pr, const Tunables& t) {
  try {
    with_space(k, [&](auto space) { e.resolve(space, pr.data->on(space), t); });
    return true;
  } catch (const Error& err) {
    if (std::string(err.what()).find("--team-size") == std::string::npos) throw;
    return false;
  }
}

class EveryPolicy : public ::testing::TestWithParam<std::tuple<std::string, std::string, SpaceKind>> {};

TEST_P(EveryPolicy, MatchesReference) {
  const auto& [policy, deck, space] = GetParam();
  const PolicyEntry& e = find_policy(policy);
  if (!e.runs_on(space)) GTEST_SKIP() << policy << " is not built for the " << name_of(space) << " space";
  const Problem& pr = problem(deck);
  const SigmaResult got = run_on(space, e, pr, Tunables{});
  ASSERT_EQ(got.achtemp.size(), std::size_t(pr.nw()));
  EXPECT_TRUE(results_close(got, pr.reference, kTol));
  // The check must be able to fail: the reference is far from zero.
  EXPECT_GT(std::abs(pr.reference.achtemp[0]), 1e-6);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& e : policy_registry()) names.push_back(e.name);
  return names;
}

std::string test_name(const ::testing::TestParamInfo<EveryPolicy::ParamType>& info) {
  std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" + name_of(std::get<2>(info.param));
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Decks, EveryPolicy,
                         ::testing::Combine(::testing::ValuesIn(policy_names()),
                                            ::testing::Values("permuted", "single_frequency", "all_occupied",
                                                              "odd_sizes", "uniform", "nine_frequencies",
                                                              "thirty_two_frequencies"),
                                            ::testing::ValuesIn(build_spaces())),
                         test_name);

TEST(Registry, UnknownPolicyIsAnError) { EXPECT_THROW(find_policy("v9-imaginary"), Error); }

TEST(Registry, NamesAreUniqueAndDescribedAndPlaced) {
  const auto& r = policy_registry();
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_FALSE(r[i].description.empty());
    EXPECT_TRUE(r[i].runs_on(SpaceKind::Host)) << r[i].name;  // every policy has a host build
    for (std::size_t j = i + 1; j < r.size(); ++j) EXPECT_NE(r[i].name, r[j].name);
  }
  for (const SpaceKind k : build_spaces()) EXPECT_TRUE(find_policy(default_policy_name(k)).runs_on(k));
  // The CPU policy is not built for a device; the GPU-shaped steps are built everywhere.
  if (kHasDeviceSpace) {
    EXPECT_FALSE(find_policy("host").runs_on(SpaceKind::Device));
    EXPECT_THROW(find_policy("host").run(DeviceExec(), problem("permuted").data->device, Tunables{}), Error);
  }
  EXPECT_TRUE(find_policy("tuned").runs_on(SpaceKind::Host));
}

// Beyond GPP_MAX_NW every policy is right: one that reduces every frequency at once runs
// in passes (GPP_MAX_NW + 1 frequencies: two passes of unequal size), one that reduces
// frequency by frequency as before.
TEST(Registry, MoreFrequenciesThanMaxNwRight) {
  DeckParams p = small_deck(8, 6, 40, 4);
  p.nstart = 1;
  p.nend = GPP_MAX_NW + 1;
  Problem pr;
  pr.input = generate(p);
  pr.data = std::make_unique<SpaceData>(derive(pr.input));
  const SigmaResult ref = apply_start_values(reference_sums(pr.data->host), pr.input.asxtemp0, pr.input.achtemp0);
  for (const SpaceKind k : build_spaces())
    for (const auto& e : policy_registry()) {
      if (!e.runs_on(k)) continue;
      EXPECT_NO_THROW(with_space(k, [&](auto space) { e.resolve(space, pr.data->on(space), Tunables{}); })) << e.name;
      EXPECT_TRUE(results_close(run_on(k, e, pr, Tunables{}), ref, kTol)) << e.name << " on " << name_of(k);
    }
  // The policies that take a compile-time count are the ones registered for passes.
  for (const char* name : {"v0-collapse3", "v1-reciprocal", "v2-branch2", "v3-noabs", "v4-collapse2", "tuned", "host"})
    EXPECT_EQ(find_policy(name).max_nw, GPP_MAX_NW) << name;
  for (const char* name : {"v5-iw-outside", "v6-blocked", "v7-swapped", "v8-bounded"})
    EXPECT_EQ(find_policy(name).max_nw, 0) << name;
}

std::vector<int> pass_sizes(int nw, int max_nw) {
  std::vector<int> sizes;
  int next = 0;
  for (const FrequencyPass& p : frequency_passes(nw, max_nw)) {
    EXPECT_EQ(p.first, next) << nw << " in passes of " << max_nw << ": not contiguous";
    next = p.first + p.count;
    sizes.push_back(p.count);
  }
  EXPECT_EQ(next, nw) << nw << " in passes of " << max_nw;
  return sizes;
}

TEST(Passes, FewestOfAtMostMaxNwLargestFirst) {
  using V = std::vector<int>;
  EXPECT_EQ(pass_sizes(1, 4), V{1});
  EXPECT_EQ(pass_sizes(4, 4), V{4});
  EXPECT_EQ(pass_sizes(5, 4), (V{3, 2}));
  EXPECT_EQ(pass_sizes(9, 4), (V{3, 3, 3}));
  EXPECT_EQ(pass_sizes(10, 4), (V{4, 3, 3}));
  EXPECT_EQ(pass_sizes(32, 4), V(8, 4));
  EXPECT_EQ(pass_sizes(1024, 4), V(256, 4));
  const V big = pass_sizes(1023, 4);
  EXPECT_EQ(big.size(), 256u);
  EXPECT_EQ(big.front(), 4);
  EXPECT_EQ(big.back(), 3);
  EXPECT_EQ(pass_sizes(33, 32), (V{17, 16}));
  EXPECT_EQ(pass_sizes(7, 1), V(7, 1));
  EXPECT_EQ(pass_sizes(7, 0), V{7});  // no limit: one pass
}

// A pass's data: the deck's arrays themselves (no copy of the big ones), wx of the
// pass's frequencies only, nw, nstart and nend of the pass.
template <class ExecSpace>
void check_pass(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d) {
  const FrequencyPass p{3, 4};
  const auto r = frequency_pass(space, d, p);
  space.fence();
  EXPECT_EQ(r.nw, 4);
  EXPECT_EQ(r.nstart, d.nstart + 3);
  EXPECT_EQ(r.nend, d.nstart + 6);
  EXPECT_EQ(r.nbands, d.nbands);
  EXPECT_EQ(r.aqsntemp.data(), d.aqsntemp.data());
  EXPECT_EQ(r.aqsmtemp_local.data(), d.aqsmtemp_local.data());
  EXPECT_EQ(r.aqsmtemp_local_bt.data(), d.aqsmtemp_local_bt.data());
  EXPECT_EQ(r.I_eps_array.data(), d.I_eps_array.data());
  EXPECT_EQ(r.wtilde_array.data(), d.wtilde_array.data());
  EXPECT_EQ(r.occ_array.data(), d.occ_array.data());
  EXPECT_EQ(r.vcoul_loc.data(), d.vcoul_loc.data());
  ASSERT_EQ(r.wx_array_t.extent(0), 4u);
  ASSERT_EQ(r.wx_array_t.extent(1), std::size_t(d.nbands));
  ASSERT_EQ(r.wx_array_bt.extent(0), std::size_t(d.nbands));
  ASSERT_EQ(r.wx_array_bt.extent(1), 4u);
  const auto all = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.wx_array_t);
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.wx_array_t);
  const auto bt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.wx_array_bt);
  for (int n = 0; n < d.nbands; ++n)
    for (int w = 0; w < 4; ++w) {
      EXPECT_EQ(t(w, n), all(3 + w, n));
      EXPECT_EQ(bt(n, w), all(3 + w, n));
    }
  // The whole deck as one pass is the deck.
  const auto whole = frequency_pass(space, d, FrequencyPass{0, d.nw});
  EXPECT_EQ(whole.wx_array_t.data(), d.wx_array_t.data());
}

TEST(Passes, DataOfAPassShareTheDeckAndHoldItsFrequencies) {
  const Problem& pr = problem("nine_frequencies");
  for (const SpaceKind k : build_spaces()) with_space(k, [&](auto space) { check_pass(space, pr.data->on(space)); });
}

// Tunables that divide nothing, and non-default ones, must still give the right answer
// on every space.
TEST(Tunables, BlocksThatDivideNothing) {
  const Problem& pr = problem("odd_sizes");
  struct Case {
    const char* policy;
    Tunables t;
  };
  std::vector<Case> cases;
  for (const char* p : {"v6-blocked", "v7-swapped", "v8-bounded"}) {
    Tunables t;
    t.band_block = 7;
    t.ig_block = 5;
    cases.push_back({p, t});
    t.band_block = 1000;  // larger than nbands
    t.ig_block = 1000;    // larger than ncouls
    cases.push_back({p, t});
    t = Tunables{};
    t.team_size = 3;  // odd: G blocks the team does not divide
    t.band_block = 5;
    cases.push_back({p, t});
  }
  Tunables h;
  h.band_block = 3;
  h.ig_block = 17;
  cases.push_back({"host", h});
  for (const int team : {1, 2, 3, 32}) {
    Tunables t;
    t.team_size = team;
    t.band_block = 9;
    cases.push_back({"tuned", t});
  }
  Tunables whole;
  whole.band_block = kMaxTunable;  // every band of a kind in one block: the largest block any source takes
  cases.push_back({"tuned", whole});
  for (const char* p : {"v0-collapse3", "v3-noabs"}) {
    Tunables t;
    t.tile = {3, 2, 7};
    cases.push_back({p, t});
  }
  Tunables t2;
  t2.tile = {5, 9};
  cases.push_back({"v4-collapse2", t2});
  cases.push_back({"v5-iw-outside", t2});
  for (const SpaceKind k : build_spaces())
    for (const auto& c : cases) {
      const PolicyEntry& e = find_policy(c.policy);
      if (!e.runs_on(k)) continue;
      EXPECT_NO_THROW(check_tunables(e, c.t)) << c.policy;
      if (!fits(k, e, pr, c.t)) continue;  // a team larger than the backend allows (Serial: 1)
      EXPECT_TRUE(results_close(run_on(k, e, pr, c.t), pr.reference, kTol)) << c.policy << " on " << name_of(k);
    }
}

// tuned on space k with one param set to value, in blocks of band_block bands.
SigmaResult run_tuned_with(const SpaceKind k, const Problem& pr, const int band_block, const std::string& param,
                           const std::string& value) {
  Tunables t;
  t.band_block = band_block;
  t.params[param] = value;
  return run_on(k, find_policy("tuned"), pr, t);
}

// tuned's occupied blocks, those with a negative frequency and those without, in one
// kernel or each kind in a kernel of its own (the param occupied; auto takes one kernel
// off a GPU, and on these decks' few waves on a GPU): the reference's sums either way, and
// each other's within a reordering, on decks whose occupied bands have both kinds (counted
// here from occ and wx), in blocks of 4 bands.
TEST(TunedPolicy, OccupiedKernelsOneOrSeparateMatchReference) {
  for (const char* deck : {"permuted", "single_frequency", "odd_sizes", "nine_frequencies", "thirty_two_frequencies"}) {
    const Problem& pr = problem(deck);
    const auto& h = pr.data->host;
    int plain = 0, negative = 0;
    for (int n = 0; n < h.nbands; ++n) {
      if (h.occ_array(n) == 0.0) continue;
      bool any = false;
      for (int w = 0; w < h.nw; ++w) any = any || h.wx_array_bt(n, w) < 0.0;
      (any ? negative : plain) += 1;
    }
    ASSERT_GT(plain, 0) << deck;
    ASSERT_GT(negative, 0) << deck;
    for (const SpaceKind k : build_spaces()) {
      std::map<std::string, SigmaResult> got;
      for (const char* occupied : {"one", "separate", "auto"}) {
        got[occupied] = run_tuned_with(k, pr, 4, "occupied", occupied);
        EXPECT_TRUE(results_close(got[occupied], pr.reference, kTol))
            << deck << " occupied=" << occupied << " on " << name_of(k);
      }
      EXPECT_TRUE(results_close(got["separate"], got["one"], 1e-13)) << deck << " on " << name_of(k);
    }
  }
}

// tuned's G ranges (the param g_ranges): each team of a (G' group, band block) takes one
// range of G, the last one shorter (on a GPU a multiple of the team: on these decks two
// ranges, the second one's warps cut short). Every count gives the reference's sums, and
// one range's within a reordering, with both kinds of occupied block and several passes.
TEST(TunedPolicy, GRangesMatchOneRange) {
  for (const char* deck : {"permuted", "odd_sizes", "nine_frequencies"}) {
    const Problem& pr = problem(deck);
    for (const SpaceKind k : build_spaces()) {
      std::map<std::string, SigmaResult> got;
      for (const char* ranges : {"1", "2", "4", "32", "auto"}) {
        got[ranges] = run_tuned_with(k, pr, 5, "g_ranges", ranges);
        const std::string what = std::string(deck) + " g_ranges=" + ranges + " on " + name_of(k);
        EXPECT_TRUE(results_close(got[ranges], pr.reference, kTol)) << what;
        EXPECT_TRUE(results_close(got[ranges], got["1"], 1e-13)) << what;
      }
    }
  }
}

// tuned stages a band block's per-band values in team scratch memory: a block that does
// not fit is refused when the tunables are resolved (before any work), with the option
// named; the default block fits. The default, worked by hand: on a host the file's
// band_block; on a GPU the largest of the shape's choices whose aqsntemp columns (16
// bytes a band for each G of the largest of four G ranges) fit a quarter of the device's
// L2, else the first.
TEST(Tunables, TunedBandBlockBeyondTeamScratchRefused) {
  const GppData<Kokkos::HostSpace> h = derive(generate(small_deck(4000, 4, 8, 10)));
  const SpaceData data(h);
  const PolicyEntry& e = find_policy("tuned");
  for (const SpaceKind k : build_spaces()) {
    if (!e.runs_on(k)) continue;
    Tunables big;
    big.band_block = 4000;  // 4000 x (2 wx, occ, the aqsm of 3 G': 72 B, + 16 B): 352 kB, above any GPU's shared memory
    try {
      with_space(k, [&](auto space) { e.resolve(space, data.on(space), big); });
      ADD_FAILURE() << "band block of 4000 accepted on " << name_of(k);
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find("--band-block 4000"), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("team scratch"), std::string::npos) << err.what();
    }
    Tunables got;
    EXPECT_NO_THROW(with_space(k, [&](auto space) { got = e.resolve(space, data.on(space), Tunables{}); }))
        << name_of(k);
    int expected = tuning_defaults::kTunedBandBlock;
    if (k == SpaceKind::Device) {
      const double l2 = with_space(k, [](auto space) { return backend::properties(space).l2_bytes; });
      expected = tuning_defaults::kTunedBandBlockChoices[0];
      for (const int c : tuning_defaults::kTunedBandBlockChoices)
        if (double((h.ncouls + 3) / 4) * c * 16 <= l2 / 4) expected = c;
    }
    EXPECT_EQ(got.band_block, expected) << name_of(k);
  }
}

// Vector lanes above one (where the backend has them) must not change the sums: every
// lane holds a copy of its thread's value, and each thread contributes once.
TEST(Tunables, VectorLengthAboveOne) {
  const Problem& pr = problem("odd_sizes");
  for (const SpaceKind k : build_spaces())
    for (const char* p : {"v6-blocked", "v8-bounded"}) {
      const int max_lanes =
          with_space(k, [](auto space) { return Kokkos::TeamPolicy<decltype(space)>::vector_length_max(); });
      for (int lanes = 2; lanes <= std::min(max_lanes, 8); lanes *= 2) {
        Tunables t;
        t.vector_length = lanes;
        t.team_size = 4;
        if (!fits(k, find_policy(p), pr, t)) t.team_size = 1;
        EXPECT_TRUE(results_close(run_on(k, find_policy(p), pr, t), pr.reference, kTol))
            << p << " lanes " << lanes << " on " << name_of(k);
      }
    }
}

// The deck `p` with `perturb` applied to its input before the data are derived, and the
// reference of the perturbed data; the perturbation must change the reference by more
// than 1e-3 (else a test on it could not fail).
template <class Perturb>
std::unique_ptr<Problem> perturbed_problem(const DeckParams& p, const Perturb& perturb) {
  auto pr = std::make_unique<Problem>();
  pr->params = p;
  pr->input = generate(p);
  const SigmaSums plain = reference_sums(SpaceData(derive(pr->input)).host);
  perturb(pr->input);
  pr->data = std::make_unique<SpaceData>(derive(pr->input));
  pr->reference = apply_start_values(reference_sums(pr->data->host), pr->input.asxtemp0, pr->input.achtemp0);
  EXPECT_FALSE(results_close(apply_start_values(plain, pr->input.asxtemp0, pr->input.achtemp0), pr->reference, 1e-3));
  return pr;
}

// The host policy at its defaults on each space of the build where it runs, against the
// problem's reference.
void expect_host_matches_reference(const Problem& pr) {
  for (const SpaceKind k : build_spaces()) {
    if (!find_policy("host").runs_on(k)) continue;
    EXPECT_TRUE(results_close(run_on(k, find_policy("host"), pr, Tunables{}), pr.reference, kTol)) << name_of(k);
  }
}

// The host policy's empty bands share one division among up to four frequencies, where
// the product of their |wdiff|^2 stays finite. Plasmon-pole frequencies of ~1e45 (some G
// of every G') make |wdiff|^2 ~1e90: the product of four overflows (1/inf = 0 would drop
// those G's terms, each as large as any other here: wdiff ~ wtilde, so delw ~ 1), so the
// policy must see the range and divide per frequency. So must the occupied bands, whose
// pairs of frequencies share one division of four factors |wdiff|^2 |wsum|^2 (1e360).
TEST(HostPolicy, HugePlasmonPoleFrequenciesAreRight) {
  DeckParams p = small_deck(16, 4, 300, 6);
  p.nstart = 1;
  p.nend = 4;  // four frequencies: one group of four
  const auto pr = perturbed_problem(p, [&](InputDeck& in) {
    for (int igp = 0; igp < p.ngpown; ++igp)
      for (int ig = igp % 7; ig < p.ncouls; ig += 7) in.wtilde_array(ig, igp) *= 1e45;
  });
  expect_host_matches_reference(*pr);
}

// Negative plasmon-pole frequencies in occupied bands: Re wtilde = -x at some G of every
// G' makes |wsum|^2 = Im(wtilde)^2 = 1e-8 there, against |wdiff|^2 ~ 4 x^2, and the kept
// term (x U + V) / |wsum|^2 the largest of the sums. |wsum|^2 must be formed as (x + Re
// wtilde)^2 + Im(wtilde)^2: formed from |wdiff|^2 + 4 x Re wtilde (one operation fewer,
// exact in sign where Re wtilde >= 0) it cancels here, and the host policy's sums are
// then far off the reference (docs/lab/cpu-host.md).
TEST(HostPolicy, NegativePlasmonPoleFrequenciesAreRight) {
  DeckParams p = small_deck(24, 6, 600, 6);
  p.nstart = 1;
  p.nend = 4;
  const auto pr = perturbed_problem(p, [&](InputDeck& in) {
    const SpaceData d(derive(in));
    int band = -1;  // an occupied band whose frequencies are all > 0.1
    for (int n1 = 0; n1 < p.nbands && band < 0; ++n1) {
      bool positive = d.host.occ_array(n1) != 0.0;
      for (int w = 0; w < d.host.nw; ++w) positive = positive && d.host.wx_array_t(w, n1) > 0.1;
      if (positive) band = n1;
    }
    ASSERT_GE(band, 0) << "no occupied band with every frequency > 0.1";
    const double x = d.host.wx_array_t(0, band);
    for (int igp = 0; igp < p.ngpown; ++igp)
      for (int ig = igp % 13; ig < p.ncouls; ig += 13) in.wtilde_array(ig, igp) = complex_t(-x, 1e-4);
  });
  expect_host_matches_reference(*pr);
}

// The host policy's tunables with its params set: {name, value, ...}.
Tunables host_params(std::initializer_list<std::pair<const char*, std::string>> params) {
  Tunables t;
  for (const auto& [name, value] : params) t.params[name] = value;
  return t;
}

// The host policy's prefetch=auto as a run reports it, worked out here: the build's shipped
// distance, its Intel one on a CPU whose /proc/cpuinfo says GenuineIntel, or the build's
// GPP_HOST_PREFETCH_AHEAD on every CPU.
std::string auto_prefetch_by_hand() {
#ifdef GPP_HOST_PREFETCH_AHEAD
  return std::to_string(GPP_HOST_PREFETCH_AHEAD);
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  bool intel = false;
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("vendor_id", 0) == 0) {
      intel = line.find("GenuineIntel") != std::string::npos;
      break;
    }
  return std::to_string(intel ? gpp::tuning_defaults::kHostPrefetchAheadIntel
                              : gpp::tuning_defaults::kHostPrefetchAhead);
#endif
}
constexpr const char* kEmptyReciprocals[] = {"div", "share"};

// Both ways of computing the empty bands' reciprocals (one division each, one shared by a
// group's frequencies) against the reference,
// on non-uniform decks mostly of empty bands with groups of 3 and 4 frequencies and G
// blocks of 256 and a remainder; and against each other, closer than the reference
// tolerance: the modes differ by a few ulps per term.
TEST(HostPolicy, EveryEmptyReciprocalMatchesReference) {
  for (const int nend : {3, 4}) {
    DeckParams p = small_deck(40, 6, 700, 3);
    p.nstart = 1;
    p.nend = nend;
    Problem pr;
    pr.input = generate(p);
    pr.data = std::make_unique<SpaceData>(derive(pr.input));
    const SigmaResult ref = apply_start_values(reference_sums(pr.data->host), pr.input.asxtemp0, pr.input.achtemp0);
    for (const SpaceKind k : build_spaces()) {
      if (!find_policy("host").runs_on(k)) continue;
      const SigmaResult shared = run_on(k, find_policy("host"), pr, host_params({{"rcp_empty", "share"}}));
      for (const char* m : kEmptyReciprocals) {
        const SigmaResult got = run_on(k, find_policy("host"), pr, host_params({{"rcp_empty", m}}));
        EXPECT_TRUE(results_close(got, ref, kTol)) << m << " nend " << nend << " on " << name_of(k);
        EXPECT_TRUE(results_close(got, shared, 1e-13)) << m << " nend " << nend << " on " << name_of(k);
      }
    }
  }
}

// Where the values the empty bands invert leave the range of the shared reciprocal, it
// falls back to one division each: plasmon-pole frequencies of 1e45 at every 11th G
// (|wdiff|^2 ~ 1e90: a product of three overflows), and at every 9th G
// a frequency equal to one empty band's first frequency with an imaginary part of 1e-21
// (|wdiff|^2 = 1e-42 there: that term is not regular, but a reciprocal shared with the
// band's other frequencies would underflow). Each mode matches the reference.
TEST(HostPolicy, EmptyReciprocalRangesAreGuarded) {
  DeckParams p = small_deck(24, 6, 600, 2);
  p.nstart = 1;
  p.nend = 3;
  const auto pr = perturbed_problem(p, [&](InputDeck& in) {
    const SpaceData d(derive(in));
    int n1 = 0;
    while (d.host.occ_array(n1) != 0.0) ++n1;
    const double x = d.host.wx_array_t(0, n1);
    for (int igp = 0; igp < p.ngpown; ++igp) {
      for (int ig = igp % 9; ig < p.ncouls; ig += 9) in.wtilde_array(ig, igp) = complex_t(x, 1e-21);
      for (int ig = igp % 11; ig < p.ncouls; ig += 11) in.wtilde_array(ig, igp) *= 1e45;
    }
  });
  for (const SpaceKind k : build_spaces()) {
    if (!find_policy("host").runs_on(k)) continue;
    for (const char* m : kEmptyReciprocals) {
      EXPECT_TRUE(
          results_close(run_on(k, find_policy("host"), *pr, host_params({{"rcp_empty", m}})), pr->reference, kTol))
          << m << " on " << name_of(k);
    }
  }
}

// Both loops of the host policy (the build's vector: xsimd's where built with xsimd, else
// portable packs; one G at a time) with both kinds of occupied bands' reciprocals (one division per frequency, one per
// pair) against the reference, on non-uniform decks of 1 to 4 frequencies (groups of 1 to
// 4; nend 1 and 2 give wx < 0 to valence bands: the sexcut test's loops), with G blocks of
// 256, 95, 66 and 57 of the 700 G (last vectors of 1 to 7 G past a block's end, blocks
// starting anywhere in a vector); at some G of every G' a plasmon-pole frequency within
// 1e-4 of a frequency of one empty and one occupied band, for each of the group's
// frequencies in turn (terms outside the regular arm in every lane and frequency;
// near-pole terms of several frequencies at one G). And against the scalar loops, closer
// than the reference tolerance (the loops differ by a few ulps per term and in the order
// of the sums).
TEST(HostPolicy, EveryLoopMatchesReference) {
  for (const int nend : {1, 2, 3, 4}) {
    DeckParams p = small_deck(40, 6, 700, 12);
    p.nstart = 1;
    p.nend = nend;
    const auto pr = perturbed_problem(p, [&](InputDeck& in) {
      const SpaceData d(derive(in));
      int occupied = 0, empty = 0;
      while (d.host.occ_array(occupied) == 0.0) ++occupied;
      while (d.host.occ_array(empty) != 0.0) ++empty;
      for (int igp = 0; igp < p.ngpown; ++igp)
        for (int w = 0; w < d.host.nw; ++w)
          for (int ig = (igp + 5 * w) % 23; ig < p.ncouls; ig += 23)
            in.wtilde_array(ig, igp) = complex_t(d.host.wx_array_t(w, ig % 2 ? occupied : empty) + 1e-4, 1e-4);
    });
    bool negative = false;  // some occupied band with wx < 0
    for (int n1 = 0; n1 < p.nbands; ++n1)
      for (int w = 0; w < pr->data->host.nw; ++w)
        negative = negative || (pr->data->host.occ_array(n1) != 0.0 && pr->data->host.wx_array_t(w, n1) < 0.0);
    EXPECT_TRUE(negative) << "nend " << nend;
    const SigmaResult scalar = run_on(SpaceKind::Host, find_policy("host"), *pr, host_params({{"loops", "scalar"}}));
    for (const SpaceKind k : build_spaces()) {
      if (!find_policy("host").runs_on(k)) continue;
      for (const std::string loop : {"vector", "scalar"})
        for (const char* rcp : {"div", "share"})
          for (const int ig_block : {256, 95, 66, 57}) {
            Tunables t = host_params({{"loops", loop}, {"rcp_occupied", rcp}});
            t.ig_block = ig_block;
            const SigmaResult got = run_on(k, find_policy("host"), *pr, t);
            const std::string what = loop + "/" + rcp + " G block " + std::to_string(ig_block) + " nend " +
                                     std::to_string(nend) + " on " + name_of(k);
            EXPECT_TRUE(results_close(got, pr->reference, kTol)) << what;
            EXPECT_TRUE(results_close(got, scalar, 1e-13)) << what;
          }
    }
  }
}

// The occupied bands' split form (occ_form=split, the default) against the whole form and
// the reference, on decks whose plan (host_shape::split_plan, checked here) has runs of
// kMaxRun bands and shorter ones, runs of two occupations (tol 2.5 gives the valence bands
// within 2.5 of the Fermi level occupation 0.5), a pair of frequencies whose wx differ in
// sign for some band (a lone split frequency and a lone whole one) and pairs whose wx are
// both < 0: 1 to 4 frequencies, band blocks of 64 and 16, G blocks of 1024 and 57 of the
// 300 G, both loops and both reciprocals. At some G of every G' a plasmon-pole frequency
// within 1e-4 of a frequency of one split band of each occupation (near-pole terms in the
// runs' lists). The forms differ in rounding (the split one loses up to three digits of
// c = wx^2 - Re(wtilde^2) near the pole on the regular arm, physics::pair_split) and in
// the order of the sums: at most 3.5e-15 apart here (AVX2 and scalar loops), checked at
// 1e-13, a factor 30 for other instruction sets and compilers, far inside the reference
// tolerance.
TEST(HostPolicy, SplitFormMatchesWholeFormAndReference) {
  for (const int nend : {1, 2, 3, 4}) {
    DeckParams p = small_deck(100, 5, 300, 80);
    p.nstart = 1;
    p.nend = nend;
    p.tol = 2.5;
    const auto pr = perturbed_problem(p, [&](InputDeck& in) {
      const SpaceData d(derive(in));
      int whole_occ = -1, half_occ = -1;  // split bands of occupation 1 and 0.5
      for (int n1 = 0; n1 < d.host.nbands; ++n1) {
        bool negative = false;
        for (int w = 0; w < d.host.nw; ++w) negative = negative || d.host.wx_array_t(w, n1) < 0.0;
        if (negative) continue;
        if (d.host.occ_array(n1) == 1.0 && whole_occ < 0) whole_occ = n1;
        if (d.host.occ_array(n1) == 0.5 && half_occ < 0) half_occ = n1;
      }
      ASSERT_TRUE(whole_occ >= 0 && half_occ >= 0) << "nend " << nend;
      for (int igp = 0; igp < p.ngpown; ++igp)
        for (int w = 0; w < d.host.nw; ++w)
          for (int ig = (igp + 5 * w) % 17; ig < p.ncouls; ig += 17)
            in.wtilde_array(ig, igp) = complex_t(d.host.wx_array_t(w, ig % 2 ? whole_occ : half_occ) + 1e-4, 1e-4);
    });
    const auto& d = pr->data->host;
    bool full = false, short_run = false, lone_split = false, lone_whole = false, pair_whole = false;
    std::map<double, int> occupations;
    for (int nb0 = 0; nb0 < d.nbands; nb0 += 64) {  // the default band block's plans
      const host_shape::SplitPlan plan = host_shape::split_plan(
          nb0, std::min(nb0 + 64, d.nbands), d.nw, [&](const int n) { return d.occ_array(n); },
          [&](const int n, const int w) { return d.wx_array_t(w, n) < 0.0; });
      for (const host_shape::SplitRun& r : plan.runs) {
        full = full || r.size == host_shape::kMaxRun;
        short_run = short_run || r.size < host_shape::kMaxRun;
        // a lone frequency of a pair (not an odd count's last)
        lone_split = lone_split || (r.nw == 1 && !(d.nw % 2 == 1 && r.w0 == d.nw - 1));
        ++occupations[r.occ];
      }
      for (const host_shape::WholeGroup& g : plan.whole) {
        lone_whole = lone_whole || (g.nw == 1 && d.nw > 1);
        pair_whole = pair_whole || g.nw == 2;
      }
    }
    EXPECT_TRUE(full && short_run) << "nend " << nend;
    EXPECT_EQ(occupations.size(), 2u) << "nend " << nend;
    if (d.nw > 1) {
      EXPECT_TRUE(lone_split && lone_whole && pair_whole) << "nend " << nend;
    }
    for (const SpaceKind k : build_spaces()) {
      if (!find_policy("host").runs_on(k)) continue;
      for (const std::string loop : {"vector", "scalar"})
        for (const char* rcp : {"div", "share"})
          for (const int band_block : {64, 16})
            for (const int ig_block : {1024, 57}) {
              Tunables t = host_params({{"loops", loop}, {"rcp_occupied", rcp}});
              t.band_block = band_block;
              t.ig_block = ig_block;
              t.params["occ_form"] = "whole";
              const SigmaResult whole = run_on(k, find_policy("host"), *pr, t);
              t.params["occ_form"] = "split";
              const SigmaResult split = run_on(k, find_policy("host"), *pr, t);
              const std::string what = loop + "/" + rcp + " band block " + std::to_string(band_block) + " G block " +
                                       std::to_string(ig_block) + " nend " + std::to_string(nend) + " on " + name_of(k);
              EXPECT_TRUE(results_close(split, pr->reference, kTol)) << what;
              EXPECT_TRUE(results_close(whole, pr->reference, kTol)) << what;
              EXPECT_TRUE(results_close(split, whole, 1e-13)) << what;
            }
    }
  }
}

// A param the host policy does not have, or a value it does not take, is refused before
// anything runs, naming it and what the policy takes; tuned has two, the others none.
TEST(HostPolicy, UnknownParamOrValueIsAnError) {
  const auto refused = [](const char* policy, const Tunables& t, const std::string& says) {
    try {
      check_tunables(find_policy(policy), t);
      ADD_FAILURE() << describe_params(t) << " was accepted by " << policy;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  for (const char* name : {"loops", "rcp_empty", "rcp_occupied", "occ_form", "prefetch"}) {
    refused("host", host_params({{name, "simd"}}), std::string("--param ") + name + "=simd: policy host takes ");
    EXPECT_NO_THROW(
        check_tunables(find_policy("host"), host_params({{name, find_policy("host").param(name)->values.back()}})));
  }
  refused("host", host_params({{"avx512", "on"}}),
          "policy host has no param avx512 (its params: loops, rcp_empty, rcp_occupied, occ_form, prefetch)");
  refused("host", host_params({{"prefetch", "100"}}), "--param prefetch=100: policy host takes ");
  refused("tuned", host_params({{"loops", "scalar"}}),
          "policy tuned has no param loops (its params: occupied, g_ranges)");
  refused("tuned", host_params({{"occupied", "two"}}), "--param occupied=two: policy tuned takes ");
  refused("tuned", host_params({{"g_ranges", "3"}}), "--param g_ranges=3: policy tuned takes ");
  EXPECT_THROW(parse_param("--param", "loops"), Error);
  EXPECT_THROW(parse_param("--param", "=scalar"), Error);
  EXPECT_THROW(parse_param("--param", "loops=a b"), Error);
  EXPECT_EQ(parse_param("--param", "loops=scalar"), std::make_pair(std::string("loops"), std::string("scalar")));
}

TEST(Tunables, ResolvedValuesAreReported) {
  const Problem& pr = problem("permuted");
  const Tunables v8 = find_policy("v8-bounded").resolve(HostExec(), pr.data->host, Tunables{});
  EXPECT_EQ(v8.band_block, 64);
  EXPECT_GT(v8.team_size, 0);
  EXPECT_EQ(v8.ig_block, v8.team_size);
  EXPECT_EQ(v8.vector_length, 1);
  const Tunables v0 = find_policy("v0-collapse3").resolve(HostExec(), pr.data->host, Tunables{});
  EXPECT_EQ(v0.tile, (std::vector<int>{128, 1, 1}));
  Tunables asked;
  asked.band_block = 16;
  EXPECT_EQ(find_policy("host").resolve(HostExec(), pr.data->host, asked).band_block, 16);
  // every param of the host policy, at its default unless asked
  asked.params["rcp_empty"] = "div";
  const Tunables host = find_policy("host").resolve(HostExec(), pr.data->host, asked);
  EXPECT_EQ(host.params, (std::map<std::string, std::string>{{"loops", "vector"},
                                                             {"rcp_empty", "div"},
                                                             {"rcp_occupied", "share"},
                                                             {"occ_form", "split"},
                                                             {"prefetch", auto_prefetch_by_hand()}}));
  EXPECT_TRUE(v8.params.empty());
}

// The host policy's param prefetch moves only where the loops ask for lines, never what
// they compute: every distance gives the same sums, bit for bit (one thread count, the
// same order of additions), on a deck with empty bands, occupied bands in the split form
// and in the whole form (wx < 0), at two frequencies and at three; and each run reports
// the distance it took, auto's as worked out by hand.
TEST(HostPolicy, PrefetchMovesNoResult) {
  for (const int nend : {2, 3}) {
    DeckParams p = small_deck(60, 7, 900, 40);
    p.nstart = 1;
    p.nend = nend;
    const auto pr = make_problem(p);
    const auto& d = pr->data->host;
    bool cut = false, plain = false;  // occupied bands with a wx < 0, and with none
    for (int n1 = 0; n1 < d.nbands; ++n1) {
      if (d.occ_array(n1) == 0.0) continue;
      bool negative = false;
      for (int w = 0; w < d.nw; ++w) negative = negative || d.wx_array_t(w, n1) < 0.0;
      (negative ? cut : plain) = true;
    }
    EXPECT_TRUE(cut && plain) << "nend " << nend;
    for (const SpaceKind k : build_spaces()) {
      if (!find_policy("host").runs_on(k)) continue;
      Tunables t;
      t.ig_block = 320;  // G blocks of 320, 320 and 260: a prefetch past a row's end
      const SigmaResult base = run_on(k, find_policy("host"), *pr, t);
      EXPECT_TRUE(results_close(base, pr->reference, kTol)) << "nend " << nend << " on " << name_of(k);
      for (const char* ahead : {"0", "64", "128", "256", "512", "auto"}) {
        t.params["prefetch"] = ahead;
        const SigmaResult got = run_on(k, find_policy("host"), *pr, t);
        EXPECT_EQ(got.achtemp, base.achtemp) << "prefetch " << ahead << " nend " << nend << " on " << name_of(k);
        EXPECT_EQ(got.asxtemp, base.asxtemp) << "prefetch " << ahead << " nend " << nend << " on " << name_of(k);
        const Tunables used =
            with_space(k, [&](auto space) { return find_policy("host").resolve(space, pr->data->on(space), t); });
        EXPECT_EQ(used.params.at("prefetch"), std::string(ahead) == "auto" ? auto_prefetch_by_hand() : ahead);
      }
    }
  }
}

TEST(Tunables, RefusedWithAClearError) {
  const Problem& pr = problem("permuted");
  Tunables t;
  t.tile = {1, 1};
  EXPECT_THROW(check_tunables(find_policy("v0-collapse3"), t), Error);  // wrong rank
  t.tile = {1, 1, 0};
  EXPECT_THROW(check_tunables(find_policy("v0-collapse3"), t), Error);  // zero
  t = Tunables{};
  t.band_block = 8;
  EXPECT_THROW(check_tunables(find_policy("v4-collapse2"), t), Error);  // no such tunable
  for (const SpaceKind k : build_spaces())
    with_space(k, [&](auto space) {
      const auto& d = pr.data->on(space);
      Tunables u;
      u.team_size = 1 << 20;  // more threads than any backend gives a team
      EXPECT_THROW(find_policy("v6-blocked").resolve(space, d, u), Error);
      EXPECT_THROW(find_policy("v6-blocked").run(space, d, u), Error);
      u = Tunables{};
      u.vector_length = 3;  // not a power of two
      EXPECT_THROW(find_policy("v8-bounded").resolve(space, d, u), Error);
      for (const auto& e : policy_registry()) {
        if (e.runs_on(k)) {  // braces: EXPECT_* is an if-else (-Wdangling-else)
          EXPECT_NO_THROW(e.resolve(space, d, Tunables{})) << e.name;
        }
      }
    });
}

}  // namespace
}  // namespace gpp::test
