// `gpp sweep`, `gpp tune` and the tuning file: the grid (value lists and ranges, the
// product per policy), the CSV read back for --resume, the tuning file's reader, and the
// commands run on a tiny deck (the Serial host: team sizes above 1 cannot run there).
#include "gpp_io_test_util.hpp"
#include "gpp_record.hpp"
#include "gpp_csv.hpp"
#include "gpp_sweep.hpp"
#include "gpp_decide.hpp"
#include "gpp_tuned_shape.hpp"
#include "gpp_tuning.hpp"
#include "gpp_tuning_defaults.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("SweepGrid.*");
GPP_HOST_ONLY("SweepCsv.QuotedFields");
GPP_HOST_ONLY("Tuning.*");
GPP_HOST_ONLY("RecordParts.*");
GPP_HOST_ONLY("SweepCli.RefusedBeforeWork");
GPP_HOST_ONLY("TuneCli.OnePolicyAtATime");

using gpp::measure::sweep::Axes;
using gpp::test::count_lines;
using gpp::test::Outcome;
namespace sweep = gpp::measure::sweep;

Outcome gpp_cmd(const std::string& args) { return gpp::test::gpp_exe(args); }

std::string deck() {
  return std::string(GPP_SOURCE_DIR) + "/inputs/small.toml --nbands 12 --ngpown 8 --ncouls 40 --nvband 5";
}

std::string temp_path(const std::string& name) {
  return gpp::test::scratch_dir() + "gpp_sweep_" + std::to_string(::getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// One line, exit 1, naming `what`.
void expect_refused(const std::string& args, const std::string& what) {
  const Outcome o = gpp_cmd(args);
  SCOPED_TRACE("gpp " + args + "\n" + o.out);
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(count_lines(o.out), 1);
  EXPECT_NE(o.out.find(what), std::string::npos);
}

// ---- value lists and ranges ----

const gpp::TunableSpec& spec(const char* option) { return *gpp::find_tunable(option); }
std::vector<gpp::TunableValue> grid(const char* option, const std::string& text) {
  return spec(option).parse_grid(text);
}
// One-size values: {16, 32} as {{16}, {32}}.
std::vector<gpp::TunableValue> sizes(const std::vector<int>& v) {
  std::vector<gpp::TunableValue> out;
  for (const int x : v) out.push_back({x});
  return out;
}

TEST(SweepGrid, ListsAndRanges) {
  EXPECT_EQ(grid("team-size", "16,32,64"), sizes({16, 32, 64}));
  EXPECT_EQ(grid("team-size", "32:256:x2"), sizes({32, 64, 128, 256}));
  EXPECT_EQ(grid("team-size", "5:44:x3"), sizes({5, 15}));  // 45 is past the end
  EXPECT_EQ(grid("team-size", "8:30:+8"), sizes({8, 16, 24}));
  EXPECT_EQ(grid("team-size", "4:4:x2"), sizes({4}));
  EXPECT_EQ(grid("team-size", "7"), sizes({7}));
  // Mixed, duplicates dropped, the order of first appearance kept.
  EXPECT_EQ(grid("team-size", "48,16:64:x2,32,3"), sizes({48, 16, 32, 64, 3}));
  // The largest range allowed, and its length from the arithmetic; every value up to the
  // largest gpp run takes.
  EXPECT_EQ(grid("team-size", "1:4096:+1").size(), 4096u);
  EXPECT_EQ(grid("team-size", "1:1048576:x2").size(), 21u);
}

TEST(SweepGrid, BadValuesAreRefusedWithTheOption) {
  for (const char* bad :
       {"",        "a",        "0",          "-4",      "16,",          ",16",          "16,,32",  "32:16:x2",
        "8:64:x1", "8:64",     "8:64:*2",    "8:64:+0", "8:64:x",       "1:5000:+1",    "1:2:3:4", "1.5",
        " 8",      "8:64:+-2", "9999999999", "1048577", "16,100000000", "1:2097152:x2", "0x10"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    try {
      grid("team-size", bad);
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--team-size", 0), 0u) << e.what();
    }
  }
  // A value too large is called too large, in the words of gpp run.
  for (const char* large : {"16,100000000", "1:2097152:x2", "99999999999", "123456789012345678901234567890"}) {
    SCOPED_TRACE(large);
    try {
      grid("band-block", large);
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--band-block: must be at most 1048576 (got ", 0), 0u) << e.what();
    }
  }
}

TEST(SweepGrid, Tiles) {
  EXPECT_EQ(grid("tile", "128x1x1,64x2x1"), (std::vector<gpp::TunableValue>{{128, 1, 1}, {64, 2, 1}}));
  EXPECT_EQ(grid("tile", "16x8,16x8,4"), (std::vector<gpp::TunableValue>{{16, 8}, {4}}));
  for (const char* bad : {"", "128x0x1", "x1", "1x2x3x4", "128x1x1,", "4*4", "4x2097152x1", "1:4:x2"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(grid("tile", bad), gpp::Error);
  }
  EXPECT_EQ(gpp::tunable_text({128, 1, 1}), "128x1x1");
  EXPECT_EQ(gpp::tunable_text({}), "");
}

sweep::Axes axes(const std::vector<std::pair<const char*, std::vector<gpp::TunableValue>>>& values) {
  sweep::Axes a;
  for (const auto& [option, v] : values) a.tunables[option] = v;
  return a;
}

TEST(SweepGrid, ProductPerPolicyOverItsOwnTunables) {
  const Axes a = axes({{"band-block", sizes({16, 32})},
                       {"ig-block", sizes({8})},
                       {"team-size", sizes({64, 128, 256})},
                       {"tile", {{4, 4, 4}}}});
  // tuned reads band-block and team-size only.
  const auto tuned = sweep::expand(a, gpp::find_policy("tuned"));
  std::set<std::tuple<int, int, int, int>> got, want;
  for (const auto& t : tuned) {
    got.insert({t.band_block, t.ig_block, t.team_size, t.vector_length});
    EXPECT_TRUE(t.tile.empty());
  }
  for (int b : {16, 32})
    for (int ts : {64, 128, 256}) want.insert({b, 0, ts, 0});
  EXPECT_EQ(tuned.size(), 6u);
  EXPECT_EQ(got, want);
  // The last tunable varies fastest.
  EXPECT_EQ(tuned[0].team_size, 64);
  EXPECT_EQ(tuned[1].team_size, 128);
  EXPECT_EQ(tuned[3].band_block, 32);
  // host: band-block x ig-block.
  const auto host = sweep::expand(a, gpp::find_policy("host"));
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(host[1].band_block, 32);
  EXPECT_EQ(host[1].ig_block, 8);
  EXPECT_EQ(host[1].team_size, 0);
  // An MDRange policy: the tile axis only.
  const auto v0 = sweep::expand(a, gpp::find_policy("v0-collapse3"));
  ASSERT_EQ(v0.size(), 1u);
  EXPECT_EQ(v0[0].tile, (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(v0[0].band_block, 0);
  // A policy that reads none of the listed tunables: one point, every default.
  EXPECT_EQ(sweep::expand(Axes{}, gpp::find_policy("host")).size(), 1u);
}

// Each policy gets the tiles of its own rank; a tile no selected policy takes, or a policy
// that takes none of the tiles, is refused before any work, as gpp run refuses it.
TEST(SweepGrid, TilesGoToThePoliciesOfTheirRank) {
  const Axes a = axes({{"tile", {{4, 4, 4}, {8, 2}, {16, 1, 1}}}});
  const gpp::PolicyEntry& v0 = gpp::find_policy("v0-collapse3");
  const gpp::PolicyEntry& v4 = gpp::find_policy("v4-collapse2");
  EXPECT_NO_THROW(sweep::check_axes_used(a, {&v0, &v4}));
  const auto rank3 = sweep::expand(a, v0), rank2 = sweep::expand(a, v4);
  ASSERT_EQ(rank3.size(), 2u);
  EXPECT_EQ(rank3[1].tile, (std::vector<int>{16, 1, 1}));
  ASSERT_EQ(rank2.size(), 1u);
  EXPECT_EQ(rank2[0].tile, (std::vector<int>{8, 2}));
  for (const auto& [policies, what] :
       std::vector<std::pair<std::vector<const gpp::PolicyEntry*>, std::string>>{{{&v0}, "--tile needs 3 sizes"},
                                                                                 {{&v4}, "--tile needs 2 sizes"}}) {
    try {
      sweep::check_axes_used(a, policies);
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(sweep::check_axes_used(axes({{"tile", {{4, 4, 4}}}}), {&v0, &v4}), gpp::Error);  // v4 takes none
}

TEST(SweepGrid, ATunableNoSelectedPolicyHasIsRefused) {
  const Axes a = axes({{"tile", {{4, 4, 4}}}});
  const std::vector<const gpp::PolicyEntry*> tuned{&gpp::find_policy("tuned")};
  try {
    sweep::check_axes_used(a, tuned);
    ADD_FAILURE() << "accepted";
  } catch (const gpp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tile: none of the selected policies (tuned)"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(sweep::check_axes_used(a, {&gpp::find_policy("tuned"), &gpp::find_policy("v0-collapse3")}));
}

TEST(SweepGrid, TooManyPoints) {
  Axes a;
  sweep::add_axis(a, spec("band-block"), "1:400:+1");
  sweep::add_axis(a, spec("ig-block"), "1:400:+1");
  EXPECT_THROW(sweep::expand(a, gpp::find_policy("host")), gpp::Error);  // 160000 > 100000
  EXPECT_EQ(sweep::expand(a, gpp::find_policy("tuned")).size(), 400u);   // tuned has no ig-block
}

TEST(SweepGrid, SizeClasses) {
  EXPECT_EQ(sweep::size_class(12 * 8 * 40 * 2), "small");
  EXPECT_EQ(sweep::size_class(9.99e8), "small");
  EXPECT_EQ(sweep::size_class(1e9), "medium");
  EXPECT_EQ(sweep::size_class(9.99e10), "medium");
  EXPECT_EQ(sweep::size_class(1e11), "large");
}

TEST(SweepCsv, QuotedFields) {
  const auto r = gpp::formats::parse_csv("a,\"b,c\",\"say \"\"hi\"\"\"\r\n1,\"two\nlines\",\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
  EXPECT_EQ(r[1], (std::vector<std::string>{"1", "two\nlines", ""}));
  EXPECT_THROW(gpp::formats::parse_csv("a,\"b\n"), gpp::Error);
}

// Every field of a row reaches its line and comes back from it (the writer and the reader
// are one table): a row whose fields all differ from their defaults and from each other,
// against its line written out by hand.
TEST(SweepCsv, EveryFieldSurvivesItsLine) {
  gpp::measure::sweep::Row r;
  r.date = "2026-11-28T07:00:00Z";
  r.git = "0123456789ab";
  r.version = "1.0.0";
  r.kokkos = "3.4.1";
  r.backend = "Serial";
  r.space = "host";
  r.device = "CPU, 2 cores";  // a comma: quoted
  r.deck = "small";
  r.sizes = {48, 40, 400, 2};
  r.updates = 1536000;
  r.policy = "host";
  r.tunables.band_block = 64;
  r.tunables.ig_block = 256;
  r.tunables.params = {{"loops", "scalar"}, {"rcp_empty", "div"}};
  r.repeats = 3;
  r.time_min_s = 0.0025;
  r.time_median_s = 0.003;
  r.time_max_s = 0.0125;
  r.updates_per_s = 512000000;
  r.gflops = 17.5;
  r.rel_error = 5.5e-16;
  r.status = "ok";
  const std::string line = gpp::measure::sweep::csv_line(r);
  EXPECT_EQ(line,
            "1,2026-11-28T07:00:00Z,0123456789ab,1.0.0,3.4.1,Serial,host,\"CPU, 2 cores\",small,48,40,400,2,1536000,"
            "host,64,256,,,,3,0.0025000000000000001,0.0030000000000000001,0.012500000000000001,512000000,17.5,"
            "5.4999999999999996e-16,ok,,loops=scalar rcp_empty=div");
  const auto file = gpp::measure::sweep::parse_sweep_csv(gpp::measure::sweep::csv_header() + "\n" + line + "\n", "t");
  ASSERT_EQ(file.rows.size(), 1u);
  const auto& b = file.rows[0];
  EXPECT_EQ(b.date, r.date);
  EXPECT_EQ(b.git, r.git);
  EXPECT_EQ(b.version, r.version);
  EXPECT_EQ(b.kokkos, r.kokkos);
  EXPECT_EQ(b.backend, r.backend);
  EXPECT_EQ(b.space, r.space);
  EXPECT_EQ(b.device, r.device);
  EXPECT_EQ(b.deck, r.deck);
  EXPECT_TRUE(b.sizes == r.sizes);
  EXPECT_EQ(b.updates, r.updates);
  EXPECT_EQ(b.policy, r.policy);
  EXPECT_EQ(b.tunables.band_block, 64);
  EXPECT_EQ(b.tunables.ig_block, 256);
  EXPECT_EQ(b.tunables.team_size, 0);
  EXPECT_TRUE(b.tunables.tile.empty());
  EXPECT_EQ(b.tunables.params, r.tunables.params);
  EXPECT_EQ(b.repeats, 3);
  EXPECT_EQ(b.time_min_s, r.time_min_s);
  EXPECT_EQ(b.time_median_s, r.time_median_s);
  EXPECT_EQ(b.time_max_s, r.time_max_s);
  EXPECT_EQ(b.updates_per_s, r.updates_per_s);
  EXPECT_EQ(b.gflops, r.gflops);
  EXPECT_EQ(b.rel_error, r.rel_error);
  EXPECT_EQ(b.status, "ok");
  EXPECT_EQ(b.reason, "");
  EXPECT_EQ(gpp::measure::sweep::csv_line(b), line);
  // A point that did not run: its times, rate and error are empty cells, and read back as NaN.
  r.status = "invalid";
  r.reason = "--band-block 64: no";
  r.repeats = 0;
  r.time_min_s = r.time_median_s = r.time_max_s = r.updates_per_s = r.gflops = r.rel_error = NAN;
  const std::string invalid = gpp::measure::sweep::csv_line(r);
  EXPECT_NE(invalid.find(",0,,,,,,,invalid,--band-block 64: no,"), std::string::npos) << invalid;
  const auto back =
      gpp::measure::sweep::parse_sweep_csv(gpp::measure::sweep::csv_header() + "\n" + invalid + "\n", "t");
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_TRUE(std::isnan(back.rows[0].time_median_s));
  EXPECT_EQ(back.rows[0].reason, r.reason);
}

// The header the docs promise, the writer's and a written file's are one.
// The run record's setup, static remainder, branches and verification: each part is its
// table's object, member for member, against the object written here by hand (values
// unlike each other, so a field that reads another's member shows); the parts not there
// (no achstemp, no branch counts, no verification) are left out, and so are the members
// that do not apply.
TEST(RecordParts, EachPartIsItsTablesObject) {
  using gpp::formats::Json;
  gpp::record::RunRecord r;
  r.setup_s = 1.25;
  r.read_s = 0.5;
  r.check_s = 0.125;
  r.read_bytes = 3000000000LL;
  r.transfer_s = 0.0625;
  r.transfer_bytes = 7e9;
  r.transfer_copy_s = 0.03125;
  r.data_bytes = 123456789;
  r.device_mem_peak_bytes = 987654321;
  r.achstemp = std::complex<double>(8.25, -2.5);
  gpp::record::SpaceInfo host;
  host.kind = gpp::SpaceKind::Host;
  host.backend = "OpenMP";
  host.device = "CPU";
  host.concurrency = 16;
  r.achstemp_space = host;
  r.static_s = 0.75;
  r.achstemp_rel_error = 3e-16;
  r.branches = gpp::measure::BranchCounts{};
  r.branches->regular = 11;
  r.branches->near_pole = 7;
  r.branches->zero = 5;
  r.branches->cut = 3;
  r.target.against = "host reference";
  r.target.tolerance = 1e-10;
  r.reference_s = 2.5;
  r.reference.achtemp = {{1.5, -0.5}};
  r.reference.asxtemp = {{-2.5, 0.25}};
  r.reference_origin.source = "stored";
  r.reference_origin.date = "2026-11-29T09:00:04Z";
  r.reference_origin.space = "host";
  r.reference_origin.device = "CPU";
  r.reference_origin.pass_s = 6.5;
  r.reference_origin.file = "/c/gpp/reference-1x2x3x1-0123456789abcdef.json";
  const Json j = Json::parse(gpp::record::to_json(r));
  EXPECT_EQ(j["setup"], Json::parse(R"({"setup_s": 1.25, "read_s": 0.5, "check_s": 0.125, "read_bytes": 3000000000,
      "transfer_s": 0.0625, "transfer_bytes": 7e9, "transfer_copy_s": 0.03125, "read_gbs": 6.0,
      "data_bytes": 123456789, "device_mem_peak_bytes": 987654321})"));
  EXPECT_EQ(j["static_remainder"], Json::parse(R"({"achstemp": [8.25, -2.5], "time_s": 0.75,
      "space": {"kind": "host", "backend": "OpenMP", "device": "CPU", "concurrency": 16}, "rel_error": 3e-16})"));
  EXPECT_EQ(j["branches"], Json::parse(R"({"regular": 11, "near_pole": 7, "zero": 5, "cutoff": 3})"));
  EXPECT_EQ(j["verification"], Json::parse(R"({"against": "host reference", "tolerance": 1e-10, "reference_s": 2.5,
      "reference_source": "stored", "reference_date": "2026-11-29T09:00:04Z", "reference_space": "host",
      "reference_device": "CPU", "reference_pass_s": 6.5,
      "reference_file": "/c/gpp/reference-1x2x3x1-0123456789abcdef.json",
      "achtemp": [[1.5, -0.5]], "asxtemp": [[-2.5, 0.25]]})"));

  gpp::record::RunRecord bare;  // nothing read, no achstemp, no branches, no verification
  bare.target.against = "none";
  const Json b = Json::parse(gpp::record::to_json(bare));
  EXPECT_TRUE(b["setup"]["read_gbs"].is_null());
  EXPECT_FALSE(b.contains("static_remainder"));
  EXPECT_FALSE(b.contains("branches"));
  EXPECT_EQ(b["verification"], Json::parse(R"({"against": "none", "tolerance": 0, "reference_s": 0,
      "reference_source": "none", "reference_date": null, "reference_space": null, "reference_device": null,
      "reference_pass_s": null, "reference_file": null})"));
}

TEST(SweepCsv, HeaderIsTheDocumentedOne) {
  const std::string md = slurp(std::string(GPP_SOURCE_DIR) + "/docs/formats.md");
  const auto section = md.find("## Sweep CSV");
  ASSERT_NE(section, std::string::npos);
  const auto open = md.find("```\n", section) + 4, close = md.find("```", open);
  std::string documented;
  for (char c : md.substr(open, close - open))
    if (c != '\n') documented += c;
  EXPECT_EQ(documented, gpp::measure::sweep::csv_header());
  const std::string csv = temp_path("header.csv");
  const Outcome o = gpp_cmd("sweep " + deck() + " --policy host --band-block 4 --repeat 1 --csv " + csv);
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string text = slurp(csv);
  EXPECT_EQ(text.substr(0, text.find('\n')), documented);
  std::remove(csv.c_str());
}

// ---- the tuning file ----

const char* kTuning = R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [
  {"device": "NVIDIA H100 80GB HBM3", "backend": "Cuda", "policy": "tuned", "size_class": "large",
   "tunables": {"band_block": 32, "team_size": 128}, "time_median_s": 0.12, "deck": "si214",
   "date": "2026-11-23T10:00:00Z"},
  {"device": "cpu", "backend": "Serial", "policy": "v0-collapse3", "size_class": "small",
   "tunables": {"tile": [8, 2, 1]}}
]})";

TEST(Tuning, ReadWriteRoundTrip) {
  const auto f = gpp::measure::parse_tuning(kTuning, "t.json");
  ASSERT_EQ(f.entries.size(), 2u);
  const auto* e = f.find("NVIDIA H100 80GB HBM3", "Cuda", "tuned", "large");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->tunables.band_block, 32);
  EXPECT_EQ(e->tunables.team_size, 128);
  EXPECT_EQ(e->tunables.ig_block, 0);
  EXPECT_EQ(e->time_median_s, 0.12);
  EXPECT_EQ(e->deck, "si214");
  EXPECT_EQ(f.find("NVIDIA H100 80GB HBM3", "Cuda", "tuned", "medium"), nullptr);
  EXPECT_EQ(f.find("NVIDIA H100 80GB HBM3", "HIP", "tuned", "large"), nullptr);
  // Written and read again: the same entries.
  const auto g = gpp::measure::parse_tuning(gpp::measure::to_json(f), "again");
  ASSERT_EQ(g.entries.size(), 2u);
  EXPECT_EQ(g.entries[1].tunables.tile, (std::vector<int>{8, 2, 1}));
  EXPECT_EQ(g.entries[0].tunables.band_block, 32);
  EXPECT_EQ(g.entries[0].date, "2026-11-23T10:00:00Z");
  // Merging replaces the entry of the same key and adds a new one.
  auto h = g;
  gpp::measure::TuningEntry n = g.entries[0];
  n.tunables.band_block = 64;
  h.merge(n);
  n.size_class = "medium";
  h.merge(n);
  ASSERT_EQ(h.entries.size(), 3u);
  EXPECT_EQ(h.find("NVIDIA H100 80GB HBM3", "Cuda", "tuned", "large")->tunables.band_block, 64);
}

// An entry's evidence (one table of fields, written and read back): every member survives
// the file, and each one missing, of another type or out of its range is refused by name.
TEST(Tuning, EvidenceIsReadBackAndRefusedByMember) {
  gpp::measure::TuningFile f = gpp::measure::parse_tuning(kTuning, "t.json");
  gpp::measure::TuningEvidence v;
  v.test = gpp::measure::kTuningTest;
  v.repeats = 8;
  v.p_value = 0.0078125;
  v.gain = 0.031;
  v.time_median_s = 0.117;
  v.spread = 0.0021;
  v.default_time_median_s = 0.1207;
  v.default_spread = 0.0034;
  f.entries[0].evidence = v;
  const std::string text = gpp::measure::to_json(f);
  const auto again = gpp::measure::parse_tuning(text, "again");
  const auto* e = again.find("NVIDIA H100 80GB HBM3", "Cuda", "tuned", "large");
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->evidence.has_value());
  EXPECT_EQ(e->evidence->test, v.test);
  EXPECT_EQ(e->evidence->repeats, 8);
  EXPECT_EQ(e->evidence->p_value, 0.0078125);
  EXPECT_EQ(e->evidence->gain, 0.031);
  EXPECT_EQ(e->evidence->time_median_s, 0.117);
  EXPECT_EQ(e->evidence->spread, 0.0021);
  EXPECT_EQ(e->evidence->default_time_median_s, 0.1207);
  EXPECT_EQ(e->evidence->default_spread, 0.0034);
  for (const auto& [member, value, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"repeats", "0", "\"repeats\" is not a count"},
           {"repeats", "2.5", "\"repeats\" is not a count"},
           {"p_value", "1.5", "\"p_value\" is not a probability"},
           {"gain", "\"big\"", "\"gain\" is a string, not a number"},
           {"spread", "-0.1", "\"spread\" is negative"},
           {"default_spread", "-1", "\"default_spread\" is negative"},
           {"time_median_s", "-1", "time_median_s"},
           {"test", "3", "\"test\" is a number"}}) {
    SCOPED_TRACE(member + "=" + value);
    std::string bad = text;
    const std::string key = "\"" + member + "\":";
    const auto at = bad.find(key, bad.find("\"evidence\""));
    ASSERT_NE(at, std::string::npos);
    const auto begin = at + key.size(), end = bad.find_first_of(",}", begin);
    bad.replace(begin, end - begin, value);
    try {
      gpp::measure::parse_tuning(bad, "bad.json");
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& err) {
      EXPECT_NE(std::string(err.what()).find(says), std::string::npos) << err.what();
    }
  }
  std::string missing = text;
  const auto at = missing.find("\"gain\":", missing.find("\"evidence\""));
  missing.erase(at, missing.find(',', at) + 1 - at);
  try {
    gpp::measure::parse_tuning(missing, "bad.json");
    ADD_FAILURE() << "accepted";
  } catch (const gpp::Error& err) {
    EXPECT_NE(std::string(err.what()).find("no \"gain\""), std::string::npos) << err.what();
  }
}

// A policy's params in a tuning file: read, found for any size where the entry says
// "any", written back; params the policy lacks or values it does not take refused.
TEST(Tuning, ParamsAndAnySize) {
  const std::string text = R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [
    {"device": "cpu", "backend": "OpenMP", "policy": "host", "size_class": "any",
     "tunables": {"band_block": 32, "params": {"rcp_empty": "div", "loops": "scalar"}}},
    {"device": "cpu", "backend": "OpenMP", "policy": "host", "size_class": "large", "tunables": {"band_block": 16}}]})";
  const auto f = gpp::measure::parse_tuning(text, "t.json");
  const auto* any = f.find("cpu", "OpenMP", "host", "small");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->tunables.band_block, 32);
  EXPECT_EQ(any->tunables.params, (std::map<std::string, std::string>{{"loops", "scalar"}, {"rcp_empty", "div"}}));
  EXPECT_EQ(f.find("cpu", "OpenMP", "host", "large")->tunables.band_block, 16);  // the size's own entry wins
  const auto g = gpp::measure::parse_tuning(gpp::measure::to_json(f), "again");
  EXPECT_EQ(g.entries[0].tunables.params, any->tunables.params);
  const std::string head = R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [{"device": "d", "backend": "b",
    "policy": "host", "size_class": "any", "tunables": {"params": )";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"loops": "simd"})", "--param loops=simd: policy host takes vector or scalar"},
      {R"({"avx512": "on"})", "policy host has no param avx512"},
      {R"({"loops": 1})", "not a string"},
      {R"(["loops"])", "not an object"},
      {R"({"loops": "a b"})", "expected NAME=VALUE"},
  };
  for (const auto& [params, what] : bad) {
    try {
      gpp::measure::parse_tuning(head + params + "}}]}", "bad.json");
      ADD_FAILURE() << params << " accepted";
    } catch (const gpp::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("tuning file bad.json: ", 0), 0u) << e.what();
    }
  }
}

// The shipped defaults (tuning/*.json): every file reads as a tuning file, each entry is
// for every size and says its basis (a measured one its command), and what this build
// compiled in (tuning_defaults) is what the two files it names say.
TEST(Tuning, ShippedDefaultsAreTheCompiledOnes) {
  const std::string dir = std::string(GPP_SOURCE_DIR) + "/tuning/";
  const std::vector<std::string> files = {"sm_70",       "sm_80",     "sm_90",     "gfx90a",      "gfx942",
                                          "host-avx512", "host-avx2", "host-neon", "host-generic"};
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    const auto f = gpp::measure::read_tuning_file(dir + name + ".json");
    ASSERT_EQ(f.entries.size(), 1u);
    const auto& e = f.entries[0];
    EXPECT_EQ(e.size_class, "any");
    EXPECT_EQ(e.policy, name.rfind("host", 0) == 0 ? "host" : "tuned");
    ASSERT_TRUE(e.unknown.contains("basis"));
    const std::string basis = e.unknown["basis"].get<std::string>();
    EXPECT_TRUE(basis == "measured" || basis == "reasoned") << basis;
    if (basis == "measured")
      EXPECT_TRUE(e.unknown.contains("command") && e.unknown.contains("where"));
    else
      EXPECT_TRUE(e.unknown.contains("note"));
    EXPECT_EQ(f.unknown["arch"].get<std::string>(), name);
    if (e.policy == "tuned") {  // the shape's arrays, as cmake/GppTuningDefaults.cmake reads them
      ASSERT_TRUE(e.unknown.contains("shape"));
      const auto& shape = e.unknown.at("shape");
      for (const char* key : {"occupied_blocks", "empty_blocks", "split_unroll", "occupied_unroll", "empty_unroll",
                              "band_block_choices"}) {
        ASSERT_TRUE(shape.contains(key)) << key;
        const auto& a = shape.at(key);
        EXPECT_TRUE(a.is_array() && !a.empty()) << key;
        if (a.is_array()) {
          for (const auto& v : a) EXPECT_TRUE(v.is_number_integer() && v.get<int>() >= 1) << key;
        }
      }
      // the band block's choices: the file's band_block first, then larger ones in order
      const auto& choices = shape.at("band_block_choices");
      if (choices.is_array() && !choices.empty()) {
        EXPECT_EQ(choices[0].get<int>(), e.tunables.band_block);
        for (std::size_t i = 1; i < choices.size(); ++i) EXPECT_GT(choices[i].get<int>(), choices[i - 1].get<int>());
      }
    }
  }
  const auto tuned =
      gpp::measure::read_tuning_file(std::string(GPP_SOURCE_DIR) + "/" + gpp::tuning_defaults::kTunedFile);
  EXPECT_EQ(tuned.entries[0].tunables.band_block, gpp::tuning_defaults::kTunedBandBlock);
  EXPECT_EQ(tuned.entries[0].tunables.team_size, gpp::tuning_defaults::kTunedTeamSize);
  const auto& shape = tuned.entries[0].unknown["shape"];
  EXPECT_EQ(shape["occupied_gp"].get<int>(), gpp::tuning_defaults::kTunedOccupiedGp);
  EXPECT_EQ(shape["empty_gp"].get<int>(), gpp::tuning_defaults::kTunedEmptyGp);
  for (int nw = 1; nw <= 8; ++nw) {
    // the array's value for nw frequencies (its last for more), as tuned_shape::per_nw reads it
    const auto at = [&](const char* key) {
      const auto& a = shape[key];
      return a[std::min<std::size_t>(nw, a.size()) - 1].get<int>();
    };
    EXPECT_EQ(at("occupied_blocks"), gpp::tuned_shape::occupied_blocks(nw)) << nw;
    EXPECT_EQ(at("empty_blocks"), gpp::tuned_shape::empty_blocks(nw)) << nw;
    EXPECT_EQ(at("split_unroll"), gpp::tuned_shape::split_unroll(nw)) << nw;
    EXPECT_EQ(at("occupied_unroll"), gpp::tuned_shape::occupied_unroll(nw)) << nw;
    EXPECT_EQ(at("empty_unroll"), gpp::tuned_shape::empty_unroll(nw)) << nw;
  }
  const auto& choices = shape["band_block_choices"];
  ASSERT_EQ(choices.size(), std::size(gpp::tuning_defaults::kTunedBandBlockChoices));
  for (std::size_t i = 0; i < choices.size(); ++i)
    EXPECT_EQ(choices[i].get<int>(), gpp::tuning_defaults::kTunedBandBlockChoices[i]) << i;
  const auto host = gpp::measure::read_tuning_file(std::string(GPP_SOURCE_DIR) + "/" + gpp::tuning_defaults::kHostFile);
  EXPECT_EQ(host.entries[0].tunables.band_block, gpp::tuning_defaults::kHostBandBlock);
  EXPECT_EQ(host.entries[0].tunables.ig_block, gpp::tuning_defaults::kHostIgBlock);
  EXPECT_EQ(host.entries[0].unknown["shape"]["prefetch_ahead"].get<int>(), gpp::tuning_defaults::kHostPrefetchAhead);
  // the host policy's params default to the file's values (the first value of each)
  for (const auto& p : gpp::find_policy("host").params)
    EXPECT_EQ(host.entries[0].tunables.params.at(p.name), p.values.front()) << p.name;
}

// tuned's band block where a run gives none (tuned_shape::default_band_block), against the
// build's file read here and the rule worked by hand: the largest choice whose columns,
// 16 bytes a band for each G of the largest of four ranges, take at most a quarter of the
// L2; the first where none does.
TEST(Tuning, TunedBandBlockFollowsTheL2) {
  const auto file =
      gpp::measure::read_tuning_file(std::string(GPP_SOURCE_DIR) + "/" + gpp::tuning_defaults::kTunedFile);
  std::vector<int> choices;
  for (const auto& c : file.entries[0].unknown["shape"]["band_block_choices"]) choices.push_back(c.get<int>());
  ASSERT_FALSE(choices.empty());
  for (const int ncouls : {1, 200, 11075, 24090, 25600, 25601, 32768, 1000000})
    for (const double l2 : {1.0 * 1048576, 40.0 * 1048576, 50.0 * 1048576, 256.0 * 1048576, 1e12}) {
      const long long widest = (ncouls + 3) / 4;  // G in the largest of four ranges
      int expected = choices.front();
      for (const int c : choices)
        if (double(widest) * c * 16 <= l2 / 4) expected = c;
      EXPECT_EQ(gpp::tuned_shape::default_band_block(ncouls, l2), expected) << ncouls << " G, L2 " << l2;
    }
  // An L2 no block fits takes the file's band_block; one every block fits, the largest.
  EXPECT_EQ(gpp::tuned_shape::default_band_block(1000000, 1048576.0), file.entries[0].tunables.band_block);
  EXPECT_EQ(gpp::tuned_shape::default_band_block(1, 1e12), choices.back());
  if (std::string(gpp::tuning_defaults::kTunedFile) == "tuning/sm_90.json") {
    // the H200's 50 MiB: si214 and si510 at 128, the mini-app deck at 96; the edge at
    // 25,600 G (6,400 a range: 13,107,200 bytes at 128 bands, a quarter of the L2)
    const double h200 = 52428800.0;
    EXPECT_EQ(gpp::tuned_shape::default_band_block(11075, h200), 128);
    EXPECT_EQ(gpp::tuned_shape::default_band_block(24090, h200), 128);
    EXPECT_EQ(gpp::tuned_shape::default_band_block(32768, h200), 96);
    EXPECT_EQ(gpp::tuned_shape::default_band_block(25600, h200), 128);
    EXPECT_EQ(gpp::tuned_shape::default_band_block(25601, h200), 96);
  }
}

// A tuning entry (one table of fields, written and read back): every field of a
// non-uniform entry is written as the object below says, written by hand, in its order,
// and read back to the same entry; fields left out when unset stay out.
TEST(Tuning, EveryEntryFieldSurvivesItsObject) {
  gpp::measure::TuningEntry e;
  e.device = "NVIDIA H100 80GB HBM3";
  e.backend = "Cuda";
  e.policy = "tuned";
  e.size_class = "medium";
  e.tunables.band_block = 48;
  e.tunables.team_size = 96;
  e.time_median_s = 0.0371;
  e.deck = "si214";
  e.date = "2026-11-28T11:00:00Z";
  e.evidence = gpp::measure::TuningEvidence{"mann-whitney-u", 7, 0.0023, 0.061, 0.0371, 0.0004, 0.0395, 0.0006};
  gpp::measure::TuningFile f;
  f.entries.push_back(e);
  const std::string out = gpp::measure::to_json(f);
  const auto written = gpp::formats::JsonIn::parse(out)["entries"][0];
  const auto expected = gpp::formats::JsonIn::parse(R"({"device": "NVIDIA H100 80GB HBM3", "backend": "Cuda",
    "policy": "tuned", "size_class": "medium", "tunables": {"band_block": 48, "team_size": 96},
    "time_median_s": 0.0371, "deck": "si214", "date": "2026-11-28T11:00:00Z",
    "evidence": {"test": "mann-whitney-u", "repeats": 7, "p_value": 0.0023, "gain": 0.061,
                 "time_median_s": 0.0371, "spread": 0.0004, "default_time_median_s": 0.0395,
                 "default_spread": 0.0006}})");
  EXPECT_EQ(written, expected) << out;
  std::size_t at = 0;
  for (const char* key : {"\"device\"", "\"backend\"", "\"policy\"", "\"size_class\"", "\"tunables\"",
                          "\"time_median_s\"", "\"deck\"", "\"date\"", "\"evidence\""}) {
    const std::size_t next = out.find(key, at);
    ASSERT_NE(next, std::string::npos) << key << " after " << at << ": " << out;
    at = next;
  }
  const auto back = gpp::measure::parse_tuning(out, "again").entries.at(0);
  EXPECT_EQ(back.device, e.device);
  EXPECT_EQ(back.backend, e.backend);
  EXPECT_EQ(back.policy, e.policy);
  EXPECT_EQ(back.size_class, e.size_class);
  EXPECT_EQ(back.tunables.band_block, 48);
  EXPECT_EQ(back.tunables.team_size, 96);
  EXPECT_EQ(back.tunables.ig_block, 0);
  EXPECT_EQ(back.time_median_s, 0.0371);
  EXPECT_EQ(back.deck, e.deck);
  EXPECT_EQ(back.date, e.date);
  ASSERT_TRUE(back.evidence.has_value());
  EXPECT_EQ(back.evidence->repeats, 7);
  EXPECT_EQ(back.evidence->default_spread, 0.0006);
  EXPECT_TRUE(back.unknown.empty());
  // A hand-written entry: no time, no evidence; neither is written back.
  e.time_median_s = 0;
  e.evidence.reset();
  f.entries = {e};
  const auto bare = gpp::formats::JsonIn::parse(gpp::measure::to_json(f))["entries"][0];
  EXPECT_FALSE(bare.contains("time_median_s")) << bare.dump();
  EXPECT_FALSE(bare.contains("evidence")) << bare.dump();
  EXPECT_EQ(bare.size(), 7u) << bare.dump();
}

TEST(Tuning, BadFilesAreRefused) {
  const std::string entry = R"("device": "d", "backend": "b", "policy": "tuned", "size_class": "small")";
  auto with = [&](const std::string& e) {
    return R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [{)" + e + "}]}";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not valid JSON"},
      {"{\"schema_version\": 1,", "not valid JSON"},
      {"[1]", "not a JSON object"},
      {R"({"schema_version": 2, "kind": "gpp-tuning", "entries": []})", "schema_version 2"},
      {R"({"schema_version": 1, "kind": "gpp-record", "entries": []})", "gpp-tuning"},
      {R"({"schema_version": 1, "kind": "gpp-tuning"})", "no \"entries\""},
      {R"({"schema_version": 1, "kind": "gpp-tuning", "entries": []} x)", "not valid JSON"},
      {R"({"schema_version": 1, "kind": "gpp-tuning", "kind": "gpp-tuning", "entries": []})", "given twice"},
      {std::string(100000, '[') + std::string(100000, ']'), "nested deeper"},
      {with(entry + R"(, "tunables": {"band_block": 2097152})"), "at most 1048576"},
      {with(entry + R"(, "tunables": {}, "time_median_s": -1)"), "not a time a run can take"},
      {with(entry + R"(, "tunables": {}, "time_median_s": 1e300)"), "not a time a run can take"},
      {with(entry + R"(, "tunables": {}, "time_median_s": "fast")"), "not a number"},
      {with(R"("device": "d\nRESULT x", "backend": "b", "policy": "tuned", "size_class": "small", "tunables": {})"),
       "not a short printable name"},
      {with(entry + R"(, "tunables": {"band_block": 0})"), "tunables.band_block must be a positive integer (got 0)"},
      {with(entry + R"(, "tunables": {"band_block": 1.5})"), "tunables.band_block is a number, not an integer"},
      {with(entry + R"(, "tunables": {"band_block": "32"})"), "is a string, not an integer"},
      {with(entry + R"(, "tunables": {"tile": [4, 4, 4, 4]})"), "tunables.tile takes at most 3 sizes (got 4x4x4x4)"},
      {with(entry + R"(, "tunables": {"tile": [1, 18446744073709551615, 1]})"),
       "tunables.tile must be at most 1048576 (got 18446744073709551615)"},
      {with(entry + R"(, "tunables": {"tile": 4})"), "tunables.tile is a number, not an array of sizes"},
      {with(entry + R"(, "tunables": {"warp": 2})"), "unknown tunable \"warp\""},
      {with(entry + R"(, "tunables": {"ig_block": 8})"), "no tunable --ig-block"},
      {with(entry), "no \"tunables\""},
      {with(R"("device": "d", "backend": "b", "policy": "warp9", "size_class": "small", "tunables": {})"),
       "unknown policy 'warp9'"},
      {with(R"("device": "d", "backend": "b", "policy": "tuned", "size_class": "huge", "tunables": {})"),
       "size_class \"huge\" is not small, medium, large or any"},
      {R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [{)" + entry + R"(, "tunables": {}}, {)" + entry +
           R"(, "tunables": {}}]})",
       "a second entry"},
  };
  for (const auto& [text, what] : cases) {
    SCOPED_TRACE(text);
    try {
      gpp::measure::parse_tuning(text, "bad.json");
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("tuning file bad.json: ", 0), 0u) << m;
      EXPECT_NE(m.find(what), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

// Fields gpp does not know survive a merge (top level and per entry), and a file of many
// keys is read in n log n (a hand-written reader was quadratic).
TEST(Tuning, UnknownFieldsSurviveAMerge) {
  const std::string text = R"({"schema_version": 1, "kind": "gpp-tuning", "note": {"by": "me"}, "entries": [
    {"device": "cpu", "backend": "Serial", "policy": "host", "size_class": "small", "tunables": {"band_block": 4},
     "time_median_s": 0.5, "comment": "keep me"}]})";
  auto f = gpp::measure::parse_tuning(text, "t.json");
  gpp::measure::TuningEntry e = f.entries[0];
  e.tunables.band_block = 8;
  e.unknown = gpp::formats::JsonIn::object();
  f.merge(e);
  const std::string out = gpp::measure::to_json(f);
  EXPECT_NE(out.find("\"note\":{\"by\":\"me\"}"), std::string::npos) << out;
  EXPECT_NE(out.find("\"comment\":\"keep me\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"band_block\":8"), std::string::npos) << out;
  EXPECT_EQ(gpp::measure::parse_tuning(out, "again").entries[0].tunables.band_block, 8);
}

TEST(Tuning, ManyKeysAreReadQuickly) {
  std::string text = R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [{"device": "cpu", "backend": "Serial",
    "policy": "host", "size_class": "small", "tunables": {})";
  for (int i = 0; i < 200000; ++i) text += ", \"k" + std::to_string(i) + "\": " + std::to_string(i);
  text += "}]}";
  const auto t0 = std::chrono::steady_clock::now();
  const auto f = gpp::measure::parse_tuning(text, "many.json");
  EXPECT_EQ(f.entries[0].unknown.size(), 200000u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), gpp::test::time_limit(10.0));
}

// ---- the commands ----

// Rows of a sweep CSV, as field lists, without the header.
std::vector<std::vector<std::string>> csv_rows_of(const std::string& path) {
  auto r = gpp::formats::parse_csv(slurp(path));
  if (!r.empty()) r.erase(r.begin());
  return r;
}

std::size_t column(const std::string& name) {
  const auto h = gpp::formats::parse_csv(gpp::measure::sweep::csv_header()).front();
  return std::size_t(std::find(h.begin(), h.end(), name) - h.begin());
}

TEST(SweepCli, InvalidPointsAreRowsWithReasons) {
  const std::string csv = temp_path("invalid.csv"), json = temp_path("invalid.json");
  // --space host: the BEST lines below name the host space in every build (CUDA's default is the device)
  const Outcome o = gpp_cmd("sweep " + deck() +
                            " --space host --policy tuned,host --band-block 4,8 --team-size 1,100000 --repeat 1 "
                            "--csv " +
                            csv + " --json " + json);
  SCOPED_TRACE(o.out);
  ASSERT_EQ(o.code, 0);
  const auto rows = csv_rows_of(csv);
  ASSERT_EQ(rows.size(), 6u);  // tuned: 2 x 2; host has no --team-size: 2
  int invalid = 0, ok = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), column("params") + 1);
    if (r[column("status")] == "invalid") {
      ++invalid;
      EXPECT_EQ(r[column("policy")], "tuned");
      EXPECT_EQ(r[column("team_size")], "100000");
      EXPECT_NE(r[column("reason")].find("--team-size 100000"), std::string::npos) << r[column("reason")];
      EXPECT_EQ(r[column("time_median_s")], "");
      EXPECT_EQ(r[column("repeats")], "0");
      EXPECT_EQ(r[column("gflops")], "");
    } else {
      ++ok;
      EXPECT_EQ(r[column("status")], "ok");
      EXPECT_EQ(r[column("reason")], "");
      EXPECT_GT(std::stod(r[column("time_median_s")]), 0);
      EXPECT_EQ(r[column("repeats")], "1");
      EXPECT_EQ(r[column("team_size")] == "", r[column("policy")] == "host");
      // counted FLOPs per update of the fused form: between the sch-only body (~17) and
      // the paper's nominal 108.4 (docs/roofline.md, "Counting")
      const double per_update = std::stod(r[column("gflops")]) * 1e9 / std::stod(r[column("updates_per_s")]);
      EXPECT_GT(per_update, 15.0);
      EXPECT_LT(per_update, 108.4);
    }
  }
  EXPECT_EQ(invalid, 2);
  EXPECT_EQ(ok, 4);
  EXPECT_NE(o.out.find("BEST policy=tuned space=host band_block="), std::string::npos);
  EXPECT_NE(o.out.find("BEST policy=host space=host band_block="), std::string::npos);
  const std::string j = slurp(json);
  EXPECT_NE(j.find("\"command\":\"sweep\""), std::string::npos);
  EXPECT_NE(j.find("\"status\":\"invalid\""), std::string::npos);
  EXPECT_NE(j.find("\"tunables_source\":\"sweep\""), std::string::npos);
  std::remove(csv.c_str());
  std::remove(json.c_str());
}

TEST(SweepCli, RefusedBeforeWork) {
  expect_refused("sweep " + deck() + " --policy host --team-size 1,2", "--team-size: none of the selected policies");
  expect_refused("sweep " + deck() + " --policy host --band-block 64:8:x2", "--band-block 64:8:x2");
  expect_refused("sweep " + deck() + " --policy host --band-block 8,x", "--band-block");
  expect_refused("sweep " + deck() + " --policy warp9 --band-block 8", "unknown policy 'warp9'");
  const std::string bad = temp_path("bad_resume.csv");
  write(bad, "a,b,c\n1,2,3\n");
  expect_refused("sweep " + deck() + " --policy host --band-block 8 --resume " + bad, "its header differs");
  expect_refused("sweep " + deck() + " --policy host --band-block 8 --resume /nonexistent/x.csv", "/nonexistent/x.csv");
  std::remove(bad.c_str());
}

// A resumed CSV is believed only for rows of this device, backend, build and
// deck, with times a run can give.
TEST(SweepCli, ResumedRowsOfAnotherOriginOrForgedTimesAreRefused) {
  const std::string csv = temp_path("origin.csv");
  ASSERT_EQ(gpp_cmd("sweep " + deck() + " --policy host --band-block 4 --repeat 1 --csv " + csv).code, 0);
  const std::string good = slurp(csv);
  const auto cols = gpp::formats::parse_csv(gpp::measure::sweep::csv_header()).front();
  auto with = [&](const std::string& name, const std::string& value) {
    auto records = gpp::formats::parse_csv(good);
    const std::size_t c = std::size_t(std::find(cols.begin(), cols.end(), name) - cols.begin());
    std::string text = gpp::measure::sweep::csv_header() + "\n";
    for (std::size_t r = 1; r < records.size(); ++r) {
      records[r][c] = value;
      for (std::size_t i = 0; i < records[r].size(); ++i) text += (i ? "," : "") + records[r][i];
      text += "\n";
    }
    const std::string path = temp_path("forged_" + name + ".csv");
    write(path, text);
    return path;
  };
  for (const auto& [field, value, what] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"device", "NVIDIA H100 80GB HBM3", "another device"},
           {"backend", "Cuda", "another backend"},
           {"git", "0123456789ab", "another git"},
           {"deck", "si214", "another deck"},
           {"time_median_s", "nan", "not a finite number"},
           {"time_median_s", "-1", "not a time a run can take"},
           {"time_max_s", "1e-9", "not min <= median <= max"},
           {"updates_per_s", "1e30", "do not agree"},
           {"band_block", "2097152", "at most 1048576"}}) {
    SCOPED_TRACE(field + "=" + value);
    const std::string path = with(field, value);
    const std::string before = slurp(path);
    expect_refused("sweep " + deck() + " --policy host --band-block 4,8 --repeat 1 --resume " + path, what);
    EXPECT_EQ(slurp(path), before);  // never modified
    std::remove(path.c_str());
  }
  std::remove(csv.c_str());
}

TEST(SweepCli, ListsWithEmptyItemsAndBadBudgetsAreRefused) {
  expect_refused("run " + deck() + " --policy host,", "empty policy name");
  expect_refused("run " + deck() + " --policy ,host", "empty policy name");
  expect_refused("bench " + deck() + " --policies host,,v0-collapse3", "empty policy name");
  expect_refused("run " + deck() + " --policy host,host", "named twice");
  for (const char* b : {"nan", "inf", "1e400"})
    expect_refused("tune " + deck() + " --policy host --budget " + b, "--budget");
  expect_refused("run " + deck() + " --repeat 2000000", "at most 1000000");
  // A refused value of a megabyte is quoted short.
  const Outcome o = gpp_cmd("run " + deck() + " --policy " + std::string(100000, 'p'));
  EXPECT_EQ(o.code, 1);
  EXPECT_LT(o.out.size(), 1000u);
}

TEST(SweepCli, FailedVerificationExits2) {
  // No policy reproduces the host reference to 1e-300: every run fails verification.
  const std::string csv = temp_path("wrong.csv");
  const Outcome o = gpp_cmd("sweep " + deck() + " --policy host --band-block 4 --repeat 1 --rtol 1e-300 --csv " + csv);
  EXPECT_EQ(o.code, 2) << o.out;
  const auto rows = csv_rows_of(csv);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][column("status")], "wrong");
  EXPECT_NE(o.out.find("BEST policy=host space=host status=none"), std::string::npos) << o.out;
  std::remove(csv.c_str());
}

TEST(SweepCli, ResumeSkipsDonePoints) {
  const std::string csv = temp_path("resume.csv");
  Outcome o =
      gpp_cmd("sweep " + deck() + " --policy host,tuned --band-block 4,8 --team-size 1,100000 --repeat 1 --csv " + csv);
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string first = slurp(csv);
  ASSERT_EQ(csv_rows_of(csv).size(), 6u);
  o = gpp_cmd("sweep " + deck() + " --policy host,tuned --band-block 4,8,16 --team-size 1,100000 --repeat 1 --resume " +
              csv);
  SCOPED_TRACE(o.out);
  ASSERT_EQ(o.code, 0);
  // New: host 16, tuned 16 x {1, 100000}; the six old points (invalid ones too) skipped.
  EXPECT_NE(o.out.find("3 points measured or refused, 6 skipped"), std::string::npos);
  const std::string second = slurp(csv);
  EXPECT_EQ(second.substr(0, first.size()), first);  // the old rows as they were
  const auto rows = csv_rows_of(csv);
  ASSERT_EQ(rows.size(), 9u);
  std::set<std::string> points;
  for (const auto& r : rows)
    points.insert(r[column("policy")] + "/" + r[column("band_block")] + "/" + r[column("team_size")]);
  EXPECT_EQ(points.size(), 9u);
  EXPECT_EQ(points.count("host/16/"), 1u);
  EXPECT_EQ(points.count("tuned/16/100000"), 1u);
  // Everything done: nothing runs, the file keeps its rows.
  o = gpp_cmd("sweep " + deck() + " --policy host --band-block 4,8,16 --repeat 1 --resume " + csv);
  EXPECT_NE(o.out.find("0 points measured or refused, 3 skipped"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(csv), second);
  // Rows of another deck (size) never mark points done: the resume is refused, the file
  // kept as it was.
  expect_refused("sweep " + std::string(GPP_SOURCE_DIR) +
                     "/inputs/small.toml --nbands 10 --ngpown 8 --ncouls 40 --nvband 5 --policy host --band-block 4 "
                     "--repeat 1 --resume " +
                     csv,
                 "row 1 is of another nbands '12' (this run: '10')");
  EXPECT_EQ(slurp(csv), second);
  std::remove(csv.c_str());
}

// Sweep -> tuning file -> run applies it; explicit options win; the record says where
// each value came from.
// The device name and backend a policy runs on by default, as gpp writes them into tuning
// entries (from a row of a one-point sweep).
std::pair<std::string, std::string> device_and_backend(const std::string& policy) {
  const std::string csv = temp_path("where.csv");
  EXPECT_EQ(gpp_cmd("sweep " + deck() + " --policy " + policy + " --band-block 4 --repeat 1 --csv " + csv).code, 0);
  const auto rows = csv_rows_of(csv);
  std::remove(csv.c_str());
  if (rows.empty()) return {};
  return {rows[0][column("device")], rows[0][column("backend")]};
}

TEST(SweepCli, TuningFileRoundTrip) {
  const std::string tuning = temp_path("tuning.json"), json = temp_path("run.json");
  // Entries as a user (or a sweep that found them faster) writes them: values no default has.
  const auto [device, backend] = device_and_backend("host");
  ASSERT_EQ(backend, gpp::HostExec::name());
  gpp::measure::TuningFile f;
  gpp::measure::TuningEntry e;
  e.device = device;
  e.backend = backend;
  e.policy = "host";
  e.size_class = "small";
  e.tunables.band_block = 3;
  e.tunables.ig_block = 5;
  e.tunables.params = {{"loops", "vector"},
                       {"rcp_empty", "share"},
                       {"rcp_occupied", "share"},
                       {"occ_form", "split"},
                       {"prefetch", "64"}};
  f.merge(e);
  // tuned runs on the device where the build has one: its entry is that device's.
  std::tie(e.device, e.backend) = device_and_backend("tuned");
  e.policy = "tuned";
  e.tunables = {};
  e.tunables.band_block = 6;
  f.merge(e);
  write(tuning, gpp::measure::to_json(f));
  EXPECT_EQ(gpp::measure::read_tuning_file(tuning).entries.size(), 2u);
  Outcome o;

  // Without the file: the defaults.
  o = gpp_cmd("run " + deck() + " --policy host --repeat 1 --tuning none --json " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("tunables from: default"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(json).find("\"band_block\":3,"), std::string::npos);

  o = gpp_cmd("run " + deck() + " --policy host --repeat 1 --tuning " + tuning + " --json " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  // the entry's params (the host policy's defaults but prefetch, as a sweep writes them: a
  // distance, not auto)
  const std::string params = "loops=vector occ_form=split prefetch=64 rcp_empty=share rcp_occupied=share";
  const std::string params_json =
      "\"params\":{\"loops\":\"vector\",\"occ_form\":\"split\",\"prefetch\":\"64\",\"rcp_empty\":\"share\","
      "\"rcp_occupied\":\"share\"}";
  EXPECT_NE(o.out.find("band_block=3 ig_block=5 " + params + "; tunables from: tuning file " + tuning + ")"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("RESULT deck=small policy=host"), std::string::npos);
  std::string j = slurp(json);
  EXPECT_NE(j.find("\"tunables\":{\"band_block\":3,\"ig_block\":5," + params_json + "}"), std::string::npos) << j;
  EXPECT_NE(j.find("\"tunables_source\":\"tuning file " + tuning + "\""), std::string::npos);

  // Explicit options win, the rest still comes from the file.
  o = gpp_cmd("run " + deck() + " --policy host --repeat 1 --band-block 7 --tuning " + tuning + " --json " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  j = slurp(json);
  EXPECT_NE(j.find("\"tunables\":{\"band_block\":7,\"ig_block\":5," + params_json + "}"), std::string::npos) << j;
  const std::string file = "tuning file " + tuning;
  EXPECT_NE(
      j.find("\"tunables_source\":\"band_block: command line; ig_block: " + file + "; loops: " + file +
             "; rcp_empty: " + file + "; rcp_occupied: " + file + "; occ_form: " + file + "; prefetch: " + file + "\""),
      std::string::npos)
      << j;

  // bench, and the default place ($GPP_TUNING_FILE); --tuning none turns it off.
  ASSERT_EQ(::setenv("GPP_TUNING_FILE", tuning.c_str(), 1), 0);
  o = gpp_cmd("bench " + deck() + " --policies host,tuned --repeat 1 --json " + json);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("tunables (host): band_block=3 ig_block=5 " + params + " (from: tuning file " + tuning + ")"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("tunables (tuned): band_block=6"), std::string::npos) << o.out;
  o = gpp_cmd("run " + deck() + " --policy host --repeat 1 --tuning none");
  EXPECT_NE(o.out.find("tunables from: default"), std::string::npos) << o.out;
  // A bad file at the default place is refused too.
  const std::string bad = temp_path("bad_tuning.json");
  write(bad, "{\"schema_version\": 1, \"kind\": \"gpp-tuning\", \"entries\": [}");
  ASSERT_EQ(::setenv("GPP_TUNING_FILE", bad.c_str(), 1), 0);
  expect_refused("run " + deck() + " --policy host", "tuning file " + bad + ": not valid JSON");
  ::unsetenv("GPP_TUNING_FILE");
  std::remove(bad.c_str());
  std::remove(tuning.c_str());
  std::remove(json.c_str());
}

TEST(SweepCli, BadTuningFilesAreRefusedBeforeWork) {
  const std::string bad = temp_path("bad.json");
  write(bad, R"({"schema_version": 1, "kind": "gpp-tuning", "entries": [{"device": "d", "backend": "b",
    "policy": "host", "size_class": "small", "tunables": {"team_size": 64}}]})");
  expect_refused("run " + deck() + " --tuning " + bad, "no tunable --team-size");
  expect_refused("bench " + deck() + " --tuning " + bad, "tuning file " + bad);
  expect_refused("run " + deck() + " --tuning /nonexistent/t.json", "--tuning /nonexistent/t.json: No such file");
  // The file a sweep or tune would merge into is read (and refused) before work too.
  expect_refused("sweep " + deck() + " --policy host --band-block 4 --tuning-out " + bad, "tuning file " + bad);
  expect_refused("tune " + deck() + " --policy host --tuning-out " + bad, "tuning file " + bad);
  // An entry for this host that cannot run here is refused before work, naming the file.
  const std::string csv = temp_path("serial.csv");
  ASSERT_EQ(gpp_cmd("sweep " + deck() + " --policy tuned --band-block 4 --repeat 1 --csv " + csv).code, 0);
  const auto rows = csv_rows_of(csv);
  ASSERT_EQ(rows.size(), 1u);
  gpp::measure::TuningFile f;
  gpp::measure::TuningEntry e;
  e.device = rows[0][column("device")];
  e.backend = rows[0][column("backend")];
  e.policy = "tuned";
  e.size_class = "small";
  e.tunables.team_size = 100000;
  f.merge(e);
  write(bad, gpp::measure::to_json(f));
  expect_refused("run " + deck() + " --policy tuned --tuning " + bad, "the entry for tuned cannot run");
  std::remove(bad.c_str());
  std::remove(csv.c_str());
}

// The BEST line of `policy` in `out` and its decided= value ("" when missing).
std::pair<std::string, std::string> best_line(const std::string& out, const std::string& policy) {
  const auto b = out.find("BEST policy=" + policy + " ");
  if (b == std::string::npos) return {};
  const std::string line = out.substr(b, out.find('\n', b) - b);
  const auto d = line.find(" decided=");
  return {line, d == std::string::npos ? "" : line.substr(d + 9, line.find(' ', d + 9) - d - 9)};
}

// One [k/n] line of a campaign's stdout: its counter, and for a point that ran its
// tunables, median and status.
struct PointLine {
  int k = 0, n = 0;
  std::string tunables, status;
  double median = NAN;
};
std::vector<PointLine> point_lines(const std::string& out) {
  std::vector<PointLine> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    PointLine p;
    char close = 0;
    std::istringstream words(line);
    if (line.rfind("[", 0) != 0 || std::sscanf(line.c_str(), "[%d/%d%c", &p.k, &p.n, &close) != 3 || close != ']')
      continue;
    std::string w, policy, space;
    words >> w >> policy >> space;
    while (words >> w && w != "median" && w != "invalid:" && w != "against")
      p.tunables += (p.tunables.empty() ? "" : " ") + w;
    if (w == "median") {
      words >> p.median;
      while (words >> w) p.status = w;
    }
    lines.push_back(p);
  }
  return lines;
}

// tune's counters count the points each round will run, and what it decides agrees with the
// times it printed: the defaults are called the fastest only when no point that ran had a
// lower median; otherwise the point timed against them is the one of the lowest median, and
// a tie is a lower median not proven, with its evidence. Either outcome may happen on a
// shared machine; the output must agree with itself in both.
void expect_tune_agrees_with_itself(const std::string& out) {
  const std::vector<PointLine> lines = point_lines(out);
  ASSERT_GE(lines.size(), 3u);
  // host's first round: the defaults and band_block, ig_block doubled and halved.
  EXPECT_EQ(lines[0].k, 1);
  EXPECT_EQ(lines[0].n, 5);
  // Each point counted once, as it runs, out of what was planned (a point tried before is
  // neither planned nor run again).
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].k, int(i) + 1);
    EXPECT_LE(lines[i].k, lines[i].n);
  }
  EXPECT_EQ(lines.back().k, lines.back().n);
  double lowest = INFINITY;  // as printed (5 digits)
  for (const PointLine& p : lines)
    if (p.status == "ok") lowest = std::min(lowest, p.median);
  ASSERT_TRUE(std::isfinite(lowest));
  const auto [best, decided] = best_line(out, "host");
  ASSERT_FALSE(best.empty());
  if (best.find("(the defaults have the lowest median") != std::string::npos) {
    EXPECT_EQ(decided, "defaults");
    EXPECT_EQ(lines[0].status, "ok");
    EXPECT_EQ(lines[0].median, lowest) << "a point faster than the defaults was printed";
    EXPECT_NE(best.find(lines[0].tunables + " "), std::string::npos);
    return;
  }
  // A comparison ran: against a point of the lowest median.
  EXPECT_NE(out.find("deciding the fastest point against the defaults"), std::string::npos);
  const std::string named = decided == "faster" ? best : best.substr(best.find("the fastest point, "));
  bool found = false;
  for (const PointLine& p : lines)
    if (p.status == "ok" && p.median == lowest)
      found =
          found || named.find(p.tunables + (decided == "faster" ? " time_median_s=" : ", median")) != std::string::npos;
  EXPECT_TRUE(found) << "the point decided on is not one of the lowest median";
  if (decided == "defaults") {
    // The verdict, the evidence and the rule, and the verdict agrees with the medians.
    double point = 0, defaults = 0;
    const auto m = best.find(", median ");
    ASSERT_NE(m, std::string::npos);
    ASSERT_EQ(
        std::sscanf(best.c_str() + m, ", median %lf s (spread %*f%%) against the defaults' %lf s", &point, &defaults),
        2)
        << best;
    if (best.find("(tie within noise: ") != std::string::npos)
      EXPECT_LE(point, defaults);
    else
      EXPECT_NE(best.find("(not faster: "), std::string::npos) << best;
    EXPECT_NE(best.find(gpp::measure::decision_rule()), std::string::npos);
    EXPECT_NE(out.find("times [s]: point "), std::string::npos);
  }
}

// A search's end point goes into the tuning file only when it beats the defaults beyond
// the noise (measure/gpp_decide.hpp); otherwise the defaults stay, the output says so,
// and an entry left by an earlier (noisy) tune of the same key is removed. Either outcome
// may happen on a shared machine: the test checks that the file agrees with the decision.
TEST(TuneCli, CoordinateDescentDecidesAgainstTheDefaults) {
  const std::string tuning = temp_path("tune.json"), csv = temp_path("tune.csv");
  const auto [device, backend] = device_and_backend("host");
  gpp::measure::TuningFile f;
  gpp::measure::TuningEntry stale;  // what a tune on a loaded machine once chose
  stale.device = device;
  stale.backend = backend;
  stale.policy = "host";
  stale.size_class = "small";
  stale.tunables.band_block = 2;
  stale.tunables.ig_block = 512;
  f.merge(stale);
  gpp::measure::TuningEntry other = stale;  // another machine's: never touched
  other.device = "another machine";
  f.merge(other);
  write(tuning, gpp::measure::to_json(f));
  const Outcome o = gpp_cmd("tune " + deck() + " --space host --policy host --repeat 3 --budget 60 --tuning-out " +
                            tuning + " --csv " + csv);
  SCOPED_TRACE(o.out);
  ASSERT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("stopped: "), std::string::npos);
  const auto [line, decided] = best_line(o.out, "host");
  ASSERT_FALSE(line.empty());
  EXPECT_GE(csv_rows_of(csv).size(), 3u);  // the defaults and at least two neighbours
  expect_tune_agrees_with_itself(o.out);
  const auto after = gpp::measure::read_tuning_file(tuning);
  const gpp::measure::TuningEntry* kept = after.find("another machine", backend, "host", "small");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->tunables.band_block, 2);
  const gpp::measure::TuningEntry* mine = after.find(device, backend, "host", "small");
  if (decided == "faster") {
    ASSERT_NE(mine, nullptr);
    ASSERT_TRUE(mine->evidence.has_value());
    EXPECT_LE(mine->evidence->p_value, gpp::measure::kAlpha);
    EXPECT_GE(mine->evidence->gain, gpp::measure::kMinGain);
    EXPECT_EQ(mine->evidence->repeats, gpp::measure::kDecideRepeats);
    EXPECT_LT(mine->evidence->time_median_s, mine->evidence->default_time_median_s);
    EXPECT_NE(line.find(gpp::describe_tunables(mine->tunables) + " "), std::string::npos);
  } else {
    EXPECT_EQ(decided, "defaults");
    EXPECT_EQ(mine, nullptr);  // the stale entry is gone: its defaults are as fast
    EXPECT_NE(o.out.find("no tuning entry written: the defaults of host stay"), std::string::npos);
    EXPECT_NE(line.find("band_block=64 ig_block=1024 "), std::string::npos);  // the defaults
  }
  std::remove(tuning.c_str());
  std::remove(csv.c_str());
}

TEST(TuneCli, StopsWhenTheBudgetIsSpent) {
  const std::string tuning = temp_path("budget.json"), csv = temp_path("budget.csv");
  const Outcome o = gpp_cmd("tune " + deck() + " --space host --policy host --repeat 1 --budget 1e-9 --tuning-out " +
                            tuning + " --csv " + csv);
  SCOPED_TRACE(o.out);
  ASSERT_EQ(o.code, 0);
  // Only the defaults ran: they are the best point, and no entry is written for them.
  EXPECT_NE(o.out.find("stopped: time budget spent after 1 points"), std::string::npos);
  const auto rows = csv_rows_of(csv);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(o.out.find("BEST policy=host space=host band_block=" + rows[0][column("band_block")] +
                       " ig_block=" + rows[0][column("ig_block")] + " "),
            std::string::npos);
  EXPECT_EQ(best_line(o.out, "host").second, "defaults");
  EXPECT_NE(o.out.find("no tuning entry written"), std::string::npos);
  // Planned with the first round's four neighbours, which the budget then left out.
  EXPECT_NE(o.out.find("[1/5] host"), std::string::npos);
  struct stat st;
  EXPECT_NE(::stat(tuning.c_str(), &st), 0);  // no file: nothing to write, and it says so
  EXPECT_NE(o.out.find("tuning file: nothing to write (no point is faster than its policy's defaults); " + tuning +
                       " was not created"),
            std::string::npos);
  EXPECT_EQ(o.out.find("not changed"), std::string::npos);
  std::remove(csv.c_str());
}

TEST(TuneCli, OnePolicyAtATime) {
  expect_refused("tune " + deck() + " --policy host,tuned --tuning-out " + temp_path("x.json"), "one policy");
}

}  // namespace
