// files/: one-line messages, the text check, and the output checks every command runs
// before any work (never an input by identity, never two outputs in one file).
#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_inputs.hpp"
#include "gpp_outputs.hpp"
#include "gpp_test_util.hpp"
#include "gpp_text.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include <fstream>
#include <limits>
#include <string>

namespace {

// Need neither Kokkos nor the device (the test main runs them where the device is missing).
GPP_HOST_ONLY("Outputs.*");
GPP_HOST_ONLY("Text.*");

using gpp::Error;
using gpp::files::is_text;
using gpp::files::one_line;

std::string temp_dir() {
  std::string t = gpp::test::scratch_dir() + "gpp_files_XXXXXX";
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
  EXPECT_EQ(one_line("\xed\xa0\x80"), "\\xed\\xa0\\x80");         // a surrogate is not UTF-8
  EXPECT_EQ(one_line("\xe2\x82"), "\\xe2\\x82");                  // truncated sequence
}

TEST(Text, IsTextAcceptsTomlRefusesBinary) {
  EXPECT_TRUE(is_text("nbands = 48\r\n# \xc3\xa9\tok\n"));
  EXPECT_FALSE(is_text(std::string("nbands = 4\0", 11)));
  EXPECT_FALSE(is_text("\x89HDF\r\n\x1a\n"));
  EXPECT_FALSE(is_text("\xc0\xaf"));  // overlong encoding
}

// The name meant by a misspelt one: letters missing, extra, changed or swapped, case
// ignored; ties named together; nothing when nothing is near.
TEST(Text, NearestNameIsWhatWasMeant) {
  const std::vector<std::string> decks{"small", "medium", "si214", "si510", "miniapp-benchmark"};
  EXPECT_EQ(gpp::files::nearest("smal", decks), "small");
  EXPECT_EQ(gpp::files::nearest("smalll", decks), "small");
  EXPECT_EQ(gpp::files::nearest("Small", decks), "small");
  EXPECT_EQ(gpp::files::nearest("si241", decks), "si214");  // two letters swapped: one edit
  EXPECT_EQ(gpp::files::nearest("si21", decks), "si214");
  EXPECT_EQ(gpp::files::nearest("si5", decks), "");  // two edits in three letters
  EXPECT_EQ(gpp::files::nearest("large", decks), "");
  EXPECT_EQ(gpp::files::nearest("", decks), "");
  EXPECT_EQ(gpp::files::nearest("nband", {"nbands", "nvband", "ngpown"}), "nbands or nvband");
  EXPECT_EQ(gpp::files::nearest("--band-blok", {"--band-block", "--ig-block", "--repeat"}), "--band-block");
  EXPECT_EQ(gpp::files::nearest("x", {"a", "b", "c", "d"}), "");  // four as near: no guess
}

TEST(Text, PercentagesWithoutExponents) {
  EXPECT_EQ(gpp::files::percent_text(2.2), "220%");
  EXPECT_EQ(gpp::files::percent_text(5.514), "551%");
  EXPECT_EQ(gpp::files::percent_text(0.094), "9.4%");
  EXPECT_EQ(gpp::files::percent_text(0.55), "55%");
  EXPECT_EQ(gpp::files::percent_text(0.00012), "0.012%");
  EXPECT_EQ(gpp::files::percent_text(1e-9), "<0.0001%");
  EXPECT_EQ(gpp::files::percent_text(0), "0%");
  EXPECT_EQ(gpp::files::percent_text(0.9782, 4), "97.82%");
  EXPECT_EQ(gpp::files::percent_text(0.0001979, 4), "0.01979%");
  EXPECT_EQ(gpp::files::percent_text(123.456, 4), "12346%");
  EXPECT_EQ(gpp::files::percent_text(-0.5), "-50%");
}

TEST(Text, NumbersInMessagesKeepTheirDigits) {
  EXPECT_EQ(gpp::files::number_text(1e-10), "1e-10");  // std::to_string: "0.000000"
  EXPECT_EQ(gpp::files::number_text(2.15e-15), "2.15e-15");
  EXPECT_EQ(gpp::files::number_text(0.0123), "0.0123");
  EXPECT_EQ(gpp::files::number_text(1234.5), "1.23e+03");
  EXPECT_EQ(gpp::files::number_text(1234.5, 6), "1234.5");
  EXPECT_EQ(gpp::files::number_text(-0.5), "-0.5");
  EXPECT_EQ(gpp::files::number_text(std::numeric_limits<double>::infinity()), "inf");
}

TEST(Outputs, AnInputByAnyNameIsRefused) {
  const std::string d = temp_dir();
  const std::string in = d + "/deck.toml";
  std::ofstream(in) << "nbands = 2\n";
  ASSERT_EQ(::symlink(in.c_str(), (d + "/alias.toml").c_str()), 0);
  ASSERT_EQ(::link(in.c_str(), (d + "/hard.toml").c_str()), 0);
  for (const std::string& out : {in, d + "/./deck.toml", d + "/alias.toml", d + "/hard.toml"}) {
    const std::string why = refusal([&] { gpp::files::check_files({{"deck", in}}, {{"--json", out}}); });
    EXPECT_NE(why.find("is the input " + in), std::string::npos) << out << ": " << why;
  }
  EXPECT_EQ(slurp(in), "nbands = 2\n");
  EXPECT_EQ(refusal([&] { gpp::files::check_files({{"deck", in}}, {{"--json", d + "/other.json"}}); }), "");
}

TEST(Outputs, TwoOutputsInOneFileAreRefused) {
  const std::string d = temp_dir();
  const std::string why = refusal([&] {
    gpp::files::check_files(
        {}, {{"--json", d + "/r.json"}, {"--csv", d + "/../" + d.substr(d.rfind('/') + 1) + "/r.json"}});
  });
  EXPECT_NE(why.find("also named by --json"), std::string::npos) << why;
  EXPECT_EQ(refusal([&] { gpp::files::check_files({}, {{"--json", d + "/r.json"}, {"--csv", d + "/r.csv"}}); }), "");
}

TEST(Outputs, DirectoriesAndMissingDirectoriesAreRefused) {
  const std::string d = temp_dir();
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({}, {{"--json", d}});
            }).find("it is a directory"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({}, {{"--json", d + "/"}});
            }).find("names a directory"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({}, {{"--json", d + "/no/such/r.json"}});
            }).find("No such file"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({}, {{"--json", d + "/" + std::string(300, 'x')}});
            }).find("too long"),
            std::string::npos);
}

TEST(Outputs, WrittenWholeOrNotAtAll) {
  const std::string d = temp_dir();
  const std::string path = d + "/out.json";
  std::ofstream(path) << "old";
  gpp::files::write_file_atomically(path, "{\"new\": 1}\n");
  EXPECT_EQ(slurp(path), "{\"new\": 1}\n");
  std::string temp;
  {
    gpp::files::AtomicOutput out(d + "/half.json");
    temp = out.temp_path();
    std::ofstream(temp) << "half";
    ASSERT_EQ(::access(temp.c_str(), F_OK), 0);
    // no commit: the temporary goes, nothing appears under the final name
  }
  EXPECT_NE(::access((d + "/half.json").c_str(), F_OK), 0);
  EXPECT_NE(::access(temp.c_str(), F_OK), 0);
}

// Every input is a regular file of bounded size, checked on the open
// descriptor; a FIFO, /dev/zero, a directory or a symlink to one is one line, at once.
TEST(Inputs, SpecialFilesAreRefusedWithoutBlocking) {
  const std::string d = temp_dir();
  const std::string fifo = d + "/fifo", dir = d + "/dir", good = d + "/good.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(fifo.c_str(), (d + "/to-fifo").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", (d + "/to-zero").c_str()), 0);
  std::ofstream(good) << "{}";
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& refused : std::vector<std::pair<std::string, std::string>>{{fifo, "FIFO"},
                                                                              {d + "/to-fifo", "FIFO"},
                                                                              {"/dev/zero", "device"},
                                                                              {d + "/to-zero", "device"},
                                                                              {dir, "directory"},
                                                                              {d + "/missing", "No such file"}}) {
    // Named references, not a structured binding: C++17 lambdas cannot capture one (nvcc
    // 11.8 and clang before 16 refuse; gcc allows it as an extension).
    const std::string& path = refused.first;
    const std::string& why = refused.second;
    const std::string m = refusal([&] { gpp::files::read_input_file("--tuning", path, 1 << 20); });
    EXPECT_NE(m.find("--tuning " + path + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(why), std::string::npos) << m;
    EXPECT_NE(refusal([&] { gpp::files::check_files({{"--resume", path}}, {}); }), "") << path;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), gpp::test::time_limit(5.0));
  EXPECT_EQ(gpp::files::read_input_file("--tuning", good, 1 << 20), "{}");
  EXPECT_NE(refusal([&] { gpp::files::read_input_file("--tuning", good, 1); }).find("more than"), std::string::npos);
  // A tuning file to merge into may not exist yet; any other input must.
  EXPECT_EQ(refusal([&] {
              gpp::files::check_files({{"--tuning-out", d + "/new.json", "--tuning-out", true}}, {});
            }),
            "");
}

TEST(Outputs, AnInputRewrittenOnPurposeIsAllowedOnlyByItsOwnOption) {
  const std::string d = temp_dir();
  const std::string csv = d + "/s.csv";
  std::ofstream(csv) << "old";
  EXPECT_EQ(refusal([&] { gpp::files::check_files({{"--resume", csv, "--csv"}}, {{"--csv", csv}}); }), "");
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({{"--resume", csv, "--csv"}}, {{"--json", csv}});
            }).find("is the input"),
            std::string::npos);
}

TEST(Outputs, HardLinkedOutputsAreOneFile) {
  const std::string d = temp_dir();
  std::ofstream(d + "/a.json") << "a";
  ASSERT_EQ(::link((d + "/a.json").c_str(), (d + "/b.json").c_str()), 0);
  EXPECT_NE(refusal([&] {
              gpp::files::check_files({}, {{"--json", d + "/a.json"}, {"--csv", d + "/b.json"}});
            }).find("two outputs, one file"),
            std::string::npos);
}

TEST(Outputs, WrittenThroughASymlinkKeepingTheMode) {
  const std::string d = temp_dir();
  const std::string target = d + "/target.json", link = d + "/link.json";
  std::ofstream(target) << "old";
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  ASSERT_EQ(::symlink("target.json", link.c_str()), 0);  // relative, from its own directory
  gpp::files::write_file_atomically(link, "new");
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));  // the link stays a link
  EXPECT_EQ(slurp(target), "new");
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(gpp::files::output_target(link), d + "/target.json");
}

TEST(Text, LongValuesAreQuotedShort) {
  const std::string huge(1 << 20, 'x');
  const std::string m = one_line("--policy '" + huge + "': unknown policy");
  EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
  EXPECT_NE(m.find("[1048579 bytes]"), std::string::npos) << m;
  EXPECT_NE(m.find("unknown policy"), std::string::npos);
  EXPECT_EQ(gpp::files::excerpt("short"), "short");
  EXPECT_EQ(gpp::files::excerpt(huge, 10), "xxxxxxxxxx... [1048576 bytes]");
  EXPECT_EQ(one_line("a normal message naming /a/path"), "a normal message naming /a/path");
  // Cut at a character boundary: no half of a UTF-8 sequence is escaped.
  EXPECT_EQ(one_line(std::string(300, 'e') + "\xc3\xa9").find("\\x"), std::string::npos);
}

}  // namespace
