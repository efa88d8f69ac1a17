#include "gpp_reference_store.hpp"

#include "gpp_json.hpp"
#include "gpp_mpi.hpp"
#include "gpp_record.hpp"
#include "gpp_runtime.hpp"
#include "gpp_session.hpp"
#include "gpp_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

namespace gpp::session {
using formats::Json;
using formats::JsonIn;
using record::space_info;
using record::this_build;
using record::utc_now;

// cmake/GppWriteSourceDigest.cmake writes it at build time.
const char* fast_reference_source_digest();

namespace {

// ---- a 64-bit digest: xxHash64's rounds (four lanes of 8-byte words, so that one core
// digests several GB/s), written out here ----
constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                        kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;
inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t w) { return rotl(acc + w * kP2, 31) * kP1; }
inline std::uint64_t merge64(std::uint64_t h, std::uint64_t v) { return (h ^ round64(0, v)) * kP1 + kP4; }
inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline std::uint64_t avalanche(std::uint64_t h) {
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

std::uint64_t digest64(const void* data, std::size_t n, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + n;
  std::uint64_t h;
  if (n >= 32) {
    std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    for (; p + 32 <= end; p += 32) {
      v1 = round64(v1, load64(p));
      v2 = round64(v2, load64(p + 8));
      v3 = round64(v3, load64(p + 16));
      v4 = round64(v4, load64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge64(merge64(merge64(merge64(h, v1), v2), v3), v4);
  } else {
    h = seed + kP5;
  }
  h += std::uint64_t(n);
  for (; p + 8 <= end; p += 8) h = rotl(h ^ round64(0, load64(p)), 27) * kP1 + kP4;
  for (; p < end; ++p) h = rotl(h ^ (std::uint64_t(*p) * kP5), 11) * kP1;
  return avalanche(h);
}

std::uint64_t digest64(const std::vector<std::uint64_t>& words, std::uint64_t seed) {
  return digest64(words.data(), words.size() * sizeof(std::uint64_t), seed);
}

std::string hex16(std::uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)x);
  return buf;
}

std::uint64_t bits(double v) {
  std::uint64_t w;
  std::memcpy(&w, &v, 8);
  return w;
}

// Canonical bytes of a stored reference (every field of the file but its checksum): what
// the checksum is of, so that a flipped digit anywhere in the values is found.
class Canon {
 public:
  Canon& text(const std::string& s) {
    word(s.size());
    bytes_.append(s);
    return *this;
  }
  Canon& word(std::uint64_t w) {
    bytes_.append(reinterpret_cast<const char*>(&w), sizeof w);
    return *this;
  }
  Canon& number(double v) { return word(bits(v)); }
  std::string checksum() const { return hex16(digest64(bytes_.data(), bytes_.size(), 0x6770702d72656631ULL)); }

 private:
  std::string bytes_;
};

std::string checksum_of(const ReferenceKey& k, const StoredReference& r) {
  Canon c;
  c.word(std::uint64_t(kReferenceFileFormat)).text(k.code).text(k.content).text(to_string(k.space));
  for (const int v : {k.sizes.nbands, k.sizes.ngpown, k.sizes.ncouls, k.sizes.nw, k.nstart, k.nend})
    c.word(std::uint64_t(std::int64_t(v)));
  c.text(r.deck_name).text(r.date).text(to_string(r.space)).text(r.backend).text(r.device).text(r.host).text(r.gpp);
  c.word(std::uint64_t(std::int64_t(r.ranks))).number(r.seconds);
  for (const auto* v : {&r.pass.sums.sch_sum, &r.pass.sums.ssx_sum}) {
    c.word(v->size());
    for (const auto& z : *v) c.number(z.real()).number(z.imag());
  }
  c.number(r.pass.achstemp.real()).number(r.pass.achstemp.imag());
  for (const std::int64_t n : r.pass.arms.n) c.word(std::uint64_t(n));
  return c.checksum();
}

Json complex_pair(std::complex<double> z) {
  return Json::array({formats::json_number(z.real()), formats::json_number(z.imag())});
}

// The file's fields, each of its kind; gpp::Error naming the field otherwise.
const JsonIn& field(const JsonIn& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) throw Error(std::string("no \"") + name + "\"");
  return j.at(name);
}
std::string string_field(const JsonIn& j, const char* name) {
  const JsonIn& v = field(j, name);
  if (!v.is_string()) throw Error(std::string("\"") + name + "\" is " + formats::json_kind(v));
  return v.get<std::string>();
}
std::int64_t integer(const JsonIn& v, const char* name) {
  if (!v.is_number_integer()) throw Error(std::string("\"") + name + "\" is not an integer");
  return v.get<std::int64_t>();
}
std::int64_t integer_field(const JsonIn& j, const char* name) { return integer(field(j, name), name); }
double number_field(const JsonIn& v, const char* name) {
  if (!v.is_number()) throw Error(std::string("\"") + name + "\" is " + formats::json_kind(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Error(std::string("\"") + name + "\" is not finite");
  return x;
}
std::complex<double> complex_field(const JsonIn& v, const char* name) {
  if (!v.is_array() || v.size() != 2) throw Error(std::string("\"") + name + "\" is not a pair of numbers");
  return {number_field(v[0], name), number_field(v[1], name)};
}
std::vector<std::complex<double>> complex_array(const JsonIn& j, const char* name, std::size_t n) {
  const JsonIn& v = field(j, name);
  if (!v.is_array() || v.size() != n)
    throw Error(std::string("\"") + name + "\" is not an array of " + std::to_string(n) + " pairs");
  std::vector<std::complex<double>> out;
  for (const JsonIn& z : v) out.push_back(complex_field(z, name));
  return out;
}

std::string note_path(const std::string& path) { return files::one_line(path); }

// mkdir -p, the folders made 0700 (the XDG base directory specification's mode).
std::string make_folders(const std::string& dir) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = slash == std::string::npos ? dir : dir.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create " + note_path(part) + ": " + std::strerror(errno);
    if (slash == std::string::npos) break;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return "cannot use " + note_path(dir) + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return note_path(dir) + " is not a folder";
  return "";
}

}  // namespace

std::string reference_code_version() {
#ifdef __FAST_MATH__
  const char* fp = "fast-math";  // the compensated sums may be reassociated away
#else
  const char* fp = "ieee";
#endif
  return std::to_string(kReferenceCodeVersion) + "+" + fast_reference_source_digest() + "+" + fp;
}

std::string ReferenceKey::file_name() const {
  const std::uint64_t h = digest64(content.data(), content.size(), std::uint64_t(space == SpaceKind::Device ? 2 : 1));
  return "reference-" + std::to_string(sizes.nbands) + "x" + std::to_string(sizes.ngpown) + "x" +
         std::to_string(sizes.ncouls) + "x" + std::to_string(sizes.nw) + "-" + hex16(h) + ".json";
}

std::string deck_content_digest(const GppData<Kokkos::HostSpace>& d, const GpShare& share, const int ngpown_total) {
  // Each band's aqsntemp column, and each G' column, on the host threads.
  std::vector<std::uint64_t> band(std::size_t(d.nbands)), column(std::size_t(d.ngpown));
  const std::size_t ncouls = std::size_t(d.ncouls), nbands = std::size_t(d.nbands);
  const auto* aqsn = d.aqsntemp.data();
  const auto* ieps = d.I_eps_array.data();
  const auto* wtilde = d.wtilde_array.data();
  const auto* aqsm = d.aqsmtemp_local_bt.data();
  const auto* vcoul = d.vcoul_loc.data();
  std::uint64_t* const band_out = band.data();
  std::uint64_t* const column_out = column.data();
  const GpShare sh = share;
  runtime::host_parallel_for("gpp::reference_store::digest_bands", d.nbands, [=](const long long n) {
    band_out[n] = digest64(aqsn + std::size_t(n) * ncouls, ncouls * sizeof(complex_t), std::uint64_t(n));
  });
  runtime::host_parallel_for("gpp::reference_store::digest_columns", d.ngpown, [=](const long long i) {
    const std::size_t c = std::size_t(i);
    std::uint64_t h = std::uint64_t(sh.global(int(i)));  // the column's place in the whole deck
    h = digest64(ieps + c * ncouls, ncouls * sizeof(complex_t), h);
    h = digest64(wtilde + c * ncouls, ncouls * sizeof(complex_t), h);
    h = digest64(aqsm + c * nbands, nbands * sizeof(complex_t), h);
    column_out[c] = digest64(vcoul + c, sizeof(double), h);
  });
  // The columns' digests added (mod 2^64), then over the ranks in two 32-bit halves: the
  // same sum however the columns are dealt out.
  std::uint64_t sum = 0;
  for (const std::uint64_t c : column) sum += c;
  long long halves[2] = {(long long)(sum & 0xffffffffULL), (long long)(sum >> 32)};
  mpi::sum(halves, 2);
  const std::uint64_t columns = std::uint64_t(halves[0]) + (std::uint64_t(halves[1]) << 32);
  std::vector<std::uint64_t> all{std::uint64_t(d.nbands),
                                 std::uint64_t(ngpown_total),
                                 std::uint64_t(d.ncouls),
                                 std::uint64_t(d.nw),
                                 std::uint64_t(d.nstart),
                                 std::uint64_t(d.nend),
                                 bits(d.limitone),
                                 bits(d.limittwo),
                                 bits(d.sexcut),
                                 digest64(band, 1),
                                 columns};
  all.push_back(digest64(d.wx_array_t.data(), d.wx_array_t.span() * sizeof(double), 2));
  all.push_back(digest64(d.occ_array.data(), d.occ_array.span() * sizeof(double), 3));
  return hex16(digest64(all, 0x67707064656b31ULL));
}

std::string reference_store_dir(std::string& note) {
  note.clear();
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) {
    if (xdg[0] == '/') return std::string(xdg) + "/gpp";
    note = "XDG_CACHE_HOME is not an absolute path ('" + files::one_line(xdg) +
           "'), so it is ignored, as the XDG base directory specification says";
  }
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/gpp";
  note = (note.empty() ? std::string() : note + "; ") +
         (home && *home ? "HOME is not an absolute path" : "neither XDG_CACHE_HOME nor HOME is set") +
         ": no reference is stored";
  return "";
}

std::string stored_reference_text(const ReferenceKey& k, const StoredReference& r) {
  Json j = Json::object();
  j["kind"] = "gpp-stored-reference";
  j["format"] = kReferenceFileFormat;
  j["code"] = k.code;
  Json deck = Json::object();
  deck["name"] = r.deck_name;
  deck["content"] = k.content;
  deck["nbands"] = k.sizes.nbands;
  deck["ngpown"] = k.sizes.ngpown;
  deck["ncouls"] = k.sizes.ncouls;
  deck["nw"] = k.sizes.nw;
  deck["nstart"] = k.nstart;
  deck["nend"] = k.nend;
  j["deck"] = std::move(deck);
  Json computed = Json::object();
  computed["date"] = r.date;
  computed["space"] = to_string(r.space);
  computed["backend"] = r.backend;
  computed["device"] = r.device;
  computed["host"] = r.host;
  computed["gpp"] = r.gpp;
  computed["ranks"] = r.ranks;
  computed["seconds"] = formats::json_number(r.seconds);
  j["computed"] = std::move(computed);
  Json sch = Json::array(), ssx = Json::array();
  for (const auto& z : r.pass.sums.sch_sum) sch.push_back(complex_pair(z));
  for (const auto& z : r.pass.sums.ssx_sum) ssx.push_back(complex_pair(z));
  j["sch_sum"] = std::move(sch);
  j["ssx_sum"] = std::move(ssx);
  j["achstemp"] = complex_pair(r.pass.achstemp);
  Json arms = Json::array();
  for (const std::int64_t n : r.pass.arms.n) arms.push_back(n);
  j["arms"] = std::move(arms);
  j["checksum"] = checksum_of(k, r);
  return formats::dump_json(j);
}

std::optional<StoredReference> read_stored_reference(const std::string& path, const ReferenceKey& key,
                                                     std::string& note) {
  note.clear();
  const std::string where = "the stored reference " + note_path(path);
  // O_NONBLOCK: a FIFO put in the file's place is not waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    // No file, or no folder to hold one (what writing it says, if it cannot).
    if (errno != ENOENT && errno != ENOTDIR) note = "cannot read " + where + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  {
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      note = "cannot read " + where + ": " + std::strerror(errno);
    } else if (S_ISDIR(st.st_mode)) {
      note = where + " is a folder";
    } else if (!S_ISREG(st.st_mode)) {
      note = where + " is not a regular file";
    } else if (st.st_size > kMaxReferenceFileBytes) {
      note = where + " is larger than any stored reference (" + std::to_string((long long)st.st_size) + " bytes)";
    } else {
      text.resize(std::size_t(st.st_size));
      std::size_t got = 0;
      while (got < text.size()) {
        const ssize_t n = ::read(fd, &text[got], text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += std::size_t(n);
      }
      if (got != text.size()) note = "cannot read " + where + ": it changed while it was read";
    }
  }
  ::close(fd);
  if (!note.empty()) return std::nullopt;

  StoredReference r;
  try {
    const JsonIn j = formats::parse_json(text, "its text");
    if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string() || j["kind"] != "gpp-stored-reference")
      throw Error("not a stored reference");
    if (const std::int64_t f = integer_field(j, "format"); f != kReferenceFileFormat) {
      note = where + " is of another format (" + std::to_string(f) + "; this gpp reads " +
             std::to_string(kReferenceFileFormat) + ")";
      return std::nullopt;
    }
    ReferenceKey k;
    k.code = string_field(j, "code");
    const JsonIn& deck = field(j, "deck");
    r.deck_name = string_field(deck, "name");
    k.content = string_field(deck, "content");
    k.sizes.nbands = int(integer_field(deck, "nbands"));
    k.sizes.ngpown = int(integer_field(deck, "ngpown"));
    k.sizes.ncouls = int(integer_field(deck, "ncouls"));
    k.sizes.nw = int(integer_field(deck, "nw"));
    k.nstart = int(integer_field(deck, "nstart"));
    k.nend = int(integer_field(deck, "nend"));
    if (k.sizes.nw < 1 || k.sizes.nw > 1 << 20) throw Error("\"nw\" out of range");
    const JsonIn& computed = field(j, "computed");
    r.date = string_field(computed, "date");
    const std::string space = string_field(computed, "space");
    if (space != "host" && space != "device") throw Error("\"space\" is neither host nor device");
    r.space = k.space = space == "host" ? SpaceKind::Host : SpaceKind::Device;
    r.backend = string_field(computed, "backend");
    r.device = string_field(computed, "device");
    r.host = string_field(computed, "host");
    r.gpp = string_field(computed, "gpp");
    r.ranks = int(integer_field(computed, "ranks"));
    r.seconds = number_field(field(computed, "seconds"), "seconds");
    r.pass.sums.sch_sum = complex_array(j, "sch_sum", std::size_t(k.sizes.nw));
    r.pass.sums.ssx_sum = complex_array(j, "ssx_sum", std::size_t(k.sizes.nw));
    r.pass.achstemp = complex_field(field(j, "achstemp"), "achstemp");
    const JsonIn& arms = field(j, "arms");
    if (!arms.is_array() || arms.size() != 24) throw Error("\"arms\" is not an array of 24 counts");
    for (int i = 0; i < 24; ++i) r.pass.arms.n[i] = integer(arms[std::size_t(i)], "arms");
    if (string_field(j, "checksum") != checksum_of(k, r)) {
      note = where + " is damaged (its checksum does not match its values)";
      return std::nullopt;
    }
    // Whole and as written: now whether it is this deck's, by this code, on this space.
    if (k.code != key.code) {
      note = where + " was computed by another version of the reference code (" + files::one_line(k.code) +
             "; this gpp: " + key.code + ")";
      return std::nullopt;
    }
    if (k.content != key.content || k.sizes != key.sizes || k.nstart != key.nstart || k.nend != key.nend) {
      note = where + " is another deck's (" + files::one_line(r.deck_name) + ", content " + files::one_line(k.content) +
             "; this deck's is " + key.content + ")";
      return std::nullopt;
    }
    if (k.space != key.space) {
      note = where + " was computed on the " + space + ", not the " + to_string(key.space);
      return std::nullopt;
    }
    std::int64_t total = 0;
    for (const std::int64_t n : r.pass.arms.n) {
      if (n < 0) throw Error("a negative arm count");
      total += n;
    }
    if (double(total) != key.sizes.updates()) throw Error("its arm counts do not add up to the deck's terms");
  } catch (const Error& e) {
    note = where + " is damaged (" + files::one_line(e.what()) + ")";
    return std::nullopt;
  } catch (const std::exception& e) {
    note = where + " is damaged (" + files::one_line(e.what()) + ")";
    return std::nullopt;
  }
  return r;
}

std::string write_stored_reference(const std::string& dir, const ReferenceKey& key, const StoredReference& r) {
  if (std::string why = make_folders(dir); !why.empty()) return why;
  const std::string path = dir + "/" + key.file_name();
  const std::string text = stored_reference_text(key, r);
  // A temporary name of its own in the same folder (mkstemp: unique across processes and
  // hosts sharing the folder), renamed over the file when whole.
  std::string temp = dir + "/." + key.file_name() + ".XXXXXX";
  const int fd = ::mkstemp(&temp[0]);
  if (fd < 0) return "cannot write in " + note_path(dir) + ": " + std::strerror(errno);
  std::string why;
  for (std::size_t done = 0; done < text.size() && why.empty();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = "cannot write " + note_path(temp) + ": " + std::strerror(n < 0 ? errno : ENOSPC);
      break;
    }
    done += std::size_t(n);
  }
  if (::close(fd) != 0 && why.empty()) why = "cannot write " + note_path(temp) + ": " + std::strerror(errno);
  if (why.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
    why = "cannot write " + note_path(path) + ": " + std::strerror(errno);
  if (!why.empty()) std::remove(temp.c_str());
  return why;
}

// ---- a session's use of the store ----

namespace {
void note(const std::string& line) {
  if (mpi::rank() == 0) std::cerr << "gpp: note: " << line << "\n" << std::flush;
}

ReferenceKey key_of(Session& s, SpaceKind k) {
  ReferenceStoreUse& u = s.store;
  if (u.content.empty()) u.content = deck_content_digest(s.host, s.share, s.ngpown_total);
  ReferenceKey key;
  key.content = u.content;
  key.sizes = {s.host.nbands, s.ngpown_total, s.host.ncouls, s.host.nw};
  key.nstart = s.host.nstart;
  key.nend = s.host.nend;
  key.space = k;
  return key;
}

// The store's folder (rank 0), its note said once.
std::string store_dir(Session& s) {
  ReferenceStoreUse& u = s.store;
  if (!u.dir_known) {
    std::string why;
    u.dir = reference_store_dir(why);
    u.dir_known = true;
    if (!why.empty()) note(why);
  }
  return u.dir;
}
}  // namespace

const StoredReference* stored_reference(Session& s, SpaceKind k) {
  ReferenceStoreUse& u = s.store;
  if (!u.enabled) return nullptr;
  if (!u.looked_up) {
    const auto t0 = std::chrono::steady_clock::now();
    u.looked_up = true;
    u.looked_up_space = k;
    const ReferenceKey key = key_of(s, k);  // every rank
    const int nw = key.sizes.nw;
    std::vector<double> values(std::size_t(4 * nw + 4), 0.0);
    long long arms[25] = {};
    if (mpi::rank() == 0) {
      const std::string dir = store_dir(s);
      if (!dir.empty()) {
        const std::string path = dir + "/" + key.file_name();
        std::string why;
        u.found = read_stored_reference(path, key, why);
        if (u.found) {
          u.path = path;
        } else if (!why.empty()) {
          // A folder in its place refuses the rename too (anything else is replaced): one note.
          struct stat st;
          u.unwritable = ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
          note(why + (u.unwritable ? ": computing the reference, and not storing it" : ": computing it again"));
          u.noted = true;
        }
      }
      if (u.found) {
        const ReferencePass& p = u.found->pass;
        for (int w = 0; w < nw; ++w) {
          values[std::size_t(4 * w)] = p.sums.sch_sum[std::size_t(w)].real();
          values[std::size_t(4 * w + 1)] = p.sums.sch_sum[std::size_t(w)].imag();
          values[std::size_t(4 * w + 2)] = p.sums.ssx_sum[std::size_t(w)].real();
          values[std::size_t(4 * w + 3)] = p.sums.ssx_sum[std::size_t(w)].imag();
        }
        values[std::size_t(4 * nw)] = p.achstemp.real();
        values[std::size_t(4 * nw + 1)] = p.achstemp.imag();
        values[std::size_t(4 * nw + 2)] = u.found->seconds;
        for (int i = 0; i < 24; ++i) arms[i] = p.arms.n[i];
        arms[24] = 1;
      }
    }
    // Rank 0's finding to every rank: a sum with the others' zeros.
    if (mpi::size() > 1) {
      mpi::sum(values.data(), int(values.size()));
      mpi::sum(arms, 25);
      if (arms[24] != 0 && mpi::rank() != 0) {
        StoredReference r;
        r.space = k;
        for (int w = 0; w < nw; ++w) {
          r.pass.sums.sch_sum.emplace_back(values[std::size_t(4 * w)], values[std::size_t(4 * w + 1)]);
          r.pass.sums.ssx_sum.emplace_back(values[std::size_t(4 * w + 2)], values[std::size_t(4 * w + 3)]);
        }
        r.pass.achstemp = {values[std::size_t(4 * nw)], values[std::size_t(4 * nw + 1)]};
        r.seconds = values[std::size_t(4 * nw + 2)];
        for (int i = 0; i < 24; ++i) r.pass.arms.n[i] = arms[i];
        u.found = std::move(r);
      }
    }
    u.lookup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return u.found && u.looked_up_space == k ? &*u.found : nullptr;
}

std::string store_reference(Session& s, SpaceKind k, const ReferencePass& pass, double seconds) {
  ReferenceStoreUse& u = s.store;
  if (!u.enabled) return "";
  const ReferenceKey key = key_of(s, k);  // every rank
  if (mpi::rank() != 0 || u.unwritable) return "";
  const std::string dir = store_dir(s);
  if (dir.empty()) return "";
  StoredReference r;
  r.pass = pass;
  r.date = utc_now();
  r.space = k;
  const record::SpaceInfo where = space_info(k);
  r.backend = where.backend;
  r.device = where.device;
  r.host = mpi::host_name();
  const record::BuildInfo build = this_build();
  r.gpp = build.version + " (git " + build.git + ")";
  r.seconds = seconds;
  r.ranks = mpi::size();
  r.deck_name = s.params.name;
  if (const std::string why = write_stored_reference(dir, key, r); !why.empty()) {
    // One note a run: where the lookup said why the store failed it, not a second.
    if (!u.noted)
      note("the verification reference is not stored (" + why +
           "): a later run of this deck computes it again (--no-reference-cache stores none)");
    return "";
  }
  u.path = dir + "/" + key.file_name();
  return u.path;
}

}  // namespace gpp::session
