// The gpp command line: bad input gives one line naming the problem and a non-zero
// exit, nothing half-written; a good run verifies and writes its JSON record.
#include "gpp_compat.hpp"
#include "gpp_hdf5_io.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_policy.hpp"
#include "gpp_runtime.hpp"

#include <Kokkos_Macros.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
  const std::string path = gpp::test::scratch_dir() + "gpp_cli_" + std::to_string(::getpid()) + "_" + name;
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
// --verify device: the fast reference on the device, or on the host in a build without one
// (the reference names the space it ran on).
TEST(Cli, DeviceReferenceVerifies) {
  const Outcome o = gpp("run " + deck_path("small.toml") + " " + kTiny + " --verify device --policy v3-noabs");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find(gpp::kHasDeviceSpace ? "against the device reference" : "against the host reference"),
            std::string::npos);
}
TEST(Cli, NonPositiveSize) {
  expect_error("run " + deck_path("small.toml") + " --nbands 0", "nbands must be positive");
}
TEST(Cli, NegativeSize) { expect_error("run " + deck_path("small.toml") + " --ncouls -5", "ncouls must be positive"); }
TEST(Cli, NstartAfterNend) {
  expect_error("run " + deck_path("small.toml") + " --nstart 4 --nend 3", "nstart (4) must not exceed nend (3)");
}
TEST(Cli, InconsistentSizes) {
  expect_error("run " + deck_path("small.toml") + " --ngpown 500", "ngpown (500) must not exceed ncouls");
}
TEST(Cli, NvbandTooLarge) { expect_error("run " + deck_path("small.toml") + " --nvband 1000", "nvband"); }
TEST(Cli, UnknownPolicy) {
  expect_error("run " + deck_path("small.toml") + " --policy warp9", "unknown policy 'warp9'");
}
TEST(Cli, NonNumericValue) { expect_error("run " + deck_path("small.toml") + " --nbands many", "--nbands"); }
TEST(Cli, TileOfWrongRank) {
  expect_error("run " + deck_path("small.toml") + " --policy v0-collapse3 --tile 4,4", "--tile needs 3 sizes");
}
TEST(Cli, TunableThePolicyDoesNotHave) {
  expect_error("run " + deck_path("small.toml") + " --policy v0-collapse3 --band-block 8", "no tunable --band-block");
}
TEST(Cli, TeamSizeTheBackendRefuses) {
  expect_error("run " + deck_path("small.toml") + " --policy v7-swapped --team-size 100000",
               "--team-size 100000 exceeds");
}
TEST(Cli, VectorLengthNotPowerOfTwo) {
  expect_error("run " + deck_path("small.toml") + " --policy v8-bounded --vector-length 3", "--vector-length 3");
}
TEST(Cli, ZeroTunable) { expect_error("run " + deck_path("small.toml") + " --tile 0,1,1", "--tile"); }

TEST(Cli, SmallDeckVerifiesAndWritesJson) {
  const std::string json = gpp::test::scratch_dir() + "gpp_cli_run_" + std::to_string(::getpid()) + ".json";
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
  const Outcome o =
      gpp("run " + deck_path("miniapp-benchmark.toml") + " --ncouls 256 --ngpown 12 --nbands 16 --repeat 1");
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
  const std::string base = gpp::test::scratch_dir() + "gpp_bench_" + std::to_string(::getpid());
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
    EXPECT_EQ(line.rfind("1,", 0), 0u) << line;               // schema version
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

// A campaign starts its rows from the record before the reference pass; its JSON record
// still names the reference its points were verified against, with its time and values.
TEST(Cli, CampaignRecordsNameTheirReference) {
  const std::string base = gpp::test::scratch_dir() + "gpp_campaign_ref_" + std::to_string(::getpid());
  const std::string tiny = std::string(kTiny) + " --warmup 0";
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"bench", "bench " + deck_path("small.toml") + " " + tiny + " --policies host"},
      {"sweep", "sweep " + deck_path("small.toml") + " " + tiny + " --policy host --band-block 4,8"},
      {"tune", "tune " + deck_path("small.toml") + " " + tiny + " --policy host --budget 2"},
  };
  for (const auto& [name, args] : commands) {
    const std::string json = base + "_" + name + ".json";
    const Outcome o = gpp(args + " --json " + json);
    SCOPED_TRACE(args + "\n" + o.out);
    ASSERT_EQ(o.code, 0);
    std::ifstream in(json);
    const nlohmann::json v = nlohmann::json::parse(in)["verification"];
    const std::string against = v.at("against").get<std::string>();
    EXPECT_TRUE(against == "host reference" || against == "device reference") << against;
    EXPECT_GT(v.at("tolerance").get<double>(), 0.0);
    EXPECT_LT(v.at("tolerance").get<double>(), 1e-6);
    EXPECT_GT(v.at("reference_s").get<double>(), 0.0);
    ASSERT_EQ(v.at("achtemp").size(), 2u);  // nw = 2 frequencies
    EXPECT_NE(v.at("achtemp")[0][0].get<double>(), 0.0);
    std::remove(json.c_str());
  }
}

// --param: a policy's named choice runs and is written in every record (JSON tunables,
// the CSV's params column, the text); one the policy lacks, a value it does not take, a
// malformed one or one given twice is one line before anything runs.
TEST(Cli, ParamRunsAndIsRecorded) {
  const std::string base = gpp::test::scratch_dir() + "gpp_param_" + std::to_string(::getpid());
  const Outcome o =
      gpp("run " + deck_path("small.toml") + " " + kTiny + " --policy host --param loops=scalar --param " +
          "rcp_empty=div --param prefetch=512 --csv " + base + ".csv --json " + base + ".json");
  SCOPED_TRACE(o.out);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("loops=scalar occ_form=split prefetch=512 rcp_empty=div rcp_occupied=share"), std::string::npos);
  std::ifstream csv(base + ".csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "params");
  EXPECT_EQ(row.substr(row.rfind(',') + 1), "loops=scalar occ_form=split prefetch=512 rcp_empty=div rcp_occupied=share")
      << row;
  std::ifstream json(base + ".json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"params\":{\"loops\":\"scalar\",\"occ_form\":\"split\",\"prefetch\":\"512\",\"rcp_empty\":"
                      "\"div\",\"rcp_occupied\":\"share\"}"),
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
  for (const std::string& args :
       {"run " + deck, "bench " + deck + " --policies host", std::string("ceilings --quick")}) {
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
  const std::string dir = gpp::test::scratch_dir() + "gpp_nodevice_" + std::to_string(::getpid()) + "_";
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

// Refusals: one line on stderr naming the problem, nothing on stdout, exit 1, before any
// work; and beside each, the input it must not refuse.
namespace {

GPP_HOST_ONLY("Refusal.*");

using gpp::test::gpp_exe_split;
using gpp::test::SplitOutcome;

void expect_refusal(const std::string& args, const std::string& what, const std::string& env = "") {
  const SplitOutcome o = gpp_exe_split(args, env);
  SCOPED_TRACE(env + " gpp " + args + "\nstdout: " + o.out + "\nstderr: " + o.err);
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(count_lines(o.err), 1);
  EXPECT_NE(o.err.find(what), std::string::npos);
  EXPECT_LT(o.err.size(), 400u);
}

std::string temp_dir_path(const std::string& name) {
  return gpp::test::scratch_dir() + "gpp_refuse_" + std::to_string(::getpid()) + "_" + name;
}

// An empty value (an unset shell variable) would otherwise be read as "not given": sweep
// and tune ran their default policy, run wrote no JSON.
TEST(Refusal, EmptyValues) {
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"sweep small --policy ''", "--policy: an empty value"},
           {"sweep small --policies=", "--policies: an empty value"},
           {"tune small --policy ''", "--policy: an empty value"},
           {"run small --policy ''", "--policy: an empty value"},
           {"bench small --policies ''", "--policies: an empty value"},
           {"run small --json ''", "--json: an empty value"},
           {"run small --tuning=", "--tuning: an empty value"},
           {"run small --space ''", "--space: an empty value"},
           {"run small --input ''", "--input: an empty value"},
           {"run small --nbands ''", "--nbands: an empty value"},
           {"sweep small --policy host --resume ''", "--resume: an empty value"},
           {"run small ''", "an empty argument"},
           {"convert small ''", "an empty argument"}})
    expect_refusal(args, what);
}

// Kokkos warns (on stdout, among the run's lines) and runs without the tool, or aborts.
// KOKKOS_TOOLS_LIBS and --kokkos-tools-libs= are Kokkos 3.7's names: an older Kokkos
// ignored them, and gpp refuses them there.
constexpr bool kToolsLibsNames = KOKKOS_VERSION >= 30700;
TEST(Refusal, KokkosToolsLibraryThatCannotLoad) {
  const std::string text_file = deck_path("small.toml");
  std::vector<std::pair<std::string, std::string>> cases = {
      {"KOKKOS_PROFILE_LIBRARY=/nonexistent.so",
       "KOKKOS_PROFILE_LIBRARY: cannot load the Kokkos tools library '/nonexistent.so'"},
      {"KOKKOS_PROFILE_LIBRARY=" + text_file, "cannot load the Kokkos tools library"},
      // Loads, but is no tool (Kokkos 4 ran without it, Kokkos 5 aborts).
      {"KOKKOS_PROFILE_LIBRARY=libm.so.6",
       "KOKKOS_PROFILE_LIBRARY: 'libm.so.6' is not a Kokkos tools library (it defines none of the kokkosp_*"}};
  if (kToolsLibsNames) {
    cases.push_back({"KOKKOS_TOOLS_LIBS=/nonexistent.so",
                     "KOKKOS_TOOLS_LIBS: cannot load the Kokkos tools library '/nonexistent.so'"});
    cases.push_back(
        {"KOKKOS_TOOLS_LIBS='" + std::string(GPP_TEST_TOOL) + ";/nonexistent.so'", "library '/nonexistent.so'"});
    cases.push_back({"KOKKOS_TOOLS_LIBS=libm.so.6", "KOKKOS_TOOLS_LIBS: 'libm.so.6' is not a Kokkos tools library"});
  } else {
    cases.push_back({"KOKKOS_TOOLS_LIBS=" + std::string(GPP_TEST_TOOL),
                     "environment variable KOKKOS_TOOLS_LIBS: Kokkos " + gpp::compat::kokkos_version_string() +
                         " does not read it"});
    expect_refusal("run small --kokkos-tools-libs=" + std::string(GPP_TEST_TOOL), "option --kokkos-tools-libs: Kokkos");
  }
  for (const auto& [env, what] : cases) {
    expect_refusal("run small", what, env);
    expect_refusal("policies", what, env);
  }
  expect_refusal("run small --kokkos-tools-library=/nonexistent.so", "option --kokkos-tools-library: cannot load");
}

// A value with a dot is its option's, not an input file (--input) standing alone.
TEST(Refusal, ValueWithADotIsTheOptions) {
  const std::string tuning = temp_dir_path("tune.dat");
  // Parsed as meant: what is refused is the deck size given with them.
  expect_refusal("run small --name si214.h5 --nbands 0", "nbands must be positive");
  expect_refusal("sweep small --policy host --tuning-out " + tuning + " --nbands 0", "nbands must be positive");
  expect_refusal("tune small --policy host --tuning-out " + tuning + " --nbands 0", "nbands must be positive");
  expect_refusal("bench small --json " + temp_dir_path("b.h5") + " --nbands 0", "nbands must be positive");
  // A lone FILE.dat is still the input file, an option's value or not beside it.
  const std::string missing = temp_dir_path("missing.dat");
  expect_refusal("run --name si214.h5 " + missing, missing);
  expect_refusal("run " + missing + " --name si214.h5", missing);
}

// A misspelt deck, option or deck key names the nearest known one; a word too many and a
// number that does not fit are said in gpp's words, not CLI11's.
TEST(Refusal, NamesTheNearestKnownName) {
  expect_refusal("run smal", "no deck 'smal' (did you mean small? looked for smal, smal.toml");
  expect_refusal("run si241", "(did you mean si214? ");
  expect_refusal("run small --band-blok 3", "unknown option --band-blok (did you mean --band-block?)");
  expect_refusal("sweep small --repat 2", "unknown option --repat (did you mean --repeat?)");
  expect_refusal("run small --frobnicate 3", "unknown option --frobnicate (gpp run --help lists its options)");
  expect_refusal("run " + temp_file("nband.toml", "nband = 12\nngpown = 8\nncouls = 40\nnvband = 5\n"),
                 "unknown deck key 'nband' (did you mean nbands or nvband?)");
  expect_refusal("run small medium", "unexpected argument 'medium' (gpp run takes one deck");
  // Nothing near: no guess.
  const SplitOutcome far = gpp::test::gpp_exe_split("run xyzzy");
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST(Refusal, ANumberTooLargeIsCalledTooLarge) {
  expect_refusal("run small --nbands 3000000000",
                 "--nbands: 3000000000 is too large (an integer from -2147483648 to 2147483647)");
  expect_refusal("run small --ncouls=-99999999999", "--ncouls: -99999999999 is too small");
  expect_refusal("run small --nbands abc", "--nbands: expected a number, got 'abc'");
  expect_refusal("run small --band-block 99999999999", "--band-block: must be at most 1048576 (got 99999999999)");
  expect_refusal("sweep small --band-block 16,99999999999", "--band-block: must be at most 1048576 (got 99999999999)");
}

TEST(Refusal, TuneBudget) {
  expect_refusal("tune small --budget 0", "--budget: must be a positive finite number (got 0)");
  expect_refusal("tune small --budget -5", "--budget: must be a positive finite number (got -5)");
  expect_refusal("tune small --budget soon", "--budget: expected a positive number, got 'soon'");
  expect_refusal("tune small --budget 1e9", "at most a year");
}

// Without a deck every command says a deck is needed (not that nbands must be positive).
TEST(Refusal, NoDeck) {
  for (const std::string& command :
       std::vector<std::string>{"run", "bench", "sweep", "tune", "roofline --csv " + temp_dir_path("r.csv")})
    expect_refusal(command, "no deck: give one (a name such as small or si214, or a .toml file) or the sizes");
  expect_refusal("run --nbands 12 --ngpown 8", "no deck: give one");
  expect_refusal("run --nbands 12 --ngpown 8", "(missing: ncouls)");
}

// Energies and frequency indices beyond their ranges (core/gpp_input.cpp) would overflow in
// the kernel: --efermi 1e308 ran, summed NaN and reported a failed verification (exit 2).
TEST(Refusal, DeckParametersBeyondTheirRanges) {
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"--efermi 1e308", "efermi must be between -1e6 and 1e6 (got 1e+308)"},
           {"--efermi -2e6", "efermi must be between -1e6 and 1e6"},
           {"--e-lk 1e300", "e_lk must be between -1e6 and 1e6"},
           {"--dw -1e7", "dw must be between -1e6 and 1e6"},
           {"--tol 1e200", "tol must be between 0 and 1e6"},
           {"--gamma 1e155", "gamma must be between 1e-150 and 1e6"},
           {"--gamma 1e-200", "gamma must be between 1e-150 and 1e6"},
           {"--sexcut 1e300", "sexcut must be between 0 and 1e6"},
           {"--nstart -2147483648 --nend -2147483647", "nstart must be between -1000000 and 1000000"}}) {
    expect_refusal("run small " + args, what);
    expect_refusal("convert " + deck_path("small.toml") + " " + args + " " + temp_dir_path("p.dat"), what);
  }
  expect_refusal(
      "run " + temp_file("efermi.toml", "nbands = 12\nngpown = 8\nncouls = 40\nnvband = 5\nefermi = 1e308\n"),
      "efermi must be between -1e6 and 1e6");
}

TEST(Refusal, TileOfAnotherShape) {
  const std::string run = "run small --policy v0-collapse3 --tile ";
  expect_refusal(run + "4x4", "--tile needs 3 sizes");
  expect_refusal(run + "4x4x", "--tile: expected a positive integer, got ''");
  expect_refusal(run + "4xx4", "--tile: expected a positive integer, got ''");
  expect_refusal(run + "4x4,4", "--tile: give one tile, as 128x1x1 or 128,1,1 (got '4x4,4')");
  expect_refusal(run + "0x1x1", "--tile: must be a positive integer (got 0)");
  expect_refusal(run + "4x4x99999999", "--tile: must be at most");
}

TEST(Refusal, ConvertDeckNotFound) {
  expect_refusal("convert no-such-deck " + temp_dir_path("x.dat"), "no deck 'no-such-deck' (looked for no-such-deck,");
}

}  // namespace

// What the refusals above must not refuse, and what fails only at the end (stdout).
namespace {

const char* kTinySizes = "--nbands 12 --ngpown 8 --ncouls 40 --nvband 5";

// Every command's output reaching stdout is checked: >/dev/full loses it, which exit 0 hid.
TEST(CliOutput, StdoutThatCannotBeWrittenIsOneLine) {
  for (const std::string& args : {std::string("--version"), std::string("policies"), std::string("run small ") + kTiny,
                                  std::string("sweep small --policy host --band-block 4,8 --warmup 0 ") + kTiny}) {
    const SplitOutcome o = gpp_exe_split(args, "", ">/dev/full");
    SCOPED_TRACE(args + "\nstderr: " + o.err);
    EXPECT_EQ(o.code, 1);
    EXPECT_EQ(count_lines(o.err), 1);
    EXPECT_NE(o.err.find("error: cannot write standard output: No space left on device"), std::string::npos);
  }
  const SplitOutcome closed = gpp_exe_split("run small", "", ">&-");
  EXPECT_EQ(closed.code, 1);
  EXPECT_EQ(closed.err, "gpp run: error: standard output is closed (redirect it to a file or /dev/null)\n");
  // The same commands, written: exit 0.
  const SplitOutcome ok = gpp_exe_split("policies", "", ">/dev/null");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");
}

// A tools library that is one runs, and Kokkos initialises it (the tool says so).
TEST(CliOutput, KokkosToolsLibraryThatLoadsRuns) {
  const std::string tool = GPP_TEST_TOOL;
  std::vector<std::pair<std::string, std::string>> ways = {{"KOKKOS_PROFILE_LIBRARY=" + tool, ""},
                                                           {"", " --kokkos-tools-library=" + tool}};
  if (kToolsLibsNames) {
    ways.push_back({"KOKKOS_TOOLS_LIBS=" + tool, ""});
    ways.push_back({"", " --kokkos-tools-libs=" + tool});
  }
  for (const auto& [env, option] : ways) {
    const SplitOutcome o = gpp_exe_split(std::string("run small ") + kTiny + option, env);
    EXPECT_EQ(o.code, 0) << env << option << o.out << o.err;
    EXPECT_NE(o.out.find("PASSED"), std::string::npos) << o.out;
    // What Kokkos's start prints on stderr, the tool's line included, gpp relays as a
    // "kokkos warning" line of its output (and the record's kokkos_warnings).
    EXPECT_NE(o.out.find("kokkos warning: gpp test tool: initialised"), std::string::npos) << env << option << o.out;
  }
}

TEST(CliOutput, ValueWithADotRuns) {
  const SplitOutcome o = gpp_exe_split(std::string("run small --name si214.h5 ") + kTiny);
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("RESULT deck=si214.h5 "), std::string::npos) << o.out;
}

// A flag takes no value: the file named after it is the next option's (an output that
// does not exist yet), not the input file standing alone.
TEST(CliOutput, AFlagBeforeAnOptionLeavesItsValueToIt) {
  const std::string json = temp_dir_path("after_flag.json"), h5 = temp_dir_path("after_flag.h5");
  std::remove(json.c_str());
  std::remove(h5.c_str());
  const SplitOutcome o = gpp_exe_split(std::string("run small --no-branch-stats --json ") + json + " " + kTiny);
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(gpp::test::file_exists(json));
  if (gpp::formats::have_hdf5()) {
    const SplitOutcome h = gpp_exe_split(std::string("run small --no-branch-stats --output ") + h5 + " " + kTiny);
    EXPECT_EQ(h.code, 0) << h.out << h.err;
    EXPECT_TRUE(gpp::test::file_exists(h5));
  }
  std::remove(json.c_str());
  std::remove(h5.c_str());
}

// A thread setting this build's host backend does not read is said in the provenance,
// after every check (a refusal stays one line): Serial reads none, Threads reads
// KOKKOS_NUM_THREADS only; OpenMP reads OMP_NUM_THREADS.
TEST(CliOutput, ThreadSettingsThatDoNothingAreSaid) {
  const std::string host = gpp::HostExec::name();
  const SplitOutcome o =
      gpp_exe_split(std::string("run small ") + kTiny, "env -u KOKKOS_NUM_THREADS OMP_NUM_THREADS=3");
  EXPECT_EQ(o.code, 0) << o.err;
  const bool said = o.out.find("\nnote: OMP_NUM_THREADS=3 does nothing in this build") != std::string::npos;
  EXPECT_EQ(said, host == "Serial" || host == "Threads") << host << ": " << o.out;
  if (host == "Serial") {
    const SplitOutcome k =
        gpp_exe_split(std::string("run small --kokkos-num-threads=2 ") + kTiny, "KOKKOS_NUM_THREADS=4");
    EXPECT_NE(k.out.find("note: KOKKOS_NUM_THREADS=4 and --kokkos-num-threads=2 do nothing in this build: its "
                         "host backend is Kokkos Serial"),
              std::string::npos)
        << k.out;
    // A refusal is still one line.
    const SplitOutcome r = gpp_exe_split("run small --nbands 0", "OMP_NUM_THREADS=3");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(gpp::test::count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
  const SplitOutcome quiet =
      gpp_exe_split(std::string("run small ") + kTiny, "env -u OMP_NUM_THREADS -u KOKKOS_NUM_THREADS");
  EXPECT_EQ(quiet.out.find("note: "), std::string::npos) << quiet.out;
}

// The tile as every output prints it, and as a list: the same tile runs.
TEST(CliOutput, TileAsPrinted) {
  for (const char* tile : {"4x2x8", "4,2,8"}) {
    const SplitOutcome o = gpp_exe_split(std::string("run small --policy v0-collapse3 --tile ") + tile + " " + kTiny);
    SCOPED_TRACE(tile + std::string("\n") + o.out + o.err);
    EXPECT_EQ(o.code, 0);
    EXPECT_NE(o.out.find("tile=4x2x8"), std::string::npos);
    EXPECT_NE(o.out.find("PASSED"), std::string::npos);
  }
}

// At the ends of their ranges the deck's parameters run and verify on every policy.
TEST(CliOutput, DeckParametersAtTheEndsOfTheirRangesVerify) {
  for (const std::string& ends :
       {std::string(
            "--efermi 1e6 --e-lk -1e6 --dw 1e6 --tol 1e6 --gamma 1e6 --sexcut 1e6 --nstart 999999 --nend 1000000"),
        std::string(
            "--efermi -1e6 --e-lk 1e6 --dw -1e6 --tol 0 --gamma 1e-150 --sexcut 0 --nstart -1000000 --nend -999999"),
        std::string("--efermi 0 --e-lk 0.5 --dw 1e-3 --tol 0 --gamma 1e-150 --sexcut 1e6")}) {
    const SplitOutcome o = gpp_exe_split("run small --warmup 0 --policy all " + ends + " " + kTiny);
    SCOPED_TRACE(ends + "\n" + o.out + o.err);
    EXPECT_EQ(o.code, 0);
    EXPECT_EQ(o.out.find("FAILED"), std::string::npos);
    EXPECT_EQ(o.out.find("nan"), std::string::npos);
    int verified = 0;  // one RESULT line per policy
    for (std::size_t at = o.out.find(" verified=yes "); at != std::string::npos;
         at = o.out.find(" verified=yes ", at + 1))
      ++verified;
    EXPECT_EQ(verified, int(gpp::policy_registry().size()));
  }
}

// convert finds a deck by name as run does: the same bytes as from the deck's path.
TEST(CliOutput, ConvertFindsTheDeckByName) {
  const std::string by_name = temp_dir_path("by-name.dat"), by_path = temp_dir_path("by-path.dat");
  const SplitOutcome a = gpp_exe_split("convert small " + by_name + " " + kTinySizes);
  const SplitOutcome b = gpp_exe_split("convert " + deck_path("small.toml") + " " + by_path + " " + kTinySizes);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  std::ifstream fa(by_name, std::ios::binary), fb(by_path, std::ios::binary);
  const std::string da((std::istreambuf_iterator<char>(fa)), {}), db((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_FALSE(da.empty());
  EXPECT_EQ(da, db);
  std::remove(by_name.c_str());
  std::remove(by_path.c_str());
}

}  // namespace
