// The original benchmark's Fortran unformatted file: layout checked byte by byte
// (independently of the reader), exact round trips, the same results as the deck it
// was written from, and every kind of damage refused with one line naming the record.
#include "gpp_fortran_io.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_policy.hpp"
#include "gpp_reference.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

namespace gpp::test {
using formats::dat_file_bytes;
using formats::read_dat;
using formats::write_dat;

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("FortranIo.MissingEmptyOrDirectory");
// Host arrays and host loops only: they run without Kokkos where Kokkos 4 allows it.
GPP_HOST_VIEWS_ONLY("FortranIo.WriterRefusesWhatTheFileCannotHold");
GPP_HOST_VIEWS_ONLY("FortranIo.ZeroReferenceRecordsMeanNoneStored");
GPP_HOST_VIEWS_ONLY("FortranIo.NegativeZeroReferenceIsNoneAndWrittenBackAsRead");

namespace {

// Calls read_dat(path) and returns its error message ("" when it succeeded).
std::string read_error(const std::string& path) {
  try {
    read_dat(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The message of a read that must fail: one line, naming the file.
::testing::AssertionResult fails_naming(const std::string& path, const std::vector<std::string>& words) {
  const std::string m = read_error(path);
  if (m.empty()) return ::testing::AssertionFailure() << "read_dat accepted the file";
  if (m.find('\n') != std::string::npos) return ::testing::AssertionFailure() << "more than one line: " << m;
  if (m.rfind(path, 0) != 0) return ::testing::AssertionFailure() << "does not start with the file name: " << m;
  for (const auto& w : words)
    if (m.find(w) == std::string::npos) return ::testing::AssertionFailure() << "'" << w << "' missing from: " << m;
  return ::testing::AssertionSuccess() << m;
}

InputDeck with_reference(const DeckParams& p) {
  InputDeck in = generate_random(p);
  const SigmaResult ref = apply_start_values(reference_sums(derive(in)), in.asxtemp0, in.achtemp0);
  in.asxtempref = ref.asxtemp;
  in.achtempref = ref.achtemp;
  return in;
}

TEST(FortranIo, LayoutIsTheFortranRecordSequence) {
  // Written by write_dat, decoded here by hand from the spec's record table.
  const InputDeck in = fortran_like_deck();
  const std::string path = temp_path("layout.dat");
  write_dat(in, path);
  const Bytes b = read_bytes(path);
  const auto rec = record_map(b);
  ASSERT_EQ(rec.size(), 18u);
  std::size_t total = 0;
  for (const auto& r : rec) {
    ASSERT_LE(r.payload + r.length + 4, b.size());
    EXPECT_EQ(peek<std::int32_t>(b, r.payload + r.length), std::int32_t(r.length));  // trailing marker
    total += r.length + 8;
  }
  EXPECT_EQ(total, b.size());
  EXPECT_EQ(std::int64_t(b.size()), dat_file_bytes(in));
  const std::int64_t nc = in.ncouls, nbmax = in.peinf_ntband_max, ngp = in.ngpown;
  const std::size_t expect_len[18] = {20,
                                      20,
                                      std::size_t(4 * nbmax),
                                      std::size_t(8 * in.sig_ntband),
                                      36,
                                      std::size_t(4 * in.epsmpi_ngpown_max),
                                      std::size_t(4 + 4 * in.gvec_ng),
                                      std::size_t(16 * nc * nbmax),
                                      20,
                                      std::size_t(8 * in.ncoul),
                                      24,
                                      std::size_t(16 * nc * ngp),
                                      std::size_t(16 * nc * ngp),
                                      std::size_t(16 * nc * nbmax),
                                      48,
                                      48,
                                      48,
                                      48};
  for (int r = 0; r < 18; ++r) EXPECT_EQ(rec[r].length, expect_len[r]) << "record " << r + 1;
  // Record 1 and 2: the sizes; record 5: 3 ints then 3 reals; record 7 starts with gvec_ng.
  EXPECT_EQ(peek<std::int32_t>(b, rec[0].payload + 16), in.peinf_ntband_max);
  EXPECT_EQ(peek<std::int32_t>(b, rec[1].payload + 12), in.ngpown);
  EXPECT_EQ(peek<std::int32_t>(b, rec[4].payload + 4), in.nend);
  EXPECT_EQ(peek<double>(b, rec[4].payload + 28), in.e_lk);
  EXPECT_EQ(peek<std::int32_t>(b, rec[6].payload), in.gvec_ng);
  EXPECT_EQ(peek<double>(b, rec[10].payload + 8), in.limittwo);
  // Column-major complex*16: I_eps_array(ig=3, igp=5) is element (5-1)*ncouls + (3-1).
  const std::size_t off = rec[12].payload + 16 * std::size_t((5 - 1) * nc + (3 - 1));
  EXPECT_EQ(peek<double>(b, off), in.I_eps_array(2, 4).real());
  EXPECT_EQ(peek<double>(b, off + 8), in.I_eps_array(2, 4).imag());
  // Records 15..18 hold iw = 1..3: iw = 1 from records_15_18, iw = 2, 3 from the vectors.
  EXPECT_EQ(peek<double>(b, rec[14].payload), in.records_15_18[0][0].real());
  EXPECT_EQ(peek<double>(b, rec[14].payload + 16), in.asxtemp0[0].real());
  EXPECT_EQ(peek<double>(b, rec[17].payload + 32 + 8), in.achtempref[1].imag());
  std::remove(path.c_str());
}

// The Fortran side: gfortran reads the file with the benchmark's READ lists (it checks
// every record marker itself), sees the values where Fortran indexing puts them, and
// writes back the same bytes.
TEST(FortranIo, GfortranReadsAndRewritesTheFile) {
  const std::string fortran = GPP_FORTRAN_DAT;
  if (fortran.empty()) GTEST_SKIP() << "no Fortran compiler at configure time";
  const InputDeck in = fortran_like_deck();
  const std::string path = temp_path("gfortran_in.dat"), back = temp_path("gfortran_out.dat");
  write_dat(in, path);
  const Outcome o = [&] {
    Outcome r{-1, ""};
    FILE* p = popen((fortran + " " + path + " " + back + " 2>&1").c_str(), "r");
    std::array<char, 512> buf;
    while (p && fgets(buf.data(), buf.size(), p)) r.out += buf.data();
    if (p) r.code = pclose(p);
    return r;
  }();
  ASSERT_EQ(o.code, 0) << o.out;
  std::istringstream lines(o.out);
  std::map<std::string, std::vector<double>> got;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    for (std::string w; words >> w;) got[key].push_back(std::strtod(w.c_str(), nullptr));
  }
  EXPECT_EQ(got["sizes"], (std::vector<double>{double(in.sig_ntband), double(in.gvec_ng), double(in.ncoul),
                                               double(in.epsmpi_ngpown_max), double(in.peinf_ntband_max)}));
  EXPECT_EQ(got["local"], (std::vector<double>{double(in.peinf_ntband_dist), double(in.ipe), double(in.ispin),
                                               double(in.ngpown), double(in.ncouls)}));
  EXPECT_EQ(got["iw"],
            (std::vector<double>{double(in.nstart), double(in.nend), double(in.sig_fdf), double(in.gvec_ng)}));
  // 18 significant digits: the doubles exactly.
  EXPECT_EQ(got["e_lk"], std::vector<double>{in.e_lk});
  EXPECT_EQ(got["I_eps_array(3,5)"], (std::vector<double>{in.I_eps_array(2, 4).real(), in.I_eps_array(2, 4).imag()}));
  EXPECT_EQ(got["aqsmtemp(7,2)"], (std::vector<double>{in.aqsmtemp(6, 1).real(), in.aqsmtemp(6, 1).imag()}));
  EXPECT_EQ(got["achtempref(3)"], (std::vector<double>{in.achtempref[1].real(), in.achtempref[1].imag()}));
  EXPECT_EQ(got["asxtemp(1)"], (std::vector<double>{in.records_15_18[0][0].real(), in.records_15_18[0][0].imag()}));
  EXPECT_EQ(read_bytes(back), read_bytes(path));
  std::remove(path.c_str());
  std::remove(back.c_str());
}

TEST(FortranIo, RoundTripKeepsEverythingAndIsByteIdentical) {
  const InputDeck in = fortran_like_deck();
  const std::string a = temp_path("rt_a.dat"), b = temp_path("rt_b.dat");
  write_dat(in, a);
  const InputDeck back = read_dat(a);
  EXPECT_TRUE(decks_identical(back, in));
  write_dat(back, b);
  EXPECT_EQ(read_bytes(a), read_bytes(b));
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST(FortranIo, ZeroReferenceRecordsMeanNoneStored) {
  InputDeck in = generate_random(small_deck());
  ASSERT_FALSE(in.has_reference());
  const std::string path = temp_path("noref.dat");
  write_dat(in, path);
  const Bytes b = read_bytes(path);
  const auto rec = record_map(b);
  for (int r : {16, 17})
    for (std::size_t i = 0; i < 48; ++i) EXPECT_EQ(b[rec[r].payload + i], 0) << "record " << r + 1;
  EXPECT_FALSE(read_dat(path).has_reference());
  in = with_reference(small_deck());
  write_dat(in, path);
  EXPECT_TRUE(read_dat(path).has_reference());
  std::remove(path.c_str());
}

// A file without a reference may hold -0 in records 17 and 18 (another writer's zeros):
// still no reference, and written back with the same bytes.
TEST(FortranIo, NegativeZeroReferenceIsNoneAndWrittenBackAsRead) {
  const InputDeck in = generate_random(small_deck());
  const std::string a = temp_path("negzero_a.dat"), b = temp_path("negzero_b.dat");
  write_dat(in, a);
  Bytes bytes = read_bytes(a);
  const auto rec = record_map(bytes);
  poke(bytes, rec[16].payload + 16 * (in.nstart - 1), -0.0);    // asxtempref(iw=nstart), real part
  poke(bytes, rec[17].payload + 16 * (in.nend - 1) + 8, -0.0);  // achtempref(iw=nend), imaginary part
  write_bytes(a, bytes);
  const InputDeck back = read_dat(a);
  EXPECT_FALSE(back.has_reference());
  write_dat(back, b);
  EXPECT_EQ(read_bytes(b), bytes);
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST(FortranIo, DatRunGivesTheDeckResults) {
  // Same data: the sums agree up to the order in which a parallel backend combines
  // partial sums (bitwise on Serial and CUDA; OpenMP threads finish in any order).
  const InputDeck in = with_reference(small_deck(30, 24, 200, 12));
  const std::string path = temp_path("run.dat");
  write_dat(in, path);
  const InputDeck back = read_dat(path);
  ASSERT_TRUE(back.has_reference());
  const std::string host_default = default_policy_name(SpaceKind::Host);
  const PolicyEntry& policy = find_policy(host_default);
  auto run = [&](const InputDeck& deck) {
    const auto d = derive(deck);
    return apply_start_values(policy.run(HostExec(), d, {}), deck.asxtemp0, deck.achtemp0);
  };
  const SigmaResult direct = run(in), from_file = run(back);
  // ~1e5 terms, cancellation at most ~100x: reordering moves them by < 1e-13.
  EXPECT_TRUE(results_close(from_file, direct, 1e-13));
  // And the stored reference verifies it (the default tolerance).
  const SigmaResult stored{back.achtempref, back.asxtempref};
  EXPECT_TRUE(results_close(from_file, stored, kDefaultRtol));
  std::remove(path.c_str());
}

TEST(FortranIo, StartValuesOfRecords15And16AreApplied) {
  InputDeck in = generate_random(small_deck());
  const std::string host_default = default_policy_name(SpaceKind::Host);
  const PolicyEntry& policy = find_policy(host_default);
  auto run = [&](const InputDeck& deck) {
    const auto d = derive(deck);
    return apply_start_values(policy.run(HostExec(), d, {}), deck.asxtemp0, deck.achtemp0);
  };
  const SigmaResult sums = run(in);  // zero start values: the sums themselves
  in.asxtemp0 = {{0.5, -0.25}, {1.5, 0.125}};
  in.achtemp0 = {{-2.0, 0.75}, {0.0, 3.0}};
  const std::string path = temp_path("start.dat");
  write_dat(in, path);
  const SigmaResult r = run(read_dat(path));
  // The start values are exact binary fractions; the sums agree to the summation-order
  // bound of a parallel backend (1e-13, see DatRunGivesTheDeckResults), far below the
  // start values' size.
  for (int w = 0; w < in.nw(); ++w) {
    EXPECT_TRUE(close(r.achtemp[w], in.achtemp0[w] + sums.achtemp[w], 1e-13));  // achtemp0 + sch_sum
    EXPECT_TRUE(close(r.asxtemp[w], in.asxtemp0[w] + sums.asxtemp[w], 1e-13));  // asxtemp0 - ssx_sum
    EXPECT_GT(std::abs(r.achtemp[w] - sums.achtemp[w]), 0.5);
  }
  std::remove(path.c_str());
}

TEST(FortranIo, WriterRefusesWhatTheFileCannotHold) {
  DeckParams p = small_deck();
  p.nstart = 1;
  p.nend = 4;
  const std::string path = temp_path("four.dat");
  try {
    write_dat(generate_random(p), path);
    FAIL() << "accepted iw = 1..4";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("iw = 1..4"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(file_exists(path));
  // A deck that fails validation leaves nothing behind, not even the temporary file.
  InputDeck bad = generate_random(small_deck());
  bad.vcoul[3] = NAN;
  EXPECT_THROW(write_dat(bad, path), Error);
  EXPECT_FALSE(file_exists(path));
  EXPECT_FALSE(file_exists(path + ".tmp." + std::to_string(::getpid())));
  EXPECT_THROW(write_dat(generate_random(small_deck()), "/nonexistent-dir/x.dat"), Error);
}

TEST(FortranIo, MissingEmptyOrDirectory) {
  EXPECT_NE(read_error("/nonexistent/in.dat").find("cannot read /nonexistent/in.dat: No such file"), std::string::npos);
  EXPECT_NE(read_error(gpp::test::scratch_dir()).find("is a directory"), std::string::npos);
  const std::string empty = temp_path("empty.dat");
  write_bytes(empty, {});
  EXPECT_TRUE(fails_naming(empty, {"empty"}));
  std::remove(empty.c_str());
}

class DamagedDat : public ::testing::Test {
 protected:
  void SetUp() override {
    deck_ = fortran_like_deck(6, 4, 10, 3);
    good_path_ = temp_path("good.dat");
    path_ = temp_path("damaged.dat");
    write_dat(deck_, good_path_);
    good_ = read_bytes(good_path_);
    rec_ = record_map(good_);
    ASSERT_EQ(rec_.size(), 18u);
  }
  void TearDown() override {
    std::remove(good_path_.c_str());
    std::remove(path_.c_str());
  }
  InputDeck deck_;
  std::string good_path_, path_;
  Bytes good_;
  std::vector<RecordSpan> rec_;
};

// sig_gamma <= 0 and tol < 0 are refused as in a TOML deck (one check for every input).
TEST_F(DamagedDat, ParametersATomlDeckWouldRefuse) {
  for (const auto& [gamma, tol, efermi, words] :
       {std::make_tuple(0.0, 1e-3, 0.0, "sig_gamma must be between 1e-150 and 1e6 (got 0)"),
        std::make_tuple(-0.5, 1e-3, 0.0, "sig_gamma must be between 1e-150 and 1e6 (got -0.5)"),
        std::make_tuple(0.5, -1e-3, 0.0, "tol must be between 0 and 1e6 (got -0.001)"),
        // Finite but beyond what the kernel's arithmetic holds (wx^2 overflows).
        std::make_tuple(0.5, 1e-3, 1e308, "efermi must be between -1e6 and 1e6 (got 1e+308)")}) {
    Bytes b = good_;
    // Record 5: nstart, nend, sig_fdf (int), sig_dw, sig_gamma, e_lk; record 9: nvband, tol, efermi.
    std::memcpy(b.data() + rec_[4].payload + 20, &gamma, 8);
    std::memcpy(b.data() + rec_[8].payload + 4, &tol, 8);
    std::memcpy(b.data() + rec_[8].payload + 12, &efermi, 8);
    write_bytes(path_, b);
    EXPECT_TRUE(fails_naming(path_, {words})) << words;
  }
}

TEST_F(DamagedDat, TruncatedAtEveryByte) {
  ASSERT_TRUE(read_error(good_path_).empty());
  for (std::size_t cut = 0; cut < good_.size(); ++cut) {
    write_bytes(path_, good_, cut);
    const auto r = fails_naming(path_, {cut == 0 ? "empty" : "record "});
    ASSERT_TRUE(r) << "cut at byte " << cut << " of " << good_.size();
  }
  // A cut at a record boundary names the missing record.
  write_bytes(path_, good_, rec_[11].marker);
  EXPECT_TRUE(fails_naming(path_, {"record 12 (wtilde_array): missing: the file ends after record 11"}));
  // Inside a payload: the record and the sizes.
  write_bytes(path_, good_, rec_[12].payload + 17);
  EXPECT_TRUE(fails_naming(path_, {"record 13 (I_eps_array): the file ends inside the record"}));
}

TEST_F(DamagedDat, TrailingData) {
  Bytes b = good_;
  b.push_back(0);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"1 bytes of trailing data after record 18"}));
}

TEST_F(DamagedDat, EveryMarkerByteCorrupted) {
  int cases = 0;
  for (int r = 0; r < 18; ++r)
    for (const std::size_t base : {rec_[r].marker, rec_[r].payload + rec_[r].length})
      for (std::size_t k = 0; k < 4; ++k) {
        Bytes b = good_;
        b[base + k] ^= 0x5A;
        write_bytes(path_, b);
        ASSERT_TRUE(fails_naming(path_, {"record " + std::to_string(r + 1) + " ("}))
            << "record " << r + 1 << " marker byte " << base + k;
        ++cases;
      }
  EXPECT_EQ(cases, 18 * 8);
  // The messages say which side disagrees.
  Bytes b = good_;
  poke<std::int32_t>(b, rec_[11].payload + rec_[11].length, std::int32_t(rec_[11].length + 16));
  write_bytes(path_, b);
  EXPECT_TRUE(
      fails_naming(path_, {"record 12 (wtilde_array): trailing marker says 656 bytes, leading marker says 640"}));
  b = good_;
  poke<std::int32_t>(b, rec_[11].marker, -5);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"record 12 (wtilde_array): leading record marker is negative (-5)"}));
}

TEST_F(DamagedDat, HeaderSizesThatDisagreeWithTheArrays) {
  // Each size of records 1, 2 and 5, and record 7's gvec_ng, corrupted byte by byte.
  std::vector<std::pair<std::size_t, const char*>> fields;
  const char* r1[5] = {"sig_ntband", "gvec_ng", "ncoul", "epsmpi_ngpown_max", "peinf_ntband_max"};
  for (int i = 0; i < 5; ++i) fields.push_back({rec_[0].payload + 4 * i, r1[i]});
  fields.push_back({rec_[1].payload + 0, "peinf_ntband_dist"});
  fields.push_back({rec_[1].payload + 12, "ngpown"});
  fields.push_back({rec_[1].payload + 16, "ncouls"});
  fields.push_back({rec_[4].payload + 0, "nstart"});
  fields.push_back({rec_[4].payload + 4, "nend"});
  fields.push_back({rec_[6].payload, "gvec_ng (record 7)"});
  for (const auto& [pos, name] : fields)
    for (std::size_t k = 0; k < 4; ++k) {
      Bytes b = good_;
      b[pos + k] ^= 0x5A;
      write_bytes(path_, b);
      ASSERT_TRUE(fails_naming(path_, {})) << name << " byte " << k;
    }
  // One larger ncouls: the first array record sized by it disagrees with its marker.
  Bytes b = good_;
  poke<std::int32_t>(b, rec_[1].payload + 16, deck_.ncouls + 1);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"record 8 (aqsmtemp): marker says 1440 bytes, header sizes need 1584"}));
  b = good_;
  poke<std::int32_t>(b, rec_[6].payload, deck_.gvec_ng - 1);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"record 7 (gvec_ng, indinv): gvec_ng = 12, record 1 says 13"}));
}

TEST_F(DamagedDat, ZeroNegativeAndHugeSizes) {
  auto with_size = [&](int record, int field, std::int32_t v) {
    Bytes b = good_;
    poke<std::int32_t>(b, rec_[record - 1].payload + 4 * field, v);
    write_bytes(path_, b);
  };
  with_size(1, 0, 0);
  EXPECT_TRUE(fails_naming(path_, {"record 1 (sizes): sig_ntband = 0, must be positive"}));
  with_size(2, 4, -3);
  EXPECT_TRUE(fails_naming(path_, {"record 2 (local sizes): ncouls = -3, must be positive"}));
  // Too large to allocate: refused from the markers, before any allocation.
  with_size(2, 3, INT_MAX);
  EXPECT_TRUE(fails_naming(path_, {"record 12 (wtilde_array): marker says 640 bytes, header sizes need 343597383520"}));
  with_size(1, 4, INT_MAX);
  EXPECT_TRUE(
      fails_naming(path_, {"record 3 (peinf_indext_dist): marker says 36 bytes, header sizes need 8589934588"}));
  Bytes b = good_;
  poke<std::int32_t>(b, rec_[1].payload + 12, INT_MAX);
  poke<std::int32_t>(b, rec_[1].payload + 16, INT_MAX);
  poke<std::int32_t>(b, rec_[0].payload + 16, INT_MAX);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"record 3", "marker says 36 bytes"}));
  // Consistent markers but a local size beyond the stored one: validate() catches it.
  with_size(2, 0, deck_.peinf_ntband_max + 1);
  EXPECT_TRUE(fails_naming(path_, {"peinf_ntband_dist (10) exceeds peinf_ntband_max (9)"}));
  // nstart..nend outside the file's iw = 1..3.
  with_size(5, 1, 4);
  EXPECT_TRUE(fails_naming(path_, {"record 5", "nend = 4", "1 <= nstart <= nend <= 3"}));
}

TEST_F(DamagedDat, IndicesOutOfRange) {
  Bytes b = good_;
  poke<std::int32_t>(b, rec_[2].payload + 4 * 1, 0);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"peinf_indext_dist(2) = 0 is outside 1..sig_ntband"}));
  b = good_;
  poke<std::int32_t>(b, rec_[5].payload + 4 * 3, -1);
  write_bytes(path_, b);
  EXPECT_TRUE(fails_naming(path_, {"inv_igp_index(4) = -1 is outside 1..gvec_ng"}));
}

// Every real and complex value of the file replaced by NaN (all bits set) or +Inf, one
// at a time: the error names the array and the 1-based index.
TEST_F(DamagedDat, NonFiniteValuesNamedWithTheirIndex) {
  struct Target {
    std::size_t pos;
    std::string words;
  };
  std::vector<Target> targets;
  auto vector_of = [&](int r, const char* name, int n) {
    for (int i = 0; i < n; ++i)
      targets.push_back(
          {rec_[r - 1].payload + 8 * std::size_t(i), std::string(name) + "(" + std::to_string(i + 1) + ")"});
  };
  auto matrix_of = [&](int r, const char* name, int rows, int cols) {
    for (int c = 0; c < cols; ++c)
      for (int row = 0; row < rows; ++row)
        for (int part = 0; part < 2; ++part)
          targets.push_back({rec_[r - 1].payload + 16 * std::size_t(c * rows + row) + 8 * part,
                             std::string(name) + "(" + std::to_string(row + 1) + "," + std::to_string(c + 1) + ")"});
  };
  vector_of(4, "wfnkq_ekq", deck_.sig_ntband);
  vector_of(10, "vcoul", deck_.ncoul);
  matrix_of(8, "aqsmtemp", deck_.ncouls, deck_.peinf_ntband_max);
  matrix_of(12, "wtilde_array", deck_.ncouls, deck_.ngpown);
  matrix_of(13, "I_eps_array", deck_.ncouls, deck_.ngpown);
  matrix_of(14, "aqsntemp", deck_.ncouls, deck_.peinf_ntband_max);
  targets.push_back({rec_[4].payload + 12, "input scalar sig_dw"});
  targets.push_back({rec_[4].payload + 20, "input scalar sig_gamma"});
  targets.push_back({rec_[4].payload + 28, "input scalar e_lk"});
  targets.push_back({rec_[8].payload + 4, "input scalar tol"});
  targets.push_back({rec_[8].payload + 12, "input scalar efermi"});
  targets.push_back({rec_[10].payload + 0, "input scalar sexcut"});
  targets.push_back({rec_[10].payload + 8, "input scalar limittwo"});
  targets.push_back({rec_[10].payload + 16, "input scalar limitone"});
  const char* rec_names[4] = {"asxtemp", "achtemp", "asxtempref", "achtempref"};
  const char* in_window[4] = {"asxtemp0", "achtemp0", "asxtempref", "achtempref"};
  for (int r = 0; r < 4; ++r) {
    targets.push_back({rec_[14 + r].payload, std::string(rec_names[r]) + "(1) of record " + std::to_string(15 + r)});
    for (int iw = 2; iw <= 3; ++iw)
      targets.push_back({rec_[14 + r].payload + 16 * std::size_t(iw - 1) + 8,
                         std::string(in_window[r]) + "(iw=" + std::to_string(iw) + ")"});
  }
  ASSERT_GT(targets.size(), 500u);
  const double inf = std::numeric_limits<double>::infinity();
  std::uint64_t nan_bits = ~std::uint64_t(0);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    Bytes b = good_;
    if (t % 3 == 0)
      poke<double>(b, targets[t].pos, t % 2 ? inf : -inf);
    else
      poke<std::uint64_t>(b, targets[t].pos, nan_bits);
    write_bytes(path_, b);
    ASSERT_TRUE(fails_naming(path_, {targets[t].words, "not finite"})) << "byte " << targets[t].pos;
  }
}

}  // namespace
}  // namespace gpp::test
