// gpp ceilings and gpp roofline: the ncu raw-CSV parser on a fixture, the roofline CSV
// against docs/formats.md, the level rule, and the commands on a tiny deck (host).
#include "gpp_io_test_util.hpp"
#include "gpp_child.hpp"
#include "gpp_json.hpp"
#include "gpp_roofline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <fstream>
#include <tuple>
#include <sstream>
#include <unistd.h>

namespace {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Ceilings.*");
GPP_HOST_ONLY("NcuCsv.*");
GPP_HOST_ONLY("RooflineCsv.*");

using namespace gpp::measure;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string fixture() { return read(std::string(GPP_SOURCE_DIR) + "/tests/fixtures/ncu_raw_example.csv"); }
std::string temp(const std::string& name) {
  return gpp::test::scratch_dir() + "gpp_roofline_" + std::to_string(::getpid()) + "_" + name;
}
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool q = false;
  for (char c : line) {
    if (c == '"')
      q = !q;
    else if (c == ',' && !q)
      f.push_back(cur), cur.clear();
    else
      cur += c;
  }
  f.push_back(cur);
  return f;
}
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> l;
  std::istringstream in(text);
  for (std::string s; std::getline(in, s);) l.push_back(s);
  return l;
}

// The fixture's two kernels, added by hand (dram in Mbyte, time in usecond).
TEST(NcuCsv, SumsKernelsOfTheRange) {
  const NcuCounters c = parse_ncu_raw_csv(fixture());
  EXPECT_EQ(c.kernels, 2);
  EXPECT_EQ(c.dadd, 2000000001.0);
  EXPECT_EQ(c.dmul, 1400000005.0);
  EXPECT_EQ(c.dfma, 5000000003.0);
  EXPECT_EQ(c.bytes_l1, 2468567890.0);
  EXPECT_EQ(c.bytes_l2, 906789012.0);
  EXPECT_NEAR(c.bytes_dram, 100.53e6, 1e-3);
  EXPECT_NEAR(c.time_s, 860.0e-6, 1e-15);
  ASSERT_TRUE(c.registers && c.occupancy_pct);
  EXPECT_EQ(*c.registers, 96);
  EXPECT_NEAR(*c.occupancy_pct, (45.5 * 431.52 + 44.5 * 428.48) / 860.0, 1e-12);
}

TEST(NcuCsv, RefusesBrokenReports) {
  const std::string f = fixture();
  EXPECT_THROW(parse_ncu_raw_csv("==PROF== nothing\n"), gpp::Error);
  std::string no_dfma = f;
  no_dfma.replace(no_dfma.find("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"), 3, "xx_");
  try {
    parse_ncu_raw_csv(no_dfma);
    FAIL() << "no error";
  } catch (const gpp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("dfma"), std::string::npos);
  }
  std::string bad_number = f;
  bad_number.replace(bad_number.find("\"1,234,567,890\""), 15, "\"n/a\"");
  EXPECT_THROW(parse_ncu_raw_csv(bad_number), gpp::Error);
  // header and units only: no kernel matched the range
  const auto l = lines(f);
  EXPECT_THROW(parse_ncu_raw_csv(l[4] + "\n" + l[5] + "\n"), gpp::Error);
}

// The header in docs/formats.md (the block after "## Roofline CSV"), joined.
std::string documented_header() {
  const std::string doc = read(std::string(GPP_SOURCE_DIR) + "/docs/formats.md");
  const std::size_t sec = doc.find("## Roofline CSV");
  const std::size_t b = doc.find("```\n", sec) + 4, e = doc.find("```", b);
  std::string h;
  for (char c : doc.substr(b, e - b))
    if (c != '\n') h += c;
  return h;
}

TEST(RooflineCsv, HeaderIsTheDocumentedOne) { EXPECT_EQ(roofline_csv_header(), documented_header()); }

RooflineRow sample_row() {
  RooflineRow r;
  r.date = "2026-11-23T10:00:00Z";
  r.device = "Some GPU, rev. 2";  // a comma: quoted
  r.policy = "v5-iw-outside";
  r.updates = 1e6;
  r.time_s = 0.5;
  r.flops_counted = 8e7;
  r.bytes_compulsory = 4e6;
  r.fma_ratio_counted = 0.6;
  r.fp64_peak_gflops = 10.0;
  return r;
}

TEST(RooflineCsv, AnalyticRow) {
  const auto header = split(roofline_csv_header());
  const auto f = split(lines(roofline_csv_row(sample_row()))[0]);
  ASSERT_EQ(f.size(), header.size());
  auto col = [&](const std::string& n) { return f[std::find(header.begin(), header.end(), n) - header.begin()]; };
  EXPECT_EQ(col("device"), "Some GPU, rev. 2");
  EXPECT_EQ(col("profiler"), "none");
  for (const char* empty : {"flops_profiled", "dadd", "bytes_l1", "bytes_dram", "byte_definition", "ai_l1", "ai_dram",
                            "gflops_profiled", "registers", "occupancy_pct"})
    EXPECT_EQ(col(empty), "") << empty;
  EXPECT_DOUBLE_EQ(std::stod(col("ai_compulsory")), 20.0);
  EXPECT_DOUBLE_EQ(std::stod(col("gflops_counted")), 0.16);
  EXPECT_DOUBLE_EQ(std::stod(col("pct_fp64_peak")), 1.6);
  EXPECT_DOUBLE_EQ(std::stod(col("fma_ratio")), 0.6);
}

TEST(RooflineCsv, ProfiledRow) {
  RooflineRow r = sample_row();
  r.profiler = "ncu 2025.2.1.0";
  r.clock_control = "none";
  r.ncu = parse_ncu_raw_csv(fixture());
  const auto header = split(roofline_csv_header());
  const auto f = split(lines(roofline_csv_row(r))[0]);
  ASSERT_EQ(f.size(), header.size());
  auto col = [&](const std::string& n) {
    return std::stod(f[std::find(header.begin(), header.end(), n) - header.begin()]);
  };
  const double flops = 2000000001.0 + 1400000005.0 + 2 * 5000000003.0;
  EXPECT_DOUBLE_EQ(col("flops_profiled"), flops);
  EXPECT_DOUBLE_EQ(col("ai_l1"), flops / 2468567890.0);
  EXPECT_DOUBLE_EQ(col("ai_l2"), flops / 906789012.0);
  EXPECT_NEAR(col("ai_dram"), flops / 100.53e6, 1e-9);
  EXPECT_DOUBLE_EQ(col("gflops_profiled"), flops / 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(col("pct_fp64_peak"), 100 * flops / 0.5 / 1e9 / 10.0);
  EXPECT_DOUBLE_EQ(col("fma_ratio"), 5000000003.0 / (2000000001.0 + 1400000005.0 + 5000000003.0));
  EXPECT_EQ(col("registers"), 96);
  EXPECT_NE(lines(roofline_csv_row(r))[0].find(",\"raw:l1tex__t_bytes,lts__t_bytes,dram__bytes\","), std::string::npos);
}

TEST(Ceilings, LevelRule) {
  gpp::backend::Properties c;
  c.l1_bytes = 32768;    // x 2 threads: L1 window <= 32 KiB
  c.l2_bytes = 262144;   // x 2: L2 window (64 KiB, 256 KiB]
  c.l3_bytes = 4194304;  // L3 window (512 KiB, 2 MiB]; DRAM >= 16 MiB
  c.units = 2;
  std::vector<gpp::measure::ceilings::SweepPoint> s;
  const double gbs[] = {90, 100, 80, 70, 60, 50, 40, 30, 20, 15, 12, 11, 10};  // 16 KiB .. 64 MiB
  double ws = 16384;
  for (double g : gbs) s.push_back({ws, g}), ws *= 2;
  const auto l = pick_levels(s, c, true);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].level, "DRAM");
  EXPECT_EQ(l[0].gbs, 12);  // best at >= 16 MiB: 12 (16 MiB), 11, 10
  EXPECT_EQ(l[1].level, "L3");
  EXPECT_EQ(l[1].gbs, 40);  // 1 MiB (40), 2 MiB (30)
  EXPECT_EQ(l[2].level, "L2");
  EXPECT_EQ(l[2].gbs, 70);  // 128 KiB (70), 256 KiB (60)
  EXPECT_EQ(l[3].level, "L1");
  EXPECT_EQ(l[3].gbs, 100);  // 16 KiB (90), 32 KiB (100)
  // A sweep that stops inside the caches still names a memory level, said in its method.
  s.resize(5);
  const auto short_sweep = pick_levels(s, c, true);
  EXPECT_EQ(short_sweep[0].level, "DRAM");
  EXPECT_NE(short_sweep[0].method.find("possibly a cache rate"), std::string::npos);
}

TEST(Ceilings, LevelRuleGpuWithRotatedSweep) {
  gpp::backend::Properties c;
  c.l1_bytes = 262144;   // x 4 multiprocessors = 1 MiB of L1: more than half the L2
  c.l2_bytes = 1048576;  // L2 window of the rotated sweep: <= 512 KiB; HBM >= 4 MiB
  c.units = 4;
  std::vector<gpp::measure::ceilings::SweepPoint> own, rot;
  const double own_gbs[] = {500, 900, 1000, 950, 800, 700, 300, 200};  // 64 KiB .. 8 MiB
  const double rot_gbs[] = {300, 350, 340, 330, 250, 110, 100, 105};
  double ws = 65536;
  for (int i = 0; i < 8; ++i, ws *= 2) own.push_back({ws, own_gbs[i]}), rot.push_back({ws, rot_gbs[i]});
  const auto l = pick_levels(own, c, false, rot);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].level, "HBM");
  EXPECT_EQ(l[0].gbs, 105);  // rotated at >= 4 MiB: 100 (4 MiB), 105 (8 MiB)
  EXPECT_EQ(l[1].level, "L2");
  EXPECT_EQ(l[1].gbs, 350);  // rotated at <= 512 KiB: 300, 350, 340, 330 (not 950 of the L1s)
  EXPECT_EQ(l[2].level, "L1");
  EXPECT_EQ(l[2].gbs, 1000);  // own columns at <= 512 KiB
  // Without the rotated sweep the GPU's L2 window (L1 total, L2/2] is empty: no L2 level.
  const auto without = pick_levels(own, c, false);
  for (const auto& level : without) EXPECT_NE(level.level, "L2");
}

TEST(CeilingsCli, QuickHostJson) {
  const std::string json = temp("ceilings.json");
  const auto o = gpp::test::gpp_exe("ceilings --space host --quick --json " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  const double peak = read_ceilings(json).fp64_peak_gflops;
  // Positive and finite: a loaded machine (OpenMP threads of other processes spinning on
  // the same cores) measured 0.001 GFLOP/s once, so no lower bound beyond zero.
  EXPECT_GT(peak, 0.0);
  EXPECT_LT(peak, 1e5);
  const std::string text = read(json);
  for (const char* key :
       {"\"schema_version\":1", "\"kind\":\"gpp-ceilings\"", "\"device\"", "\"backend\"", "\"compute\"",
        "\"bandwidth\"", "\"sweep\"", "\"method\"", "\"level\":\"DRAM\"", "\"level\":\"L1\"", "\"space\":\"host\""})
    EXPECT_NE(text.find(key), std::string::npos) << key;
  const std::string py = std::string(GPP_PYTHON3).empty() ? "/usr/bin/python3" : std::string(GPP_PYTHON3);
  const std::string check =
      py +
      " -c \"import json,math,sys; d=json.load(open(sys.argv[1])); "
      "assert d['schema_version']==1 and d['compute'][0]['gflops']>0; "
      "assert all(b['gbs']>0 and math.isfinite(b['gbs']) and b['working_set_bytes']>0 for b in d['bandwidth']); "
      "assert len(d['sweep'])==10 and all(p['gbs']>0 for p in d['sweep'])\" " +
      json;
  if (::access(py.c_str(), X_OK) == 0) {  // braces: EXPECT_* is an if-else (-Wdangling-else)
    EXPECT_EQ(std::system(check.c_str()), 0) << check;
  }
  std::remove(json.c_str());
}

const std::string kDeck =
    std::string(GPP_SOURCE_DIR) + "/inputs/small.toml --nbands 12 --ngpown 8 --ncouls 40 --nvband 5";

TEST(RooflineCli, AnalyticRowsOnTheHost) {
  const std::string json = temp("c.json"), csv = temp("r.csv");
  ASSERT_EQ(gpp::test::gpp_exe("ceilings --space host --quick --json " + json).code, 0);
  const auto o = gpp::test::gpp_exe("roofline " + kDeck + " --policy v0-collapse3,v3-noabs,tuned,host --space host " +
                                    "--repeat 2 --ncu auto --csv " + csv + " --ceilings " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  const auto l = lines(read(csv));
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(l[0], roofline_csv_header());
  const auto header = split(l[0]);
  std::vector<double> per_update, reciprocals;
  for (std::size_t i = 1; i < l.size(); ++i) {
    const auto f = split(l[i]);
    ASSERT_EQ(f.size(), header.size()) << l[i];
    auto col = [&](const std::string& n) { return f[std::find(header.begin(), header.end(), n) - header.begin()]; };
    EXPECT_EQ(col("profiler"), "none");  // a host run: no profiler
    EXPECT_EQ(col("updates"), "7680");   // 12 x 8 x 40 x 2
    EXPECT_EQ(col("repeats"), "2");
    EXPECT_GT(std::stod(col("time_s")), 0);
    EXPECT_GT(std::stod(col("pct_fp64_peak")), 0);
    EXPECT_DOUBLE_EQ(std::stod(col("flops_nominal")), 7680 * 108.4);
    per_update.push_back(std::stod(col("flops_counted")) / 7680);
    reciprocals.push_back(std::stod(col("reciprocals_counted")) / 7680);
  }
  // v0's complex divides are 6 real divides each (not FLOPs): fewer FLOPs than v3, which
  // spends 1-3 more per term on reciprocal forms, and > 5 divides per term; the fused
  // form (ssx skipped for empty bands) counts fewer FLOPs than v3.
  EXPECT_LT(per_update[0], per_update[1]);
  EXPECT_GT(reciprocals[0], 6.0);
  EXPECT_LT(reciprocals[1], 3.0);
  EXPECT_GT(per_update[1], per_update[2]);
  EXPECT_NE(o.out.find("nominal"), std::string::npos);
  std::remove(json.c_str());
  std::remove(csv.c_str());
}

TEST(RooflineCli, BadInput) {
  const std::string csv = temp("bad.csv"), other = temp("tuning.json");
  std::ofstream(other) << "{\"schema_version\":1,\"kind\":\"gpp-tuning\",\"entries\":[]}\n";
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"roofline " + kDeck + " --policy tuned", "--csv"},
           {"roofline " + kDeck + " --policy tuned --csv " + csv + " --ncu /nonexistent/ncu", "/nonexistent/ncu"},
           {"roofline " + kDeck + " --policy tuned --csv " + csv + " --ceilings /nonexistent.json",
            "/nonexistent.json"},
           {"roofline " + kDeck + " --policy tuned --csv " + csv + " --ceilings " + other, "not a gpp ceilings file"},
           {"roofline " + kDeck + " --policy tuned --csv " + csv + " --plot " + other, "not a directory"},
           {"roofline " + kDeck + " --policy tuned --csv " + csv + " --profiler-timeout nan", "--profiler-timeout"},
           {"ceilings --space moon", "--space"}}) {
    const auto o = gpp::test::gpp_exe(args);
    EXPECT_NE(o.code, 0) << args;
    EXPECT_EQ(gpp::test::count_lines(o.out), 1) << o.out;
    EXPECT_NE(o.out.find(what), std::string::npos) << o.out;
  }
  EXPECT_NE(::access(csv.c_str(), F_OK), 0);  // nothing written
  std::remove(other.c_str());
}

// The summary a roofline takes from a ceilings file is read through the file's tables of
// fields: a file written by hand gives its device, backend and FP64 peak; each damaged
// member is refused in one line naming where it is.
TEST(Ceilings, SummaryIsReadThroughTheFieldsItNames) {
  const std::string good = R"({"schema_version":1,"kind":"gpp-ceilings",
    "device":{"name":"a cpu","backend":"Serial","space":"host"},
    "compute":[{"name":"FP64 FMA peak","gflops":123.5,"fma_ratio":1.0,"method":"m"}],
    "bandwidth":[{"level":"L2","gbs":310.75,"working_set_bytes":1,"method":"m"},
                 {"level":"DRAM","gbs":45.25,"working_set_bytes":9,"method":"m"}]})";
  const CeilingsSummary c = parse_ceilings(good, "g.json");
  EXPECT_EQ(c.device, "a cpu");
  EXPECT_EQ(c.backend, "Serial");
  EXPECT_EQ(c.fp64_peak_gflops, 123.5);
  for (const auto& [from, to, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"name\":\"a cpu\"", "\"name\":\"\"", "--ceilings g.json: device: name is not a name"},
           {"\"backend\":\"Serial\",", "", "--ceilings g.json: device: no \"backend\""},
           {"\"gflops\":123.5,", "", "--ceilings g.json: compute[0]: no \"gflops\""},
           {"\"gflops\":123.5", "\"gflops\":1e300", "compute[0]: gflops is not a positive finite rate"},
           {"\"level\":\"DRAM\"", "\"level\":3", "bandwidth[1]: level is a number, not a name"},
           {"\"level\":\"DRAM\"", "\"level\":\"L4\"", "bandwidth[1]: level \"L4\" is not HBM"},
           {"\"gbs\":45.25", "\"gbs\":0", "bandwidth[1]: gbs is not a positive finite rate"}}) {
    SCOPED_TRACE(what);
    std::string t = good;
    const auto at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    try {
      parse_ceilings(t, "g.json");
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

// A ceilings file is parsed and validated, and one of another device is refused
// unless --ceilings-any-device says that is the intent.
TEST(RooflineCli, CeilingsOfAnotherDeviceOrForgedAreRefused) {
  const std::string json = temp("mine.json"), csv = temp("c.csv");
  ASSERT_EQ(gpp::test::gpp_exe("ceilings --space host --quick --json " + json).code, 0);
  const std::string mine = read(json);
  const CeilingsSummary c = parse_ceilings(mine, "mine");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = mine;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    const std::string path = temp("forged.json");
    std::ofstream(path) << t;
    return path;
  };
  const std::string run = "roofline " + kDeck + " --policy host --space host --repeat 1 --csv " + csv + " --ceilings ";
  std::string other = with("\"name\":" + gpp::formats::Json(c.device).dump(), "\"name\":\"NVIDIA H100 80GB HBM3\"");
  auto o = gpp::test::gpp_exe(run + other);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("measured on NVIDIA H100 80GB HBM3"), std::string::npos) << o.out;
  EXPECT_EQ(gpp::test::count_lines(o.out), 1) << o.out;
  o = gpp::test::gpp_exe(run + other + " --ceilings-any-device");
  EXPECT_EQ(o.code, 0) << o.out;
  for (const auto& [from, to, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"gflops\":", "\"gflops\":-", "not a positive finite rate"},
           {"\"kind\":\"gpp-ceilings\"", "\"kind\":\"gpp-tuning\"", "not a gpp ceilings file"},
           {"\"level\":\"L1\"", "\"level\":\"L9\"", "is not HBM"},
           {"\"schema_version\":1", "\"schema_version\":1,\"schema_version\":1", "given twice"}}) {
    SCOPED_TRACE(what);
    o = gpp::test::gpp_exe(run + with(from, to));
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_NE(o.out.find(what), std::string::npos) << o.out;
  }
  std::remove(json.c_str());
  std::remove(csv.c_str());
}

// External programs end at their time limit (a profiler or chart script that hangs).
TEST(ChildProcess, StoppedAtItsTimeLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  const gpp::commands::ChildResult r = gpp::commands::run_child({"sh", "-c", "echo started; sleep 30"}, 0.5);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 5.0);
  EXPECT_NE(r.output.find("started"), std::string::npos);
  const gpp::commands::ChildResult ok = gpp::commands::run_child({"sh", "-c", "echo fine; exit 3"}, 10);
  EXPECT_FALSE(ok.timed_out);
  EXPECT_EQ(ok.status, 3);
  EXPECT_EQ(ok.output, "fine\n");
}

}  // namespace

namespace {
// A real Nsight Compute 2025.3 raw-page report (H100: `ncu --csv --page raw
// --clock-control none --metrics ... gpp run inputs/small.toml --policy tuned --repeat 1
// --warmup 0 --verify none --no-branch-stats`, gpp's own lines removed): 5 kernels, numbers
// with thousands separators. The totals were read with python's csv module.
TEST(NcuCsv, RealH100Report) {
  const NcuCounters c =
      parse_ncu_raw_csv(read(std::string(GPP_SOURCE_DIR) + "/tests/fixtures/ncu_raw_h100_small_tuned.csv"));
  EXPECT_EQ(c.kernels, 5);
  EXPECT_DOUBLE_EQ(c.dfma, 1536000.0 + 3840.0 + 20467958.0);
  EXPECT_DOUBLE_EQ(c.bytes_dram, 2560.0 + 3072.0 + 572672.0 + 77824.0 + 890368.0);
  EXPECT_NEAR(c.time_s, (2112.0 + 12640.0 + 79040.0 + 7232.0 + 135936.0) * 1e-9, 1e-15);
  EXPECT_GT(c.bytes_l2, 0.0);
  EXPECT_GT(c.bytes_l1, c.bytes_dram);
}
}  // namespace
