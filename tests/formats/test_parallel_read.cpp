// Large ranges of input files read by several threads (formats/gpp_parallel_read.hpp):
// the bytes, the errors, and decks whose matrices are past the threshold read back
// bitwise from .dat and .h5 (the HDF5 reader's pread path and its library fallback).
#include "gpp_deck_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_parallel_read.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <random>

namespace gpp::test {
using formats::have_hdf5;
using formats::read_deck_file;
using formats::ReadStats;
using formats::write_deck_file;

GPP_HOST_ONLY("ParallelRead.*");
GPP_HOST_VIEWS_ONLY("LargeDeck.*");

namespace {

TEST(ParallelRead, EveryThreadCountReadsTheSameBytes) {
  const std::string path = gpp::test::scratch_dir() + "gpp_parallel_read_" + std::to_string(::getpid());
  Bytes data(3 * 1048576 + 13);
  std::mt19937 rng(42);
  for (auto& b : data) b = static_cast<unsigned char>(rng());
  write_bytes(path, data);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  for (const int threads : {0, 1, 2, 3, 7, 16})
    for (const std::int64_t offset : {std::int64_t(0), std::int64_t(5), std::int64_t(1048577)}) {
      const std::int64_t n = std::int64_t(data.size()) - offset;
      std::vector<unsigned char> got(std::size_t(n), 0xAB);
      EXPECT_EQ(formats::parallel_pread(fd, offset, got.data(), n, threads), "") << threads;
      EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + offset))
          << threads << " threads, offset " << offset;
    }
  // The position is left where it was.
  EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), 0);
  // Past the end: named, from every thread count.
  std::vector<unsigned char> more(data.size() + 100);
  for (const int threads : {1, 4})
    EXPECT_NE(
        formats::parallel_pread(fd, 0, more.data(), std::int64_t(more.size()), threads).find("the file ends at byte"),
        std::string::npos);
  ::close(fd);
  std::remove(path.c_str());
}

// wtilde_array and I_eps_array of 2048 x 2048 complex: 64 MiB each, the threshold, so
// both readers take their parallel path for them (aqsmtemp, aqsntemp stay below it).
TEST(LargeDeck, ReadsBackBitwiseFromDatAndH5) {
  const InputDeck in = fortran_like_deck(6, 2048, 2048, 3);
  ASSERT_GE(std::int64_t(in.wtilde_array.span()) * 16, formats::kParallelReadBytes);
  std::vector<std::string> paths{gpp::test::scratch_dir() + "gpp_large_" + std::to_string(::getpid()) + ".dat"};
  if (have_hdf5()) paths.push_back(gpp::test::scratch_dir() + "gpp_large_" + std::to_string(::getpid()) + ".h5");
  for (const std::string& path : paths) {
    write_deck_file(in, path);
    ReadStats stats;
    const InputDeck back = read_deck_file(path, &stats);
    EXPECT_TRUE(decks_identical(back, in)) << path;
    EXPECT_GT(stats.bytes, 2 * (std::int64_t(64) << 20));
    EXPECT_GT(stats.read_s, 0);
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace gpp::test
