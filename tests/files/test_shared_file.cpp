// Files several processes update at once (files/gpp_shared_file.hpp): read-merge-write and
// appends under the lock lose nothing with two writers (forked processes; the merge is
// slowed down to widen the window a missing lock would lose an update in), a writer puts
// back its rows when the file was replaced, a row cut off mid-write is removed, a full
// file system leaves the file as it was, and no lock file is left behind.
#include "gpp_error.hpp"
#include "gpp_csv.hpp"
#include "gpp_shared_file.hpp"
#include "gpp_test_util.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

GPP_HOST_ONLY("SharedFile.*");

std::string temp(const std::string& name) {
  return gpp::test::scratch_dir() + "gpp_shared_" + std::to_string(::getpid()) + "_" + name;
}
using gpp::test::slurp;
bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}
std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> s;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) s.insert(l);
  return s;
}

// Runs f in `n` forked processes at once; true when every one exited 0.
template <class F>
bool in_processes(int n, F f) {
  std::vector<pid_t> kids;
  for (int k = 0; k < n; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int rc = 0;
      try {
        f(k);
      } catch (...) {
        rc = 3;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  bool ok = true;
  for (pid_t p : kids) {
    int status = 0;
    ::waitpid(p, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

TEST(SharedFile, TwoWritersMergeWithoutLosingAnUpdate) {
  const std::string path = temp("merge.txt");
  std::remove(path.c_str());
  ASSERT_TRUE(in_processes(2, [&](int k) {
    for (int i = 0; i < 40; ++i)
      gpp::files::update_shared_file("test", path, 1 << 20, [&](const std::string& old) {
        ::usleep(500);  // a merge that takes time: without the lock the other writer's update is lost
        return old + "writer " + std::to_string(k) + " update " + std::to_string(i) + "\n";
      });
  }));
  EXPECT_EQ(lines_of(slurp(path)).size(), 80u);
  EXPECT_FALSE(exists(path + ".lock"));
  std::remove(path.c_str());
}

TEST(SharedFile, TwoAppendersKeepEveryRowWhole) {
  const std::string path = temp("rows.csv");
  std::remove(path.c_str());
  gpp::formats::SharedRows("--csv", path, "a,b").start({}, true);
  ASSERT_TRUE(in_processes(2, [&](int k) {
    gpp::formats::SharedRows rows("--csv", path, "a,b");
    for (int i = 0; i < 40; ++i)
      rows.append(std::to_string(k) + "," + std::string(200, char('a' + i % 26)) + std::to_string(i));
  }));
  const std::string text = slurp(path);
  EXPECT_EQ(text.substr(0, 4), "a,b\n");
  const auto rows = gpp::formats::csv_data_records(text);
  EXPECT_EQ(rows.size(), 80u);
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()).size(), 80u);
  for (const auto& r : rows) {  // whole: "K," then 200 letters then the index
    EXPECT_TRUE(r.size() == 203 || r.size() == 204) << r;
    EXPECT_TRUE(r.compare(0, 2, "0,") == 0 || r.compare(0, 2, "1,") == 0) << r;
  }
  std::remove(path.c_str());
}

TEST(SharedFile, AWriterPutsBackItsRowsAndCutsAPartialRow) {
  const std::string path = temp("replaced.csv");
  gpp::formats::SharedRows rows("--csv", path, "h");
  rows.start({"old"}, true);
  rows.append("mine 1");
  // Another program replaced the file (same header), another writer died mid-row.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "h\ntheirs\nhalf a ro";
  rows.append("mine 2");
  EXPECT_EQ(slurp(path), "h\ntheirs\nold\nmine 1\nmine 2\n");
  // A file that is no longer this CSV: one line, the file left alone.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "other,header\n1,2\n";
  EXPECT_THROW(rows.append("mine 3"), gpp::Error);
  EXPECT_EQ(slurp(path), "other,header\n1,2\n");
  std::remove(path.c_str());
}

TEST(SharedFile, AFullFileSystemLeavesTheFileAsItWas) {
  const std::string path = temp("full.csv");
  gpp::formats::SharedRows("--csv", path, "h").start({"row 1"}, true);
  const std::string before = slurp(path);
  // Under a file-size limit of a few bytes more than the file: the append fails part way.
  ASSERT_TRUE(in_processes(1, [&](int) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = rlim_t(before.size() + 10);
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(4);
    gpp::formats::SharedRows rows("--csv", path, "h");
    try {
      rows.append(std::string(4000, 'x'));
    } catch (const gpp::Error& e) {
      if (std::string(e.what()).find("cannot write " + path) == std::string::npos) ::_exit(5);
      ::_exit(0);
    }
    ::_exit(6);  // no error: wrong
  }));
  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(exists(path + ".lock"));
  std::remove(path.c_str());
}

TEST(SharedFile, ALockFileThatIsASymlinkIsRefused) {
  const std::string path = temp("planted.json");
  const std::string target = temp("elsewhere");
  ASSERT_EQ(::symlink(target.c_str(), (path + ".lock").c_str()), 0);
  EXPECT_THROW(gpp::files::check_lockable("--tuning-out", path), gpp::Error);
  EXPECT_FALSE(exists(target));
  std::remove((path + ".lock").c_str());
}

}  // namespace
