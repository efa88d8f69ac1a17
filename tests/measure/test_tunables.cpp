// The tunables' table (policies/gpp_tunables.hpp): every tunable in it goes through each
// form gpp writes and reads (the command line, the text form, a tuning file's JSON, a
// sweep CSV's cell) and comes back the same, and every source refuses a bad value with the
// one check: gpp run and a sweep's grid print the same line for it, before any work.
#include "gpp_cli.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_sweep.hpp"
#include "gpp_tuning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

GPP_HOST_ONLY("TunableTable.*");

using gpp::find_policy;
using gpp::PolicyEntry;
using gpp::tunable_table;
using gpp::Tunables;
using gpp::TunableSpec;
using gpp::TunableValue;

// The first policy that reads `spec` (the table names no tunable that none reads).
const PolicyEntry* reader_of(const TunableSpec& spec) {
  for (const PolicyEntry& e : gpp::policy_registry())
    if (e.reads(spec)) return &e;
  return nullptr;
}

// A value of `spec` for `e`, unlike any default and unlike the other tunables' values: a
// one-size tunable the i-th odd number from 3, a tile of the policy's rank with unequal sizes.
TunableValue value_for(const TunableSpec& spec, const PolicyEntry& e, std::size_t i) {
  if (spec.one_size()) return {int(3 + 2 * i)};
  const TunableValue sizes = {8, 2, 5};
  return TunableValue(sizes.begin(), sizes.begin() + e.tile_rank);
}

// The tunables an `app` with add_tunable_options gets from `args`; the parse error as
// gpp prints it ("" when it parsed).
std::string parse_cli(const std::vector<std::string>& args, Tunables& t) {
  CLI::App app;
  gpp::commands::add_tunable_options(app, t);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
    return "";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

TEST(TunableTable, EveryTunableIsReadByAPolicyAndNamedOnce) {
  std::set<std::string> names, options;
  for (const TunableSpec& spec : tunable_table()) {
    SCOPED_TRACE(spec.name);
    EXPECT_NE(reader_of(spec), nullptr);
    EXPECT_TRUE(names.insert(spec.name).second);
    EXPECT_TRUE(options.insert(spec.option).second);
    EXPECT_EQ(gpp::find_tunable(spec.name), &spec);
    EXPECT_EQ(gpp::find_tunable(spec.option), &spec);
    EXPECT_NE(spec.one_size(), spec.sizes != nullptr);
  }
  // Every tunable a policy names is a row of the table.
  for (const PolicyEntry& e : gpp::policy_registry())
    for (const std::string& t : e.tunables) EXPECT_NE(gpp::find_tunable(t), nullptr) << e.name << ": " << t;
  EXPECT_EQ(gpp::find_tunable("warp"), nullptr);
}

TEST(TunableTable, EveryTunableRoundTripsThroughCliJsonAndCsv) {
  for (std::size_t i = 0; i < tunable_table().size(); ++i) {
    const TunableSpec& spec = tunable_table()[i];
    SCOPED_TRACE(spec.name);
    const PolicyEntry* e = reader_of(spec);
    ASSERT_NE(e, nullptr);
    const TunableValue v = value_for(spec, *e, i);
    Tunables want;
    spec.set(want, v);
    ASSERT_TRUE(spec.is_set(want));
    EXPECT_NE(want, Tunables{});
    for (const TunableSpec& other : tunable_table()) {
      if (&other != &spec) {  // braces: EXPECT_* is an if-else (-Wdangling-else)
        EXPECT_FALSE(other.is_set(want)) << other.name;
      }
    }
    EXPECT_NO_THROW(gpp::check_tunables(*e, want));

    // The text form, in the records' text and as the command line takes it.
    const std::string text = gpp::tunable_text(v);
    EXPECT_EQ(gpp::describe_tunables(want), std::string(spec.name) + "=" + text);
    Tunables cli;
    EXPECT_EQ(parse_cli({"--" + std::string(spec.option), text}, cli), "");
    EXPECT_EQ(cli, want);
    if (!spec.one_size()) {  // a tile also as a list
      std::string list = text;
      for (char& c : list) c = c == 'x' ? ',' : c;
      Tunables from_list;
      EXPECT_EQ(parse_cli({"--" + std::string(spec.option), list}, from_list), "");
      EXPECT_EQ(from_list, want);
    }
    EXPECT_EQ(spec.parse_grid(text), std::vector<TunableValue>{v});

    // A tuning file's JSON: the member, and the entry read back.
    const gpp::formats::Json j = gpp::measure::json_tunables(want);
    ASSERT_EQ(j.size(), 1u) << j.dump();
    EXPECT_EQ(j[spec.name], spec.one_size() ? gpp::formats::Json(v.front()) : gpp::formats::Json(v)) << j.dump();
    gpp::measure::TuningFile f;
    gpp::measure::TuningEntry entry;
    entry.device = "a device";
    entry.backend = "a backend";
    entry.policy = e->name;
    entry.size_class = "small";
    entry.tunables = want;
    f.merge(entry);
    const auto back = gpp::measure::parse_tuning(gpp::measure::to_json(f), "t.json");
    ASSERT_EQ(back.entries.size(), 1u);
    EXPECT_EQ(back.entries[0].tunables, want);

    // A sweep CSV's cell, and the row read back.
    gpp::measure::sweep::Row row;
    row.policy = e->name;
    row.space = "host";
    row.sizes = {12, 8, 40, 2};
    row.tunables = want;
    row.status = "invalid";
    row.reason = "a row with the tunable set";
    const std::string line = gpp::measure::sweep::csv_line(row);
    const auto cells = gpp::formats::parse_csv(line).front();
    const auto header = gpp::formats::parse_csv(gpp::measure::sweep::csv_header()).front();
    const std::size_t column = std::size_t(std::find(header.begin(), header.end(), spec.name) - header.begin());
    ASSERT_LT(column, header.size());
    EXPECT_EQ(cells[column], text);
    const auto csv = gpp::measure::sweep::parse_sweep_csv(gpp::measure::sweep::csv_header() + "\n" + line + "\n", "t");
    ASSERT_EQ(csv.rows.size(), 1u);
    EXPECT_EQ(csv.rows[0].tunables, want);

    // Equality sees this tunable.
    Tunables changed = want;
    spec.set(changed, spec.one_size() ? TunableValue{v.front() + 1} : TunableValue(v.size(), 1));
    EXPECT_NE(changed, want);
  }
}

// A bad value is refused by the command line (gpp run) and by a grid (gpp sweep) in the
// same words, for every tunable, and by the JSON and CSV readers by the same check.
TEST(TunableTable, EverySourceRefusesABadValueTheSameWay) {
  for (const TunableSpec& spec : tunable_table()) {
    SCOPED_TRACE(spec.name);
    const std::string option = std::string("--") + spec.option;
    for (const std::string bad : {"0", "-3", "1048577", "100000000", "99999999999", "123456789012345678901234567890",
                                  "abc", "1.5", "0x10", "+4", " 4", "4x", ""}) {
      SCOPED_TRACE("'" + bad + "'");
      Tunables t;
      const std::string run = parse_cli({option, bad}, t);
      EXPECT_EQ(run.rfind(option + ": ", 0), 0u) << run;
      std::string grid;
      try {
        spec.parse_grid(bad.empty() ? "4," : bad);
      } catch (const gpp::Error& e) {
        grid = e.what();
      }
      if (!bad.empty()) {
        EXPECT_EQ(grid, run);
      }
      EXPECT_FALSE(grid.empty());
    }
    // Too large is called too large, wherever it comes from.
    Tunables t;
    EXPECT_EQ(parse_cli({option, "99999999999"}, t), option + ": must be at most 1048576 (got 99999999999)");
    TunableValue large(spec.one_size() ? 1 : 2, 1);
    large.back() = 1048577;
    EXPECT_EQ(spec.why_not(large), "must be at most 1048576 (got 1048577)");
    // and the gate of every run (check_tunables, whatever the source) refuses it too
    Tunables too_large;
    spec.set(too_large, large);
    try {
      gpp::check_tunables(*reader_of(spec), too_large);
      ADD_FAILURE() << "accepted";
    } catch (const gpp::Error& e) {
      EXPECT_EQ(std::string(e.what()), option + ": must be at most 1048576 (got 1048577)");
    }
    // Leading zeros are decimal, never octal.
    EXPECT_EQ(spec.parse("010"), TunableValue{10});
  }
}

const std::string kDeck = "small --nbands 12 --ngpown 8 --ncouls 40 --nvband 5";

std::string temp_csv() { return gpp::test::scratch_dir() + "gpp_tunable.csv"; }

// The message after "gpp COMMAND: error: ", exit 1, one line; "" otherwise.
std::string refusal(const std::string& args) {
  const gpp::test::Outcome o = gpp::test::gpp_exe(args);
  if (o.code != 1 || gpp::test::count_lines(o.out) != 1) return "";
  const auto at = o.out.find(": error: ");
  return at == std::string::npos ? "" : o.out.substr(at + 9);
}

// Through the program: for every tunable, a value beyond the limit is the same one line and
// exit 1 from gpp run and from gpp sweep (alone or after a good value in the list), before
// any work: the sweep's CSV is never created.
TEST(TunableTable, RunAndSweepRefuseAValueBeforeWorkInOneLine) {
  const std::string csv = temp_csv();
  for (std::size_t i = 0; i < tunable_table().size(); ++i) {
    const TunableSpec& spec = tunable_table()[i];
    SCOPED_TRACE(spec.name);
    const PolicyEntry* e = reader_of(spec);
    ASSERT_NE(e, nullptr);
    TunableValue good = value_for(spec, *e, i), bad = good;
    bad.back() = 100000000;
    const std::string tunable = " --policy " + e->name + " --" + spec.option + " ";
    const std::string run = refusal("run " + kDeck + tunable + gpp::tunable_text(bad));
    EXPECT_EQ(run, "--" + std::string(spec.option) + ": must be at most 1048576 (got 100000000)\n");
    for (const std::string& list : {gpp::tunable_text(bad), gpp::tunable_text(good) + "," + gpp::tunable_text(bad)}) {
      EXPECT_EQ(refusal("sweep " + kDeck + tunable + list + " --repeat 1 --csv " + csv), run) << list;
      struct stat st;
      EXPECT_NE(::stat(csv.c_str(), &st), 0) << "a CSV was written";
      std::remove(csv.c_str());
    }
  }
  // A tile of another rank: refused by both in the same words.
  const std::string tile = " --policy v0-collapse3 --tile 4x4";
  const std::string run = refusal("run " + kDeck + tile);
  EXPECT_NE(run.find("--tile needs 3 sizes"), std::string::npos) << run;
  EXPECT_EQ(refusal("sweep " + kDeck + tile + " --repeat 1 --csv " + csv), run);
  std::remove(csv.c_str());
}

}  // namespace
