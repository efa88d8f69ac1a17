// The reference cache (session/gpp_reference_store.hpp): a stored file reads back bit for
// bit; a truncated, bit-flipped, foreign or out-of-date one, or something else in its
// place, is never trusted; the deck's digest sees every array the kernel reads; and,
// through the gpp binary, a second run of a deck verifies against the stored reference,
// every damaged or unusable store is computed again with one note line and never fails
// the run, --verify host and --no-reference-cache do what they say, chunked runs share
// the store, and processes computing the same reference at once leave one whole file.
#include "gpp_io_test_util.hpp"
#include "gpp_json.hpp"
#include "gpp_reference_store.hpp"
#include "gpp_session.hpp"
#include "gpp_test_util.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

namespace gpp::test {
namespace {
using session::ReferenceKey;
using session::StoredReference;

GPP_HOST_ONLY("ReferenceStore.File*");
GPP_HOST_ONLY("ReferenceStore.Every*");
GPP_HOST_ONLY("ReferenceStore.Foreign*");
GPP_HOST_ONLY("ReferenceStore.Special*");
GPP_HOST_ONLY("ReferenceStore.CacheFolder*");
GPP_HOST_ONLY("ReferenceStore.Write*");

// A folder of the test's own, removed at its end.
struct Folder {
  std::string path;
  Folder() {
    std::string t = gpp::test::memory_scratch_dir() + "gpp_refcache_XXXXXX";
    if (::mkdtemp(&t[0])) path = t;
  }
  ~Folder() {
    std::error_code ec;
    // A folder a test made unreadable is made readable again first.
    for (auto it = std::filesystem::recursive_directory_iterator(
             path, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory(ec)) ::chmod(it->path().c_str(), 0700);
    ::chmod(path.c_str(), 0700);
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A key and a reference with non-uniform values (signs, exponents, every digit used),
// arm counts adding up to the deck's terms.
ReferenceKey sample_key(int nw = 3) {
  ReferenceKey k;
  k.content = "0123456789abcdef";
  k.sizes = {24, 20, 150, nw};
  k.nstart = 2;
  k.nend = 1 + nw;
  k.space = SpaceKind::Host;
  return k;
}
StoredReference sample_reference(const ReferenceKey& k, unsigned seed = 5) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> expo(-30, 30);
  auto value = [&] { return std::ldexp(mant(rng), expo(rng)); };
  StoredReference r;
  for (int w = 0; w < k.sizes.nw; ++w) {
    r.pass.sums.sch_sum.emplace_back(value(), value());
    r.pass.sums.ssx_sum.emplace_back(value(), value());
  }
  r.pass.achstemp = {value(), value()};
  std::int64_t left = std::int64_t(k.sizes.updates());
  for (int i = 0; i < 23; ++i) {
    r.pass.arms.n[i] = left / 7 + i;
    left -= r.pass.arms.n[i];
  }
  r.pass.arms.n[23] = left;
  r.date = "2026-11-29T08:15:42Z";
  r.space = k.space;
  r.backend = "Serial";
  r.device = "Some CPU \"model\" \xc3\xa9";
  r.host = "node01";
  r.gpp = "1.0.0 (git abc)";
  r.seconds = 5.8125;
  r.ranks = 3;
  r.deck_name = "test";
  return r;
}

bool same(const StoredReference& a, const StoredReference& b) {
  auto bits_equal = [](std::complex<double> x, std::complex<double> y) {
    return same_bits(x.real(), y.real()) && same_bits(x.imag(), y.imag());
  };
  if (a.pass.sums.sch_sum.size() != b.pass.sums.sch_sum.size()) return false;
  for (std::size_t w = 0; w < a.pass.sums.sch_sum.size(); ++w)
    if (!bits_equal(a.pass.sums.sch_sum[w], b.pass.sums.sch_sum[w]) ||
        !bits_equal(a.pass.sums.ssx_sum[w], b.pass.sums.ssx_sum[w]))
      return false;
  for (int i = 0; i < 24; ++i)
    if (a.pass.arms.n[i] != b.pass.arms.n[i]) return false;
  return bits_equal(a.pass.achstemp, b.pass.achstemp) && a.date == b.date && a.space == b.space &&
         a.backend == b.backend && a.device == b.device && a.host == b.host && a.gpp == b.gpp &&
         same_bits(a.seconds, b.seconds) && a.ranks == b.ranks && a.deck_name == b.deck_name;
}

TEST(ReferenceStore, FileReadsBackBitForBit) {
  Folder f;
  const ReferenceKey k = sample_key();
  const StoredReference r = sample_reference(k);
  ASSERT_EQ(session::write_stored_reference(f / "a/b", k, r), "");
  EXPECT_EQ(names_in(f / "a/b"), std::vector<std::string>{k.file_name()});  // no temporary left
  struct stat st;
  ASSERT_EQ(::stat((f / "a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);  // the XDG specification's mode for folders it makes
  std::string note;
  const auto got = session::read_stored_reference(f / "a/b/" + k.file_name(), k, note);
  ASSERT_TRUE(got) << note;
  EXPECT_EQ(note, "");
  EXPECT_TRUE(same(*got, r));
  // No file: nothing to say.
  EXPECT_FALSE(session::read_stored_reference(f / "a/b/none.json", k, note));
  EXPECT_EQ(note, "");
  // The name follows the content and the space, not the deck's name.
  ReferenceKey other = k;
  other.space = SpaceKind::Device;
  EXPECT_NE(other.file_name(), k.file_name());
  other = k;
  other.content = "0123456789abcdee";
  EXPECT_NE(other.file_name(), k.file_name());
  EXPECT_EQ(k.file_name().rfind("reference-24x20x150x3-", 0), 0u) << k.file_name();
}

// Every prefix of a file is refused, and every single-bit flip is refused or changes
// nothing (a flip the JSON reader cannot see, such as none: the file has no blanks).
TEST(ReferenceStore, EveryTruncationAndBitFlipIsRefused) {
  Folder f;
  const ReferenceKey k = sample_key(2);
  const StoredReference r = sample_reference(k);
  const std::string text = session::stored_reference_text(k, r);
  const std::string path = f / "r.json";
  std::string note;
  // Every prefix but the whole object without its final newline, which is whole.
  ASSERT_EQ(text.back(), '\n');
  for (std::size_t n = 0; n + 1 < text.size(); ++n) {
    write_bytes(path, Bytes(text.begin(), text.end()), n);
    EXPECT_FALSE(session::read_stored_reference(path, k, note)) << "prefix of " << n << " bytes";
    EXPECT_NE(note.find("is damaged"), std::string::npos) << n << ": " << note;
  }
  write_bytes(path, Bytes(text.begin(), text.end()), text.size() - 1);
  const auto whole = session::read_stored_reference(path, k, note);
  ASSERT_TRUE(whole) << note;
  EXPECT_TRUE(same(*whole, r));
  int refused = 0, harmless = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string t = text;
      t[i] = char(t[i] ^ (1 << bit));
      write_bytes(path, Bytes(t.begin(), t.end()));
      const auto got = session::read_stored_reference(path, k, note);
      if (!got) {
        ++refused;
        EXPECT_FALSE(note.empty());
      } else {
        ++harmless;
        EXPECT_TRUE(same(*got, r)) << "byte " << i << " bit " << bit << " accepted with other values";
      }
    }
  }
  EXPECT_EQ(refused + harmless, int(8 * text.size()));
  EXPECT_LT(harmless, int(text.size()) / 10) << "almost every flip must be refused";
}

// A whole file of another deck, size, space, format or reference code, or not a stored
// reference at all, is refused with the reason.
TEST(ReferenceStore, ForeignAndOutOfDateFilesAreRefused) {
  Folder f;
  const ReferenceKey k = sample_key();
  const StoredReference r = sample_reference(k);
  const std::string path = f / "r.json";
  std::string note;
  auto refused_with = [&](const ReferenceKey& written, const std::string& why) {
    write_bytes(path, [&] {
      const std::string t = session::stored_reference_text(written, r);
      return Bytes(t.begin(), t.end());
    }());
    EXPECT_FALSE(session::read_stored_reference(path, k, note)) << why;
    EXPECT_NE(note.find(why), std::string::npos) << note;
  };
  ReferenceKey other = k;
  other.content = "fedcba9876543210";
  refused_with(other, "is another deck's");
  other = k;
  other.sizes.ncouls += 1;
  refused_with(other, "is another deck's");
  other = k;
  other.nstart = 1;
  refused_with(other, "is another deck's");
  other = k;
  other.code = "0+0000000000000000+ieee";
  refused_with(other, "another version of the reference code");
  other = k;
  other.space = SpaceKind::Device;
  StoredReference on_device = r;
  on_device.space = SpaceKind::Device;
  {
    const std::string t = session::stored_reference_text(other, on_device);
    write_bytes(path, Bytes(t.begin(), t.end()));
    EXPECT_FALSE(session::read_stored_reference(path, k, note));
    EXPECT_NE(note.find("computed on the device"), std::string::npos) << note;
  }
  // Another format: the number changed, and the checksum is not even looked at.
  std::string t = session::stored_reference_text(k, r);
  const std::string format = "\"format\":" + std::to_string(session::kReferenceFileFormat);
  ASSERT_NE(t.find(format), std::string::npos);
  t.replace(t.find(format), format.size(), "\"format\":" + std::to_string(session::kReferenceFileFormat + 1));
  write_bytes(path, Bytes(t.begin(), t.end()));
  EXPECT_FALSE(session::read_stored_reference(path, k, note));
  EXPECT_NE(note.find("of another format"), std::string::npos) << note;
  // Other JSON, and not JSON.
  for (const std::string& other_text :
       {std::string("{}"), std::string("[1,2]"), std::string("{\"kind\":\"gpp-record\"}"), std::string("\x89HDF\r\n"),
        std::string(4096, '\0')}) {
    write_bytes(path, Bytes(other_text.begin(), other_text.end()));
    EXPECT_FALSE(session::read_stored_reference(path, k, note));
    EXPECT_NE(note.find("is damaged"), std::string::npos) << note;
  }
  // Arm counts that do not add up to the deck's terms, under a checksum that matches.
  StoredReference bad = r;
  bad.pass.arms.n[0] += 1;
  t = session::stored_reference_text(k, bad);
  write_bytes(path, Bytes(t.begin(), t.end()));
  EXPECT_FALSE(session::read_stored_reference(path, k, note));
  EXPECT_NE(note.find("do not add up"), std::string::npos) << note;
}

// What can stand in a file's place: none is waited on or read whole.
TEST(ReferenceStore, SpecialFilesAreRefusedAtOnce) {
  Folder f;
  const ReferenceKey k = sample_key();
  std::string note;
  ASSERT_EQ(::mkdir((f / "dir").c_str(), 0700), 0);
  EXPECT_FALSE(session::read_stored_reference(f / "dir", k, note));
  EXPECT_NE(note.find("is a folder"), std::string::npos) << note;
  ASSERT_EQ(::mkfifo((f / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(session::read_stored_reference(f / "fifo", k, note));  // would block without O_NONBLOCK
  EXPECT_NE(note.find("not a regular file"), std::string::npos) << note;
  ASSERT_EQ(::symlink("/dev/zero", (f / "zero").c_str()), 0);
  EXPECT_FALSE(session::read_stored_reference(f / "zero", k, note));
  EXPECT_NE(note.find("not a regular file"), std::string::npos) << note;
  ASSERT_EQ(::symlink("loop", (f / "loop").c_str()), 0);
  EXPECT_FALSE(session::read_stored_reference(f / "loop", k, note));
  EXPECT_NE(note.find("cannot read"), std::string::npos) << note;
  const int fd = ::open((f / "huge").c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, session::kMaxReferenceFileBytes + 1), 0);  // sparse: no disk used
  ::close(fd);
  EXPECT_FALSE(session::read_stored_reference(f / "huge", k, note));
  EXPECT_NE(note.find("larger than any stored reference"), std::string::npos) << note;
  // No folder to hold a file: nothing stored, nothing to say (writing says why it cannot).
  write_bytes(f / "plain", Bytes{'x'});
  EXPECT_FALSE(session::read_stored_reference(f / "plain/r.json", k, note));
  EXPECT_EQ(note, "");
}

TEST(ReferenceStore, WriteFailuresAreReportedAndLeaveNothing) {
  Folder f;
  const ReferenceKey k = sample_key();
  const StoredReference r = sample_reference(k);
  write_bytes(f / "plain", Bytes{'x'});
  EXPECT_NE(session::write_stored_reference(f / "plain/gpp", k, r).find("Not a directory"), std::string::npos);
  ASSERT_EQ(::mkdir((f / "gpp").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((f / "gpp/" + k.file_name()).c_str(), 0700), 0);  // a folder in the file's place
  EXPECT_NE(session::write_stored_reference(f / "gpp", k, r), "");
  EXPECT_EQ(names_in(f / "gpp"), std::vector<std::string>{k.file_name()});  // its temporary removed
}

// Where the store is: the XDG base directory specification's rules.
TEST(ReferenceStore, CacheFolderFollowsTheXdgSpecification) {
  struct Saved {
    std::string name;
    std::optional<std::string> value;
  };
  std::vector<Saved> saved;
  for (const char* v : {"XDG_CACHE_HOME", "HOME"}) {
    const char* now = std::getenv(v);
    saved.push_back({v, now ? std::optional<std::string>(now) : std::nullopt});
  }
  auto set = [](const char* v, const char* value) {
    if (value)
      ::setenv(v, value, 1);
    else
      ::unsetenv(v);
  };
  std::string note;
  set("XDG_CACHE_HOME", "/x/cache");
  set("HOME", "/home/u");
  EXPECT_EQ(session::reference_store_dir(note), "/x/cache/gpp");
  EXPECT_EQ(note, "");
  set("XDG_CACHE_HOME", "");
  EXPECT_EQ(session::reference_store_dir(note), "/home/u/.cache/gpp");
  EXPECT_EQ(note, "");
  set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(session::reference_store_dir(note), "/home/u/.cache/gpp");
  set("XDG_CACHE_HOME", "rel/cache");
  EXPECT_EQ(session::reference_store_dir(note), "/home/u/.cache/gpp");
  EXPECT_NE(note.find("XDG_CACHE_HOME is not an absolute path ('rel/cache')"), std::string::npos) << note;
  set("HOME", "relative");
  EXPECT_EQ(session::reference_store_dir(note), "");
  EXPECT_NE(note.find("HOME is not an absolute path"), std::string::npos) << note;
  set("XDG_CACHE_HOME", nullptr);
  set("HOME", nullptr);
  EXPECT_EQ(session::reference_store_dir(note), "");
  EXPECT_NE(note.find("neither XDG_CACHE_HOME nor HOME is set"), std::string::npos) << note;
  for (const Saved& s : saved) set(s.name.c_str(), s.value ? s.value->c_str() : nullptr);
}

// The digest changes with any value the kernel reads, and only with those.
TEST(ReferenceStore, DeckDigestSeesEveryArrayTheKernelReads) {
  const DeckParams p = small_deck(24, 20, 150, 10);
  const auto digest = [&](const GppData<Kokkos::HostSpace>& d) {
    return session::deck_content_digest(d, {}, d.ngpown);
  };
  const GppData<Kokkos::HostSpace> base = derive(generate(p));
  const std::string want = digest(base);
  ASSERT_EQ(want.size(), 16u);
  DeckParams renamed = p;
  renamed.name = "another name";
  EXPECT_EQ(digest(derive(generate(renamed))), want);  // the same data under another name
  DeckParams reseeded = p;
  reseeded.seed += 1;
  EXPECT_NE(digest(derive(generate(reseeded))), want);
  struct Change {
    std::string what;
    std::function<void(GppData<Kokkos::HostSpace>&)> apply;
  };
  const std::vector<Change> changes = {
      {"aqsntemp",
       [](auto& d) {
         const complex_t z = d.aqsntemp(149, 23);
         d.aqsntemp(149, 23) = complex_t(std::nextafter(z.real(), 1e300), z.imag());
       }},
      {"I_eps_array", [](auto& d) { d.I_eps_array(3, 19) *= -1.0; }},
      {"wtilde_array",
       [](auto& d) { d.wtilde_array(0, 0) = complex_t(d.wtilde_array(0, 0).imag(), d.wtilde_array(0, 0).real()); }},
      {"aqsmtemp", [](auto& d) { d.aqsmtemp_local_bt(5, 7) += complex_t(1e-12, 0); }},
      {"vcoul_loc", [](auto& d) { d.vcoul_loc(11) = std::nextafter(d.vcoul_loc(11), 1e300); }},
      {"wx_array_t", [](auto& d) { d.wx_array_t(1, 2) += 0.5; }},
      {"occ_array", [](auto& d) { d.occ_array(0) = d.occ_array(0) == 1 ? 0.5 : 1; }},
      {"sexcut", [](auto& d) { d.sexcut += 1; }},
      {"limittwo", [](auto& d) { d.limittwo *= 2; }},
      {"two G' columns swapped", [](auto& d) {
         for (int g = 0; g < d.ncouls; ++g) {
           std::swap(d.I_eps_array(g, 1), d.I_eps_array(g, 2));
           std::swap(d.wtilde_array(g, 1), d.wtilde_array(g, 2));
         }
         for (int n = 0; n < d.nbands; ++n) std::swap(d.aqsmtemp_local_bt(n, 1), d.aqsmtemp_local_bt(n, 2));
         std::swap(d.vcoul_loc(1), d.vcoul_loc(2));
       }}};
  for (const Change& c : changes) {
    GppData<Kokkos::HostSpace> d = derive(generate(p));
    ASSERT_EQ(digest(d), want);
    c.apply(d);
    EXPECT_NE(digest(d), want) << c.what;
  }
}

// ---- through the gpp binary ----

const std::string kDeck = std::string(GPP_SOURCE_DIR) + "/inputs/small.toml";
const std::string kFast = " --policy host --space host --repeat 1 --warmup 0";
// Where --verify auto computes a reference, and so where the store keeps it: the device
// in a GPU build, else the host; and the backend the text names for it.
const std::string kAutoSpace = kHasDeviceSpace ? "device" : "host";
const std::string kAutoBackend = DeviceExec::name();

struct GppRun {
  SplitOutcome o;
  formats::JsonIn record;
  std::vector<std::string> notes;  // "gpp: note: " lines of stderr
};

std::vector<std::string> notes_in(const std::string& text) {
  std::vector<std::string> notes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("gpp: note: ", 0) == 0) notes.push_back(line);
  return notes;
}

GppRun run_gpp(const std::string& args, const std::string& env, const std::string& json) {
  GppRun r;
  std::remove(json.c_str());
  r.o = gpp_exe_split(args + " --json " + json, env, "");
  r.notes = notes_in(r.o.err);
  if (r.o.code == 0) r.record = formats::parse_json(slurp(json), json);
  return r;
}

std::string source_of(const GppRun& r) { return r.record["verification"]["reference_source"].get<std::string>(); }
std::string reference_of(const GppRun& r) {
  return r.record["verification"]["achtemp"].dump() + r.record["verification"]["asxtemp"].dump();
}

class ReferenceCache : public ::testing::Test {
 protected:
  Folder f;
  std::string env() const { return "XDG_CACHE_HOME=" + f.path; }
  std::string store() const { return f / "gpp"; }
  std::vector<std::string> stored_files() const { return names_in(store()); }
  void expect_passed(const GppRun& r, const std::string& what) {
    ASSERT_EQ(r.o.code, 0) << what << "\n" << r.o.out << r.o.err;
    EXPECT_TRUE(r.record["passed"].get<bool>()) << what;
    EXPECT_NE(r.o.out.find("verification (host): against the " + kAutoSpace + " reference"), std::string::npos) << what;
    EXPECT_NE(r.o.out.find("PASSED"), std::string::npos) << what;
  }
};

TEST_F(ReferenceCache, ASecondRunVerifiesAgainstTheStoredReference) {
  const std::string json = f / "r.json";
  const GppRun first = run_gpp("run " + kDeck + kFast, env(), json);
  expect_passed(first, "first run");
  EXPECT_EQ(source_of(first), "computed");
  ASSERT_EQ(stored_files().size(), 1u);
  const std::string file = store() + "/" + stored_files()[0];
  EXPECT_EQ(first.record["verification"]["reference_file"].get<std::string>(), file);
  EXPECT_NE(first.o.out.find("; stored in " + file + " for later runs)"), std::string::npos) << first.o.out;
  EXPECT_TRUE(first.notes.empty()) << first.o.err;

  const GppRun second = run_gpp("run " + kDeck + kFast, env(), json);
  expect_passed(second, "second run");
  EXPECT_EQ(source_of(second), "stored");
  EXPECT_TRUE(second.notes.empty()) << second.o.err;
  // The same numbers as the pass that stored them, bit for bit (17 digits in the JSON).
  EXPECT_EQ(reference_of(second), reference_of(first));
  EXPECT_EQ(second.record["branches"].dump(), first.record["branches"].dump());
  EXPECT_EQ(second.record["static_remainder"]["rel_error"].is_number(), true);  // achstemp verified too
  const auto& v = second.record["verification"];
  EXPECT_EQ(v["reference_date"], first.record["verification"]["reference_date"]);
  EXPECT_EQ(v["reference_space"], kAutoSpace);
  EXPECT_EQ(v["reference_file"].get<std::string>(), file);
  EXPECT_EQ(v["reference_pass_s"], first.record["verification"]["reference_pass_s"]);
  EXPECT_NE(second.o.out.find("verifying against the " + kAutoSpace + " reference (stored reference, computed " +
                              v["reference_date"].get<std::string>() + " on the " + kAutoSpace + " (" + kAutoBackend),
            std::string::npos)
      << second.o.out;
  EXPECT_NE(second.o.out.find("read from " + file + "; tolerance"), std::string::npos) << second.o.out;
  EXPECT_EQ(second.o.out.find("branch statistics: counted"), std::string::npos);
  // It is the same deck whatever it is called: the content decides.
  const GppRun renamed = run_gpp("run " + kDeck + kFast + " --name renamed", env(), json);
  expect_passed(renamed, "renamed");
  EXPECT_EQ(source_of(renamed), "stored");

  // --verify host (device in a GPU build: the space auto took) recomputes and refreshes
  // the file; --no-reference-cache neither reads nor writes it.
  struct stat before, after;
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  const GppRun again = run_gpp("run " + kDeck + kFast + " --verify " + kAutoSpace, env(), json);
  expect_passed(again, "--verify " + kAutoSpace);
  EXPECT_EQ(source_of(again), "computed");
  EXPECT_EQ(reference_of(again), reference_of(first));
  EXPECT_EQ(stored_files().size(), 1u);
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_NE(after.st_ino, before.st_ino) << "the file was not replaced";
  EXPECT_NE(slurp(file).find(again.record["verification"]["reference_date"].get<std::string>()), std::string::npos);
  Folder other;
  const GppRun off = run_gpp("run " + kDeck + kFast + " --no-reference-cache", "XDG_CACHE_HOME=" + other.path, json);
  expect_passed(off, "--no-reference-cache");
  EXPECT_EQ(source_of(off), "computed");
  EXPECT_TRUE(off.record["verification"]["reference_file"].is_null());
  EXPECT_TRUE(names_in(other.path).empty());
  // --verify none: no reference, and the branch statistics from the stored pass.
  const GppRun none = run_gpp("run " + kDeck + kFast + " --verify none", env(), json);
  ASSERT_EQ(none.o.code, 0) << none.o.err;
  EXPECT_EQ(source_of(none), "none");
  EXPECT_EQ(none.record["branches"].dump(), first.record["branches"].dump());
  EXPECT_NE(none.o.out.find("branch statistics: from the reference cache"), std::string::npos) << none.o.out;
}

// Every file that cannot be trusted is computed again, with one note naming it, and the
// run verifies against the right numbers.
TEST_F(ReferenceCache, UntrustedFilesAreComputedAgainWithOneNote) {
  const std::string json = f / "r.json";
  const GppRun clean = run_gpp("run " + kDeck + kFast, env(), json);
  expect_passed(clean, "clean");
  ASSERT_EQ(stored_files().size(), 1u);
  const std::string file = store() + "/" + stored_files()[0];
  const std::string good = slurp(file);
  // Another deck's file, renamed to this deck's name.
  Folder elsewhere;
  const GppRun other_deck =
      run_gpp("run " + kDeck + kFast + " --seed 99", "XDG_CACHE_HOME=" + elsewhere.path, elsewhere / "o.json");
  expect_passed(other_deck, "another deck");
  const std::vector<std::string> other_files = names_in(elsewhere / "gpp");
  ASSERT_EQ(other_files.size(), 1u);
  const std::string foreign = slurp(elsewhere / "gpp/" + other_files[0]);
  ASSERT_NE(foreign, good);

  // The first significant digit of the first sum, changed.
  std::string flipped = good;
  const std::size_t digit = flipped.find_first_of("123456789", flipped.find("\"sch_sum\":[[") + 12);
  ASSERT_NE(digit, std::string::npos);
  flipped[digit] = flipped[digit] == '9' ? '8' : char(flipped[digit] + 1);
  // The same reference as an older reference code would have stored it, whole.
  const formats::JsonIn j = formats::parse_json(good, file);
  ReferenceKey key;
  key.content = j["deck"]["content"].get<std::string>();
  key.sizes = {j["deck"]["nbands"].get<int>(), j["deck"]["ngpown"].get<int>(), j["deck"]["ncouls"].get<int>(),
               j["deck"]["nw"].get<int>()};
  key.nstart = j["deck"]["nstart"].get<int>();
  key.nend = j["deck"]["nend"].get<int>();
  // the space `--verify auto` took in this build (a device build stores a device reference)
  key.space = j["computed"]["space"].get<std::string>() == "host" ? SpaceKind::Host : SpaceKind::Device;
  std::string note;
  const auto stored = session::read_stored_reference(file, key, note);
  ASSERT_TRUE(stored) << note;
  ReferenceKey old_key = key;
  old_key.code = "0+0123456789abcdef+ieee";
  const std::string old_code = session::stored_reference_text(old_key, *stored);
  struct Case {
    std::string what, text, says;
  };
  const std::vector<Case> cases = {
      {"truncated", good.substr(0, good.size() / 2), "is damaged"},
      {"empty", "", "is damaged"},
      {"a digit changed", flipped, "is damaged (its checksum does not match"},
      {"another deck's", foreign, "is another deck's"},
      {"out of date", old_code, "was computed by another version of the reference code"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    write_bytes(file, Bytes(c.text.begin(), c.text.end()));
    const GppRun r = run_gpp("run " + kDeck + kFast, env(), json);
    expect_passed(r, c.what);
    EXPECT_EQ(source_of(r), "computed");
    EXPECT_EQ(reference_of(r), reference_of(clean));
    ASSERT_EQ(r.notes.size(), 1u) << r.o.err;
    EXPECT_NE(r.notes[0].find("the stored reference " + file + " " + c.says), std::string::npos) << r.notes[0];
    EXPECT_NE(r.notes[0].find("computing it again"), std::string::npos) << r.notes[0];
    EXPECT_EQ(r.o.err.find(": error: "), std::string::npos) << r.o.err;
    // Replaced by a whole file, which the next run takes.
    const GppRun next = run_gpp("run " + kDeck + kFast, env(), json);
    expect_passed(next, c.what + ", next run");
    EXPECT_EQ(source_of(next), "stored");
    EXPECT_TRUE(next.notes.empty()) << next.o.err;
  }
  // A folder in the file's place: computed, not stored, one note.
  std::remove(file.c_str());
  ASSERT_EQ(::mkdir(file.c_str(), 0700), 0);
  for (int i = 0; i < 2; ++i) {
    const GppRun r = run_gpp("run " + kDeck + kFast, env(), json);
    expect_passed(r, "a folder in its place");
    EXPECT_EQ(source_of(r), "computed");
    EXPECT_EQ(reference_of(r), reference_of(clean));
    ASSERT_EQ(r.notes.size(), 1u) << r.o.err;
    EXPECT_NE(r.notes[0].find("is a folder: computing the reference, and not storing it"), std::string::npos)
        << r.notes[0];
  }
}

// A store that cannot be made or written never fails a run: one note, and the reference
// is computed.
TEST_F(ReferenceCache, UnusableFoldersNeverFailARun) {
  const std::string json = f / "r.json";
  write_bytes(f / "plain", Bytes{'x'});
  struct Case {
    std::string what, env, says, prefix;
  };
  std::vector<Case> cases = {
      {"XDG_CACHE_HOME under a regular file", "XDG_CACHE_HOME=" + f / "plain/cache", "Not a directory", ""},
      {"HOME a regular file", "XDG_CACHE_HOME= HOME=" + f / "plain", "Not a directory", ""},
      {"a full disk", env(), "File too large", "ulimit -f 1 &&"},
  };
  if (::geteuid() != 0) {  // root writes anywhere
    ASSERT_EQ(::mkdir((f / "ro").c_str(), 0500), 0);
    cases.push_back({"a read-only HOME", "XDG_CACHE_HOME= HOME=" + f / "ro", "Permission denied", ""});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    GppRun r;
    if (c.prefix.empty()) {
      r = run_gpp("run " + kDeck + kFast, c.env, json);
    } else {
      // A file-size limit (the write fails with EFBIG, as it would with ENOSPC) on the gpp
      // process: no --json, which the limit would fail too.
      const std::string cmd =
          "(" + c.prefix + " " + c.env + " OMP_PROC_BIND=false exec " + GPP_EXE + " run " + kDeck + kFast + ") 2>&1";
      if (FILE* p = ::popen(cmd.c_str(), "r")) {
        std::array<char, 4096> buf;
        while (std::fgets(buf.data(), buf.size(), p)) r.o.out += buf.data();
        const int status = ::pclose(p);
        r.o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      r.o.err = r.o.out;
      r.notes = notes_in(r.o.out);
      ASSERT_EQ(r.o.code, 0) << r.o.out;
      EXPECT_NE(r.o.out.find("PASSED"), std::string::npos) << r.o.out;
      EXPECT_TRUE(names_in(store()).empty()) << "nothing left in the store, not even a temporary";
    }
    if (c.prefix.empty()) {
      expect_passed(r, c.what);
      EXPECT_EQ(source_of(r), "computed");
      EXPECT_TRUE(r.record["verification"]["reference_file"].is_null());
    }
    ASSERT_EQ(r.notes.size(), 1u) << r.o.err;
    EXPECT_NE(r.notes[0].find("the verification reference is not stored"), std::string::npos) << r.notes[0];
    EXPECT_NE(r.notes[0].find(c.says), std::string::npos) << r.notes[0];
  }
  // A relative XDG_CACHE_HOME is ignored, as the XDG specification says, and said so.
  Folder home;
  const GppRun rel = run_gpp("run " + kDeck + kFast, "XDG_CACHE_HOME=relative/cache HOME=" + home.path, json);
  expect_passed(rel, "relative XDG_CACHE_HOME");
  ASSERT_EQ(rel.notes.size(), 1u) << rel.o.err;
  EXPECT_NE(rel.notes[0].find("XDG_CACHE_HOME is not an absolute path ('relative/cache')"), std::string::npos);
  EXPECT_EQ(names_in(home / ".cache/gpp").size(), 1u);
  EXPECT_FALSE(file_exists("relative"));
}

// Chunked runs (--max-device-mem; on the host space here) take the whole deck's stored
// reference and store theirs for unchunked runs.
TEST_F(ReferenceCache, ChunkedRunsShareTheStore) {
  const std::string json = f / "r.json";
  // small: the bands' arrays take 309 KB and each G' column 15 KB.
  const std::string chunked = " --max-device-mem 400K";
  const GppRun whole = run_gpp("run " + kDeck + kFast, env(), json);
  expect_passed(whole, "whole");
  const GppRun in_chunks = run_gpp("run " + kDeck + kFast + chunked, env(), json);
  expect_passed(in_chunks, "chunked");
  EXPECT_GT(in_chunks.record["runs"][0]["chunks"].get<int>(), 1);
  EXPECT_EQ(source_of(in_chunks), "stored");
  Folder other;
  const GppRun computed_chunked = run_gpp("run " + kDeck + kFast + chunked, "XDG_CACHE_HOME=" + other.path, json);
  expect_passed(computed_chunked, "chunked, computed");
  EXPECT_EQ(source_of(computed_chunked), "computed");
  // The chunks' pass sums in another order: within the reference's accuracy of the whole one.
  const auto& a = computed_chunked.record["verification"]["achtemp"];
  const auto& b = whole.record["verification"]["achtemp"];
  for (std::size_t w = 0; w < b.size(); ++w)
    EXPECT_TRUE(
        close({a[w][0].get<double>(), a[w][1].get<double>()}, {b[w][0].get<double>(), b[w][1].get<double>()}, 1e-13));
  const GppRun unchunked = run_gpp("run " + kDeck + kFast, "XDG_CACHE_HOME=" + other.path, json);
  expect_passed(unchunked, "unchunked after chunked");
  EXPECT_EQ(source_of(unchunked), "stored");
}

// Processes that compute the same deck's reference at once leave one whole file (each
// writes a temporary file of its own and renames it).
TEST_F(ReferenceCache, ProcessesComputingAtOnceLeaveOneWholeFile) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::filesystem::remove_all(store());
    std::string cmd = "(";
    for (int i = 0; i < 4; ++i)
      cmd += env() + " OMP_PROC_BIND=false " + GPP_EXE + " run " + kDeck + kFast + " --json " + f / "p" +
             std::to_string(i) + ".json >" + f / "p" + std::to_string(i) + ".out 2>&1 & ";
    cmd += "wait)";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    int computed = 0;
    for (int i = 0; i < 4; ++i) {
      const std::string out = slurp(f / "p" + std::to_string(i) + ".out");
      EXPECT_NE(out.find("PASSED"), std::string::npos) << out;
      EXPECT_EQ(out.find("gpp: note"), std::string::npos) << out;
      const formats::JsonIn rec = formats::parse_json(slurp(f / "p" + std::to_string(i) + ".json"), "record");
      computed += rec["verification"]["reference_source"] == "computed";
    }
    EXPECT_GE(computed, 1);
    ASSERT_EQ(stored_files().size(), 1u) << "one file, no temporary left";
    const GppRun next = run_gpp("run " + kDeck + kFast, env(), f / "r.json");
    expect_passed(next, "after the writers");
    EXPECT_EQ(source_of(next), "stored");
    EXPECT_TRUE(next.notes.empty()) << next.o.err;
  }
}

// An input file with its own reference: the branch statistics' pass is stored and reused.
TEST_F(ReferenceCache, BranchStatisticsOfAnInputFileAreStored) {
  const std::string dat = f / "small.dat";
  const SplitOutcome c = gpp_exe_split("convert " + kDeck + " " + dat, env(), "");
  ASSERT_EQ(c.code, 0) << c.err;
  const std::string json = f / "r.json";
  const GppRun first = run_gpp("run --input " + dat + kFast, env(), json);
  ASSERT_EQ(first.o.code, 0) << first.o.err;
  EXPECT_EQ(source_of(first), "input file");
  EXPECT_NE(first.o.out.find("branch statistics: counted in"), std::string::npos) << first.o.out;
  ASSERT_EQ(stored_files().size(), 1u);
  const GppRun second = run_gpp("run --input " + dat + kFast, env(), json);
  ASSERT_EQ(second.o.code, 0) << second.o.err;
  EXPECT_EQ(source_of(second), "input file");
  EXPECT_EQ(second.record["branches"].dump(), first.record["branches"].dump());
  EXPECT_NE(second.o.out.find("branch statistics: from the reference cache"), std::string::npos) << second.o.out;
  // The .dat file holds the same data as the deck it was written from: the same store entry.
  const GppRun toml = run_gpp("run " + kDeck + kFast, env(), json);
  expect_passed(toml, "the deck itself");
  EXPECT_EQ(source_of(toml), "stored");
}

}  // namespace
}  // namespace gpp::test
