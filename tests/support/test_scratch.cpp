// The scratch directories every test writes into (gpp_test_util.hpp): removed with all
// they hold, by the process that made them only, so that the suite leaves nothing in /tmp.
#include "gpp_test_util.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace {

using gpp::test::scratch_dir;
using gpp::test::ScratchDir;

GPP_HOST_ONLY("Scratch.*");

bool is_directory(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

TEST(Scratch, ProcessDirectoryIsTmpdirsAndExists) {
  const char* t = std::getenv("TMPDIR");
  const std::string base = std::string(t && *t ? t : "/tmp");
  const std::string& dir = scratch_dir();
  EXPECT_EQ(dir.rfind(base + (base.back() == '/' ? "" : "/") + "gpp_tests.", 0), 0u) << dir;
  EXPECT_EQ(dir.back(), '/');
  EXPECT_TRUE(is_directory(dir));
  EXPECT_TRUE(is_directory(gpp::test::memory_scratch_dir()));
}

TEST(Scratch, RemovedWithEverythingInIt) {
  std::string path;
  {
    const ScratchDir d(scratch_dir());
    path = d.path();
    ASSERT_TRUE(is_directory(path));
    ASSERT_EQ(::mkdir((path + "sub").c_str(), 0700), 0);
    std::ofstream(path + "sub/f.txt") << "x";
    std::ofstream(path + "g.txt") << "y";
    ASSERT_TRUE(std::ifstream(path + "sub/f.txt").good());
  }
  EXPECT_FALSE(is_directory(path)) << path;
}

TEST(Scratch, AChildThatEndsLeavesItToItsParent) {
  std::optional<ScratchDir> d(scratch_dir());
  const std::string path = d->path();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    d.reset();  // the child's copy of the object ends: the directory is its parent's
    ::_exit(is_directory(path) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child removed its parent's directory";
  EXPECT_TRUE(is_directory(path));
  d.reset();
  EXPECT_FALSE(is_directory(path));
}

}  // namespace
