#include "gpp_hdf5_io.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_fortran_io.hpp"
#include "gpp_io_util.hpp"
#include "gpp_parallel_read.hpp"
#include "gpp_runtime.hpp"
#include "gpp_stop.hpp"

#ifdef GPP_HAVE_HDF5
#include <hdf5.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <climits>
#include <cstring>
#endif

namespace gpp::formats {
using files::AtomicOutput;
using files::throw_write_error;

#ifndef GPP_HAVE_HDF5

bool have_hdf5() { return false; }

namespace {
[[noreturn]] void no_hdf5(const std::string& path) {
  throw Error(path + ": this gpp was built without HDF5 (reconfigure with -DGPP_ENABLE_HDF5=ON)");
}
}  // namespace

InputDeck read_h5_deck(const std::string& path, ReadStats*) { no_hdf5(path); }
void write_h5_deck(const InputDeck&, const std::string& path) { no_hdf5(path); }

struct H5Record::Impl {};
H5Record::H5Record(const std::string& path) { no_hdf5(path); }
H5Record::~H5Record() = default;
H5Record& H5Record::attribute(const std::string&, const std::string&, const std::string&) { return *this; }
H5Record& H5Record::attribute(const std::string&, const std::string&, double) { return *this; }
H5Record& H5Record::attribute(const std::string&, const std::string&, long long) { return *this; }
H5Record& H5Record::dataset(const std::string&, const std::string&, const std::vector<std::complex<double>>&) {
  return *this;
}
H5Record& H5Record::dataset(const std::string&, const std::string&, std::complex<double>) { return *this; }
H5Record& H5Record::dataset(const std::string&, const std::string&, const std::vector<double>&) { return *this; }
H5Record& H5Record::dataset(const std::string&, const std::string&, const std::vector<int>&) { return *this; }
H5Record& H5Record::link(const std::string&, const std::string&) { return *this; }
void H5Record::commit() {}

#else

bool have_hdf5() { return true; }

namespace {

using files::io::str;

/// Owner of one HDF5 identifier.
class Hid {
 public:
  Hid() = default;
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hid() { close(); }
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      close();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = -1;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }
  herr_t close() {
    herr_t rc = 0;
    if (id_ >= 0 && close_) rc = close_(id_);
    id_ = -1;
    return rc;
  }
  /// Forgets the identifier without closing it (~Writer: a file that was not flushed).
  void abandon() { id_ = -1; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

/// HDF5 prints its error stack by default; gpp reports one line instead. The stack stays
/// silenced for the rest of the process.
class QuietHdf5 {
 public:
  QuietHdf5() {
    static const bool once = [] {
      // No library shutdown at exit: after a failed write (a full disk) the file cannot
      // be closed, and H5_term_library then segfaults closing it (HDF5 1.10). Every file
      // gpp writes is flushed and closed explicitly before it is renamed into place.
      H5dont_atexit();
      H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
      return true;
    }();
    (void)once;
  }
};

/// The compound {r, i} that h5py reads and writes as complex.
Hid complex_type(hid_t member) {
  Hid t(H5Tcreate(H5T_COMPOUND, 16), H5Tclose);
  H5Tinsert(t, "r", 0, member);
  H5Tinsert(t, "i", 8, member);
  return t;
}

// A byte count or offset as digits (as a double beyond what 64 bits hold).
std::string bytes_text(long double n) {
  if (n < 9e18L) return std::to_string((long long)n);
  return str((double)n);
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string s;
  for (hsize_t d : dims) s += "[" + std::to_string(d) + "]";
  return s;
}

// ---------------------------------------------------------------- writing

const char* const kLayoutNote =
    "gpp deck (docs/io.md): arrays under their Fortran names; complex is the compound {r, i} of doubles; "
    "a Fortran array a(rows, cols) is stored with HDF5 dims [cols][rows] (same bytes, h5py sees a[col][row]); "
    "scalars of records 1, 2, 5, 9, 11 are attributes of the root group";

class Writer {
 public:
  explicit Writer(const std::string& path) : out_(path) {
    // No object time stamps: the same deck gives the same bytes.
    ocpl_ = Hid(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    gcpl_ = Hid(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    lcpl_ = Hid(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    if (!ocpl_.valid() || !gcpl_.valid() || !lcpl_.valid() || !fcpl.valid()) fail("HDF5 cannot create property lists");
    H5Pset_obj_track_times(ocpl_, 0);
    H5Pset_obj_track_times(gcpl_, 0);
    H5Pset_obj_track_times(fcpl, 0);
    H5Pset_create_intermediate_group(lcpl_, 1);
    struct stat st;
    // HDF5 does not say why a create failed; the directory is the usual reason.
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    if (::stat(dir.c_str(), &st) != 0) throw_write_error(path, errno);
    file_ = Hid(H5Fcreate(out_.temp_path().c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) fail("HDF5 cannot create " + out_.temp_path());
  }

  /// A file that was not flushed whole is never closed: after a failed write (a full
  /// disk, a file-size limit) its metadata cache cannot be flushed, and closing it then
  /// ends in an assertion inside HDF5 2.x (H5F__dest: `H5AC_cache_is_clean`, an abort in
  /// Debian's HDF5 2.2) where 1.10 returned an error. Its identifier is left open (the
  /// process ends with the error, and no library shutdown runs at exit: QuietHdf5), and
  /// AtomicOutput removes the temporary file by name, so no partial file is left.
  ~Writer() {
    if (!flushed_) file_.abandon();
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  [[noreturn]] void fail(const std::string& what) const { throw Error("cannot write " + out_.path() + ": " + what); }
  /// fail() after an HDF5 call that writes, naming the system's reason when the write
  /// system call under it set one a user can act on (errno is cleared before each such
  /// call): "cannot write dataset aqsmtemp (No space left on device)".
  /// Without such a reason, `guess` (if any) is said instead.
  [[noreturn]] void fail_write(const std::string& what, const char* guess = nullptr) const {
    const int e = errno;
    if (e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO) fail(what + " (" + std::strerror(e) + ")");
    fail(guess ? what + " (" + guess + ")" : what);
  }

  /// The group `g` ("" or "/": the root), created with its parents if missing.
  Hid group(const std::string& g) {
    const std::string name = g.empty() ? "/" : g;
    if (name == "/" || H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0) {
      Hid h(H5Gopen2(file_, name.c_str(), H5P_DEFAULT), H5Gclose);
      if (!h.valid()) fail("cannot open group " + name);
      return h;
    }
    errno = 0;
    Hid h(H5Gcreate2(file_, name.c_str(), lcpl_, gcpl_, H5P_DEFAULT), H5Gclose);
    if (!h.valid()) fail_write("cannot create group " + name);
    return h;
  }

  void attribute(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, const void* value) {
    Hid space(H5Screate(H5S_SCALAR), H5Sclose);
    errno = 0;
    Hid a(H5Acreate2(loc, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Awrite(a, mem_type, value) < 0) fail_write("cannot write attribute " + name);
  }
  void attribute(hid_t loc, const std::string& name, int v) { attribute(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT, &v); }
  void attribute(hid_t loc, const std::string& name, long long v) {
    attribute(loc, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &v);
  }
  void attribute(hid_t loc, const std::string& name, double v) {
    attribute(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
  }
  void attribute(hid_t loc, const std::string& name, const std::string& v) {
    // Variable-length UTF-8: h5py returns a str.
    Hid t(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    const char* p = v.c_str();
    attribute(loc, name, t, t, &p);
  }

  void dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, const std::vector<hsize_t>& dims,
               const void* data, const std::string& fortran = "") {
    Hid space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
              H5Sclose);
    errno = 0;
    Hid d(H5Dcreate2(loc, name.c_str(), file_type, space, lcpl_, ocpl_, H5P_DEFAULT), H5Dclose);
    if (!d.valid()) fail_write("cannot create dataset " + name);
    if (H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) fail_write("cannot write dataset " + name);
    if (!fortran.empty()) attribute(d, "fortran", fortran);
  }
  void complexes(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, const void* data,
                 const std::string& fortran = "") {
    dataset(loc, name, complex_type(H5T_IEEE_F64LE), complex_type(H5T_NATIVE_DOUBLE), dims, data, fortran);
  }

  void link(const std::string& name, const std::string& target) {
    if (H5Lcreate_soft(target.c_str(), file_, name.c_str(), lcpl_, H5P_DEFAULT) < 0)
      fail("cannot create link " + name + " -> " + target);
  }

  /// Flushes, closes and renames the file into place. Only a flush that succeeded is
  /// followed by a close (see ~Writer).
  void commit() {
    errno = 0;
    const char* guess = "disk full, or a file-size limit?";
    if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) fail_write("HDF5 cannot finish the file", guess);
    flushed_ = true;  // closing it is safe now
    if (file_.close() < 0) fail_write("HDF5 cannot finish the file", guess);
    out_.commit();
  }

 private:
  AtomicOutput out_;  // first: destroyed last, after the file is closed
  Hid ocpl_, gcpl_, lcpl_, file_;
  bool flushed_ = false;
};

// ---------------------------------------------------------------- reading

enum class Kind { Integer, Real, Complex };

std::string type_text(hid_t t) {
  switch (H5Tget_class(t)) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "float";
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND: {
      std::string s = "compound {";
      const int n = H5Tget_nmembers(t);
      for (int i = 0; i < n; ++i) {
        char* m = H5Tget_member_name(t, unsigned(i));
        s += (i ? ", " : "") + std::string(m ? m : "?");
        H5free_memory(m);
      }
      return s + "}";
    }
    default:
      return "another type";
  }
}

bool is_complex(hid_t t) {
  if (H5Tget_class(t) != H5T_COMPOUND || H5Tget_nmembers(t) != 2) return false;
  bool r = false, i = false;
  for (unsigned k = 0; k < 2; ++k) {
    char* m = H5Tget_member_name(t, k);
    const std::string name = m ? m : "";
    H5free_memory(m);
    if (H5Tget_member_class(t, k) != H5T_FLOAT) return false;
    r = r || name == "r";
    i = i || name == "i";
  }
  return r && i;
}

/// "" when the compound {r, i} `t` is laid out so that HDF5 can convert it: each
/// member a 4- or 8-byte float (or the native double), inside the compound, the two not
/// overlapping. A damaged member offset or size otherwise makes the conversion read
/// out of bounds (a segfault inside the library).
std::string complex_layout_problem(hid_t t) {
  const std::size_t size = H5Tget_size(t);
  if (size == 0 || size > 64) return str("a compound of ", size, " bytes");
  std::size_t begin[2], end[2];
  for (unsigned k = 0; k < 2; ++k) {
    Hid m(H5Tget_member_type(t, k), H5Tclose);
    if (!m.valid()) return "an unreadable member type";
    const std::size_t msize = H5Tget_size(m);
    if (msize != 4 && msize != 8) return str("a member of ", msize, " bytes (expected 4 or 8)");
    // The library's own float checks: precision, exponent and mantissa inside the member.
    std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, mantsize = 0;
    if (H5Tget_fields(m, &spos, &epos, &esize, &mpos, &mantsize) < 0 || H5Tget_precision(m) == 0 ||
        H5Tget_precision(m) + std::size_t(H5Tget_offset(m) < 0 ? 0 : H5Tget_offset(m)) > 8 * msize ||
        spos >= 8 * msize || epos + esize > 8 * msize || mpos + mantsize > 8 * msize || esize == 0 || mantsize == 0)
      return "a member with damaged float fields";
    const std::size_t off = H5Tget_member_offset(t, k);
    if (off > size || msize > size - off)
      return str("a member at offset ", off, " outside the ", size, "-byte compound");
    begin[k] = off;
    end[k] = off + msize;
  }
  if (begin[0] < end[1] && begin[1] < end[0]) return "overlapping members";
  return "";
}

class Reader {
 public:
  /// Check the file's structure (attributes, dataset types, shapes, layouts) without
  /// reading the large matrices (the forked pre-flight of read_h5_deck).
  bool structure_only = false;

  explicit Reader(const std::string& path) : path_(path) {
    files::io::require_regular_file(path);
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      std::fclose(f);
    } else {
      throw Error(str("cannot read ", path, ": ", std::strerror(errno)));
    }
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) file_bytes_ = (long double)st.st_size;
    if (H5Fis_hdf5(path.c_str()) <= 0) fail("not an HDF5 file");
    file_ = Hid(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) fail("HDF5 cannot open it (truncated or damaged file?)");
  }

  [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }

  Hid attribute(const char* name, bool integer) {
    if (H5Aexists(file_, name) <= 0) fail(str("attribute ", name, " of / is missing"));
    Hid a(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose);
    Hid t(H5Aget_type(a), H5Tclose);
    Hid s(H5Aget_space(a), H5Sclose);
    if (!a.valid() || !t.valid() || !s.valid()) fail(str("attribute ", name, " cannot be read"));
    const H5T_class_t c = H5Tget_class(t);
    if (integer ? c != H5T_INTEGER : c != H5T_FLOAT && c != H5T_INTEGER)
      fail(
          str("attribute ", name, " has type ", type_text(t), ", expected ", integer ? "an integer" : "a real number"));
    if (const std::size_t size = H5Tget_size(t); size == 0 || size > 8)
      fail(str("attribute ", name, " has ", size, "-byte values, expected at most 8"));
    if (H5Sget_simple_extent_npoints(s) != 1)
      fail(str("attribute ", name, " holds ", H5Sget_simple_extent_npoints(s), " values, expected one"));
    return a;
  }
  int int_attr(const char* name) {
    Hid a = attribute(name, true);
    long long v = 0;
    if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0) fail(str("attribute ", name, " cannot be read"));
    if (v < INT_MIN || v > INT_MAX) fail(str("attribute ", name, " = ", v, " does not fit a 4-byte integer"));
    return int(v);
  }
  double real_attr(const char* name) {
    Hid a = attribute(name, false);
    double v = 0;
    if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) fail(str("attribute ", name, " cannot be read"));
    return v;
  }

  bool has(const char* name) const { return H5Lexists(file_, name, H5P_DEFAULT) > 0; }

  // Only hard links are followed: a soft or external link could point anywhere (another
  // file, a FIFO, back into this one).
  void require_hard_link(const char* name) const {
    H5L_info_t info;
    if (H5Lget_info(file_, name, &info, H5P_DEFAULT) < 0) fail(str(name, " cannot be opened (damaged file?)"));
    if (info.type != H5L_TYPE_HARD)
      fail(str(name, " is a ",
               info.type == H5L_TYPE_SOFT       ? "soft"
               : info.type == H5L_TYPE_EXTERNAL ? "external"
                                                : "user-defined",
               " link, not a dataset stored in the file"));
  }

  // The dataset `name`, its presence, type, rank, shape and stored size checked.
  // `dims_text` names the expected dims, e.g. "[ngpown][ncouls]".
  Hid dataset(const char* name, Kind kind, const std::vector<hsize_t>& dims, const std::string& dims_text) {
    if (!has(name)) fail(str("dataset ", name, " is missing"));
    require_hard_link(name);
    {
      Hid o(H5Oopen(file_, name, H5P_DEFAULT), H5Oclose);
      if (!o.valid() || H5Iget_type(o) != H5I_DATASET) fail(str(name, " is not a dataset"));
    }
    Hid d(H5Dopen2(file_, name, H5P_DEFAULT), H5Dclose);
    Hid t(H5Dget_type(d), H5Tclose);
    Hid s(H5Dget_space(d), H5Sclose);
    if (!d.valid() || !t.valid() || !s.valid()) fail(str("dataset ", name, " cannot be opened"));
    const H5T_class_t c = H5Tget_class(t);
    const bool type_ok = kind == Kind::Integer ? c == H5T_INTEGER : kind == Kind::Real ? c == H5T_FLOAT : is_complex(t);
    if (!type_ok)
      fail(str("dataset ", name, " has type ", type_text(t), ", expected ",
               kind == Kind::Integer ? "integer"
               : kind == Kind::Real  ? "float"
                                     : "complex (compound {r, i} of floats)"));
    if (kind == Kind::Complex) {
      if (const std::string why = complex_layout_problem(t); !why.empty())
        fail(str("dataset ", name, " has a damaged complex type: ", why));
    } else if (const std::size_t size = H5Tget_size(t); size == 0 || size > 8) {
      fail(str("dataset ", name, " has ", size, "-byte elements, expected at most 8"));
    }
    const int rank = H5Sget_simple_extent_ndims(s);
    std::vector<hsize_t> have(rank > 0 ? rank : 0);
    if (rank > 0) H5Sget_simple_extent_dims(s, have.data(), nullptr);
    if (rank < 0 || have != dims)
      fail(str("dataset ", name, " has shape ", shape_text(have), ", expected ", shape_text(dims), " (", dims_text,
               ")"));
    long double elements = 1;
    for (hsize_t n : dims) elements *= (long double)n;
    const long double need = elements * (long double)H5Tget_size(t);
    Hid plist(H5Dget_create_plist(d), H5Pclose);
    if (!plist.valid()) fail(str("dataset ", name, " cannot be opened (damaged file?)"));
    const H5D_layout_t layout = H5Pget_layout(plist);
    if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT)
      fail(str("dataset ", name, " has a storage layout gpp does not read (virtual or unknown)"));
    if (H5Pget_external_count(plist) != 0) fail(str("dataset ", name, " keeps its data in external files"));
    if (layout == H5D_CONTIGUOUS && (long double)H5Dget_storage_size(d) < need)
      fail(str("dataset ", name, " holds ", H5Dget_storage_size(d), " bytes of data, its shape needs ", (double)need));
    // A chunked dataset created but never (or only partly) written reads as its fill
    // value: zeros that look like data.
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    if (elements > 0 && (H5Dget_space_status(d, &status) < 0 || status == H5D_SPACE_STATUS_NOT_ALLOCATED))
      fail(str("dataset ", name, " was created but never written (no data stored)"));
    // The data must be in the file before anything is allocated for them: a header can
    // claim any size, and a damaged one would otherwise make gpp allocate (and fill)
    // gigabytes for a file of a few kilobytes. Contiguous data lie in one range of the
    // file; chunks are stored in it too, compressed ones smaller than the data they hold.
    if (elements > 0 && layout == H5D_CONTIGUOUS) {
      const haddr_t at = H5Dget_offset(d);
      if (at == HADDR_UNDEF) fail(str("dataset ", name, " has no address for its data (damaged file?)"));
      if ((long double)at + need > file_bytes_)
        fail(str("dataset ", name, " has its data at bytes ", at, " to ", bytes_text((long double)at + need),
                 ", past the end of the file (", bytes_text(file_bytes_), " bytes): truncated or damaged file"));
    }
    if (elements > 0 && layout == H5D_CHUNKED) {
      const long double stored = (long double)H5Dget_storage_size(d);
      if (stored > file_bytes_ || (H5Pget_nfilters(plist) == 0 && need > file_bytes_))
        fail(str("dataset ", name, " claims ", bytes_text(std::max(stored, need)),
                 " bytes of chunks, more than the file's ", bytes_text(file_bytes_),
                 " bytes: truncated or damaged file"));
    }
    if (elements > 0 && layout == H5D_CHUNKED) {
      // Every chunk stored (H5Dget_space_status miscounts partial edge chunks in 1.10).
      std::vector<hsize_t> chunk(dims.size());
      if (H5Pget_chunk(plist, int(chunk.size()), chunk.data()) != int(chunk.size()))
        fail(str("dataset ", name, " has a damaged chunk layout"));
      long double want = 1;
      for (std::size_t k = 0; k < dims.size(); ++k) {
        if (chunk[k] == 0) fail(str("dataset ", name, " has a damaged chunk layout"));
        want *= (long double)((dims[k] + chunk[k] - 1) / chunk[k]);
      }
      hsize_t stored = 0;
      if (H5Dget_num_chunks(d, s, &stored) < 0) fail(str("dataset ", name, " cannot be read (damaged chunk index?)"));
      if ((long double)stored < want)
        fail(str("dataset ", name, " was created but only partly written (", stored, " of ", (double)want,
                 " chunks stored)"));
    }
    if (const std::string why = files::io::too_large(elements * 16); !why.empty())
      fail(str("dataset ", name, " ", why));
    return d;
  }

  void read(hid_t d, const char* name, hid_t mem_type, void* buf) {
    if (H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      fail(str("dataset ", name, " cannot be read (truncated or damaged file?)"));
  }

  std::vector<int> ints(const char* name, int n, const char* dims_text) {
    Hid d = dataset(name, Kind::Integer, {hsize_t(n)}, dims_text);
    std::vector<long long> wide(static_cast<std::size_t>(n));
    read(d, name, H5T_NATIVE_LLONG, wide.data());
    std::vector<int> v(wide.size());
    for (std::size_t i = 0; i < wide.size(); ++i) {
      if (wide[i] < INT_MIN || wide[i] > INT_MAX)
        fail(str("dataset ", name, "(", i + 1, ") = ", wide[i], " does not fit a 4-byte integer"));
      v[i] = int(wide[i]);
    }
    return v;
  }
  std::vector<double> reals(const char* name, int n, const char* dims_text) {
    Hid d = dataset(name, Kind::Real, {hsize_t(n)}, dims_text);
    std::vector<double> v(static_cast<std::size_t>(n));
    read(d, name, H5T_NATIVE_DOUBLE, v.data());
    return v;
  }
  std::vector<std::complex<double>> complexes(const char* name, const std::vector<hsize_t>& dims,
                                              const std::string& dims_text) {
    Hid d = dataset(name, Kind::Complex, dims, dims_text);
    std::size_t n = 1;
    for (hsize_t k : dims) n *= std::size_t(k);
    std::vector<std::complex<double>> v(n);
    read(d, name, complex_type(H5T_NATIVE_DOUBLE), v.data());
    return v;
  }
  // A Fortran (rows, cols) array, stored as [cols][rows], read straight into the View.
  HostComplexMatrix matrix(const char* name, int rows, int cols, const char* dims_text) {
    Hid d = dataset(name, Kind::Complex, {hsize_t(cols), hsize_t(rows)}, dims_text);
    if (structure_only) return HostComplexMatrix();
    HostComplexMatrix m;
    try {
      m = runtime::host_view<HostComplexMatrix>(std::string("gpp::input::") + name, rows, cols);
    } catch (const std::exception&) {
      fail(str("dataset ", name, ": cannot allocate ", (long double)rows * cols * 16, " bytes"));
    }
    if (!read_in_parallel(d, m.data(), std::int64_t(rows) * cols))
      read(d, name, complex_type(H5T_NATIVE_DOUBLE), m.data());
    return m;
  }

  // A large contiguous dataset stored as the memory image of the View ({r, i} of
  // little-endian doubles: what gpp and h5py write, no filters) is one byte range of the
  // file: read with pread by several threads (gpp_parallel_read.hpp). Three elements are
  // then read again through the library and compared; any doubt (another layout or type,
  // a user block, an address the library does not give, a failed read, a mismatch)
  // returns false and the library reads it instead.
  bool read_in_parallel(hid_t d, void* buf, const std::int64_t elements) {
    const std::int64_t bytes = elements * 16;
    if (bytes < formats::kParallelReadBytes) return false;
    Hid plist(H5Dget_create_plist(d), H5Pclose), fcpl(H5Fget_create_plist(file_), H5Pclose);
    Hid file_type(H5Dget_type(d), H5Tclose), space(H5Dget_space(d), H5Sclose);
    const Hid mem_type = complex_type(H5T_NATIVE_DOUBLE);
    hsize_t userblock = 1;
    if (!plist.valid() || !fcpl.valid() || !file_type.valid() || !space.valid() ||
        H5Pget_layout(plist) != H5D_CONTIGUOUS || H5Pget_nfilters(plist) != 0 ||
        H5Pget_userblock(fcpl, &userblock) < 0 || userblock != 0 || H5Tequal(file_type, mem_type) <= 0 ||
        H5Sget_simple_extent_ndims(space) != 2)
      return false;
    const haddr_t address = H5Dget_offset(d);
    if (address == HADDR_UNDEF) return false;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const std::string why = formats::parallel_pread(fd, std::int64_t(address), buf, bytes);
    ::close(fd);
    if (!why.empty()) return false;
    hsize_t dims[2];
    H5Sget_simple_extent_dims(space, dims, nullptr);
    const hsize_t one = 1;
    Hid mem_space(H5Screate_simple(1, &one, nullptr), H5Sclose);
    for (const std::int64_t k : {std::int64_t(0), elements / 2, elements - 1}) {
      const hsize_t start[2] = {hsize_t(k) / dims[1], hsize_t(k) % dims[1]}, count[2] = {1, 1};
      unsigned char check[16];
      if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
          H5Dread(d, mem_type, mem_space, space, H5P_DEFAULT, check) < 0 ||
          std::memcmp(check, static_cast<const unsigned char*>(buf) + 16 * k, 16) != 0)
        return false;
    }
    return true;
  }

 private:
  std::string path_;
  long double file_bytes_ = 0;  // the file's size: where every dataset's data must end
  Hid file_;
};

}  // namespace

namespace {

InputDeck read_deck(const std::string& path, ReadStats* stats, bool structure_only);

// HDF5 1.10 can crash (SIGSEGV) or loop on a damaged object header, inside the library
// and before any check of ours can see the damage (the attack harness found such bytes
// in the attribute messages). The structure is therefore first read in a forked child,
// which reports an error in one line or dies alone; only a file whose structure reads
// cleanly is then read here (the same bytes, so the same code paths succeed).
void preflight(const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) return;  // no pre-flight possible: read directly
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {
    ::close(fds[0]);
    // The child may die of the crash it exists for: silently, not through a handler the
    // parent installed (an MPI library's prints a stack trace of a dozen lines). Ctrl-C
    // ends it at once: the parent's stop (files/gpp_stop.hpp) has no thread here.
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM}) std::signal(sig, SIG_DFL);
    ::alarm(120);  // a damaged header that makes the library loop
    std::string msg;
    try {
      read_deck(path, nullptr, true);
    } catch (const std::exception& e) {
      msg = e.what();
    } catch (...) {
      msg = path + ": cannot be read";
    }
    for (std::size_t done = 0; done < msg.size();) {
      const ssize_t n = ::write(fds[1], msg.data() + done, msg.size() - done);
      if (n <= 0) break;
      done += std::size_t(n);
    }
    ::_exit(msg.empty() ? 0 : 3);
  }
  ::close(fds[1]);
  files::end_on_stop(pid, false);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    msg.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  files::forget_child(pid);
  if (WIFSIGNALED(status))
    throw Error(
        path + ": damaged HDF5 structure (the HDF5 library " +
        (WTERMSIG(status) == SIGALRM ? std::string("did not finish reading it") : std::string("crashed reading it")) +
        ")");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) throw Error(msg);
  // Only a child that returned from the reading proves the structure sound: one that another
  // party ended with some other status (a runtime's limit, an exit() inside a library) did
  // not finish it, and the same read here would meet what ended it.
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(path + ": damaged HDF5 structure (reading it ended with exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ", before any result)");
}

}  // namespace

InputDeck read_h5_deck(const std::string& path, ReadStats* stats) {
  files::io::require_regular_file(path);
  preflight(path);
  return read_deck(path, stats, false);
}

namespace {

InputDeck read_deck(const std::string& path, ReadStats* stats, bool structure_only) {
  const auto t0 = std::chrono::steady_clock::now();
  QuietHdf5 quiet;
  Reader f(path);
  f.structure_only = structure_only;
  InputDeck in;
  struct IntAttr {
    const char* name;
    int* field;
    bool size;  // must be positive
  };
  const IntAttr ints[] = {{"sig_ntband", &in.sig_ntband, true},
                          {"gvec_ng", &in.gvec_ng, true},
                          {"ncoul", &in.ncoul, true},
                          {"epsmpi_ngpown_max", &in.epsmpi_ngpown_max, true},
                          {"peinf_ntband_max", &in.peinf_ntband_max, true},
                          {"peinf_ntband_dist", &in.peinf_ntband_dist, true},
                          {"ipe", &in.ipe, false},
                          {"ispin", &in.ispin, false},
                          {"ngpown", &in.ngpown, true},
                          {"ncouls", &in.ncouls, true},
                          {"nstart", &in.nstart, false},
                          {"nend", &in.nend, false},
                          {"sig_fdf", &in.sig_fdf, false},
                          {"nvband", &in.nvband, false}};
  for (const auto& a : ints) {
    *a.field = f.int_attr(a.name);
    if (a.size && *a.field <= 0) f.fail(str("attribute ", a.name, " = ", *a.field, ", must be positive"));
  }
  if (in.nstart > in.nend || (long long)in.nend - in.nstart >= 1024)
    f.fail(str("attributes nstart = ", in.nstart, ", nend = ", in.nend,
               ": need nstart <= nend and at most 1024 frequencies"));
  const std::pair<const char*, double*> reals[] = {
      {"sig_dw", &in.sig_dw}, {"sig_gamma", &in.sig_gamma}, {"e_lk", &in.e_lk},         {"tol", &in.tol},
      {"efermi", &in.efermi}, {"sexcut", &in.sexcut},       {"limittwo", &in.limittwo}, {"limitone", &in.limitone}};
  for (const auto& [name, field] : reals) *field = f.real_attr(name);

  in.peinf_indext_dist = f.ints("peinf_indext_dist", in.peinf_ntband_max, "[peinf_ntband_max]");
  in.wfnkq_ekq = f.reals("wfnkq_ekq", in.sig_ntband, "[sig_ntband]");
  in.inv_igp_index = f.ints("inv_igp_index", in.epsmpi_ngpown_max, "[epsmpi_ngpown_max]");
  in.indinv = f.ints("indinv", in.gvec_ng, "[gvec_ng]");
  in.vcoul = f.reals("vcoul", in.ncoul, "[ncoul]");
  {
    // The four matrices' presence, types and shapes first, then all of them against
    // the memory available, before any of them is allocated.
    f.dataset("aqsmtemp", Kind::Complex, {hsize_t(in.peinf_ntband_max), hsize_t(in.ncouls)},
              "[peinf_ntband_max][ncouls]");
    f.dataset("wtilde_array", Kind::Complex, {hsize_t(in.ngpown), hsize_t(in.ncouls)}, "[ngpown][ncouls]");
    f.dataset("I_eps_array", Kind::Complex, {hsize_t(in.ngpown), hsize_t(in.ncouls)}, "[ngpown][ncouls]");
    f.dataset("aqsntemp", Kind::Complex, {hsize_t(in.peinf_ntband_max), hsize_t(in.ncouls)},
              "[peinf_ntband_max][ncouls]");
    const long double matrices = 16.0L * in.ncouls * (2.0L * in.peinf_ntband_max + 2.0L * in.ngpown);
    if (const std::string why = files::io::too_large(matrices); !why.empty()) f.fail(str("its four matrices ", why));
  }
  in.aqsmtemp = f.matrix("aqsmtemp", in.ncouls, in.peinf_ntband_max, "[peinf_ntband_max][ncouls]");
  in.wtilde_array = f.matrix("wtilde_array", in.ncouls, in.ngpown, "[ngpown][ncouls]");
  in.I_eps_array = f.matrix("I_eps_array", in.ncouls, in.ngpown, "[ngpown][ncouls]");
  in.aqsntemp = f.matrix("aqsntemp", in.ncouls, in.peinf_ntband_max, "[peinf_ntband_max][ncouls]");
  const std::vector<hsize_t> nw{hsize_t(in.nw())};
  in.asxtemp0 = f.complexes("asxtemp0", nw, "[nend-nstart+1]");
  in.achtemp0 = f.complexes("achtemp0", nw, "[nend-nstart+1]");
  if (f.has("asxtempref") || f.has("achtempref")) {
    in.asxtempref = f.complexes("asxtempref", nw, "[nend-nstart+1], stored with achtempref");
    in.achtempref = f.complexes("achtempref", nw, "[nend-nstart+1], stored with asxtempref");
  }
  if (f.has("records_15_18")) {
    if (!dat_holds_frequencies(in.nstart, in.nend))
      f.fail("dataset records_15_18 needs 1 <= nstart <= nend <= 3 (it holds iw = 1..3)");
    const auto r = f.complexes("records_15_18", {4, 3}, "[record 15..18][iw = 1..3]");
    for (int k = 0; k < 4; ++k)
      for (int iw = 1; iw <= 3; ++iw)
        in.records_15_18[k][iw - 1] = iw >= in.nstart && iw <= in.nend ? std::complex<double>() : r[3 * k + iw - 1];
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (structure_only) return in;
  try {
    validate(in);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  if (stats) {
    struct stat st;
    stats->bytes = ::stat(path.c_str(), &st) == 0 ? std::int64_t(st.st_size) : 0;
    stats->read_s = std::chrono::duration<double>(t1 - t0).count();
    stats->check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }
  return in;
}

}  // namespace

void write_h5_deck(const InputDeck& in, const std::string& path) {
  validate_before_writing(in, path);
  QuietHdf5 quiet;
  Writer w(path);
  Hid root = w.group("/");
  w.attribute(root, "format", std::string("gpp-deck"));
  w.attribute(root, "format_version", 1);
  w.attribute(root, "layout", std::string(kLayoutNote));
  const std::pair<const char*, int> ints[] = {{"sig_ntband", in.sig_ntband},
                                              {"gvec_ng", in.gvec_ng},
                                              {"ncoul", in.ncoul},
                                              {"epsmpi_ngpown_max", in.epsmpi_ngpown_max},
                                              {"peinf_ntband_max", in.peinf_ntband_max},
                                              {"peinf_ntband_dist", in.peinf_ntband_dist},
                                              {"ipe", in.ipe},
                                              {"ispin", in.ispin},
                                              {"ngpown", in.ngpown},
                                              {"ncouls", in.ncouls},
                                              {"nstart", in.nstart},
                                              {"nend", in.nend},
                                              {"sig_fdf", in.sig_fdf},
                                              {"nvband", in.nvband}};
  for (const auto& [name, v] : ints) w.attribute(root, name, v);
  const std::pair<const char*, double> reals[] = {
      {"sig_dw", in.sig_dw}, {"sig_gamma", in.sig_gamma}, {"e_lk", in.e_lk},         {"tol", in.tol},
      {"efermi", in.efermi}, {"sexcut", in.sexcut},       {"limittwo", in.limittwo}, {"limitone", in.limitone}};
  for (const auto& [name, v] : reals) w.attribute(root, name, v);

  auto ints1 = [&](const char* name, const std::vector<int>& v, const char* fortran) {
    w.dataset(root, name, H5T_STD_I32LE, H5T_NATIVE_INT, {hsize_t(v.size())}, v.data(), fortran);
  };
  auto reals1 = [&](const char* name, const std::vector<double>& v, const char* fortran) {
    w.dataset(root, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hsize_t(v.size())}, v.data(), fortran);
  };
  auto matrix = [&](const char* name, const HostComplexMatrix& m, const char* fortran) {
    if (!m.span_is_contiguous() || m.span() != m.extent(0) * m.extent(1))
      w.fail(str("input matrix ", name, " is not contiguous"));
    w.complexes(root, name, {hsize_t(m.extent(1)), hsize_t(m.extent(0))}, m.data(), fortran);
  };
  auto per_iw = [&](const char* name, const std::vector<std::complex<double>>& v) {
    w.complexes(root, name, {hsize_t(v.size())}, v.data(), "iw = nstart..nend");
  };
  ints1("peinf_indext_dist", in.peinf_indext_dist, "peinf_indext_dist(peinf_ntband_max)");
  reals1("wfnkq_ekq", in.wfnkq_ekq, "wfnkq_ekq(sig_ntband)");
  ints1("inv_igp_index", in.inv_igp_index, "inv_igp_index(epsmpi_ngpown_max)");
  ints1("indinv", in.indinv, "indinv(gvec_ng)");
  reals1("vcoul", in.vcoul, "vcoul(ncoul)");
  matrix("aqsmtemp", in.aqsmtemp, "aqsmtemp(ncouls, peinf_ntband_max): HDF5 dims [peinf_ntband_max][ncouls]");
  matrix("wtilde_array", in.wtilde_array, "wtilde_array(ncouls, ngpown): HDF5 dims [ngpown][ncouls]");
  matrix("I_eps_array", in.I_eps_array, "I_eps_array(ncouls, ngpown): HDF5 dims [ngpown][ncouls]");
  matrix("aqsntemp", in.aqsntemp, "aqsntemp(ncouls, peinf_ntband_max): HDF5 dims [peinf_ntband_max][ncouls]");
  per_iw("asxtemp0", in.asxtemp0);
  per_iw("achtemp0", in.achtemp0);
  if (in.has_reference()) {
    per_iw("asxtempref", in.asxtempref);
    per_iw("achtempref", in.achtempref);
  }
  // Only a .dat file has values for iw outside nstart..nend; keep them when there are.
  bool outside = false;
  for (const auto& r : in.records_15_18)
    for (const auto& z : r) outside = outside || z != 0.0;
  if (outside && dat_holds_frequencies(in.nstart, in.nend)) {
    const auto r = dat_records_15_18(in);
    w.complexes(root, "records_15_18", {4, 3}, r.data(),
                "records 15..18 of the .dat file (asxtemp, achtemp, asxtempref, achtempref) for iw = 1..3");
  }
  root.close();
  w.commit();
}

struct H5Record::Impl {
  QuietHdf5 quiet;
  Writer writer;
  explicit Impl(const std::string& path) : writer(path) {}
};

H5Record::H5Record(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
H5Record::~H5Record() = default;

H5Record& H5Record::attribute(const std::string& group, const std::string& name, const std::string& value) {
  impl_->writer.attribute(impl_->writer.group(group), name, value);
  return *this;
}
H5Record& H5Record::attribute(const std::string& group, const std::string& name, double value) {
  impl_->writer.attribute(impl_->writer.group(group), name, value);
  return *this;
}
H5Record& H5Record::attribute(const std::string& group, const std::string& name, long long value) {
  impl_->writer.attribute(impl_->writer.group(group), name, value);
  return *this;
}
H5Record& H5Record::dataset(const std::string& group, const std::string& name,
                            const std::vector<std::complex<double>>& v) {
  impl_->writer.complexes(impl_->writer.group(group), name, {hsize_t(v.size())}, v.data());
  return *this;
}
H5Record& H5Record::dataset(const std::string& group, const std::string& name, std::complex<double> scalar) {
  impl_->writer.complexes(impl_->writer.group(group), name, {}, &scalar);
  return *this;
}
H5Record& H5Record::dataset(const std::string& group, const std::string& name, const std::vector<double>& v) {
  impl_->writer.dataset(impl_->writer.group(group), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hsize_t(v.size())},
                        v.data());
  return *this;
}
H5Record& H5Record::dataset(const std::string& group, const std::string& name, const std::vector<int>& v) {
  impl_->writer.dataset(impl_->writer.group(group), name, H5T_STD_I32LE, H5T_NATIVE_INT, {hsize_t(v.size())}, v.data());
  return *this;
}
H5Record& H5Record::link(const std::string& name, const std::string& target) {
  impl_->writer.link(name, target);
  return *this;
}
void H5Record::commit() { impl_->writer.commit(); }

#endif  // GPP_HAVE_HDF5

}  // namespace gpp::formats
