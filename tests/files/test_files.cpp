// files/: one-line messages, the text check, and the output checks every command runs
// before any work (never an input by identity, never two outputs in one file).
#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_outputs.hpp"
#include "gpp_test_util.hpp"
#include "gpp_text.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>

namespace {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Outputs.*");
GPP_HOST_ONLY("Text.*");


using gpp::Error;
using gpp::app::is_text;
using gpp::app::one_line;

std::string temp_dir() {
  std::string t = ::testing::TempDir() + "gpp_files_XXXXXX";
  if (!::mkdtemp(t.data())) ADD_FAILURE() << "mkdtemp";
  return t;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The message of the gpp::Error `f` throws, "" when it throws none.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Text, OneLineEscapesControlsAndBrokenUtf8) {
  EXPECT_EQ(one_line("plain"), "plain");
  EXPECT_EQ(one_line("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(one_line(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(one_line("\x89PNG"), "\\x89PNG");
  EXPECT_EQ(one_line("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(one_line("\xed\xa0\x80"), "\\xed\\xa0\\x80");          // a surrogate is not UTF-8
  EXPECT_EQ(one_line("\xe2\x82"), "\\xe2\\x82");                   // truncated sequence
}

TEST(Text, IsTextAcceptsTomlRefusesBinary) {
  EXPECT_TRUE(is_text("nbands = 48\r\n# \xc3\xa9\tok\n"));
  EXPECT_FALSE(is_text(std::string("nbands = 4\0", 11)));
  EXPECT_FALSE(is_text("\x89HDF\r\n\x1a\n"));
  EXPECT_FALSE(is_text("\xc0\xaf"));  // overlong encoding
}

TEST(Outputs, AnInputByAnyNameIsRefused) {
  const std::string d = temp_dir();
  const std::string in = d + "/deck.toml";
  std::ofstream(in) << "nbands = 2\n";
  ASSERT_EQ(::symlink(in.c_str(), (d + "/alias.toml").c_str()), 0);
  ASSERT_EQ(::link(in.c_str(), (d + "/hard.toml").c_str()), 0);
  for (const std::string& out : {in, d + "/./deck.toml", d + "/alias.toml", d + "/hard.toml"}) {
    const std::string why = refusal([&] { gpp::check_outputs({{"--json", out}}, {in}); });
    EXPECT_NE(why.find("is the input " + in), std::string::npos) << out << ": " << why;
  }
  EXPECT_EQ(slurp(in), "nbands = 2\n");
  EXPECT_EQ(refusal([&] { gpp::check_outputs({{"--json", d + "/other.json"}}, {in}); }), "");
}

TEST(Outputs, TwoOutputsInOneFileAreRefused) {
  const std::string d = temp_dir();
  const std::string why =
      refusal([&] { gpp::check_outputs({{"--json", d + "/r.json"}, {"--csv", d + "/../" + d.substr(d.rfind('/') + 1) + "/r.json"}}, {}); });
  EXPECT_NE(why.find("also named by --json"), std::string::npos) << why;
  EXPECT_EQ(refusal([&] { gpp::check_outputs({{"--json", d + "/r.json"}, {"--csv", d + "/r.csv"}}, {}); }), "");
}

TEST(Outputs, DirectoriesAndMissingDirectoriesAreRefused) {
  const std::string d = temp_dir();
  EXPECT_NE(refusal([&] { gpp::check_outputs({{"--json", d}}, {}); }).find("it is a directory"), std::string::npos);
  EXPECT_NE(refusal([&] { gpp::check_outputs({{"--json", d + "/"}}, {}); }).find("names a directory"), std::string::npos);
  EXPECT_NE(refusal([&] { gpp::check_outputs({{"--json", d + "/no/such/r.json"}}, {}); }).find("No such file"),
            std::string::npos);
  EXPECT_NE(refusal([&] { gpp::check_outputs({{"--json", d + "/" + std::string(300, 'x')}}, {}); }).find("too long"),
            std::string::npos);
}

TEST(Outputs, WrittenWholeOrNotAtAll) {
  const std::string d = temp_dir();
  const std::string path = d + "/out.json";
  std::ofstream(path) << "old";
  gpp::write_file_atomically(path, "{\"new\": 1}\n");
  EXPECT_EQ(slurp(path), "{\"new\": 1}\n");
  std::string temp;
  {
    gpp::AtomicOutput out(d + "/half.json");
    temp = out.temp_path();
    std::ofstream(temp) << "half";
    ASSERT_EQ(::access(temp.c_str(), F_OK), 0);
    // no commit: the temporary goes, nothing appears under the final name
  }
  EXPECT_NE(::access((d + "/half.json").c_str(), F_OK), 0);
  EXPECT_NE(::access(temp.c_str(), F_OK), 0);
}

}  // namespace
