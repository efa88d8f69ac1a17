#pragma once
// gpp as a library: the General Plasmon Pole self-energy sums on a caller's arrays, with
// the kernels, policies, references and run records of the `gpp` command
// (docs/library.md). This header and <gpp/gpp.h> (the C interface) are the whole public
// face; nothing else of gpp is installed.
//
// The arrays are the Fortran benchmark's (docs/gpp-spec.md section 1), column-major, with
// its shapes: host pointers are wrapped as they are (no copy on the host), Kokkos Views
// of any memory space the build's execution spaces can read are read in place. Kokkos's
// lifetime is the caller's: gpp::api::Runtime starts it only if it is not running, and
// ends only what it started.
#include <Kokkos_Core.hpp>

#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpp::api {

/// What went wrong, as <gpp/gpp.h>'s gpp_status numbers it.
enum class Status : int {
  ok = 0,
  argument = 1,      // an array or an option the caller gave: wrong shape, null, not finite, ...
  runtime = 2,       // Kokkos cannot start (no device), was finalized, or is not running
  policy = 3,        // unknown policy or space, tunables the policy cannot run with
  verification = 4,  // the sums differ from the reference beyond the tolerance (C and Fortran only)
  memory = 5,        // out of host or device memory
  mpi = 6,           // the communicator, or a build without MPI given one
  internal = 7,      // anything else (a bug: please report it)
};

/// The one exception of the C++ API: one line naming the problem, and its status.
class Error : public std::runtime_error {
 public:
  Error(Status s, const std::string& message) : std::runtime_error(message), status_(s) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

/// The library's version ("1.0.0"), as its CMake package's.
std::string version();

/// What the library was built with.
struct BuildFeatures {
  std::string kokkos_version;   // e.g. "3.4.1"
  std::string kokkos_backends;  // e.g. "Cuda, OpenMP"
  bool device_space = false;    // a GPU backend: space "device" differs from "host"
  bool mpi = false;             // Options::mpi_comm works
  std::vector<std::string> policies;
};
BuildFeatures build_features();

/// Kokkos for the library, as Kokkos::ScopeGuard: started (with `kokkos_args`, e.g.
/// "--kokkos-num-threads=8") unless it runs; finalized when the last Runtime that started
/// it ends, never when the caller started it. Kokkos cannot start twice in one process:
/// keep one Runtime for as long as the program computes. Throws Error (Status::runtime)
/// where Kokkos cannot start (a GPU build without its GPU) or was finalized already.
class Runtime {
 public:
  explicit Runtime(const std::vector<std::string>& kokkos_args = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  /// Whether this library started Kokkos (and will finalize it).
  bool started_kokkos() const;
};

/// Where the arrays live: memory the host reads, or the device's own (a GPU build's).
enum class Memory { Host, Device };

/// A column-major (rows x cols) array the caller owns; `data` is never written.
template <class T>
struct Matrix {
  const T* data = nullptr;
  std::int64_t rows = -1, cols = -1;
};
/// A vector of `size` elements the caller owns; never written.
template <class T>
struct Vector {
  const T* data = nullptr;
  std::int64_t size = -1;
};

/// The kernel's input: the Fortran benchmark's arrays (names, shapes, column-major
/// layout; docs/library.md maps each to BerkeleyGW's). Sizes come from the arrays:
/// ncouls and nbands from aqsntemp, ngpown from I_eps_array, nw from wx_array_t; every
/// other array must agree. Complex arrays are (re, im) pairs of doubles (Fortran's
/// complex(dp), C's double complex, NumPy's complex128): read in place where 16-byte
/// aligned (as the heap gives them); a host array only 8-byte aligned is copied into an
/// aligned buffer first; a device array must be 16-byte aligned.
struct Arrays {
  Matrix<std::complex<double>> aqsntemp;        // (ncouls, nbands)  M(n1, G)
  Matrix<std::complex<double>> aqsmtemp_local;  // (ngpown, nbands)  M(n1, G') of the local G'
  Matrix<std::complex<double>> I_eps_array;     // (ncouls, ngpown)  inverse dielectric matrix minus delta
  Matrix<std::complex<double>> wtilde_array;    // (ncouls, ngpown)  plasmon-pole frequencies
  Matrix<double> wx_array_t;                    // (nw, nbands)      E - E_n1, the TOL_Zero clamp applied
  Vector<double> occ_array;                     // (nbands)          occupations
  Vector<double> vcoul_loc;                     // (ngpown)          v(G') of the local G'
  /// The cutoff of the screened-exchange term and gamma**2 (the benchmark's sexcut and
  /// limittwo): no default, a NaN left here is refused.
  double sexcut = std::numeric_limits<double>::quiet_NaN();
  double limittwo = std::numeric_limits<double>::quiet_NaN();
  /// The first frequency's index iw (the record's labels only).
  int nstart = 1;
  /// Start values (nw each), added as the benchmark does: achtemp = achtemp0 + sch_sum,
  /// asxtemp = asxtemp0 - ssx_sum. Empty: zero.
  std::vector<std::complex<double>> achtemp0, asxtemp0;
  Memory memory = Memory::Host;
};

/// The same arrays as Kokkos Views in one memory space (LayoutLeft: the types say the
/// layout; a View that is not contiguous is refused).
template <class MemorySpace>
struct Views {
  using ComplexMatrix = Kokkos::View<const Kokkos::complex<double>**, Kokkos::LayoutLeft, MemorySpace>;
  using RealMatrix = Kokkos::View<const double**, Kokkos::LayoutLeft, MemorySpace>;
  using RealVector = Kokkos::View<const double*, Kokkos::LayoutLeft, MemorySpace>;
  ComplexMatrix aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array;
  RealMatrix wx_array_t;
  RealVector occ_array, vcoul_loc;
  double sexcut = std::numeric_limits<double>::quiet_NaN();
  double limittwo = std::numeric_limits<double>::quiet_NaN();
  int nstart = 1;
  std::vector<std::complex<double>> achtemp0, asxtemp0;
};

/// How to compute.
struct Options {
  /// A policy of `gpp policies` ("tuned", "host", "v0-collapse3", ...); "": the default
  /// of the space (tuned on a device, host on a CPU).
  std::string policy;
  /// "host" or "device"; "": the device where the build has one and the policy runs there.
  std::string space;
  /// Tunables by the command's option names without the dashes ("band-block" = "64",
  /// "team-size", "ig-block", "vector-length", "tile" = "32,4,1") and the policy's
  /// params by name ("loops" = "vector"). Not given: the tuning file's, else the
  /// policy's shipped defaults.
  std::map<std::string, std::string> tunables;
  /// A tuning file (docs/formats.md) whose entry for this device, policy and size fills
  /// the tunables not given; "": none; "default": $GPP_TUNING_FILE, else
  /// ~/.config/gpp/tuning.json where it exists.
  std::string tuning_file;
  /// Verify against the fast reference (the physics written apart from the policies;
  /// about one more run): rel_error <= rtol.
  bool verify = false;
  double rtol = 1e-10;
  /// Untimed runs first, then timed runs (each fenced); the sums are the last run's.
  int warmup = 0, repeat = 1;
  /// Compute achstemp, the static remainder (a complex GEMM).
  bool static_remainder = true;
  /// Refuse NaN and Inf in the inputs (one pass over every array where it lives).
  bool check_finite = true;
  /// Say on stderr what the call does and how long it will take, as the command does (a
  /// live line on a terminal, a line every 30 s in a batch log; rank 0 only). Off: silent.
  bool progress = false;
  /// MPI over G': each rank passes its own G' columns and the sums are added over this
  /// communicator, given as its Fortran handle (MPI_Comm_c2f(comm); mpi4py: comm.py2f()).
  /// -1: this process alone.
  std::int64_t mpi_comm = -1;
};

/// What a computation found.
struct Result {
  std::vector<std::complex<double>> achtemp, asxtemp;  // (nw) start values and sums
  std::complex<double> achstemp{0.0, 0.0};             // static remainder (0 when not computed)
  std::string policy, space, backend;                  // what ran: "tuned", "device", "Cuda"
  std::map<std::string, std::string> tunables;         // the values that ran, defaults resolved
  std::string tunables_source;                         // "default", "caller", "tuning file PATH", or per tunable
  std::vector<double> times;                           // seconds of each timed run (kernel, fenced)
  double transfer_s = 0;                               // host -> device copies of the arrays
  double static_s = 0;                                 // the static remainder's time
  bool verified = false;                               // verification performed and passed
  double rel_error = -1;                               // against the reference (-1: not verified)
  double tolerance = 0;
  double time_median() const;
  /// The run record as JSON: the schema of `gpp run --json` (docs/formats.md), command "api".
  std::string record_json;
};

/// The sums of `arrays` (throws Error; nothing is written but the Result).
Result compute(const Arrays& arrays, const Options& options = {});

namespace detail {
// A View's extent r; -1 for a View that holds nothing (not given).
template <class View>
std::int64_t checked_extent(const char* name, const View& v, int r) {
  if (v.data() == nullptr && v.size() == 0) return -1;
  if (!v.span_is_contiguous())
    throw Error(Status::argument, std::string(name) + " is not contiguous: pass a View of contiguous memory");
  return std::int64_t(v.extent(r));
}
}  // namespace detail

/// The Views' arrays (extents and pointers; their memory space decides `memory`).
template <class MemorySpace>
Arrays arrays_of(const Views<MemorySpace>& v) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, MemorySpace>::accessible;
  constexpr bool device = Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, MemorySpace>::accessible;
  static_assert(host || device,
                "gpp::api: the Views' memory space is reachable from neither of the build's execution spaces");
  static_assert(sizeof(Kokkos::complex<double>) == sizeof(std::complex<double>), "complex layouts differ");
  Arrays a;
  const auto complex_matrix = [](const char* name, const auto& view) {
    Matrix<std::complex<double>> m;
    m.rows = detail::checked_extent(name, view, 0);
    m.cols = detail::checked_extent(name, view, 1);
    m.data = reinterpret_cast<const std::complex<double>*>(view.data());
    return m;
  };
  a.aqsntemp = complex_matrix("aqsntemp", v.aqsntemp);
  a.aqsmtemp_local = complex_matrix("aqsmtemp_local", v.aqsmtemp_local);
  a.I_eps_array = complex_matrix("I_eps_array", v.I_eps_array);
  a.wtilde_array = complex_matrix("wtilde_array", v.wtilde_array);
  a.wx_array_t = {v.wx_array_t.data(), detail::checked_extent("wx_array_t", v.wx_array_t, 0),
                  detail::checked_extent("wx_array_t", v.wx_array_t, 1)};
  a.occ_array = {v.occ_array.data(), detail::checked_extent("occ_array", v.occ_array, 0)};
  a.vcoul_loc = {v.vcoul_loc.data(), detail::checked_extent("vcoul_loc", v.vcoul_loc, 0)};
  a.sexcut = v.sexcut;
  a.limittwo = v.limittwo;
  a.nstart = v.nstart;
  a.achtemp0 = v.achtemp0;
  a.asxtemp0 = v.asxtemp0;
  // Memory the host reads (page-locked, or managed memory both reach) counts as host
  // memory: a run on the device copies it once rather than reading it across the bus.
  a.memory = host ? Memory::Host : Memory::Device;
  return a;
}

/// The sums of the Views' arrays, read where they live.
template <class MemorySpace>
Result compute(const Views<MemorySpace>& views, const Options& options = {}) {
  return compute(arrays_of(views), options);
}

}  // namespace gpp::api
