// Generator determinism and branch coverage; the uniform deck's closed form.
#include "gpp_counts.hpp"
#include "gpp_physics.hpp"
#include "gpp_reference.hpp"
#include "gpp_test_util.hpp"

#include <climits>
#include <limits>
#include <tuple>

namespace gpp::test {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("ClosedForm.MiniAppBenchmarkValue");
GPP_HOST_ONLY("Generator.RejectsBadParameters");
GPP_HOST_ONLY("Generator.ParameterRanges");
// Host arrays and host loops only: they run without Kokkos where Kokkos 4 allows it.
GPP_HOST_VIEWS_ONLY("ClosedForm.MatchesHostReferenceOnUniformData");
GPP_HOST_VIEWS_ONLY("Generator.DifferentSeedDifferentData");
GPP_HOST_VIEWS_ONLY("Generator.FileBandEnergiesInRange");
GPP_HOST_VIEWS_ONLY("Generator.NonUniformMapsAndSkippedGPrime");
GPP_HOST_VIEWS_ONLY("Generator.SameSeedSameData");
GPP_HOST_VIEWS_ONLY("Generator.ShareIsTheWholeDecksColumns");

namespace {

bool same_matrix(const HostComplexMatrix& a, const HostComplexMatrix& b) {
  if (a.extent(0) != b.extent(0) || a.extent(1) != b.extent(1)) return false;
  for (std::size_t j = 0; j < a.extent(1); ++j)
    for (std::size_t i = 0; i < a.extent(0); ++i)
      if (!(a(i, j) == b(i, j))) return false;
  return true;
}

TEST(Generator, SameSeedSameData) {
  const DeckParams p = small_deck();
  const InputDeck a = generate_random(p), b = generate_random(p);
  EXPECT_TRUE(same_matrix(a.aqsntemp, b.aqsntemp));
  EXPECT_TRUE(same_matrix(a.aqsmtemp, b.aqsmtemp));
  EXPECT_TRUE(same_matrix(a.I_eps_array, b.I_eps_array));
  EXPECT_TRUE(same_matrix(a.wtilde_array, b.wtilde_array));
  EXPECT_EQ(a.wfnkq_ekq, b.wfnkq_ekq);
  EXPECT_EQ(a.inv_igp_index, b.inv_igp_index);
  EXPECT_EQ(a.indinv, b.indinv);
  EXPECT_EQ(a.peinf_indext_dist, b.peinf_indext_dist);
}

// MPI over G' (docs/mpi.md): a rank's share is the whole deck's columns j = rank,
// rank + nranks, ... with exactly the whole deck's numbers, whatever the rank count; the
// shares of all ranks together are every column once. Element-wise equality: the
// generator is counter-based, so nothing may differ by even one bit.
TEST(Generator, ShareIsTheWholeDecksColumns) {
  DeckParams p = small_deck();
  p.ngpown = 29;  // prime: no rank count below divides it
  p.skipped_gp = 3;
  for (const char* generator : {"random", "uniform"}) {
    p.generator = generator;
    const InputDeck whole = generate(p);
    for (int nranks : {1, 2, 3, 4, 29}) {
      std::vector<int> seen(p.ngpown, 0);
      for (int rank = 0; rank < nranks; ++rank) {
        const GpShare share{rank, nranks};
        const InputDeck part = generate(p, share);
        const InputDeck kept = keep_share(whole, share);
        validate(part);
        ASSERT_EQ(part.ngpown, share.count(p.ngpown));
        ASSERT_EQ(part.wtilde_array.extent(1), std::size_t(part.ngpown));
        EXPECT_TRUE(same_matrix(part.wtilde_array, kept.wtilde_array)) << generator << " " << rank << "/" << nranks;
        EXPECT_TRUE(same_matrix(part.I_eps_array, kept.I_eps_array));
        EXPECT_EQ(part.inv_igp_index, kept.inv_igp_index);
        EXPECT_TRUE(same_matrix(part.aqsmtemp, whole.aqsmtemp));  // bands and G: replicated
        EXPECT_TRUE(same_matrix(part.aqsntemp, whole.aqsntemp));
        EXPECT_EQ(part.indinv, whole.indinv);
        for (int c = 0; c < part.ngpown; ++c) {
          const long long j = share.global(c);
          ASSERT_LT(j, p.ngpown);
          ++seen[j];
          EXPECT_EQ(part.inv_igp_index[c], whole.inv_igp_index[j]);
          for (int ig = 0; ig < p.ncouls; ++ig) {
            ASSERT_TRUE(part.wtilde_array(ig, c) == whole.wtilde_array(ig, j));
            ASSERT_TRUE(part.I_eps_array(ig, c) == whole.I_eps_array(ig, j));
          }
        }
      }
      for (int j = 0; j < p.ngpown; ++j) EXPECT_EQ(seen[j], 1) << "column " << j << " of " << nranks << " ranks";
    }
  }
  // A neighbour's share is not this share (the comparison above can fail).
  p.generator = "random";
  EXPECT_FALSE(same_matrix(generate(p, {0, 2}).wtilde_array, keep_share(generate(p), {1, 2}).wtilde_array));
  EXPECT_THROW(generate(p, {0, 30}), Error);  // more ranks than G'
  EXPECT_THROW(keep_share(generate(p), {0, 30}), Error);
}

TEST(Generator, DifferentSeedDifferentData) {
  DeckParams p = small_deck();
  const InputDeck a = generate_random(p);
  p.seed += 1;
  const InputDeck b = generate_random(p);
  EXPECT_FALSE(same_matrix(a.aqsntemp, b.aqsntemp));
  EXPECT_FALSE(same_matrix(a.wtilde_array, b.wtilde_array));
  EXPECT_NE(a.indinv, b.indinv);
}

TEST(Generator, NonUniformMapsAndSkippedGPrime) {
  const DeckParams p = small_deck();
  const InputDeck in = generate_random(p);
  validate(in);
  int identity_bands = 0;
  for (int n = 0; n < p.nbands; ++n) identity_bands += in.peinf_indext_dist[n] == n + 1;
  EXPECT_LT(identity_bands, p.nbands / 2);
  const auto d = derive(in);
  int skipped = 0, identity_gp = 0;
  for (int my = 0; my < p.ngpown; ++my) {
    skipped += d.vcoul_loc(my) == 0.0;
    identity_gp += in.indinv[in.inv_igp_index[my] - 1] == my + 1;
  }
  EXPECT_EQ(skipped, p.skipped_gp);
  EXPECT_LT(identity_gp, p.ngpown / 2);
  // Occupations: full, half (Fermi level) and empty bands all present.
  int full = 0, half = 0, empty = 0;
  for (int n = 0; n < d.nbands; ++n) {
    full += d.occ_array(n) == 1.0;
    half += d.occ_array(n) == 0.5;
    empty += d.occ_array(n) == 0.0;
  }
  EXPECT_EQ(full, p.nvband - 1);
  EXPECT_EQ(half, 1);
  EXPECT_EQ(empty, p.nbands - p.nvband);
  // wx of both signs and the clamp.
  int neg = 0, pos = 0, clamped = 0;
  for (int n = 0; n < d.nbands; ++n)
    for (int w = 0; w < d.nw; ++w) {
      neg += d.wx_array_t(w, n) < 0;
      pos += d.wx_array_t(w, n) > 0;
      clamped += d.wx_array_t(w, n) == physics::TOL_Zero;
    }
  EXPECT_GT(neg, 0);
  EXPECT_GT(pos, 0);
  EXPECT_GE(clamped, 1);
}

TEST(Generator, EveryBranchAndTheCutoffAreTaken) {
  const DeckParams p = small_deck(48, 40, 400, 20);
  const InputDeck in = generate_random(p);
  const auto host = derive(in);
  const SpaceData data(host);
  for (const SpaceKind k : build_spaces()) {
    const measure::BranchCounts other =
        with_space(k, [&](auto space) { return measure::counts::arm_statistics(space, data.on(space)).branches(); });
    const measure::BranchCounts on_host = measure::counts::arm_statistics(HostExec(), host).branches();
    EXPECT_EQ(other.regular, on_host.regular);
    EXPECT_EQ(other.cut, on_host.cut);
  }
  const measure::BranchCounts c = measure::counts::arm_statistics(HostExec(), host).branches();
  EXPECT_EQ(c.total(), std::int64_t(p.nbands) * p.ngpown * p.ncouls * 2);
  EXPECT_GT(c.regular, 0);
  EXPECT_GT(c.near_pole, 0);
  EXPECT_GT(c.zero, 0);
  EXPECT_GT(c.cut, 0);
  EXPECT_GT(c.regular, c.near_pole);  // realistic: the regular arm dominates
}

TEST(Generator, RejectsBadParameters) {
  DeckParams p = small_deck();
  p.nbands = 0;
  EXPECT_THROW(generate(p), Error);
  p = small_deck();
  p.nstart = 4;
  EXPECT_THROW(generate(p), Error);
  p = small_deck();
  p.ngpown = p.ncouls + 1;
  EXPECT_THROW(generate(p), Error);
  p = small_deck();
  p.generator = "gaussian";
  EXPECT_THROW(generate(p), Error);
  p = small_deck();
  p.sexcut = -1;
  EXPECT_THROW(generate(p), Error);
}

// Each physical parameter: accepted at both ends of its range, refused just beyond each
// (and at inf and NaN), the message naming the key and the range.
TEST(Generator, ParameterRanges) {
  // (a member pointer through an alias: nvcc's front end writes the plain declarator with
  // parentheses that g++ then warns about)
  using Field = double DeckParams::*;
  struct Range {
    const char* key;
    Field field;
    double low, high, below, above;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const Range& r : {Range{"gamma", &DeckParams::gamma, 1e-150, 1e6, 0.9e-150, 1.0000001e6},
                         Range{"sexcut", &DeckParams::sexcut, 0, 1e6, -1e-300, 1.0000001e6},
                         Range{"tol", &DeckParams::tol, 0, 1e6, -1e-300, 1.0000001e6},
                         Range{"e_lk", &DeckParams::e_lk, -1e6, 1e6, -1.0000001e6, 1.0000001e6},
                         Range{"dw", &DeckParams::dw, -1e6, 1e6, -1.0000001e6, 1.0000001e6},
                         Range{"efermi", &DeckParams::efermi, -1e6, 1e6, -1e308, 1e308}}) {
    SCOPED_TRACE(r.key);
    for (const double ok : {r.low, r.high}) {
      DeckParams p = small_deck();
      p.*r.field = ok;
      EXPECT_NO_THROW(validate(p)) << ok;
    }
    for (const double bad : {r.below, r.above, inf, -inf, nan}) {
      DeckParams p = small_deck();
      p.*r.field = bad;
      try {
        validate(p);
        ADD_FAILURE() << bad << " accepted";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind(std::string(r.key) + " must be between ", 0), 0u) << e.what();
      }
    }
  }
  // Frequency indices: iw - 2 and dw (iw - 2) stay far from overflow.
  for (const auto& [nstart, nend, ok] :
       {std::tuple{-1000000, -999999, true}, std::tuple{999999, 1000000, true}, std::tuple{-1000001, -1000000, false},
        std::tuple{1000000, 1000001, false}, std::tuple{INT_MIN, INT_MIN + 1, false}}) {
    DeckParams p = small_deck();
    p.nstart = nstart;
    p.nend = nend;
    if (ok) {
      EXPECT_NO_THROW(validate(p)) << nstart;
    } else {
      EXPECT_THROW(validate(p), Error) << nstart;
    }
  }
}

// A file's band energies are held to the same range as the deck's energies.
TEST(Generator, FileBandEnergiesInRange) {
  InputDeck in = generate(small_deck());
  EXPECT_NO_THROW(validate(in));
  in.wfnkq_ekq[3] = -1e6;
  EXPECT_NO_THROW(validate(in));
  in.wfnkq_ekq[3] = 1e300;
  try {
    validate(in);
    ADD_FAILURE() << "a band energy of 1e300 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wfnkq_ekq(4)"), std::string::npos) << e.what();
  }
  in.wfnkq_ekq[3] = 0;
  in.efermi = 1e308;
  EXPECT_THROW(validate(in), Error);
}

DeckParams miniapp(int nbands, int nvband, int ncouls, int nodes) {
  DeckParams p;
  p.generator = "uniform";
  p.nbands = nbands;
  p.nvband = nvband;
  p.ncouls = ncouls;
  p.ngpown = ncouls / nodes;
  p.nstart = 1;
  p.nend = 3;
  p.e_lk = 10.0;
  p.dw = 1.0;
  p.gamma = 0.5;
  p.sexcut = 4.0;
  return p;
}

// The published result of the mini-apps' `512 2 32768 20`.
TEST(ClosedForm, MiniAppBenchmarkValue) {
  const SigmaSums s = closed_form_uniform(miniapp(512, 2, 32768, 20));
  ASSERT_EQ(s.sch_sum.size(), 3u);
  // Exact in long double: 512*1638*32768 * (-0.25 + 1.25i)/26 * 0.5 * 0.5
  EXPECT_TRUE(close(s.sch_sum[0], {-264241152.0, 1321205760.0}, 1e-15));
}

// The closed form against the compensated host reference on actual constant data.
TEST(ClosedForm, MatchesHostReferenceOnUniformData) {
  const DeckParams p = miniapp(16, 2, 256, 20);
  const auto host = derive(generate_uniform(p));
  const SigmaSums ref = reference_sums(host), cf = closed_form_uniform(p);
  for (int w = 0; w < 3; ++w) {
    // The reference is compensated: only per-term rounding (~1e-16) separates them.
    EXPECT_TRUE(close(ref.sch_sum[w], cf.sch_sum[w], 1e-13));
    EXPECT_TRUE(close(ref.ssx_sum[w], cf.ssx_sum[w], 1e-13));
  }
}

}  // namespace
}  // namespace gpp::test
