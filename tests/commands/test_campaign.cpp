// The campaign loop through the binary (commands/gpp_campaign.hpp): a sweep stopped by
// SIGTERM, SIGINT or SIGKILL keeps every finished point in its CSV, whole, and the
// printed resume line finishes it without redoing a point; two sweeps sharing one CSV
// lose no row; bench, roofline and ceilings stop the same way; a grid that cannot run is
// refused before any work.
#include "gpp_io_test_util.hpp"
#include "gpp_record.hpp"
#include "gpp_roofline.hpp"
#include "gpp_csv.hpp"
#include "gpp_sweep.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

namespace {

using gpp::test::Outcome;
namespace sweep = gpp::measure::sweep;

std::string temp(const std::string& name) {
  return gpp::test::scratch_dir() + "gpp_campaign_" + std::to_string(::getpid()) + "_" + name;
}
using gpp::test::slurp;
bool exists(const std::string& p) { return gpp::test::file_exists(p); }

// A deck where each point takes a fraction of a second on one core, so that a signal
// lands in the middle of a sweep of several seconds.
std::string slow_deck() { return std::string(GPP_SOURCE_DIR) + "/inputs/small.toml --ngpown 120 --space host"; }

// gpp started in the background (its own process: signals reach gpp itself), its stdout
// and stderr to files.
struct Background {
  pid_t pid = -1;
  std::string out, err;
  explicit Background(const std::string& args, const std::string& tag)
      : out(temp(tag + ".out")), err(temp(tag + ".err")) {
    const std::string cmd = "OMP_PROC_BIND=false exec " + std::string(GPP_EXE) + " " + args + " >" + out + " 2>" + err;
    pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
      ::_exit(127);
    }
  }
  // Exit status, or 128 + the signal that killed it.
  int wait() {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Background() {
    std::remove(out.c_str());
    std::remove(err.c_str());
  }
};

std::size_t data_rows(const std::string& csv) {
  return exists(csv) ? gpp::formats::csv_data_records(slurp(csv)).size() : 0;
}

// Waits until `csv` has at least `n` rows (false after 60 s).
bool wait_for_rows(const std::string& csv, std::size_t n) {
  for (int i = 0; i < 6000; ++i) {
    if (data_rows(csv) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::string line_with(const std::string& text, const std::string& start) {
  const auto p = text.find(start);
  if (p == std::string::npos) return "";
  return text.substr(p + start.size(), text.find('\n', p) - p - start.size());
}

const std::string kGrid = " --policy host --band-block 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --repeat 3";

// Stopped by `sig` after two points: exit 128 + sig, every row whole and of this sweep,
// no tuning file, a resume line that finishes the grid without redoing a point.
void stop_and_resume(int sig) {
  const std::string csv = temp("stop.csv"), tuning = temp("stop.json");
  std::remove(csv.c_str());
  Background g("sweep " + slow_deck() + kGrid + " --csv " + csv + " --tuning-out " + tuning, "stop");
  ASSERT_TRUE(wait_for_rows(csv, 2));
  ASSERT_EQ(::kill(g.pid, sig), 0);
  const int code = g.wait();
  const std::string out = slurp(g.out), err = slurp(g.err);
  SCOPED_TRACE(out + err);
  const std::size_t kept = data_rows(csv);
  // Every row parses (a cut-off row would not): the reader of --resume checks each field.
  const auto file = sweep::read_sweep_csv(csv);
  EXPECT_EQ(file.rows.size(), kept);
  EXPECT_FALSE(exists(tuning));
  // A process killed outright may leave the (empty) lock file; the kernel released its
  // lock, and the next gpp to use the file removes it (checked after the resume below).
  if (sig != SIGKILL) {
    EXPECT_FALSE(exists(csv + ".lock"));
  }
  if (sig == SIGKILL) {
    EXPECT_EQ(code, 128 + SIGKILL);
  } else {
    EXPECT_EQ(code, 128 + sig);
    // One line on stderr: what was stopped, what is kept and where, how to resume.
    EXPECT_NE(err.find("gpp sweep: stopped by " + std::string(sig == SIGINT ? "SIGINT" : "SIGTERM")),
              std::string::npos);
    EXPECT_NE(err.find("finished points: " + std::to_string(kept) + " of 17 (" + std::to_string(kept) +
                       " measured now, 0 already done), each in " + csv),
              std::string::npos);
    EXPECT_NE(err.find("not written (written only when the campaign ends): --tuning-out " + tuning), std::string::npos);
    // Each finished point's result line was printed before the stop.
    std::size_t printed = 0;
    for (auto p = out.find("] host "); p != std::string::npos; p = out.find("] host ", p + 1)) ++printed;
    EXPECT_EQ(printed, kept);
  }
  EXPECT_LT(kept, 16u);
  // The printed resume line (or, after SIGKILL, the same command with --resume) finishes it.
  std::string resume = line_with(err, "resume with: ");
  if (sig == SIGKILL) resume = "gpp sweep " + slow_deck() + kGrid + " --tuning-out " + tuning + " --resume " + csv;
  ASSERT_EQ(resume.substr(0, 10), "gpp sweep ");
  const Outcome r = gpp::test::gpp_exe(resume.substr(4));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(kept) + " rows already in " + csv), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(16 - kept) + " points measured or refused, " + std::to_string(kept) + " skipped"),
            std::string::npos)
      << r.out;
  const auto all = sweep::read_sweep_csv(csv);
  ASSERT_EQ(all.rows.size(), 16u);
  std::set<int> blocks;
  for (const auto& row : all.rows) blocks.insert(row.tunables.band_block);
  EXPECT_EQ(blocks.size(), 16u);  // each point once
  EXPECT_FALSE(exists(csv + ".lock"));
  std::remove(csv.c_str());
  std::remove(tuning.c_str());
}

TEST(CampaignCli, SigtermKeepsEveryFinishedPointAndResumes) { stop_and_resume(SIGTERM); }
TEST(CampaignCli, SigintKeepsEveryFinishedPointAndResumes) { stop_and_resume(SIGINT); }
TEST(CampaignCli, SigkillLosesAtMostThePointInFlight) { stop_and_resume(SIGKILL); }

TEST(CampaignCli, TwoSweepsShareOneCsv) {
  const std::string csv = temp("shared.csv");
  std::remove(csv.c_str());
  // Two processes, two halves of a grid, one file: every row of both is there once.
  Background a("sweep " + slow_deck() + " --policy host --band-block 1:8:+1 --repeat 1 --resume " + csv, "a");
  Background b("sweep " + slow_deck() + " --policy host --band-block 9:16:+1 --repeat 1 --resume " + csv, "b");
  EXPECT_EQ(a.wait(), 0) << slurp(a.out) << slurp(a.err);
  EXPECT_EQ(b.wait(), 0) << slurp(b.out) << slurp(b.err);
  const auto all = sweep::read_sweep_csv(csv);
  std::set<int> blocks;
  for (const auto& row : all.rows) blocks.insert(row.tunables.band_block);
  EXPECT_EQ(all.rows.size(), 16u);
  EXPECT_EQ(blocks.size(), 16u);
  // The same grid twice at once: each point measured once or twice, never lost.
  const std::string twice = temp("twice.csv");
  std::remove(twice.c_str());
  Background c("sweep " + slow_deck() + " --policy host --band-block 1:6:+1 --repeat 1 --resume " + twice, "c");
  Background d("sweep " + slow_deck() + " --policy host --band-block 1:6:+1 --repeat 1 --resume " + twice, "d");
  EXPECT_EQ(c.wait(), 0);
  EXPECT_EQ(d.wait(), 0);
  const auto both = sweep::read_sweep_csv(twice);
  std::set<int> seen;
  for (const auto& row : both.rows) seen.insert(row.tunables.band_block);
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_LE(both.rows.size(), 12u);
  std::remove(csv.c_str());
  std::remove(twice.c_str());
}

TEST(CampaignCli, BenchAndRooflineStopAndResume) {
  for (const std::string command : {"bench", "roofline"}) {
    SCOPED_TRACE(command);
    const std::string csv = temp(command + ".csv");
    std::remove(csv.c_str());
    const std::string policies =
        " --policy host,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside --repeat 2";
    Background g(command + " " + slow_deck() + policies + " --csv " + csv, command);
    ASSERT_TRUE(wait_for_rows(csv, 1));
    ::kill(g.pid, SIGTERM);
    EXPECT_EQ(g.wait(), 143) << slurp(g.out) << slurp(g.err);
    const std::size_t kept = data_rows(csv);
    const std::string resume = line_with(slurp(g.err), "resume with: ");
    ASSERT_FALSE(resume.empty()) << slurp(g.err);
    const Outcome r = gpp::test::gpp_exe(resume.substr(4));
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(data_rows(csv), 6u) << r.out;
    EXPECT_GE(kept, 1u);
    std::remove(csv.c_str());
  }
}

TEST(CampaignCli, CeilingsStopsOnSigint) {
  Background g("ceilings --space host", "ceilings");
  for (int i = 0; i < 6000 && slurp(g.out).find("[2/") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(g.pid, SIGINT);
  EXPECT_EQ(g.wait(), 130);
  EXPECT_NE(slurp(g.err).find("gpp ceilings: stopped by SIGINT"), std::string::npos) << slurp(g.err);
}

TEST(CampaignCli, AGridThatCannotRunIsRefusedBeforeWork) {
  // Kokkos Serial runs teams of one thread: no point of this grid can run there. Built
  // with a multi-threaded host, the grid runs and this test has nothing to check.
  const std::string tuning = temp("none.json");
  const Outcome o = gpp::test::gpp_exe("sweep " + std::string(GPP_SOURCE_DIR) +
                                       "/inputs/small.toml --space host --policy tuned --team-size 100000 "
                                       "--tuning-out " +
                                       tuning);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_EQ(gpp::test::count_lines(o.out), 1) << o.out;
  EXPECT_NE(o.out.find("no point of the grid can run here"), std::string::npos) << o.out;
  EXPECT_FALSE(exists(tuning));
}

}  // namespace
