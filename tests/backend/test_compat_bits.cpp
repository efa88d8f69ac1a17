// compat::countr_zero and compat::popcount, which the fast reference's lists of flagged
// terms and its arm counts rest on, against plain loops over the bits: every single bit,
// every bit under all higher ones, and pseudo-random words. Whichever implementation the
// build takes (Kokkos' from 4.1, the host compiler's builtins before, a loop elsewhere)
// must give these answers.
#include "gpp_compat.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

int lowest_set(unsigned x) {
  for (int i = 0; i < 32; ++i)
    if ((x >> i) & 1u) return i;
  return -1;
}

int bits_set(unsigned x) {
  int n = 0;
  for (int i = 0; i < 32; ++i) n += int((x >> i) & 1u);
  return n;
}

TEST(CompatBits, SingleBitsAndHighRuns) {
  for (int i = 0; i < 32; ++i) {
    const unsigned one = 1u << i;
    EXPECT_EQ(gpp::compat::countr_zero(one), i) << "bit " << i;
    EXPECT_EQ(gpp::compat::popcount(one), 1) << "bit " << i;
    const unsigned from_i = ~0u << i;  // bits i .. 31
    EXPECT_EQ(gpp::compat::countr_zero(from_i), i) << "bits from " << i;
    EXPECT_EQ(gpp::compat::popcount(from_i), 32 - i) << "bits from " << i;
  }
  EXPECT_EQ(gpp::compat::popcount(0u), 0);
}

TEST(CompatBits, PseudoRandomWords) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int k = 0; k < 4096; ++k) {
    s += 0x9E3779B97F4A7C15ull;  // splitmix64
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    // sparse and dense words both: the flags of a chunk are mostly clear
    const unsigned x = k % 3 == 0 ? unsigned(z) & unsigned(z >> 32) & unsigned(z >> 16) : unsigned(z);
    EXPECT_EQ(gpp::compat::popcount(x), bits_set(x)) << std::hex << x;
    if (x != 0u) {
      EXPECT_EQ(gpp::compat::countr_zero(x), lowest_set(x)) << std::hex << x;
    }
  }
}

}  // namespace
