// What a long command says (session/gpp_progress.hpp), with a clock the test moves: a batch
// log's lines, a terminal's live line, estimates replaced by the measured rate, the plan of
// a long command; and gpp itself in a batch log (stderr not a terminal).
#include "gpp_io_test_util.hpp"
#include "gpp_estimate.hpp"
#include "gpp_progress.hpp"
#include "gpp_test_util.hpp"

#include <chrono>
#include <sstream>
#include <thread>

namespace gpp::test {

GPP_HOST_ONLY("Progress.*");

namespace {

struct Clocked {
  double t = 1000;
  std::ostringstream out;
  session::Progress::Options options(bool live) {
    session::Progress::Options o;
    o.out = &out;
    o.live = live;
    o.heartbeat = false;
    o.clock = [this] { return t; };
    return o;
  }
  // The lines written since the last call.
  std::vector<std::string> lines() {
    std::vector<std::string> v;
    std::istringstream in(out.str());
    for (std::string l; std::getline(in, l);) v.push_back(l);
    out.str("");
    return v;
  }
};

TEST(Progress, BatchLogGetsTheEstimateALineEveryHalfMinuteAndTheEnd) {
  Clocked c;
  session::Progress p(c.options(false));
  p.start("reference", 100, 100);  // 100 updates, 100 s estimated
  auto l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0], "gpp: reference: 100 updates, about 1 min 40 s");
  c.t += 10;
  p.advance(5);
  p.tick();
  EXPECT_TRUE(c.lines().empty());  // not yet half a minute
  c.t += 30;                       // 40 s in: 20 of 100 done
  p.advance(15);
  l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  // what is left comes from the measured rate (20 in 40 s), not from the estimate
  EXPECT_EQ(l[0], "gpp: reference: 20% (20 of 100 updates), 40 s, about 2 min 40 s left");
  c.t += 29;
  p.advance(30);
  EXPECT_TRUE(c.lines().empty());
  c.t += 2;  // a line at most every 30 s, driven by the heartbeat as well
  p.tick();
  l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_NE(l[0].find("50% (50 of 100 updates), 1 min 11 s"), std::string::npos) << l[0];
  c.t += 5;
  p.finish();
  l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0], "gpp: reference: done, 100 updates in 1 min 16 s");
}

TEST(Progress, ShortPhasesSaySomethingOnlyWhenTheyRunLong) {
  Clocked c;
  session::Progress p(c.options(false));
  p.start("static remainder", 10, 2, "multiply-adds");
  c.t += 1;
  p.advance(10);
  p.finish();
  EXPECT_TRUE(c.lines().empty());
  // estimated at 2 s, still running after 31 s: it speaks, and says it is late
  p.start("static remainder", 10, 2, "multiply-adds");
  c.t += 31;
  p.tick();
  auto l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0], "gpp: static remainder: 0% (0 of 10 multiply-adds), 31 s, longer than the estimate of 2.0 s");
  p.finish();
  EXPECT_EQ(c.lines().size(), 1u);  // its end
}

TEST(Progress, TerminalGetsOneLiveLineClearedAtTheEnd) {
  Clocked c;
  session::Progress p(c.options(true));
  p.start("host on the host: 1 warm-up + 3 timed runs", 4e10, 60);
  // drawn at once (estimated above ten seconds), cut to 79 columns (a longer line wraps and
  // a carriage return no longer clears it)
  EXPECT_EQ(c.out.str(),
            "\rgpp: host on the host: 1 warm-up + 3 timed runs: 0% (0 of 4e+10 updates), 0.0 s"
            "\033[K");
  c.out.str("");
  c.t += 0.1;
  p.advance(1e9);
  EXPECT_EQ(c.out.str(), "");  // redrawn at most every 0.25 s
  c.t += 15;
  p.advance(9e9);
  const std::string line = c.out.str();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind("\rgpp: host on the host", 0), 0u) << line;
  EXPECT_NE(line.find("25% (1e+10 of 4e+10 updates)"), std::string::npos) << line;
  c.out.str("");
  p.finish();
  EXPECT_EQ(c.out.str(), "\r\033[K");
  // a phase estimated short shows its line only after a second
  c.out.str("");
  p.start("reference", 10, 0.5);
  c.t += 0.5;
  p.advance(5);
  EXPECT_EQ(c.out.str(), "");
  c.t += 0.6;
  p.tick();
  EXPECT_NE(c.out.str().find("50% (5 of 10 updates)"), std::string::npos) << c.out.str();
}

TEST(Progress, LongPlansSayHowToShortenThem) {
  Clocked c;
  session::Progress p(c.options(false));
  p.plan("run", 5, "fewer repeats");
  EXPECT_TRUE(c.lines().empty());
  p.plan("run", 120, "fewer repeats");
  auto l = c.lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0], "gpp run: about 2 min 0 s in all (estimated)");
  p.plan("bench", 2.5 * 3600, "fewer repeats (--repeat 3)");
  l = c.lines();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], "gpp bench: about 2.5 h in all (estimated)");
  EXPECT_EQ(l[1], "gpp: that is more than 1.0 h; to shorten it: fewer repeats (--repeat 3)");
}

TEST(Progress, DisabledSaysNothing) {
  Clocked c;
  auto o = c.options(false);
  o.enabled = false;
  session::Progress p(o);
  p.plan("run", 1e5, "x");
  p.start("reference", 10, 1e4);
  c.t += 100;
  p.advance(5);
  p.finish();
  EXPECT_EQ(c.out.str(), "");
}

// The heartbeat thread speaks while no advance comes (one long launch).
TEST(Progress, HeartbeatSpeaksDuringALongPiece) {
  std::ostringstream out;
  session::Progress::Options o;
  o.out = &out;
  o.batch_every_s = 0.05;
  {
    session::Progress p(o);
    p.start("one long launch", 1, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    p.finish();
  }
  EXPECT_NE(out.str().find("gpp: one long launch: 0% (0 of 1 updates)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("gpp: one long launch: done"), std::string::npos) << out.str();
}

}  // namespace

// gpp in a batch log: stderr not a terminal gets whole lines (no carriage return, no
// escape sequence); a run estimated above ten seconds says so, and each phase that long
// says how long it is expected to take; the header comes before any of it, the results
// after. The repeats are chosen so that the estimate (the priors, session/gpp_estimate.hpp,
// for the build's host threads) is about 11 s; the run itself takes about 7 s on an idle
// core (the prior is about 0.6 of v0's rate).
TEST(ProgressCli, BatchLogSaysWhatALongRunDoes) {
  const double updates = 48.0 * 40 * 400 * 2;  // inputs/small.toml
  const int runs = int(11 * session::prior_update_rate("v0-collapse3", SpaceKind::Host) / updates);
  const std::string args = "run " + std::string(GPP_SOURCE_DIR) + "/inputs/small.toml --space host --policy " +
                           "v0-collapse3 --repeat " + std::to_string(runs) + " --warmup 0";
  const Outcome o = gpp_exe(args);
  SCOPED_TRACE("gpp " + args + "\n" + o.out);
  ASSERT_EQ(o.code, 0);
  EXPECT_EQ(o.out.find('\r'), std::string::npos);
  EXPECT_EQ(o.out.find('\033'), std::string::npos);
  const auto header = o.out.find("deck: small");
  const auto plan = o.out.find("gpp run: about ");
  const auto phase = o.out.find("gpp: v0-collapse3 on the host: " + std::to_string(runs) + " timed runs: ");
  const auto result = o.out.find("RESULT deck=small");
  ASSERT_NE(header, std::string::npos);
  ASSERT_NE(plan, std::string::npos);
  ASSERT_NE(phase, std::string::npos);
  ASSERT_NE(result, std::string::npos);
  EXPECT_LT(header, plan);
  EXPECT_LT(plan, phase);
  EXPECT_LT(phase, result);
}

}  // namespace gpp::test
