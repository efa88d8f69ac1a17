// The gpp command line: bad input gives one line naming the problem and a non-zero
// exit, nothing half-written; a good run verifies and writes its JSON record.
#include "gpp_io_test_util.hpp"
#include "gpp_runtime.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

// Refusals before Kokkos starts (and the policy list): they need neither Kokkos nor the device.
GPP_HOST_ONLY("Cli.BenchUnknownPolicy");
GPP_HOST_ONLY("Cli.InconsistentSizes");
GPP_HOST_ONLY("Cli.MissingDeck");
GPP_HOST_ONLY("Cli.NegativeSize");
GPP_HOST_ONLY("Cli.NonNumericValue");
GPP_HOST_ONLY("Cli.NonPositiveSize");
GPP_HOST_ONLY("Cli.NstartAfterNend");
GPP_HOST_ONLY("Cli.NvbandTooLarge");
GPP_HOST_ONLY("Cli.PoliciesListsEveryPolicy");
GPP_HOST_ONLY("Cli.TileOfWrongRank");
GPP_HOST_ONLY("Cli.TunableThePolicyDoesNotHave");
GPP_HOST_ONLY("Cli.UnknownCommand");
GPP_HOST_ONLY("Cli.UnknownDeckKey");
GPP_HOST_ONLY("Cli.UnknownOption");
GPP_HOST_ONLY("Cli.UnknownPolicy");
GPP_HOST_ONLY("Cli.UnwritableJsonLeavesNothing");
GPP_HOST_ONLY("Cli.ZeroTunable");


using gpp::test::count_lines;
using gpp::test::Outcome;
Outcome gpp(const std::string& args) { return gpp::test::gpp_exe(args); }

std::string deck_path(const std::string& name) { return std::string(GPP_SOURCE_DIR) + "/inputs/" + name; }

std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "gpp_cli_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << content;
  return path;
}

// One line, non-zero exit, the line names `what`.
void expect_error(const std::string& args, const std::string& what) {
  const Outcome o = gpp(args);
  SCOPED_TRACE("gpp " + args + "\n" + o.out);
  EXPECT_NE(o.code, 0);
  EXPECT_EQ(count_lines(o.out), 1);
  EXPECT_NE(o.out.find(what), std::string::npos);
  EXPECT_EQ(o.out.find("RESULT"), std::string::npos);
}

const char* kTiny = "--nbands 12 --ngpown 8 --ncouls 40 --nvband 5 --repeat 1";

TEST(Cli, UnknownOption) { expect_error("run " + deck_path("small.toml") + " --frobnicate 3", "--frobnicate"); }
TEST(Cli, UnknownCommand) { expect_error("fly", "unknown command 'fly'"); }
TEST(Cli, UnknownDeckKey) {
  expect_error("run " + temp_file("bad.toml", "nbands = 10\nbogus_key = 3\n"), "unknown deck key 'bogus_key'");
}
TEST(Cli, MissingDeck) { expect_error("run /nonexistent/deck.toml", "/nonexistent/deck.toml"); }
TEST(Cli, DeviceReferenceVerifies) {
  const Outcome o = gpp("run " + deck_path("small.toml") + " " + kTiny + " --verify device --policy v3-noabs");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("against the device reference"), std::string::npos);
}
TEST(Cli, NonPositiveSize) { expect_error("run " + deck_path("small.toml") + " --nbands 0", "nbands must be positive"); }
TEST(Cli, NegativeSize) { expect_error("run " + deck_path("small.toml") + " --ncouls -5", "ncouls must be positive"); }
TEST(Cli, NstartAfterNend) {
  expect_error("run " + deck_path("small.toml") + " --nstart 4 --nend 3", "nstart (4) must not exceed nend (3)");
}
TEST(Cli, InconsistentSizes) {
  expect_error("run " + deck_path("small.toml") + " --ngpown 500", "ngpown (500) must not exceed ncouls");
}
TEST(Cli, NvbandTooLarge) { expect_error("run " + deck_path("small.toml") + " --nvband 1000", "nvband"); }
TEST(Cli, UnknownPolicy) { expect_error("run " + deck_path("small.toml") + " --policy warp9", "unknown policy 'warp9'"); }
TEST(Cli, NonNumericValue) { expect_error("run " + deck_path("small.toml") + " --nbands many", "--nbands"); }
TEST(Cli, TileOfWrongRank) {
  expect_error("run " + deck_path("small.toml") + " --policy v0-collapse3 --tile 4,4", "--tile needs 3 sizes");
}
TEST(Cli, TunableThePolicyDoesNotHave) {
  expect_error("run " + deck_path("small.toml") + " --policy v0-collapse3 --band-block 8", "no tunable --band-block");
}
TEST(Cli, TeamSizeTheBackendRefuses) {
  expect_error("run " + deck_path("small.toml") + " --policy v7-swapped --team-size 100000", "--team-size 100000 exceeds");
}
TEST(Cli, VectorLengthNotPowerOfTwo) {
  expect_error("run " + deck_path("small.toml") + " --policy v8-bounded --vector-length 3", "--vector-length 3");
}
TEST(Cli, ZeroTunable) { expect_error("run " + deck_path("small.toml") + " --tile 0,1,1", "--tile"); }

TEST(Cli, SmallDeckVerifiesAndWritesJson) {
  const std::string json = ::testing::TempDir() + "gpp_cli_run_" + std::to_string(::getpid()) + ".json";
  std::remove(json.c_str());
  const Outcome o = gpp("run " + deck_path("small.toml") + " --repeat 2 --json " + json);
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("PASSED"), std::string::npos);
  EXPECT_NE(o.out.find("RESULT deck=small"), std::string::npos);
  EXPECT_NE(o.out.find("achtemp(iw=2) = ("), std::string::npos);
  EXPECT_NE(o.out.find("branches: regular"), std::string::npos);
  std::ifstream f(json);
  ASSERT_TRUE(f.good());
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"passed\":true"), std::string::npos);
  EXPECT_NE(text.find("\"kokkos_version\""), std::string::npos);
  EXPECT_EQ(text.front(), '{');
  EXPECT_EQ(text.substr(text.size() - 2), "}\n");
  std::remove(json.c_str());
}

TEST(Cli, UniformDeckReproducesClosedForm) {
  const Outcome o = gpp("run " + deck_path("miniapp-benchmark.toml") + " --ncouls 256 --ngpown 12 --nbands 16 --repeat 1");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("against the closed form"), std::string::npos);
  EXPECT_NE(o.out.find("PASSED"), std::string::npos);
}

TEST(Cli, CommandLineOverridesDeck) {
  const Outcome o = gpp("run " + deck_path("small.toml") + " " + kTiny);
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("nbands=12 ngpown=8 ncouls=40"), std::string::npos);
}

TEST(Cli, UnwritableJsonLeavesNothing) {
  const Outcome o = gpp("run " + deck_path("small.toml") + " " + kTiny + " --json /nonexistent-dir/out.json");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.out.find("--json /nonexistent-dir/out.json: directory /nonexistent-dir"), std::string::npos);
}

TEST(Cli, PoliciesListsEveryPolicy) {
  const Outcome o = gpp("policies");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("v0-collapse3"), std::string::npos);
  EXPECT_NE(o.out.find("(default on the"), std::string::npos);
  EXPECT_NE(o.out.find("runs on: "), std::string::npos);
}

}  // namespace

namespace {

TEST(Cli, BenchWritesCsvAndJsonRows) {
  const std::string base = ::testing::TempDir() + "gpp_bench_" + std::to_string(::getpid());
  const Outcome o = gpp("bench " + deck_path("small.toml") + " " + kTiny +
                        " --policies v0-collapse3,v8-bounded,host --csv " + base + ".csv --json " + base + ".json");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  std::ifstream csv(base + ".csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("schema_version,date,git,version,kokkos,backend,space,device,deck,", 0), 0u);
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(line.rfind("1,", 0), 0u) << line;                // schema version
    EXPECT_NE(line.find(",ok,"), std::string::npos) << line;  // ran and verified
  }
  EXPECT_EQ(rows, 3);
  std::ifstream json(base + ".json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"policy\":\"v8-bounded\""), std::string::npos);
  EXPECT_NE(text.find("\"schema_version\":1"), std::string::npos);
  EXPECT_NE(text.find("\"command\":\"bench\""), std::string::npos);
  std::remove((base + ".csv").c_str());
  std::remove((base + ".json").c_str());
}

// --param: a policy's named choice runs and is written in every record (JSON tunables,
// the CSV's params column, the text); one the policy lacks, a value it does not take, a
// malformed one or one given twice is one line before anything runs.
TEST(Cli, ParamRunsAndIsRecorded) {
  const std::string base = ::testing::TempDir() + "gpp_param_" + std::to_string(::getpid());
  const Outcome o = gpp("run " + deck_path("small.toml") + " " + kTiny + " --policy host --param loops=scalar --param " +
                        "rcp_empty=div --csv " + base + ".csv --json " + base + ".json");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("loops=scalar rcp_empty=div rcp_occupied=share"), std::string::npos);
  std::ifstream csv(base + ".csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "params");
  EXPECT_EQ(row.substr(row.rfind(',') + 1), "loops=scalar rcp_empty=div rcp_occupied=share") << row;
  std::ifstream json(base + ".json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"params\":{\"loops\":\"scalar\",\"rcp_empty\":\"div\",\"rcp_occupied\":\"share\"}"),
            std::string::npos)
      << text.substr(0, 2000);
  EXPECT_NE(text.find("loops: command line"), std::string::npos);
  std::remove((base + ".csv").c_str());
  std::remove((base + ".json").c_str());
}
TEST(Cli, ParamRefused) {
  const std::string run = "run " + deck_path("small.toml") + " " + kTiny + " --policy host ";
  expect_error(run + "--param loops=simd", "--param loops=simd: policy host takes vector or scalar");
  expect_error(run + "--param avx512=on", "policy host has no param avx512");
  expect_error(run + "--param loops", "expected NAME=VALUE");
  expect_error(run + "--param loops=scalar --param loops=vector", "--param loops is given twice");
  expect_error("run " + deck_path("small.toml") + " " + kTiny + " --policy tuned --param loops=scalar",
               "policy tuned has no param loops");
}
TEST(Cli, PoliciesListsParamsAndDefaults) {
  const Outcome o = gpp("policies");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("--param loops="), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("--param rcp_empty="), std::string::npos) << o.out;
  // the shipped defaults each of tuned and host was built with, found from the build tree
  EXPECT_NE(o.out.find(std::string("defaults: ") + GPP_SOURCE_DIR + "/tuning/"), std::string::npos) << o.out;
}

TEST(Cli, BenchUnknownPolicy) {
  expect_error("bench " + deck_path("small.toml") + " --policies v0-collapse3,nope", "unknown policy 'nope'");
}

}  // namespace

// The path of a GPU build on a machine without its GPU (docs/install.md), in every build:
// GPP_TEST_NO_DEVICE=1 makes gpp answer as such a build. What needs no device works; what
// needs it is one line and exit 1, after every check of the input.
namespace {

GPP_HOST_ONLY("NoDevice.*");

const char* kNoDevice = "GPP_TEST_NO_DEVICE=1";

TEST(NoDevice, HelpVersionAndPoliciesWork) {
  for (const char* args : {"--help", "--version", "policies", "run --help"}) {
    const Outcome o = gpp::test::gpp_exe(args, kNoDevice);
    EXPECT_EQ(o.code, 0) << args << "\n" << o.out;
  }
  EXPECT_NE(gpp::test::gpp_exe("policies", kNoDevice).out.find("tuned"), std::string::npos);
}

TEST(NoDevice, WorkThatNeedsTheDeviceIsOneLineAfterTheChecks) {
  const std::string deck = deck_path("small.toml");
  // The deck, the options and the outputs are checked first: the refusal names them.
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"run " + deck + " --nbands 0", "nbands must be positive"},
           {"run /nonexistent/deck.toml", "/nonexistent/deck.toml"},
           {"run " + deck + " --policy warp9", "unknown policy 'warp9'"},
           {"run " + deck + " --tuning /nonexistent/t.json", "/nonexistent/t.json"},
           {"ceilings --space moon", "--space"}}) {
    const Outcome o = gpp::test::gpp_exe(args, kNoDevice);
    SCOPED_TRACE(args + "\n" + o.out);
    EXPECT_EQ(o.code, 1);
    EXPECT_EQ(count_lines(o.out), 1);
    EXPECT_NE(o.out.find(what), std::string::npos);
  }
  // Good input that needs the device: one line saying so.
  for (const std::string& args : {"run " + deck, "bench " + deck + " --policies host", std::string("ceilings --quick")}) {
    const Outcome o = gpp::test::gpp_exe(args, kNoDevice);
    SCOPED_TRACE(args + "\n" + o.out);
    EXPECT_EQ(o.code, 1);
    EXPECT_EQ(count_lines(o.out), 1);
    EXPECT_NE(o.out.find("without it only --help, --version, policies"), std::string::npos);
  }
}

// convert needs no device: the same bytes as with Kokkos running (its host loops then run
// on this thread). Kokkos 3 cannot hold arrays before it starts: there convert is refused.
TEST(NoDevice, ConvertNeedsNoDevice) {
  const std::string dir = ::testing::TempDir() + "gpp_nodevice_" + std::to_string(::getpid()) + "_";
  const std::string with = dir + "with.dat", without = dir + "without.dat";
  const std::string deck = deck_path("small.toml") + " --nbands 12 --ngpown 8 --ncouls 40 --nvband 5";
  ASSERT_EQ(gpp::test::gpp_exe("convert " + deck + " " + with, "GPP_TEST_NO_DEVICE=0").code, 0);
  const Outcome o = gpp::test::gpp_exe("convert " + deck + " " + without, kNoDevice);
  SCOPED_TRACE(o.out);
  if (gpp::runtime::kHostViewsWithoutKokkos) {
    ASSERT_EQ(o.code, 0);
    std::ifstream a(with, std::ios::binary), b(without, std::ios::binary);
    const std::string da((std::istreambuf_iterator<char>(a)), {}), db((std::istreambuf_iterator<char>(b)), {});
    EXPECT_FALSE(da.empty());
    EXPECT_EQ(da, db);  // the same deck and host reference, to the last bit
    const Outcome bad = gpp::test::gpp_exe("run --input " + dir + "missing.dat", kNoDevice);
    EXPECT_EQ(count_lines(bad.out), 1) << bad.out;
    EXPECT_NE(bad.out.find(dir + "missing.dat"), std::string::npos) << bad.out;  // the file, not the device
  } else {
    EXPECT_EQ(o.code, 1);
    EXPECT_EQ(count_lines(o.out), 1);
    EXPECT_NE(o.out.find("reading or converting a deck needs Kokkos too"), std::string::npos);
  }
  std::remove(with.c_str());
  std::remove(without.c_str());
}

}  // namespace
