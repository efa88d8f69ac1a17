// Every registered policy against the host reference (or the closed form) on decks
// chosen to break the usual mistakes: permuted maps with a skipped G', one frequency,
// every band occupied, sizes no block divides, and constant data.
#include "gpp_policy.hpp"
#include "gpp_reference.hpp"
#include "gpp_test_util.hpp"

#include <map>
#include <memory>

namespace gpp::test {
namespace {

struct Problem {
  DeckParams params;
  InputDeck input;
  GppData<Kokkos::HostSpace> host;
  DeviceData device;
  SigmaResult reference;
};

// Tolerance: these decks have at most ~2e5 terms per sum, and their results are up to
// ~300x smaller than the sum of magnitudes (spec section 8). Reordering the sum moves
// it by ~sqrt(n)*u*300 ~ 1e-11 at worst, while a wrong index, branch, clamp or
// conjugate moves it by >1e-4. The closed form has its own n*u bound.
constexpr double kTol = 1e-10;

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
  slot = std::make_unique<Problem>();
  slot->params = p;
  slot->input = generate(p);
  slot->host = derive(slot->input);
  slot->device = to_memory_space<DeviceMemory>(slot->host);
  const SigmaSums ref = p.generator == "uniform" ? closed_form_uniform(p) : reference_sums(slot->host);
  slot->reference = apply_start_values(ref, slot->input.asxtemp0, slot->input.achtemp0);
  return *slot;
}

class EveryPolicy : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(EveryPolicy, MatchesReference) {
  const auto& [policy, deck] = GetParam();
  const Problem& pr = problem(deck);
  const PolicyEntry& e = find_policy(policy);
  const SigmaSums sums = e.run(ExecSpace(), pr.device, Tunables{});
  const SigmaResult got = apply_start_values(sums, pr.input.asxtemp0, pr.input.achtemp0);
  ASSERT_EQ(got.achtemp.size(), std::size_t(pr.host.nw));
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
  std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Decks, EveryPolicy,
                         ::testing::Combine(::testing::ValuesIn(policy_names()),
                                            ::testing::Values("permuted", "single_frequency", "all_occupied",
                                                              "odd_sizes", "uniform")),
                         test_name);

TEST(Registry, UnknownPolicyIsAnError) { EXPECT_THROW(find_policy("v9-imaginary"), Error); }

TEST(Registry, NamesAreUniqueAndDescribed) {
  const auto& r = policy_registry();
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_FALSE(r[i].description.empty());
    EXPECT_NE(r[i].runner, nullptr);
    for (std::size_t j = i + 1; j < r.size(); ++j) EXPECT_NE(r[i].name, r[j].name);
  }
  EXPECT_NO_THROW(find_policy(default_policy_name()));
}

// Beyond GPP_MAX_NW a policy that reduces all frequencies at once must refuse with an
// error; one that reduces frequency by frequency must still be right.
TEST(Registry, MoreFrequenciesThanMaxNwRefusedOrRight) {
  DeckParams p = small_deck(8, 6, 40, 4);
  p.nstart = 1;
  p.nend = GPP_MAX_NW + 1;
  const InputDeck in = generate(p);
  const auto host = derive(in);
  const auto dev = to_memory_space<DeviceMemory>(host);
  const SigmaResult ref = apply_start_values(reference_sums(host), in.asxtemp0, in.achtemp0);
  for (const auto& e : policy_registry()) {
    try {
      const SigmaResult got = apply_start_values(e.run(ExecSpace(), dev, Tunables{}), in.asxtemp0, in.achtemp0);
      EXPECT_TRUE(results_close(got, ref, kTol)) << e.name;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find("GPP_MAX_NW"), std::string::npos) << e.name << ": " << err.what();
    }
  }
}

}  // namespace
}  // namespace gpp::test

namespace gpp::test {
namespace {

// Tunables that divide nothing must still give the right answer.
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
  }
  Tunables h;
  h.band_block = 3;
  h.ig_block = 17;
  cases.push_back({"host", h});
  for (const char* p : {"v0-collapse3", "v3-noabs"}) {
    Tunables t;
    t.tile = {3, 2, 7};
    cases.push_back({p, t});
  }
  Tunables t2;
  t2.tile = {5, 9};
  cases.push_back({"v4-collapse2", t2});
  cases.push_back({"v5-iw-outside", t2});
  for (const auto& c : cases) {
    const PolicyEntry& e = find_policy(c.policy);
    EXPECT_NO_THROW(check_tunables(e, c.t)) << c.policy;
    const SigmaResult got = apply_start_values(e.run(ExecSpace(), pr.device, c.t), pr.input.asxtemp0, pr.input.achtemp0);
    EXPECT_TRUE(results_close(got, pr.reference, kTol)) << c.policy;
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
  t = Tunables{};
  t.team_size = 1 << 20;  // more threads than any backend gives a team
  EXPECT_THROW(find_policy("v6-blocked").check(ExecSpace(), pr.device, t), Error);
  EXPECT_THROW(find_policy("v6-blocked").run(ExecSpace(), pr.device, t), Error);
  t = Tunables{};
  t.vector_length = 3;  // not a power of two
  EXPECT_THROW(find_policy("v8-bounded").check(ExecSpace(), pr.device, t), Error);
  for (const auto& e : policy_registry()) EXPECT_NO_THROW(e.check(ExecSpace(), pr.device, Tunables{})) << e.name;
}

}  // namespace
}  // namespace gpp::test
