// HDF5 decks and result records: the layout as the HDF5 C API and h5py see it, exact
// round trips (.h5 read back identically, .dat -> .h5 -> .dat byte-identical), and a
// one-line error for every dataset or attribute that is missing, misshapen or mistyped.
#include "gpp_fortran_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_io_test_util.hpp"

#include <cmath>
#include <cstdlib>
#include <functional>

#ifdef GPP_HAVE_HDF5
#include <hdf5.h>
#endif

namespace gpp::test {
using formats::H5Record;
using formats::have_hdf5;
using formats::read_dat;
using formats::read_h5_deck;
using formats::write_dat;
using formats::write_h5_deck;

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("H5Record.WritesAtomically");
// Host arrays and host loops only: they run without Kokkos where Kokkos 4 allows it.
GPP_HOST_VIEWS_ONLY("DamagedH5.*");
GPP_HOST_VIEWS_ONLY("Hdf5Io.H5pyReadsComplex128InNaturalOrder");

namespace {

std::string h5_error(const std::string& path) {
  try {
    read_h5_deck(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

::testing::AssertionResult h5_fails_naming(const std::string& path, const std::string& words) {
  const std::string m = h5_error(path);
  if (m.empty()) return ::testing::AssertionFailure() << "read_h5_deck accepted " << path;
  if (m.find('\n') != std::string::npos) return ::testing::AssertionFailure() << "more than one line: " << m;
  if (m.find(path) == std::string::npos) return ::testing::AssertionFailure() << "does not name the file: " << m;
  if (m.find(words) == std::string::npos)
    return ::testing::AssertionFailure() << "'" << words << "' missing from: " << m;
  return ::testing::AssertionSuccess() << m;
}

#ifndef GPP_HAVE_HDF5

TEST(Hdf5Io, BuildWithoutHdf5SaysSo) {
  EXPECT_FALSE(have_hdf5());
  EXPECT_TRUE(h5_fails_naming("deck.h5", "built without HDF5"));
}

#else

TEST(Hdf5Io, DeckReadBackIdentically) {
  ASSERT_TRUE(have_hdf5());
  for (const InputDeck& in : {fortran_like_deck(), generate_random(small_deck())}) {
    const std::string path = temp_path("deck.h5");
    write_h5_deck(in, path);
    EXPECT_TRUE(decks_identical(read_h5_deck(path), in));
    // Written twice, the same bytes (no time stamps in the file).
    const std::string again = temp_path("deck2.h5");
    write_h5_deck(read_h5_deck(path), again);
    EXPECT_EQ(read_bytes(path), read_bytes(again));
    std::remove(path.c_str());
    std::remove(again.c_str());
  }
}

TEST(Hdf5Io, DatToH5ToDatIsByteIdentical) {
  const std::string dat = temp_path("a.dat"), h5 = temp_path("a.h5"), dat2 = temp_path("b.dat");
  write_dat(fortran_like_deck(), dat);
  write_h5_deck(read_dat(dat), h5);
  write_dat(read_h5_deck(h5), dat2);
  EXPECT_EQ(read_bytes(dat), read_bytes(dat2));
  for (const auto& p : {dat, h5, dat2}) std::remove(p.c_str());
}

// The file as any HDF5 reader sees it, read here with the C API (not gpp's reader).
TEST(Hdf5Io, LayoutSeenByTheHdf5Library) {
  const InputDeck in = fortran_like_deck();
  const std::string path = temp_path("layout.h5");
  write_h5_deck(in, path);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t d = H5Dopen2(f, "I_eps_array", H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  hsize_t dims[2];
  ASSERT_EQ(H5Sget_simple_extent_ndims(space), 2);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], hsize_t(in.ngpown));
  EXPECT_EQ(dims[1], hsize_t(in.ncouls));
  const hid_t type = H5Dget_type(d);
  ASSERT_EQ(H5Tget_class(type), H5T_COMPOUND);
  EXPECT_EQ(H5Tget_size(type), 16u);
  char* r = H5Tget_member_name(type, 0);
  char* i = H5Tget_member_name(type, 1);
  EXPECT_STREQ(r, "r");
  EXPECT_STREQ(i, "i");
  H5free_memory(r);
  H5free_memory(i);
  // Element [igp = 5][ig = 3] (0-based) is I_eps_array(ig = 4, igp = 6) in Fortran.
  const hsize_t start[2] = {5, 3}, count[2] = {1, 1};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t mem = H5Screate_simple(2, count, nullptr);
  double v[2];
  const hid_t mtype = H5Tcreate(H5T_COMPOUND, 16);
  H5Tinsert(mtype, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(mtype, "i", 8, H5T_NATIVE_DOUBLE);
  ASSERT_GE(H5Dread(d, mtype, mem, space, H5P_DEFAULT, v), 0);
  EXPECT_EQ(v[0], in.I_eps_array(3, 5).real());
  EXPECT_EQ(v[1], in.I_eps_array(3, 5).imag());
  int ncouls = 0;
  const hid_t a = H5Aopen(f, "ncouls", H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT, &ncouls);
  EXPECT_EQ(ncouls, in.ncouls);
  EXPECT_GT(H5Lexists(f, "records_15_18", H5P_DEFAULT), 0);  // iw = 1 values of the .dat file
  H5Aclose(a);
  H5Tclose(mtype);
  H5Sclose(mem);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  std::remove(path.c_str());
}

// A good deck, then one thing broken with the HDF5 C API.
class DamagedH5 : public ::testing::Test {
 protected:
  void SetUp() override {
    deck_ = generate_random(small_deck());
    deck_.asxtempref = {{1, 2}, {3, 4}};
    deck_.achtempref = {{5, 6}, {7, 8}};
    good_ = temp_path("good.h5");
    path_ = temp_path("damaged.h5");
    write_h5_deck(deck_, good_);
  }
  void TearDown() override {
    std::remove(good_.c_str());
    std::remove(path_.c_str());
  }
  // path_ is the good deck with `edit` applied to it.
  void edit(const std::function<void(hid_t)>& change) {
    write_bytes(path_, read_bytes(good_));
    const hid_t f = H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    change(f);
    H5Fclose(f);
  }
  // Replaces dataset `name` by one of `type` and `dims` (written with zeros unless `empty`).
  static void replace(hid_t f, const char* name, hid_t type, std::vector<hsize_t> dims, bool empty = false) {
    H5Ldelete(f, name, H5P_DEFAULT);
    const hid_t s = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    const hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::size_t n = 1;
    for (hsize_t k : dims) n *= k;
    std::vector<char> zeros(n * H5Tget_size(type), 0);
    if (!empty) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
    H5Dclose(d);
    H5Sclose(s);
  }
  static hid_t complex_type() {
    const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "i", 8, H5T_NATIVE_DOUBLE);
    return t;
  }
  hsize_t ngpown() const { return hsize_t(deck_.ngpown); }
  hsize_t ncouls() const { return hsize_t(deck_.ncouls); }
  InputDeck deck_;
  std::string good_, path_;
};

TEST_F(DamagedH5, GoodDeckReads) { EXPECT_EQ(h5_error(good_), ""); }

TEST_F(DamagedH5, MissingDataset) {
  edit([](hid_t f) { H5Ldelete(f, "I_eps_array", H5P_DEFAULT); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset I_eps_array is missing"));
}

TEST_F(DamagedH5, OneReferenceWithoutTheOther) {
  edit([](hid_t f) { H5Ldelete(f, "achtempref", H5P_DEFAULT); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset achtempref is missing"));
}

TEST_F(DamagedH5, GroupInsteadOfDataset) {
  edit([](hid_t f) {
    H5Ldelete(f, "vcoul", H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "vcoul", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  });
  EXPECT_TRUE(h5_fails_naming(path_, "vcoul is not a dataset"));
}

TEST_F(DamagedH5, FortranOrderInsteadOfNatural) {
  edit([&](hid_t f) { replace(f, "I_eps_array", complex_type(), {ncouls(), ngpown()}); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset I_eps_array has shape [150][20], expected [20][150] ([ngpown][ncouls])"));
}

TEST_F(DamagedH5, WrongRank) {
  edit([&](hid_t f) { replace(f, "wtilde_array", complex_type(), {ngpown() * ncouls()}); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset wtilde_array has shape [3000], expected [20][150]"));
}

TEST_F(DamagedH5, RealInsteadOfComplex) {
  edit([&](hid_t f) { replace(f, "aqsntemp", H5T_IEEE_F64LE, {24, ncouls()}); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset aqsntemp has type float, expected complex (compound {r, i} of floats)"));
}

TEST_F(DamagedH5, ComplexInsteadOfInteger) {
  edit([&](hid_t f) { replace(f, "indinv", complex_type(), {hsize_t(deck_.gvec_ng)}); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset indinv has type compound {r, i}, expected integer"));
}

TEST_F(DamagedH5, CompoundWithOtherNames) {
  edit([&](hid_t f) {
    const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "re", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "im", 8, H5T_NATIVE_DOUBLE);
    replace(f, "wtilde_array", t, {ngpown(), ncouls()});
  });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset wtilde_array has type compound {re, im}, expected complex"));
}

TEST_F(DamagedH5, DatasetWithoutData) {
  edit([&](hid_t f) { replace(f, "I_eps_array", complex_type(), {ngpown(), ncouls()}, true); });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset I_eps_array holds 0 bytes of data, its shape needs 48000"));
}

TEST_F(DamagedH5, MissingAttribute) {
  edit([](hid_t f) { H5Adelete(f, "ncouls"); });
  EXPECT_TRUE(h5_fails_naming(path_, "attribute ncouls of / is missing"));
}

TEST_F(DamagedH5, AttributeOfWrongType) {
  edit([](hid_t f) {
    H5Adelete(f, "ngpown");
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    const hid_t s = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(f, "ngpown", t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, "twen");
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
  });
  EXPECT_TRUE(h5_fails_naming(path_, "attribute ngpown has type string, expected an integer"));
}

TEST_F(DamagedH5, ZeroAndHugeSizes) {
  auto set_attr = [&](const char* name, long long v) {
    edit([&](hid_t f) {
      const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_LLONG, &v);
      H5Aclose(a);
    });
  };
  set_attr("ncouls", 0);
  EXPECT_TRUE(h5_fails_naming(path_, "attribute ncouls = 0, must be positive"));
  set_attr("ngpown", -2);
  EXPECT_TRUE(h5_fails_naming(path_, "attribute ngpown = -2, must be positive"));
  set_attr("ncouls", 2000000000);
  EXPECT_TRUE(h5_fails_naming(path_, "expected [24][2000000000]"));
}

// A chunked dataset created but never written reads as its fill value (zeros) unless
// refused: read, it ran with exit 0 and wrong numbers.
TEST_F(DamagedH5, ChunkedDatasetNeverWritten) {
  edit([&](hid_t f) {
    H5Ldelete(f, "wtilde_array", H5P_DEFAULT);
    const hsize_t dims[2] = {ngpown(), ncouls()}, chunk[2] = {4, 30};
    const hid_t s = H5Screate_simple(2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    const hid_t t = complex_type();
    H5Dclose(H5Dcreate2(f, "wtilde_array", t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Tclose(t);
    H5Pclose(dcpl);
    H5Sclose(s);
  });
  EXPECT_TRUE(h5_fails_naming(path_, "dataset wtilde_array was created but never written"));
}

TEST_F(DamagedH5, ChunkedDatasetPartlyWritten) {
  edit([&](hid_t f) {
    H5Ldelete(f, "I_eps_array", H5P_DEFAULT);
    const hsize_t dims[2] = {ngpown(), ncouls()}, chunk[2] = {4, 30};
    const hid_t s = H5Screate_simple(2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    const hid_t t = complex_type();
    const hid_t d = H5Dcreate2(f, "I_eps_array", t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const hsize_t start[2] = {0, 0}, count[2] = {4, 30};
    H5Sselect_hyperslab(s, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t mem = H5Screate_simple(2, count, nullptr);
    std::vector<double> v(4 * 30 * 2, 0.25);
    H5Dwrite(d, t, mem, s, H5P_DEFAULT, v.data());
    H5Sclose(mem);
    H5Dclose(d);
    H5Tclose(t);
    H5Pclose(dcpl);
    H5Sclose(s);
  });
  EXPECT_TRUE(
      h5_fails_naming(path_, "dataset I_eps_array was created but only partly written (1 of 25 chunks stored)"));
}

// A fully written chunked, compressed dataset is read like a contiguous one.
TEST_F(DamagedH5, ChunkedDatasetFullyWrittenReads) {
  edit([&](hid_t f) {
    const hid_t old = H5Dopen2(f, "aqsntemp", H5P_DEFAULT);
    const hid_t t = complex_type();
    std::vector<double> v(std::size_t(24) * ncouls() * 2);
    H5Dread(old, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    const hid_t s = H5Dget_space(old);
    H5Dclose(old);
    H5Ldelete(f, "aqsntemp", H5P_DEFAULT);
    const hsize_t chunk[2] = {5, 37};
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_deflate(dcpl, 4);
    const hid_t d = H5Dcreate2(f, "aqsntemp", t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Tclose(t);
  });
  EXPECT_EQ(h5_error(path_), "");
}

TEST_F(DamagedH5, SoftAndExternalLinksAreNotFollowed) {
  edit([](hid_t f) {
    H5Lmove(f, "vcoul", f, "vcoul_elsewhere", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft("/vcoul_elsewhere", f, "vcoul", H5P_DEFAULT, H5P_DEFAULT);
  });
  EXPECT_TRUE(h5_fails_naming(path_, "vcoul is a soft link, not a dataset stored in the file"));
  edit([](hid_t f) {
    H5Ldelete(f, "indinv", H5P_DEFAULT);
    H5Lcreate_external("/dev/zero", "/indinv", f, "indinv", H5P_DEFAULT, H5P_DEFAULT);
  });
  EXPECT_TRUE(h5_fails_naming(path_, "indinv is a external link"));
}

// The physical parameters are checked by the same function as a TOML deck's.
TEST_F(DamagedH5, ParametersATomlDeckWouldRefuse) {
  auto set_real = [&](const char* name, double v) {
    edit([&](hid_t f) {
      const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
      H5Aclose(a);
    });
  };
  set_real("sig_gamma", 0.0);
  EXPECT_TRUE(h5_fails_naming(path_, "sig_gamma must be between 1e-150 and 1e6 (got 0)"));
  set_real("sig_gamma", -0.5);
  EXPECT_TRUE(h5_fails_naming(path_, "sig_gamma must be between 1e-150 and 1e6 (got -0.5)"));
  set_real("tol", -1e-3);
  EXPECT_TRUE(h5_fails_naming(path_, "tol must be between 0 and 1e6 (got -0.001)"));
  // Finite but beyond what the kernel's arithmetic holds (wx^2 overflows).
  set_real("efermi", 1e308);
  EXPECT_TRUE(h5_fails_naming(path_, "efermi must be between -1e6 and 1e6 (got 1e+308)"));
  set_real("e_lk", -1e300);
  EXPECT_TRUE(h5_fails_naming(path_, "e_lk must be between -1e6 and 1e6 (got -1e+300)"));
}

TEST_F(DamagedH5, NonFiniteValueNamedWithItsIndex) {
  edit([&](hid_t f) {
    // I_eps_array(ig = 3, igp = 5) is HDF5 element [4][2].
    const hid_t d = H5Dopen2(f, "I_eps_array", H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    const hsize_t start[2] = {4, 2}, count[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t mem = H5Screate_simple(2, count, nullptr);
    const double v[2] = {0.5, NAN};
    H5Dwrite(d, complex_type(), mem, space, H5P_DEFAULT, v);
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(d);
  });
  EXPECT_TRUE(h5_fails_naming(path_, "input array I_eps_array(3,5) is not finite (0.5,nan)"));
}

TEST_F(DamagedH5, NotHdf5MissingOrTruncated) {
  write_bytes(path_, {'n', 'o', 't', '\n'});
  EXPECT_TRUE(h5_fails_naming(path_, "not an HDF5 file"));
  EXPECT_NE(h5_error("/nonexistent/deck.h5").find("cannot read /nonexistent/deck.h5: No such file"), std::string::npos);
  const Bytes good = read_bytes(good_);
  for (const std::size_t cut :
       {std::size_t(8), std::size_t(100), std::size_t(2000), good.size() / 2, good.size() - 1}) {
    write_bytes(path_, good, cut);
    EXPECT_TRUE(h5_fails_naming(path_, "")) << "cut at " << cut;
  }
}

TEST(H5Record, WritesAtomically) {
  const std::string path = temp_path("record.h5");
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    H5Record r(path);
    r.attribute("/", "format", "x").dataset("runs/p", "achtemp", std::vector<std::complex<double> >{{1, 2}});
    EXPECT_TRUE(file_exists(temp));
    EXPECT_FALSE(file_exists(path));
    // Not committed (an error, an interrupted run): nothing under either name.
  }
  EXPECT_FALSE(file_exists(temp));
  EXPECT_FALSE(file_exists(path));
  {
    H5Record r(path);
    r.attribute("deck", "nbands", 7)
        .attribute("deck", "name", "small")
        .attribute("/", "passed", true)
        .dataset("runs/p", "achtemp", std::vector<std::complex<double> >{{1.5, -2.25}, {3, 4}})
        .dataset("/", "achstemp", std::complex<double>(0.125, 8))
        .link("/achtemp", "/runs/p/achtemp");
    r.commit();
  }
  EXPECT_FALSE(file_exists(temp));
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  double v[4] = {};
  const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
  H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "i", 8, H5T_NATIVE_DOUBLE);
  const hid_t d = H5Dopen2(f, "/achtemp", H5P_DEFAULT);  // through the link
  ASSERT_GE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  EXPECT_EQ(v[0], 1.5);
  EXPECT_EQ(v[1], -2.25);
  EXPECT_EQ(v[3], 4.0);
  int nbands = 0;
  const hid_t a = H5Aopen_by_name(f, "deck", "nbands", H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT, &nbands);
  EXPECT_EQ(nbands, 7);
  H5Aclose(a);
  H5Dclose(d);
  H5Tclose(t);
  H5Fclose(f);
  std::remove(path.c_str());
  EXPECT_THROW(H5Record("/nonexistent-dir/r.h5"), Error);
}

// h5py (what analysis scripts use) sees complex128 in the natural [igp][ig] order.
TEST(Hdf5Io, H5pyReadsComplex128InNaturalOrder) {
  const std::string python = python_with_h5py();
  if (python.empty()) GTEST_SKIP() << "no python3 with h5py (Debian: python3-h5py)";
  const InputDeck in = generate_random(small_deck());
  const std::string path = temp_path("h5py.h5");
  write_h5_deck(in, path);
  auto value = [](const char* name, int i, int j, complex_t z) {
    char buf[160];
    std::snprintf(buf, sizeof buf, " '%s[%d,%d]=%.17g,%.17g'", name, i, j, z.real(), z.imag());
    return std::string(buf);
  };
  std::string cmd = python + " " + GPP_SOURCE_DIR + "/tools/h5py_check.py " + path;
  cmd += " I_eps_array:shape=" + std::to_string(in.ngpown) + "x" + std::to_string(in.ncouls);
  cmd += " aqsntemp:shape=" + std::to_string(in.peinf_ntband_max) + "x" + std::to_string(in.ncouls);
  cmd += value("I_eps_array", 5, 3, in.I_eps_array(3, 5)) + value("I_eps_array", 19, 149, in.I_eps_array(149, 19));
  cmd += value("wtilde_array", 2, 100, in.wtilde_array(100, 2)) + value("aqsmtemp", 7, 11, in.aqsmtemp(11, 7));
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // The check can fail: the Fortran order is not what h5py sees.
  const std::string wrong = python + " " + GPP_SOURCE_DIR + "/tools/h5py_check.py " + path +
                            " I_eps_array:shape=" + std::to_string(in.ncouls) + "x" + std::to_string(in.ngpown) +
                            " >/dev/null";
  EXPECT_NE(std::system(wrong.c_str()), 0);
  std::remove(path.c_str());
}

#endif  // GPP_HAVE_HDF5

}  // namespace
}  // namespace gpp::test
