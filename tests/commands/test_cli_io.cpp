// `gpp convert`, `gpp run --input` and `--output` through the binary: a deck converted
// to a file runs and verifies exactly like the deck, conversions go every way and back
// byte-identically, and damaged or wrong input ends in one line and a non-zero exit,
// never a result.
#include "gpp_fortran_io.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_policy.hpp"

#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <climits>
#include <cmath>
#include <limits>
#include <regex>

#ifdef GPP_HAVE_HDF5
#include <hdf5.h>
#endif

extern char** environ;

namespace gpp::test {
using formats::dat_file_bytes;
using formats::have_hdf5;

// gpp convert and refusals of damaged files: reading needs host arrays only (Kokkos 4).
GPP_HOST_VIEWS_ONLY("CliDamaged.*");
GPP_HOST_VIEWS_ONLY("CliIo.BadCommandLines");
GPP_HOST_VIEWS_ONLY("CliIo.ConvertsEveryWayAndBackByteIdentically");
GPP_HOST_VIEWS_ONLY("CliIo.InterruptedConvertLeavesNoFileUnderTheFinalName");

namespace {

std::string deck_path(const std::string& name) { return std::string(GPP_SOURCE_DIR) + "/inputs/" + name; }

// One line, non-zero exit, every word present, no result.
void expect_error(const std::string& args, const std::vector<std::string>& words) {
  const Outcome o = gpp_exe(args);
  SCOPED_TRACE("gpp " + args + "\n" + o.out);
  EXPECT_GT(o.code, 0);  // an exit code, not a signal (-1)
  EXPECT_EQ(count_lines(o.out), 1);
  for (const auto& w : words) EXPECT_NE(o.out.find(w), std::string::npos) << w;
  EXPECT_EQ(o.out.find("RESULT"), std::string::npos);
}

// The lines with the results (achtemp, asxtemp for every iw, achstemp without its timing).
std::string result_lines(const std::string& out) {
  std::string r;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("achtemp(iw=", 0) == 0 || line.rfind("asxtemp(iw=", 0) == 0) r += line + "\n";
    if (line.rfind("achstemp = ", 0) == 0) r += line.substr(0, line.find(')') + 1) + "\n";
  }
  return r;
}

// The labels of result_lines and, separately, every printed number.
std::pair<std::string, std::vector<double>> split_results(const std::string& lines) {
  std::string labels;
  std::vector<double> values;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    const auto open = line.find('(', line.find('=')), comma = line.find(',', open), close = line.find(')', comma);
    labels += line.substr(0, open) + "\n";
    values.push_back(std::stod(line.substr(open + 1, comma - open - 1)));
    values.push_back(std::stod(line.substr(comma + 1, close - comma - 1)));
  }
  return {labels, values};
}

// Two runs' printed results agree. Serial and CUDA reductions are deterministic, but
// OpenMP combines its threads' partial sums in whatever order they finish: on these
// ~1e5-term sums, whose results are at most ~100x smaller than the sum of magnitudes,
// that moves a result by ~1e-16 * 100 * log2(threads); 1e-13 of the largest printed
// value bounds it, while a wrong start value or a changed array moves it by > 1e-3.
::testing::AssertionResult same_results(const std::string& a, const std::string& b) {
  const auto [la, va] = split_results(result_lines(a));
  const auto [lb, vb] = split_results(result_lines(b));
  if (la != lb || va.size() != vb.size() || va.empty())
    return ::testing::AssertionFailure() << "different result lines:\n" << la << "vs\n" << lb;
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < va.size(); ++i) {
    scale = std::max(scale, std::abs(vb[i]));
    diff = std::max(diff, std::abs(va[i] - vb[i]));
  }
  if (diff <= 1e-13 * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "results differ by " << diff << " (scale " << scale << ")";
}

// No temporary output file left behind in `dir`.
int leftover_temporaries(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) n += std::string(e->d_name).find(".tmp.") != std::string::npos;
    closedir(d);
  }
  return n;
}

const char* kTiny = "--nbands 12 --ngpown 8 --ncouls 40 --nvband 5";

class CliIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("cli");
    ASSERT_EQ(std::system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str()), 0);
    dir_ += "/";
  }
  void TearDown() override { EXPECT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string dir_;
};

TEST_F(CliIo, ConvertedDeckRunsAndVerifiesLikeTheDeck) {
  const std::string dat = dir_ + "small.dat";
  const Outcome c = gpp_exe("convert " + deck_path("small.toml") + " " + dat);
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("reference: host reference computed"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("wrote: " + dat), std::string::npos) << c.out;

  const Outcome direct = gpp_exe("run " + deck_path("small.toml") + " --repeat 1");
  const Outcome from_file = gpp_exe("run --input " + dat + " --repeat 1");
  ASSERT_EQ(direct.code, 0) << direct.out;
  ASSERT_EQ(from_file.code, 0) << from_file.out;
  // Same data: the results agree to the summation-order bound (see same_results).
  EXPECT_TRUE(same_results(from_file.out, direct.out));
  EXPECT_EQ(count_lines(result_lines(direct.out)), 5);
  EXPECT_NE(from_file.out.find("against the stored reference"), std::string::npos) << from_file.out;
  EXPECT_NE(from_file.out.find("PASSED"), std::string::npos);
  EXPECT_NE(from_file.out.find("read: 1.1 MiB in "), std::string::npos) << from_file.out;
  EXPECT_NE(from_file.out.find("RESULT deck=small "), std::string::npos);
  // `gpp run FILE.dat` means --input.
  const Outcome positional = gpp_exe("run " + dat + " --repeat 1 --name renamed");
  EXPECT_EQ(positional.code, 0) << positional.out;
  EXPECT_TRUE(same_results(positional.out, direct.out));
  EXPECT_NE(positional.out.find("RESULT deck=renamed "), std::string::npos);
  EXPECT_EQ(leftover_temporaries(dir_), 0);
}

TEST_F(CliIo, StoredReferenceCatchesADifferentDeck) {
  // The stored reference is really compared: a file whose data changed fails it.
  const std::string dat = dir_ + "x.dat";
  ASSERT_EQ(gpp_exe(std::string("convert ") + kTiny + " " + dat).code, 0);
  Bytes b = read_bytes(dat);
  const auto rec = record_map(b);
  poke<double>(b, rec[12].payload + 16 * 5, 0.75);  // one I_eps_array value
  write_bytes(dat, b);
  const Outcome o = gpp_exe("run --input " + dat + " --repeat 1");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("against the stored reference"), std::string::npos);
  EXPECT_NE(o.out.find("FAILED"), std::string::npos);
}

TEST_F(CliIo, NoReferenceFallsBackToTheHostReference) {
  const std::string dat = dir_ + "noref.dat";
  const Outcome c = gpp_exe(std::string("convert ") + kTiny + " " + dat + " --no-reference");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("reference: none (--no-reference)"), std::string::npos);
  const Outcome o = gpp_exe("run --input " + dat + " --repeat 1");
  EXPECT_EQ(o.code, 0) << o.out;
  // The fast reference, on the device where the build has one.
  EXPECT_NE(o.out.find(GPP_HAS_DEVICE_SPACE ? "against the device reference" : "against the host reference"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("PASSED"), std::string::npos);
}

// An HDF5 deck holds any number of frequencies (up to 1024; a .dat holds iw = 1..3): one of
// more than GPP_MAX_NW runs on every policy (in passes where a policy reduces every
// frequency at once), verified against the reference stored in the file, and gives the
// results of the deck it was made from.
TEST_F(CliIo, Hdf5DeckOfMoreFrequenciesThanMaxNwRuns) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  static_assert(9 > GPP_MAX_NW, "the deck must need passes");
  const std::string h5 = dir_ + "nine.h5", deck = std::string(kTiny) + " --nstart 1 --nend 9";
  const Outcome c = gpp_exe("convert " + deck + " " + h5);
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("reference: host reference computed"), std::string::npos) << c.out;
  const Outcome all = gpp_exe("run --input " + h5 + " --policy all --repeat 1");
  ASSERT_EQ(all.code, 0) << all.out;
  EXPECT_NE(all.out.find("against the stored reference"), std::string::npos) << all.out;
  int results = 0, verified = 0;
  std::istringstream lines(all.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("RESULT ", 0) == 0) {
      ++results;
      verified += line.find(" nw=9 ") != std::string::npos && line.find(" verified=yes") != std::string::npos;
    }
  EXPECT_EQ(results, int(policy_registry().size())) << all.out;
  EXPECT_EQ(verified, results) << all.out;
  const Outcome from_file = gpp_exe("run --input " + h5 + " --repeat 1");
  const Outcome direct = gpp_exe("run " + deck + " --repeat 1");
  ASSERT_EQ(from_file.code, 0) << from_file.out;
  ASSERT_EQ(direct.code, 0) << direct.out;
  EXPECT_EQ(count_lines(result_lines(direct.out)), 2 * 9 + 1);
  EXPECT_TRUE(same_results(from_file.out, direct.out));
}

TEST_F(CliIo, ConvertsEveryWayAndBackByteIdentically) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  const std::string toml = deck_path("small.toml");
  const std::string a_dat = dir_ + "a.dat", a_h5 = dir_ + "a.h5", b_dat = dir_ + "b.dat", b_h5 = dir_ + "b.h5",
                    c_dat = dir_ + "c.dat", c_h5 = dir_ + "c.h5";
  for (const std::string& args : {toml + " " + a_dat, toml + " " + a_h5, a_dat + " " + b_h5, b_h5 + " " + b_dat,
                                  a_h5 + " " + c_dat, c_dat + " " + c_h5}) {
    const Outcome o = gpp_exe("convert " + args);
    ASSERT_EQ(o.code, 0) << args << "\n" << o.out;
  }
  EXPECT_EQ(read_bytes(a_dat), read_bytes(b_dat));  // .dat -> .h5 -> .dat
  EXPECT_EQ(read_bytes(a_dat), read_bytes(c_dat));  // deck -> .h5 -> .dat equals deck -> .dat
  EXPECT_EQ(read_bytes(a_h5), read_bytes(b_h5));    // and the .h5 files too
  EXPECT_EQ(read_bytes(a_h5), read_bytes(c_h5));
  EXPECT_EQ(leftover_temporaries(dir_), 0);
}

TEST_F(CliIo, DeckFileDeckOptionsAndDeckFlagMakeTheSameFile) {
  const std::string toml = deck_path("small.toml");
  const std::string a_dat = dir_ + "a.dat";
  ASSERT_EQ(gpp_exe("convert " + toml + " " + a_dat).code, 0);
  // Deck options alone, and --deck, make the same file as the .toml.
  const std::string d_dat = dir_ + "d.dat", e_dat = dir_ + "e.dat";
  ASSERT_EQ(gpp_exe("convert --deck " + toml + " " + d_dat).code, 0);
  ASSERT_EQ(
      gpp_exe("convert --name small --seed 20261121 --nbands 48 --nvband 20 --ngpown 40 --ncouls 400 " + e_dat).code,
      0);
  EXPECT_EQ(read_bytes(a_dat), read_bytes(d_dat));
  EXPECT_EQ(read_bytes(a_dat), read_bytes(e_dat));
  // A .dat of a deck with iw = 1..3 (the mini-apps' frequencies) keeps all three.
  const std::string m = dir_ + "m.dat";
  ASSERT_EQ(gpp_exe("convert " + deck_path("miniapp-benchmark.toml") + " --ncouls 64 --ngpown 4 --nbands 8 " + m).code,
            0);
  const Outcome run = gpp_exe("run --input " + m + " --repeat 1");
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("achtemp(iw=1)"), std::string::npos);
  EXPECT_NE(run.out.find("achtemp(iw=3)"), std::string::npos);
  EXPECT_EQ(leftover_temporaries(dir_), 0);
}

TEST_F(CliIo, OutputHoldsTheResultsAsPrinted) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  const std::string dat = dir_ + "small.dat", out = dir_ + "results.h5";
  ASSERT_EQ(gpp_exe("convert " + deck_path("small.toml") + " " + dat).code, 0);
  const Outcome o = gpp_exe("run --input " + dat + " --repeat 2 --output " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  const Bytes head = read_bytes(out);
  ASSERT_GE(head.size(), 8u);
  EXPECT_EQ(std::string(head.begin(), head.begin() + 8), std::string("\211HDF\r\n\032\n"));
  EXPECT_EQ(leftover_temporaries(dir_), 0);
  const std::string python = python_with_h5py();
  if (python.empty()) GTEST_SKIP() << "no python3 with h5py (Debian: python3-h5py)";
  // The values gpp printed, checked in the file as h5py reads them.
  const std::regex value(R"((achtemp|asxtemp)\(iw=(\d)\) = \(([^,]+), ([^)]+)\))");
  const std::regex achstemp(R"(achstemp = \(([^,]+), ([^)]+)\))");
  const std::regex policy(R"(policy: (\S+))");
  std::smatch m;
  std::string checks, name;
  if (std::regex_search(o.out, m, policy)) name = m[1];
  ASSERT_FALSE(name.empty());
  int printed = 0;
  for (auto it = std::sregex_iterator(o.out.begin(), o.out.end(), value); it != std::sregex_iterator(); ++it) {
    const auto& v = *it;
    ++printed;
    const int w = std::stoi(v[2]) - 2;  // iw 2..3
    checks += " '" + v[1].str() + "[" + std::to_string(w) + "]=" + v[3].str() + "," + v[4].str() + "'";
    checks +=
        " 'runs/" + name + "/" + v[1].str() + "[" + std::to_string(w) + "]=" + v[3].str() + "," + v[4].str() + "'";
  }
  ASSERT_EQ(printed, 4);  // achtemp and asxtemp for iw = 2, 3
  ASSERT_TRUE(std::regex_search(o.out, m, achstemp));
  checks += " 'achstemp[]=" + m[1].str() + "," + m[2].str() + "' achtemp:shape=2 verification/asxtemp:shape=2";
  const std::string cmd = python + " " + GPP_SOURCE_DIR + "/tools/h5py_check.py " + out + checks;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// The HDF5 results file and the JSON record come from the same tables of fields: every single
// value of the record's build, deck, time to solution and runs is the file's attribute.
TEST_F(CliIo, ResultsFileAgreesWithTheJsonRecord) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  const std::string python = python_with_h5py();
  if (python.empty()) GTEST_SKIP() << "no python3 with h5py (Debian: python3-h5py)";
  const std::string out = dir_ + "agree.h5", json = dir_ + "agree.json";
  const Outcome o = gpp_exe("run " + deck_path("small.toml") +
                            " --policy host,v1-reciprocal --space host --repeat 2 --json " + json + " --output " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string cmd = python + " " + GPP_SOURCE_DIR + "/tests/commands/h5_json_agree.py " + out + " " + json;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST_F(CliIo, BadCommandLines) {
  const std::string dat = dir_ + "ok.dat";
  ASSERT_EQ(gpp_exe(std::string("convert ") + kTiny + " " + dat).code, 0);
  expect_error("run --input " + dat + " " + deck_path("small.toml"),
               {"--input " + dat, "cannot be combined with a deck file"});
  expect_error("run --input " + dat + " --nbands 10", {"cannot be combined with --nbands"});
  expect_error("run --input " + dat + " --output " + dir_ + "r.json", {"results files are HDF5"});
  expect_error("convert " + dat + " " + dir_ + "x.txt", {"x.txt: unknown file type"});
  expect_error("convert " + dat, {"nothing to convert into " + dat});
  expect_error("convert " + dat + " " + dir_ + "y.h5 --ncouls 10", {dat, "cannot be combined with --ncouls"});
  expect_error(std::string("convert ") + kTiny + " --nstart 1 --nend 4 " + dir_ + "z.dat",
               {"z.dat: a .dat file holds iw = 1..3, the deck has iw = 1..4"});
  expect_error("convert /nonexistent/in.dat " + dir_ + "w.h5", {"IN /nonexistent/in.dat: No such file"});
  expect_error("convert " + dat + " /nonexistent-dir/w.dat",
               {"OUT /nonexistent-dir/w.dat: directory /nonexistent-dir: No such file"});
  if (!have_hdf5()) {
    expect_error("convert " + dat + " " + dir_ + "w.h5", {"w.h5: this gpp was built without HDF5"});
    expect_error("run --input " + dat + " --output " + dir_ + "r.h5", {"this gpp was built without HDF5 (use --json)"});
    return;
  }
  expect_error("convert " + dat + " /nonexistent-dir/w.h5",
               {"OUT /nonexistent-dir/w.h5: directory /nonexistent-dir: No such file"});
  // An unwritable results file: the run is printed, then the error; nothing is left.
  const Outcome o = gpp_exe("run --input " + dat + " --repeat 1 --output /nonexistent-dir/r.h5");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("--output /nonexistent-dir/r.h5: directory /nonexistent-dir"), std::string::npos) << o.out;
  EXPECT_EQ(leftover_temporaries(dir_), 0);
}

// An interrupted write (SIGKILL while the file is being written) leaves nothing under
// the final name: the data go to NAME.tmp.<pid> until they are complete.
TEST_F(CliIo, InterruptedConvertLeavesNoFileUnderTheFinalName) {
  const std::string out = gpp::test::scratch_dir() + "gpp_io_interrupted_" + std::to_string(::getpid()) + ".dat";
  std::remove(out.c_str());
  // ~190 MB: long enough to be caught while writing, quick to generate (no reference).
  InputDeck sizes;  // the header alone gives the file size
  sizes.sig_ntband = sizes.peinf_ntband_max = sizes.peinf_ntband_dist = 400;
  sizes.epsmpi_ngpown_max = sizes.ngpown = 600;
  sizes.ncoul = sizes.ncouls = 6000;
  sizes.gvec_ng = 6003;
  const std::int64_t complete = dat_file_bytes(sizes);
  const char* argv[] = {GPP_EXE, "convert",  "--nbands", "400",       "--ngpown",       "600",  "--ncouls",
                        "6000",  "--nvband", "200",      out.c_str(), "--no-reference", nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, GPP_EXE, nullptr, nullptr, const_cast<char* const*>(argv), environ), 0);
  const std::string temp = out + ".tmp." + std::to_string(child);
  auto size_of = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 ? std::int64_t(st.st_size) : std::int64_t(-1);
  };
  bool caught = false, partial_under_final_name = false;
  for (int i = 0; i < 60000 && !caught; ++i) {  // up to 60 s
    const std::int64_t final_size = size_of(out);
    if (file_exists(temp) || (final_size >= 0 && final_size < complete)) {
      ::kill(child, SIGKILL);
      caught = true;
      partial_under_final_name = final_size >= 0 && final_size < complete;
    } else if (waitpid(child, nullptr, WNOHANG) == child) {
      break;
    } else {
      ::usleep(1000);
    }
  }
  int status = 0;
  if (caught) waitpid(child, &status, 0);
  const bool killed = caught && WIFSIGNALED(status);
  const std::int64_t final_size = size_of(out);
  std::remove(temp.c_str());
  std::remove(out.c_str());
  EXPECT_FALSE(partial_under_final_name) << "a partial file appeared under " << out;
  if (!killed) GTEST_SKIP() << "the conversion finished before it could be interrupted";
  EXPECT_EQ(final_size, -1) << "a file is left under " << out;
}

// A full disk while an output is written (a file-size limit: the write fails with EFBIG
// as it would with ENOSPC) ends like every other failed write: exit 1, one line naming
// the file (after `gpp run`'s header), and no file left, neither the output nor its
// temporary. The limit grows one
// block at a time until the write succeeds, so the failure lands in every step of the
// write (each dataset, attribute and record, the final flush). HDF5 2.x aborted here
// (an assertion in H5F__dest when the file whose flush had failed was closed) and left
// its temporary file behind; HDF5 1.10 returned an error.
TEST_F(CliIo, FullDiskDuringAnOutputIsOneLineAndNoFile) {
  struct Case {
    std::string what, out, args;
  };
  std::vector<Case> cases = {
      {"convert .dat", "d.dat", std::string("convert ") + kTiny + " " + dir_ + "d.dat"},
      {"run --json", "r.json",
       "run " + deck_path("small.toml") + " " + kTiny + " --repeat 1 --warmup 0 --json " + dir_ + "r.json"}};
  if (have_hdf5()) {
    cases.push_back({"convert .h5", "d.h5", std::string("convert ") + kTiny + " " + dir_ + "d.h5"});
    cases.push_back(
        {"run --output .h5", "r.h5",
         "run " + deck_path("small.toml") + " " + kTiny + " --repeat 1 --warmup 0 --output " + dir_ + "r.h5"});
  }
  for (const Case& c : cases) {
    int failed = 0;
    bool written = false;
    for (int blocks = 1; blocks <= 400 && !written; ++blocks) {
      SCOPED_TRACE(c.what + " under ulimit -f " + std::to_string(blocks));
      const std::string cmd =
          "(ulimit -f " + std::to_string(blocks) + " && OMP_PROC_BIND=false exec " + GPP_EXE + " " + c.args + ") 2>&1";
      Outcome o{-1, ""};
      if (FILE* p = popen(cmd.c_str(), "r")) {
        std::array<char, 4096> buf;
        while (fgets(buf.data(), buf.size(), p)) o.out += buf.data();
        const int status = pclose(p);
        o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (o.code == 0) {
        written = file_exists(dir_ + c.out);
        EXPECT_TRUE(written) << o.out;
      } else {
        ++failed;
        EXPECT_EQ(o.code, 1) << o.out;  // an exit code, not a signal (-1)
        // The one line, last; `gpp run` printed its header (provenance, deck) before the
        // long work, and nothing after it but this line.
        const std::string last = o.out.substr(o.out.rfind('\n', o.out.size() - 2) + 1);
        EXPECT_NE(last.find("cannot write " + dir_ + c.out), std::string::npos) << o.out;
        if (c.args.rfind("run ", 0) == 0) {
          EXPECT_EQ(o.out.find("gpp "), 0u) << o.out;  // the provenance
          EXPECT_EQ(o.out.find("error"), o.out.rfind("error")) << o.out;
          EXPECT_EQ(o.out.find("RESULT"), std::string::npos) << o.out;
        } else {
          EXPECT_EQ(count_lines(o.out), 1) << o.out;
        }
        EXPECT_FALSE(file_exists(dir_ + c.out)) << o.out;
      }
      EXPECT_EQ(leftover_temporaries(dir_), 0) << o.out;
      if (::testing::Test::HasFailure()) return;  // the first failing limit says enough
    }
    EXPECT_TRUE(written) << c.what << ": not written under any limit tried";
    EXPECT_GT(failed, 1) << c.what;
    std::remove((dir_ + c.out).c_str());
  }
}

class CliDamaged : public CliIo {
 protected:
  void SetUp() override {
    CliIo::SetUp();
    good_ = dir_ + "good.dat";
    ASSERT_EQ(gpp_exe(std::string("convert ") + kTiny + " " + good_).code, 0);
    bytes_ = read_bytes(good_);
    rec_ = record_map(bytes_);
    ASSERT_EQ(rec_.size(), 18u);
  }
  std::string damaged(const Bytes& b, std::size_t n = std::size_t(-1)) {
    const std::string p = dir_ + "bad" + std::to_string(count_++) + ".dat";
    write_bytes(p, b, n);
    return p;
  }
  std::string good_;
  Bytes bytes_;
  std::vector<RecordSpan> rec_;
  int count_ = 0;
};

TEST_F(CliDamaged, EachKindOfBadInput) {
  expect_error("run --input /nonexistent/in.dat", {"--input /nonexistent/in.dat: No such file or directory"});
  expect_error("run --input " + dir_, {"is a directory"});
  for (const char* name : {"fifo.dat", "fifo.h5"}) {  // never opened: reading a FIFO would block
    const std::string fifo = dir_ + name;
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Refused by what it is, before its format is looked at (files/gpp_inputs.cpp).
    expect_error("run --input " + fifo, {"--input " + fifo + ": it is a FIFO (a pipe), not a regular file"});
  }
  std::string p = damaged(bytes_, rec_[12].payload + 100);
  expect_error("run --input " + p, {p + ": record 13 (I_eps_array): the file ends inside the record"});
  Bytes b = bytes_;
  poke<std::int32_t>(b, rec_[11].payload + rec_[11].length, 4);
  p = damaged(b);
  expect_error("run --input " + p,
               {p + ": record 12 (wtilde_array): trailing marker says 4 bytes, leading marker says 5120"});
  b = bytes_;
  poke<std::int32_t>(b, rec_[1].payload + 16, 41);  // ncouls
  p = damaged(b);
  expect_error("run --input " + p, {p + ": record 8 (aqsmtemp): marker says 7680 bytes, header sizes need 7872"});
  b = bytes_;
  poke<std::int32_t>(b, rec_[0].payload, 0);
  p = damaged(b);
  expect_error("run --input " + p, {p + ": record 1 (sizes): sig_ntband = 0, must be positive"});
  b = bytes_;
  poke<std::int32_t>(b, rec_[1].payload + 12, -4);
  p = damaged(b);
  expect_error("run --input " + p, {p + ": record 2 (local sizes): ngpown = -4, must be positive"});
  b = bytes_;
  poke<std::int32_t>(b, rec_[1].payload + 12, INT_MAX);
  p = damaged(b);
  expect_error("run --input " + p,
               {p + ": record 12 (wtilde_array): marker says 5120 bytes, header sizes need 1374389534080"});
  b = bytes_;
  poke<double>(b, rec_[11].payload + 16 * (4 * 40 + 2) + 8, std::numeric_limits<double>::quiet_NaN());
  p = damaged(b);
  expect_error("run --input " + p, {p + ": input array wtilde_array(3,5) is not finite (", ",nan)"});
  b = bytes_;
  poke<double>(b, rec_[9].payload + 8 * 6, std::numeric_limits<double>::infinity());
  p = damaged(b);
  expect_error("run --input " + p, {p + ": input array vcoul(7) is not finite (inf)"});
  b = bytes_;
  b.insert(b.end(), {1, 2, 3});
  p = damaged(b);
  expect_error("run --input " + p, {p + ": 3 bytes of trailing data after record 18"});
  const std::string text = dir_ + "text.h5";
  write_bytes(text, {'h', 'i', '\n'});
  const std::string why = have_hdf5() ? ": not an HDF5 file" : ": this gpp was built without HDF5";
  expect_error("run --input " + text, {text + why});
  expect_error("convert " + text + " " + dir_ + "o.dat", {text + why});
}

// Damage at many positions, through the binary: every run ends in an error and an exit
// code, never a crash, a hang or a result. (read_dat itself is checked at every byte in
// test_fortran_io.cpp.)
TEST_F(CliDamaged, NoDamagedFileGivesAResult) {
  std::vector<std::string> files;
  const std::size_t n = bytes_.size();
  for (int k = 0; k < 24; ++k) files.push_back(damaged(bytes_, (n - 1) * std::size_t(k) / 23));  // 0 .. n-1
  for (int r = 0; r < 18; r += 2) {
    Bytes b = bytes_;
    b[rec_[r].marker + std::size_t(r % 4)] ^= 0x5A;
    files.push_back(damaged(b));
  }
  for (std::size_t pos : {rec_[7].payload + 8, rec_[11].payload, rec_[13].payload + 16 * 100, rec_[3].payload + 8}) {
    Bytes b = bytes_;
    poke<std::uint64_t>(b, pos, ~std::uint64_t(0));  // NaN
    files.push_back(damaged(b));
  }
  ASSERT_GE(files.size(), 36u);
  for (const auto& f : files) expect_error("run --input " + f + " --repeat 1", {f});
}

#ifdef GPP_HAVE_HDF5
TEST_F(CliDamaged, BadHdf5Decks) {
  const std::string good = dir_ + "good.h5";
  ASSERT_EQ(gpp_exe("convert " + good_ + " " + good).code, 0);
  auto edited = [&](const std::string& name, auto change) {
    const std::string p = dir_ + name;
    write_bytes(p, read_bytes(good));
    const hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    change(f);
    H5Fclose(f);
    return p;
  };
  std::string p = edited("missing.h5", [](hid_t f) { H5Ldelete(f, "wtilde_array", H5P_DEFAULT); });
  expect_error("run --input " + p, {p + ": dataset wtilde_array is missing"});
  p = edited("shape.h5", [](hid_t f) {
    H5Ldelete(f, "vcoul", H5P_DEFAULT);
    const hsize_t dims[1] = {7};
    const hid_t s = H5Screate_simple(1, dims, nullptr);
    const double zeros[7] = {};
    const hid_t d = H5Dcreate2(f, "vcoul", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros);
    H5Dclose(d);
    H5Sclose(s);
  });
  expect_error("run --input " + p, {p + ": dataset vcoul has shape [7], expected [40] ([ncoul])"});
  p = edited("type.h5", [](hid_t f) {
    H5Ldelete(f, "indinv", H5P_DEFAULT);
    const hsize_t dims[1] = {43};
    const hid_t s = H5Screate_simple(1, dims, nullptr);
    const double zeros[43] = {};
    const hid_t d = H5Dcreate2(f, "indinv", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros);
    H5Dclose(d);
    H5Sclose(s);
  });
  expect_error("run --input " + p, {p + ": dataset indinv has type float, expected integer"});
  // Truncated HDF5 files: an error from the library, never a crash.
  const Bytes h5 = read_bytes(good);
  for (int k = 1; k < 12; ++k) {
    const std::string t = dir_ + "cut" + std::to_string(k) + ".h5";
    write_bytes(t, h5, h5.size() * std::size_t(k) / 12);
    expect_error("run --input " + t, {t});
  }
}
#endif

}  // namespace
}  // namespace gpp::test
