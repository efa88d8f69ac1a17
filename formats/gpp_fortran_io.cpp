#include "gpp_fortran_io.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_io_util.hpp"
#include "gpp_parallel_read.hpp"
#include "gpp_runtime.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <limits>

// The file is little-endian and Fortran complex*16 is (re, im) in 16 bytes: with a
// little-endian host and Kokkos::complex<double> of that layout, every array record is
// the memory image of its LayoutLeft View and is read or written with one call.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .dat reader and writer assume a little-endian host");
static_assert(sizeof(gpp::complex_t) == 16, "Kokkos::complex<double> must be two packed doubles");
static_assert(sizeof(std::complex<double>) == 16, "std::complex<double> must be two packed doubles");
static_assert(sizeof(int) == 4, "Fortran default integers are 4 bytes");

namespace gpp::formats {
using files::AtomicOutput;
using files::throw_write_error;

namespace {

constexpr int kRecords = 18;
const char* const kRecordName[kRecords + 1] = {"",
                                               "sizes",
                                               "local sizes",
                                               "peinf_indext_dist",
                                               "wfnkq_ekq",
                                               "nstart, nend, sig_fdf, sig_dw, sig_gamma, e_lk",
                                               "inv_igp_index",
                                               "gvec_ng, indinv",
                                               "aqsmtemp",
                                               "nvband, tol, efermi",
                                               "vcoul",
                                               "sexcut, limittwo, limitone",
                                               "wtilde_array",
                                               "I_eps_array",
                                               "aqsntemp",
                                               "asxtemp",
                                               "achtemp",
                                               "asxtempref",
                                               "achtempref"};
constexpr std::int64_t kMaxRecord = INT32_MAX;  // what a 4-byte record marker can say
constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

// Payload bytes of count elements of `elem` bytes, saturating instead of overflowing.
std::int64_t bytes(std::int64_t a, std::int64_t b, std::int64_t elem) {
  if (a < 0 || b < 0) return -1;
  if (a != 0 && b > kSaturated / elem / a) return kSaturated;
  return a * b * elem;
}

// Payload bytes of every record, from the header sizes (records 1 and 2).
struct Layout {
  std::int64_t need[kRecords + 1];
  explicit Layout(const InputDeck& in) {
    need[1] = need[2] = 5 * 4;
    need[3] = bytes(in.peinf_ntband_max, 1, 4);
    need[4] = bytes(in.sig_ntband, 1, 8);
    need[5] = 3 * 4 + 3 * 8;
    need[6] = bytes(in.epsmpi_ngpown_max, 1, 4);
    need[7] = in.gvec_ng < 0 ? -1 : 4 + bytes(in.gvec_ng, 1, 4);
    need[8] = bytes(in.ncouls, in.peinf_ntband_max, 16);
    need[9] = 4 + 2 * 8;
    need[10] = bytes(in.ncoul, 1, 8);
    need[11] = 3 * 8;
    need[12] = need[13] = bytes(in.ncouls, in.ngpown, 16);
    need[14] = need[8];
    need[15] = need[16] = need[17] = need[18] = 3 * 16;
  }
};
bool size_from_header(int rec) {
  return rec == 3 || rec == 4 || rec == 6 || rec == 7 || rec == 8 || rec == 10 || (rec >= 12 && rec <= 14);
}

using files::io::str;

class DatReader {
 public:
  explicit DatReader(const std::string& path) : path_(path) {
    files::io::require_regular_file(path);
    struct stat st;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(str("cannot read ", path, ": ", std::strerror(errno)));
    if (::fstat(fd_, &st) != 0) throw Error(str("cannot read ", path, ": ", std::strerror(errno)));
    size_ = st.st_size;
    if (size_ == 0) throw Error(str(path, ": the file is empty"));
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~DatReader() { ::close(fd_); }
  DatReader(const DatReader&) = delete;
  DatReader& operator=(const DatReader&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(str(path_, ": record ", rec_, " (", kRecordName[rec_], "): ", what));
  }

  // Leading marker of record `rec`, checked against `need` payload bytes and against
  // what is left of the file. Nothing is allocated before this has passed.
  void begin(int rec, std::int64_t need) {
    rec_ = rec;
    if (pos_ == size_)
      fail(str("missing: the file ends after ", rec > 1 ? str("record ", rec - 1) : std::string("0 bytes"), " (", size_,
               " bytes)"));
    if (size_ - pos_ < 4) fail(str("the file ends inside the leading record marker (file size ", size_, " bytes)"));
    std::int32_t m;
    raw(&m, 4);
    if (m < 0) fail(str("leading record marker is negative (", m, "); records over 2 GiB are not supported"));
    if (m != need) {
      if (need < 0) fail(str("marker says ", m, " bytes, but the header sizes are negative"));
      fail(str("marker says ", m, " bytes, ", size_from_header(rec) ? "header sizes need " : "the format needs ",
               need == kSaturated ? std::string("more than 2^63") : std::to_string(need), " bytes"));
    }
    if (size_ - pos_ < std::int64_t(m) + 4)
      fail(str("the file ends inside the record (file size ", size_, " bytes, the record ends at byte ", pos_ + m + 4,
               ")"));
    len_ = m;
    end_ = pos_ + m;
  }

  void read(void* dst, std::int64_t n) {
    if (pos_ + n > end_) fail("internal error: read past the record");
    if (n < formats::kParallelReadBytes) {
      raw(dst, n);
      return;
    }
    // A large record (a matrix): read by several threads, then on from its end.
    if (const std::string why = formats::parallel_pread(fd_, pos_, dst, n); !why.empty())
      fail(why.rfind("the file ends", 0) == 0 ? "the file ends inside the record (it shrank while being read)" : why);
    pos_ += n;
    if (::lseek(fd_, off_t(pos_), SEEK_SET) != off_t(pos_)) fail(str("seek failed: ", std::strerror(errno)));
  }

  void end() {
    std::int32_t t;
    raw(&t, 4);
    if (t != len_) fail(str("trailing marker says ", t, " bytes, leading marker says ", len_));
  }

  // A whole small record.
  void record(int rec, std::int64_t need, void* dst) {
    begin(rec, need);
    read(dst, need);
    end();
  }

  void finish() const {
    if (pos_ != size_)
      throw Error(
          str(path_, ": ", size_ - pos_, " bytes of trailing data after record ", kRecords, " (at byte ", pos_, ")"));
  }

  std::int64_t size() const { return size_; }

 private:
  void raw(void* dst, std::int64_t n) {
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      // Linux transfers at most 2^31 - 4096 bytes per call.
      const ssize_t got = ::read(fd_, p, std::size_t(std::min<std::int64_t>(n, std::int64_t(1) << 30)));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(str("read failed: ", std::strerror(errno)));
      if (got == 0) fail(str("the file ends inside the record (it shrank while being read, at byte ", pos_, ")"));
      p += got;
      n -= got;
      pos_ += got;
    }
  }

  std::string path_;
  int fd_ = -1;
  std::int64_t size_ = 0, pos_ = 0, len_ = 0, end_ = 0;
  int rec_ = 0;
};

HostComplexMatrix allocate(DatReader& f, const char* label, int rows, int cols) {
  if (const std::string why = files::io::too_large((long double)bytes(rows, cols, 16)); !why.empty()) f.fail(why);
  try {
    return runtime::host_view<HostComplexMatrix>(label, rows, cols);
  } catch (const std::exception&) {
    f.fail(str("cannot allocate ", bytes(rows, cols, 16), " bytes"));
  }
}

void read_matrix(DatReader& f, int rec, std::int64_t need, HostComplexMatrix& m, const char* label, int rows,
                 int cols) {
  f.begin(rec, need);
  m = allocate(f, label, rows, cols);
  f.read(m.data(), need);
  f.end();
}

template <class T>
void read_vector(DatReader& f, int rec, std::int64_t need, std::vector<T>& v) {
  f.begin(rec, need);
  v.resize(std::size_t(need / std::int64_t(sizeof(T))));
  f.read(v.data(), need);
  f.end();
}

}  // namespace

InputDeck read_dat(const std::string& path, ReadStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  DatReader f(path);
  InputDeck in;
  Layout layout(in);  // fixed-size records only until the header is in

  std::int32_t h[5];
  f.record(1, layout.need[1], h);
  in.sig_ntband = h[0], in.gvec_ng = h[1], in.ncoul = h[2], in.epsmpi_ngpown_max = h[3], in.peinf_ntband_max = h[4];
  const char* names1[5] = {"sig_ntband", "gvec_ng", "ncoul", "epsmpi_ngpown_max", "peinf_ntband_max"};
  for (int i = 0; i < 5; ++i)
    if (h[i] <= 0) f.fail(str(names1[i], " = ", h[i], ", must be positive"));

  f.record(2, layout.need[2], h);
  in.peinf_ntband_dist = h[0], in.ipe = h[1], in.ispin = h[2], in.ngpown = h[3], in.ncouls = h[4];
  const char* names2[5] = {"peinf_ntband_dist", "ipe", "ispin", "ngpown", "ncouls"};
  for (int i : {0, 3, 4})
    if (h[i] <= 0) f.fail(str(names2[i], " = ", h[i], ", must be positive"));
  layout = Layout(in);
  // All the arrays the header announces, before any of them is allocated. (A header
  // announcing more than the file holds is refused by the record markers instead.)
  long double total = 0;
  for (int r = 3; r <= kRecords; ++r) total += (long double)layout.need[r];
  if (total <= (long double)f.size())
    if (const std::string why = files::io::too_large(total); !why.empty())
      f.fail(str("the arrays of this header ", why));

  read_vector(f, 3, layout.need[3], in.peinf_indext_dist);
  read_vector(f, 4, layout.need[4], in.wfnkq_ekq);

  unsigned char buf[36];
  f.record(5, layout.need[5], buf);
  std::memcpy(&in.nstart, buf, 4);
  std::memcpy(&in.nend, buf + 4, 4);
  std::memcpy(&in.sig_fdf, buf + 8, 4);
  std::memcpy(&in.sig_dw, buf + 12, 8);
  std::memcpy(&in.sig_gamma, buf + 20, 8);
  std::memcpy(&in.e_lk, buf + 28, 8);
  if (!dat_holds_frequencies(in.nstart, in.nend))
    f.fail(str("nstart = ", in.nstart, ", nend = ", in.nend,
               ": the file holds iw = 1..3, so 1 <= nstart <= nend <= 3 is needed"));

  read_vector(f, 6, layout.need[6], in.inv_igp_index);

  f.begin(7, layout.need[7]);
  std::int32_t ng;
  f.read(&ng, 4);
  if (ng != in.gvec_ng) f.fail(str("gvec_ng = ", ng, ", record 1 says ", in.gvec_ng));
  in.indinv.resize(std::size_t(in.gvec_ng));
  f.read(in.indinv.data(), layout.need[7] - 4);
  f.end();

  read_matrix(f, 8, layout.need[8], in.aqsmtemp, "gpp::input::aqsmtemp", in.ncouls, in.peinf_ntband_max);

  f.record(9, layout.need[9], buf);
  std::memcpy(&in.nvband, buf, 4);
  std::memcpy(&in.tol, buf + 4, 8);
  std::memcpy(&in.efermi, buf + 12, 8);

  read_vector(f, 10, layout.need[10], in.vcoul);

  double limits[3];
  f.record(11, layout.need[11], limits);
  in.sexcut = limits[0], in.limittwo = limits[1], in.limitone = limits[2];

  read_matrix(f, 12, layout.need[12], in.wtilde_array, "gpp::input::wtilde_array", in.ncouls, in.ngpown);
  read_matrix(f, 13, layout.need[13], in.I_eps_array, "gpp::input::I_eps_array", in.ncouls, in.ngpown);
  read_matrix(f, 14, layout.need[14], in.aqsntemp, "gpp::input::aqsntemp", in.ncouls, in.peinf_ntband_max);
  for (int r = 0; r < 4; ++r) f.record(15 + r, layout.need[15 + r], in.records_15_18[r].data());
  f.finish();

  const auto& rec = in.records_15_18;
  const auto first = rec[0].begin() + (in.nstart - 1), last = rec[0].begin() + in.nend;
  in.asxtemp0.assign(first, last);
  in.achtemp0.assign(rec[1].begin() + (in.nstart - 1), rec[1].begin() + in.nend);
  bool stored = false;
  for (int iw = in.nstart; iw <= in.nend; ++iw) stored = stored || rec[2][iw - 1] != 0.0 || rec[3][iw - 1] != 0.0;
  if (stored) {
    in.asxtempref.assign(rec[2].begin() + (in.nstart - 1), rec[2].begin() + in.nend);
    in.achtempref.assign(rec[3].begin() + (in.nstart - 1), rec[3].begin() + in.nend);
  }
  // The values for iw = nstart..nend live in the vectors now; records 17 and 18 of a file
  // without a reference keep theirs, zeros whose sign bits a file written back repeats.
  for (int r = 0; r < (stored ? 4 : 2); ++r)
    for (int iw = in.nstart; iw <= in.nend; ++iw) in.records_15_18[r][iw - 1] = 0.0;
  const auto t1 = std::chrono::steady_clock::now();
  try {
    validate(in);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  if (stats) {
    stats->bytes = f.size();
    stats->read_s = std::chrono::duration<double>(t1 - t0).count();
    stats->check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }
  return in;
}

std::int64_t dat_file_bytes(const InputDeck& in) {
  const Layout layout(in);
  std::int64_t total = 0;
  for (int r = 1; r <= kRecords; ++r) total += layout.need[r] + 8;
  return total;
}

namespace {

class DatWriter {
 public:
  DatWriter(const std::string& path, const std::string& temp) : path_(path) {
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw_write_error(path_, errno);
  }
  ~DatWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  DatWriter(const DatWriter&) = delete;
  DatWriter& operator=(const DatWriter&) = delete;

  // One record: marker, the pieces, marker.
  void record(std::initializer_list<std::pair<const void*, std::int64_t>> pieces) {
    std::int64_t n = 0;
    for (const auto& p : pieces) n += p.second;
    const std::int32_t m = std::int32_t(n);
    raw(&m, 4);
    for (const auto& p : pieces) raw(p.first, p.second);
    raw(&m, 4);
  }
  template <class T>
  void vector(const std::vector<T>& v) {
    record({{v.data(), std::int64_t(v.size() * sizeof(T))}});
  }
  void matrix(const HostComplexMatrix& m) {
    // LayoutLeft, unpadded: the View's span is the Fortran array.
    record({{m.data(), std::int64_t(m.span() * sizeof(complex_t))}});
  }
  void close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) throw_write_error(path_, errno);
  }

 private:
  void raw(const void* src, std::int64_t n) {
    const char* p = static_cast<const char*>(src);
    while (n > 0) {
      const ssize_t put = ::write(fd_, p, std::size_t(std::min<std::int64_t>(n, std::int64_t(1) << 30)));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) throw_write_error(path_, errno);
      p += put;
      n -= put;
    }
  }
  std::string path_;
  int fd_ = -1;
};

}  // namespace

std::array<std::array<std::complex<double>, 3>, 4> dat_records_15_18(const InputDeck& in) {
  if (!dat_holds_frequencies(in.nstart, in.nend)) throw Error("records 15..18 hold iw = 1..3 only");
  auto records = in.records_15_18;
  for (int w = 0; w < in.nw(); ++w) {
    const int i = in.nstart - 1 + w;
    records[0][i] = in.asxtemp0.at(w);
    records[1][i] = in.achtemp0.at(w);
    // Without a reference: zeros, with the sign bits of a file's zeros where it had -0.
    const auto zero = [](std::complex<double> z) { return z == 0.0 ? z : std::complex<double>(); };
    records[2][i] = in.has_reference() ? in.asxtempref.at(w) : zero(records[2][i]);
    records[3][i] = in.has_reference() ? in.achtempref.at(w) : zero(records[3][i]);
  }
  return records;
}

void write_dat(const InputDeck& in, const std::string& path) {
  validate_before_writing(in, path);
  if (!dat_holds_frequencies(in.nstart, in.nend))
    throw Error(
        str("cannot write ", path, ": a .dat file holds iw = 1..3, the deck has iw = ", in.nstart, "..", in.nend));
  const Layout layout(in);
  for (int r = 1; r <= kRecords; ++r)
    if (layout.need[r] > kMaxRecord)
      throw Error(str("cannot write ", path, ": record ", r, " (", kRecordName[r], ") would hold ", layout.need[r],
                      " bytes; a 4-byte record marker says at most ", kMaxRecord));
  for (const auto* m : {&in.aqsmtemp, &in.aqsntemp, &in.wtilde_array, &in.I_eps_array})
    if (!m->span_is_contiguous() || m->span() != m->extent(0) * m->extent(1))
      throw Error("cannot write " + path + ": an input matrix is not contiguous");

  const auto records = dat_records_15_18(in);

  AtomicOutput out(path);
  DatWriter w(path, out.temp_path());
  const std::int32_t r1[5] = {in.sig_ntband, in.gvec_ng, in.ncoul, in.epsmpi_ngpown_max, in.peinf_ntband_max};
  const std::int32_t r2[5] = {in.peinf_ntband_dist, in.ipe, in.ispin, in.ngpown, in.ncouls};
  w.record({{r1, 20}});
  w.record({{r2, 20}});
  w.vector(in.peinf_indext_dist);
  w.vector(in.wfnkq_ekq);
  w.record({{&in.nstart, 4}, {&in.nend, 4}, {&in.sig_fdf, 4}, {&in.sig_dw, 8}, {&in.sig_gamma, 8}, {&in.e_lk, 8}});
  w.vector(in.inv_igp_index);
  w.record({{&in.gvec_ng, 4}, {in.indinv.data(), std::int64_t(in.indinv.size() * 4)}});
  w.matrix(in.aqsmtemp);
  w.record({{&in.nvband, 4}, {&in.tol, 8}, {&in.efermi, 8}});
  w.vector(in.vcoul);
  w.record({{&in.sexcut, 8}, {&in.limittwo, 8}, {&in.limitone, 8}});
  w.matrix(in.wtilde_array);
  w.matrix(in.I_eps_array);
  w.matrix(in.aqsntemp);
  for (const auto& r : records) w.record({{r.data(), 48}});
  w.close();
  out.commit();
}

}  // namespace gpp::formats
