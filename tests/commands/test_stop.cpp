// Ctrl-C (SIGINT) and SIGTERM in each phase of each long command (files/gpp_stop.hpp):
// gpp ends within a second, exits 128 + the signal, its last line on stderr says what it
// was doing and what is kept, and it leaves nothing a finished command would have written
// (no output, no temporary or lock file); a campaign's finished points stay in its CSV.
// Each case waits until its phase has begun (gpp says so on stderr under
// GPP_TEST_PHASES=1) and signals it there. The decks are sized so that the phase lasts
// far longer than the test takes to react (medium: a reference pass of seconds and timed
// runs of a second on one core, a third of that with --ngpown 100; the setup of a few
// hundred MB; the reading of about 200 MB), and every case runs on the host on one thread,
// so a GPU build's or a many-core machine's phases last as long.
#include "gpp_io_test_util.hpp"
#include "gpp_stop.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using gpp::test::slurp;

struct Case {
  const char* name;
  std::string args;  // after "gpp"
  int sig;
  std::string phase;                    // the phase to signal, as GPP_TEST_PHASES says it (a part of that line)
  std::string kept;                     // a part of the stop line that says what is kept ("" to skip)
  std::set<std::string> may_stay = {};  // files the stop keeps in the folder (a campaign's CSV)
};

// A folder of its own, removed with what is in it.
struct Folder {
  std::string path;
  Folder() {
    std::string t = gpp::test::scratch_dir() + "gpp_stop_XXXXXX";
    path = ::mkdtemp(t.data()) ? t : "";
  }
  ~Folder() {
    std::error_code ignored;  // (a test's leftover folder is not its failure)
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  std::set<std::string> files() const {
    std::set<std::string> names;
    if (DIR* d = ::opendir(path.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.insert(e->d_name);
      ::closedir(d);
    }
    return names;
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

void stop_in_phase(const Case& c, const std::string& prepare = "") {
  SCOPED_TRACE(c.name);
  Folder dir;
  ASSERT_FALSE(dir.path.empty());
  if (!prepare.empty()) {
    const std::string make =
        "cd '" + dir.path + "' && OMP_PROC_BIND=false " + std::string(GPP_EXE) + " " + prepare + " >/dev/null";
    ASSERT_EQ(std::system(make.c_str()), 0) << prepare;
  }
  const std::set<std::string> before = dir.files();
  const std::string out = gpp::test::scratch_dir() + "gpp_stop_" + std::string(c.name) + ".out";
  const std::string err = gpp::test::scratch_dir() + "gpp_stop_" + std::string(c.name) + ".err";
  // One host thread: the phases last as long on a machine of many cores.
  const std::string cmd = "cd '" + dir.path +
                          "' && GPP_TEST_PHASES=1 OMP_PROC_BIND=false OMP_NUM_THREADS=1 KOKKOS_NUM_THREADS=1 exec " +
                          std::string(GPP_EXE) + " " + c.args + " >'" + out + "' 2>'" + err + "'";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), (char*)nullptr);
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  bool reached = false;
  for (int i = 0; i < 60000 && !reached; ++i) {  // at most 5 min (a loaded machine)
    for (const std::string& l : lines_of(slurp(err)))
      reached = reached || (l.rfind("gpp: phase: ", 0) == 0 && l.find(c.phase) != std::string::npos);
    int status;
    if (!reached && ::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "gpp ended before the phase '" << c.phase << "':\n" << slurp(out) << slurp(err);
      std::remove(out.c_str());
      std::remove(err.c_str());
      return;
    }
    if (!reached) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(reached) << slurp(err);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(pid, c.sig), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string text = slurp(err);
  const std::string printed = slurp(out);
  std::remove(out.c_str());
  std::remove(err.c_str());
  SCOPED_TRACE("stdout:\n" + printed + "stderr:\n" + text);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + c.sig);
  EXPECT_LT(took, gpp::test::time_limit(1.0)) << "seconds from the signal to the end";
  // One stop line, the last one, naming the phase that was running and what is kept.
  std::vector<std::string> stops;
  for (const std::string& l : lines_of(text))
    if (l.find("stopped by") != std::string::npos) stops.push_back(l);
  ASSERT_EQ(stops.size(), 1u);
  const std::vector<std::string> all = lines_of(text);
  EXPECT_EQ(all.back(), stops.front());
  const std::string cmd_name = c.args.substr(0, c.args.find(' '));
  const std::string sig_name = c.sig == SIGINT ? "SIGINT" : "SIGTERM";
  EXPECT_EQ(stops.front().rfind("gpp " + cmd_name + ": stopped by " + sig_name + " during ", 0), 0u);
  EXPECT_NE(stops.front().find(c.phase), std::string::npos);
  if (!c.kept.empty()) {
    EXPECT_NE(stops.front().find(c.kept), std::string::npos);
  }
  // Nothing else in the folder: no output, no temporary file, no lock file.
  std::set<std::string> left;
  for (const std::string& f : dir.files())
    if (!before.count(f) && !c.may_stay.count(f)) left.insert(f);
  EXPECT_TRUE(left.empty()) << "left behind: " << *left.begin();
}

}  // namespace

TEST(Stop, RunInItsSetup) {
  stop_in_phase({"run", "run medium --ngpown 2000 --space host --json r.json", SIGINT, "the setup (the deck generated",
                 "nothing written"});
}

TEST(Stop, RunReadingItsInput) {
  // About 220 MB of .dat: most of a second to read and check.
  stop_in_phase({"run", "run --input d.dat --space host --json r.json", SIGTERM, "reading d.dat", "nothing written"},
                "convert medium --ngpown 2000 --no-reference d.dat");
}

TEST(Stop, RunInTheReferencePass) {
  stop_in_phase({"run", "run medium --space host --verify host --json r.json --csv r.csv", SIGTERM,
                 "the verification reference pass on the host", "nothing written"});
}

TEST(Stop, RunInTheStaticRemainder) {
  stop_in_phase({"run", "run medium --space host --verify none --no-branch-stats --output r.h5", SIGINT,
                 "the static remainder on the host", "nothing written"});
}

TEST(Stop, RunInItsWarmUp) {
  stop_in_phase({"run", "run medium --space host --verify none --no-branch-stats --json r.json", SIGTERM,
                 "warm-up run 1 of 1 (host on the host)", "nothing written"});
}

TEST(Stop, RunInATimedRun) {
  stop_in_phase({"run", "run medium --space host --verify none --no-branch-stats --warmup 0 --repeat 3 --json r.json",
                 SIGINT, "timed run 1 of 3 (host on the host)", "nothing written"});
}

TEST(Stop, BenchInTheReferencePass) {
  stop_in_phase({"bench",
                 "bench medium --space host --verify host --policy host,v1-reciprocal --csv b.csv --json b.json",
                 SIGTERM,
                 "the verification reference pass on the host",
                 "finished points: 0 of 2 (0 measured now, 0 already done), each in b.csv; not written (written only "
                 "when the campaign ends): --json b.json; resume with: gpp bench medium",
                 {"b.csv"}});
}

TEST(Stop, SweepInATimedRunOfItsSecondPoint) {
  stop_in_phase(
      {"sweep",
       "sweep medium --ngpown 100 --space host --verify none --policy host --band-block 8,16 --repeat 3 --warmup 0 "
       "--csv s.csv --tuning-out t.json",
       SIGINT,
       "point 2 of 3 (host band_block=16",
       "the point in flight is dropped; finished points: 1 of 3 (1 measured now, 0 already done), each in "
       "s.csv; not written (written only when the campaign ends): --tuning-out t.json; resume with: gpp "
       "sweep medium",
       {"s.csv"}});
}

TEST(Stop, TuneInATimedRun) {
  stop_in_phase({"tune",
                 "tune medium --ngpown 100 --space host --verify none --policy host --repeat 3 --warmup 0 --csv t.csv "
                 "--tuning-out t.json",
                 SIGTERM,
                 "timed run 2 of 3",
                 "finished points: 0 of ",
                 {"t.csv"}});
}

TEST(Stop, RooflineInTheReferencePass) {
  stop_in_phase({"roofline",
                 "roofline medium --space host --verify host --policy host --csv r.csv --json r.json",
                 SIGINT,
                 "the verification reference pass on the host",
                 "not written (written only when the "
                 "campaign ends): --json r.json",
                 {"r.csv"}});
}

TEST(Stop, CeilingsInTheFmaPeak) {
  stop_in_phase({"ceilings", "ceilings --space host --json c.json", SIGTERM, "point 1 of ", "finished points: 0 of "});
}

namespace {

// A process that catches stop signals, has answered with exit status 3 (or not), and is
// then sent SIGTERM, as mpirun sends it to the other ranks when one rank exits non-zero:
// its exit status and what it printed on stderr.
std::pair<int, std::string> signalled_after(bool answered) {
  const std::string err = gpp::test::scratch_dir() + "gpp_stop_answered_" + (answered ? "yes" : "no") + ".err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(98);
    gpp::files::catch_stop_signals("run", true);
    if (answered) gpp::files::answer_given(3);
    ::kill(::getpid(), SIGTERM);
    ::sleep(30);  // the stopping thread ends the process long before
    ::_exit(99);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string text = slurp(err);
  std::remove(err.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), text};
}

}  // namespace

TEST(Stop, AfterTheAnswerKeepsItsStatusAndSaysNothing) {
  const auto [code, text] = signalled_after(true);
  EXPECT_EQ(code, 3);
  EXPECT_EQ(text, "");
  // Before the answer, the same signal is a stop: 143 and its line.
  const auto [stopped, line] = signalled_after(false);
  EXPECT_EQ(stopped, 128 + SIGTERM);
  EXPECT_EQ(line.rfind("gpp run: stopped by SIGTERM before any work", 0), 0u) << line;
}
