// The C++ API (include/gpp/gpp.hpp): the caller's arrays made into the kernel's data
// (wrapped where they live, the two band-contiguous copies of step v7 made beside them),
// then the policy's runs, the static remainder and the fast reference of the command's
// rooms, and a run record in the command's JSON schema.
#include <gpp/gpp.hpp>

#include "gpp_api_internal.hpp"
#include "gpp_compat.hpp"
#include "gpp_estimate.hpp"
#include "gpp_fast_reference.hpp"
#include "gpp_mpi.hpp"
#include "gpp_record.hpp"
#include "gpp_result.hpp"
#include "gpp_runtime.hpp"
#include "gpp_session.hpp"
#include "gpp_static.hpp"
#include "gpp_sweep.hpp"
#include "gpp_tuning.hpp"
#include "gpp_physics.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <type_traits>

namespace gpp::api {
using record::PolicyRun;
using record::RunRecord;
using record::space_info;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- Kokkos's lifetime ----

struct Lifetime {
  int runtimes = 0;        // Runtime objects alive
  bool started = false;    // Kokkos started by one of them
  bool finalized = false;  // and finalized when the last one ended
};
Lifetime& lifetime() {
  static Lifetime l;
  return l;
}

// ---- the arrays ----

// The alignment the library takes an array at: a double's. The kernels read complex
// arrays as 16-byte aligned pairs (Kokkos::complex); a host complex array at 8 (a static
// or automatic `double complex` or `complex(dp)` array may be) is copied into an aligned
// buffer (wrap), a device one is refused (device allocators give 256).
std::size_t alignment_taken(const bool complex_on_device) {
  return complex_on_device ? alignof(complex_t) : alignof(double);
}
bool complex_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(complex_t) == 0; }

std::string shape(std::int64_t rows, std::int64_t cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// One array's pointer, element type, alignment and size, against the sizes the deck has.
template <class T>
void check_matrix(const char* name, const Matrix<T>& m, const char* want, std::int64_t rows, std::int64_t cols,
                  const bool on_device = false) {
  const std::size_t align = alignment_taken(on_device && std::is_same_v<T, std::complex<double>>);
  if (m.rows < 0 || m.cols < 0) throw Error(Status::argument, std::string(name) + " is not given (its shape is unset)");
  if (m.rows != rows || m.cols != cols)
    throw Error(Status::argument, std::string(name) + " is " + shape(m.rows, m.cols) + "; it must be " + want + " = " +
                                      shape(rows, cols));
  if (!m.data) throw Error(Status::argument, std::string(name) + " is a null pointer");
  if (reinterpret_cast<std::uintptr_t>(m.data) % align != 0)
    throw Error(Status::argument, std::string(name) + " is not aligned to " + std::to_string(align) +
                                      " bytes (its address is " +
                                      std::to_string(reinterpret_cast<std::uintptr_t>(m.data)) +
                                      "): pass the start of an array as allocated");
}

void check_size(const char* what, std::int64_t n) {
  if (n < 1 || n > std::int64_t(kMaxSize))
    throw Error(Status::argument,
                std::string(what) + " = " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxSize));
}

}  // namespace

Sizes check_arrays(const Arrays& a) {
  Sizes n;
  const auto given = [](const char* name, std::int64_t rows, std::int64_t cols) {
    if (rows < 0 || cols < 0) throw Error(Status::argument, std::string(name) + " is not given (its shape is unset)");
  };
  given("aqsntemp", a.aqsntemp.rows, a.aqsntemp.cols);
  given("I_eps_array", a.I_eps_array.rows, a.I_eps_array.cols);
  given("wx_array_t", a.wx_array_t.rows, a.wx_array_t.cols);
  check_size("ncouls (the rows of aqsntemp)", a.aqsntemp.rows);
  check_size("nbands (the columns of aqsntemp)", a.aqsntemp.cols);
  check_size("ngpown (the columns of I_eps_array)", a.I_eps_array.cols);
  check_size("nw (the rows of wx_array_t)", a.wx_array_t.rows);
  n.ncouls = a.aqsntemp.rows;
  n.nbands = a.aqsntemp.cols;
  n.ngpown = a.I_eps_array.cols;
  n.nw = a.wx_array_t.rows;
  // The largest array's bytes in 64 bits (each factor is at most 2^30: no overflow), and
  // its elements as the kernels' long index arithmetic holds them.
  const double bytes = 16.0 * double(n.ncouls) * double(std::max(n.nbands, n.ngpown));
  if (bytes > 0.25 * double(std::numeric_limits<std::int64_t>::max()))
    throw Error(Status::argument, "the arrays' sizes (ncouls " + std::to_string(n.ncouls) + ", nbands " +
                                      std::to_string(n.nbands) + ", ngpown " + std::to_string(n.ngpown) +
                                      ") make an array larger than any memory");
  const bool device = a.memory == Memory::Device;
  check_matrix("aqsntemp", a.aqsntemp, "(ncouls, nbands)", n.ncouls, n.nbands, device);
  check_matrix("aqsmtemp_local", a.aqsmtemp_local, "(ngpown, nbands)", n.ngpown, n.nbands, device);
  check_matrix("I_eps_array", a.I_eps_array, "(ncouls, ngpown)", n.ncouls, n.ngpown, device);
  check_matrix("wtilde_array", a.wtilde_array, "(ncouls, ngpown)", n.ncouls, n.ngpown, device);
  check_matrix("wx_array_t", a.wx_array_t, "(nw, nbands)", n.nw, n.nbands);
  check_matrix("occ_array", Matrix<double>{a.occ_array.data, a.occ_array.size, 1}, "(nbands)", n.nbands, 1);
  check_matrix("vcoul_loc", Matrix<double>{a.vcoul_loc.data, a.vcoul_loc.size, 1}, "(ngpown)", n.ngpown, 1);
  if (!std::isfinite(a.sexcut) || a.sexcut < 0)
    throw Error(Status::argument,
                std::isnan(a.sexcut) ? "sexcut is not set (the benchmark's cutoff, typically 4)"
                                     : "sexcut must be finite and not negative (got " + std::to_string(a.sexcut) + ")");
  if (!std::isfinite(a.limittwo) || !(a.limittwo > 0))
    throw Error(Status::argument, std::isnan(a.limittwo) ? "limittwo is not set (the benchmark's gamma**2)"
                                                         : "limittwo must be finite and positive (got " +
                                                               std::to_string(a.limittwo) + ")");
  if (std::abs((long long)a.nstart) > 1000000)
    throw Error(Status::argument, "nstart = " + std::to_string(a.nstart) + " is outside -1000000..1000000");
  for (const auto* v : {&a.achtemp0, &a.asxtemp0}) {
    const char* name = v == &a.achtemp0 ? "achtemp0" : "asxtemp0";
    if (!v->empty() && std::int64_t(v->size()) != n.nw)
      throw Error(Status::argument, std::string(name) + " has " + std::to_string(v->size()) +
                                        " values; it must have nw = " + std::to_string(n.nw) + " (or none)");
    for (std::size_t i = 0; i < v->size(); ++i)
      if (!std::isfinite((*v)[i].real()) || !std::isfinite((*v)[i].imag()))
        throw Error(Status::argument, std::string(name) + "(" + std::to_string(i + 1) + ") is not finite");
  }
  return n;
}

std::string version() { return record::this_build().version; }

BuildFeatures build_features() {
  BuildFeatures f;
  const record::BuildInfo b = record::this_build();
  f.kokkos_version = b.kokkos_version;
  f.kokkos_backends = b.kokkos_backends;
  f.device_space = kHasDeviceSpace;
  f.mpi = session::mpi::enabled();
  for (const PolicyEntry& e : policy_registry()) f.policies.push_back(e.name);
  return f;
}

double Result::time_median() const {
  if (times.empty()) return 0;
  std::vector<double> t(times);
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

Runtime::Runtime(const std::vector<std::string>& kokkos_args) {
  Lifetime& l = lifetime();
  if (Kokkos::is_initialized()) {
    ++l.runtimes;
    return;
  }
  if (l.finalized || compat::kokkos_finalized())
    throw Error(Status::runtime,
                std::string("Kokkos was finalized in this process") +
                    (l.finalized ? " (when the last gpp runtime that started it ended)" : "") +
                    " and cannot start again: keep one runtime (C: context) for as long as the program computes");
  std::vector<std::string> args{"gpp"};
  for (const std::string& a : kokkos_args) {
    if (a.rfind("--kokkos-", 0) != 0)
      throw Error(Status::argument, "'" + files::one_line(a) + "' is not a Kokkos argument (--kokkos-...)");
    args.push_back(a);
  }
  runtime::take_kokkos_arguments(args);
  try {
    runtime::start();
  } catch (const gpp::Error& e) {
    throw Error(Status::runtime, e.what());
  }
  l.started = true;
  ++l.runtimes;
}

Runtime::~Runtime() {
  Lifetime& l = lifetime();
  if (--l.runtimes > 0 || !l.started) return;
  runtime::stop();
  l.started = false;
  l.finalized = true;
}

bool Runtime::started_kokkos() const { return lifetime().started; }

namespace {

// ---- the kernel's data, where the arrays live ----

template <class Mem>
GppData<Mem> wrap(const Arrays& a, const Sizes& n) {
  using Types = ViewTypes<Mem>;
  GppData<Mem> d;
  d.nbands = int(n.nbands);
  d.ngpown = int(n.ngpown);
  d.ncouls = int(n.ncouls);
  d.nw = int(n.nw);
  d.nstart = a.nstart;
  d.nend = a.nstart + d.nw - 1;
  d.limitone = physics::limitone;
  d.limittwo = a.limittwo;
  d.sexcut = a.sexcut;
  // The caller's memory as it is: unmanaged Views, never written (the kernels take them
  // by the data's non-const types). A host complex array that is not 16-byte aligned
  // (check_arrays took it at 8) is copied, byte for byte, into one that is.
  const auto cm = [](const Matrix<std::complex<double>>& m) {
    if (!complex_aligned(m.data)) {
      if constexpr (std::is_same_v<Mem, Kokkos::HostSpace>) {
        typename Types::ComplexMatrix copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::api::aligned_copy"),
                                           m.rows, m.cols);
        std::memcpy(static_cast<void*>(copy.data()), m.data,
                    std::size_t(m.rows) * std::size_t(m.cols) * sizeof(complex_t));
        return copy;
      } else {
        throw Error(Status::internal, "a device complex array not 16-byte aligned passed the argument checks");
      }
    }
    return typename Types::ComplexMatrix(reinterpret_cast<complex_t*>(const_cast<std::complex<double>*>(m.data)),
                                         m.rows, m.cols);
  };
  d.aqsntemp = cm(a.aqsntemp);
  d.aqsmtemp_local = cm(a.aqsmtemp_local);
  d.I_eps_array = cm(a.I_eps_array);
  d.wtilde_array = cm(a.wtilde_array);
  d.wx_array_t =
      typename Types::RealMatrix(const_cast<double*>(a.wx_array_t.data), a.wx_array_t.rows, a.wx_array_t.cols);
  d.occ_array = typename Types::RealVector(const_cast<double*>(a.occ_array.data), a.occ_array.size);
  d.vcoul_loc = typename Types::RealVector(const_cast<double*>(a.vcoul_loc.data), a.vcoul_loc.size);
  return d;
}

// Step v7's band-contiguous copies (aqsmtemp_local_bt, wx_array_bt): the only arrays the
// library makes, ngpown x nbands and nbands x nw, transposed where the data live.
template <class Mem>
void add_band_contiguous(GppData<Mem>& d) {
  using Types = ViewTypes<Mem>;
  using Exec = typename Mem::execution_space;
  d.aqsmtemp_local_bt = typename Types::ComplexMatrix(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::api::aqsmtemp_local_bt"), d.nbands, d.ngpown);
  d.wx_array_bt = typename Types::RealMatrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::api::wx_array_bt"),
                                             d.nbands, d.nw);
  const auto src = d.aqsmtemp_local;
  const auto dst = d.aqsmtemp_local_bt;
  const int ngpown = d.ngpown;
  // One band's row per iteration: reads of aqsmtemp_local stride by ngpown, writes are
  // contiguous (a small array: ngpown x nbands).
  Kokkos::parallel_for(
      "gpp::api::aqsmtemp_local_bt", Kokkos::RangePolicy<Exec>(0, d.nbands), KOKKOS_LAMBDA(const int n1) {
        for (int igp = 0; igp < ngpown; ++igp) dst(n1, igp) = src(igp, n1);
      });
  const auto wx = d.wx_array_t;
  const auto wxb = d.wx_array_bt;
  const int nw = d.nw;
  Kokkos::parallel_for(
      "gpp::api::wx_array_bt", Kokkos::RangePolicy<Exec>(0, d.nbands), KOKKOS_LAMBDA(const int n1) {
        for (int w = 0; w < nw; ++w) wxb(n1, w) = wx(w, n1);
      });
  Exec().fence();
}

// The first element of `v` (flat, column-major) that is NaN or infinite, or -1.
template <class View>
std::int64_t first_not_finite(const View& v, int reals_per_element) {
  using Exec = typename View::memory_space::execution_space;
  const double* p = reinterpret_cast<const double*>(v.data());
  const std::int64_t n = std::int64_t(v.span()) * reals_per_element;
  std::int64_t first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "gpp::api::check_finite", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) {
        const double x = p[i];
        // x - x is 0 for a finite x, NaN for an infinite or NaN one.
        if (!(x - x == 0.0) && i < m) m = i;
      },
      Kokkos::Min<std::int64_t>(first));
  return first == LLONG_MAX ? -1 : first / reals_per_element;
}

template <class Mem>
void check_finite(const GppData<Mem>& d) {
  const auto report = [](const char* name, std::int64_t i, std::int64_t rows, bool matrix) {
    const std::string at = matrix ? "(" + std::to_string(i % rows + 1) + ", " + std::to_string(i / rows + 1) + ")"
                                  : "(" + std::to_string(i + 1) + ")";
    throw Error(Status::argument, std::string(name) + at + " is not finite (NaN or Inf)");
  };
  struct C {
    const char* name;
    std::int64_t at, rows;
    bool matrix;
  };
  for (const C& c : {C{"aqsntemp", first_not_finite(d.aqsntemp, 2), d.ncouls, true},
                     C{"aqsmtemp_local", first_not_finite(d.aqsmtemp_local, 2), d.ngpown, true},
                     C{"I_eps_array", first_not_finite(d.I_eps_array, 2), d.ncouls, true},
                     C{"wtilde_array", first_not_finite(d.wtilde_array, 2), d.ncouls, true},
                     C{"wx_array_t", first_not_finite(d.wx_array_t, 1), d.nw, true},
                     C{"occ_array", first_not_finite(d.occ_array, 1), d.nbands, false},
                     C{"vcoul_loc", first_not_finite(d.vcoul_loc, 1), d.ngpown, false}})
    if (c.at >= 0) report(c.name, c.at, c.rows, c.matrix);
}

// The data in the memory of `ExecSpace`: in place where it reaches the arrays, else
// copied once (timed into `transfer_s`).
template <class ExecSpace, class FromMem>
DataFor<ExecSpace> data_for(const GppData<FromMem>& from, double& transfer_s) {
  using To = typename ExecSpace::memory_space;
  if constexpr (std::is_same_v<To, FromMem>) {
    return from;
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    GppData<To> d;
    copy_scalars(from, d);
    const auto copy = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(To(), v); };
    d.aqsntemp = copy(from.aqsntemp);
    d.aqsmtemp_local = copy(from.aqsmtemp_local);
    d.I_eps_array = copy(from.I_eps_array);
    d.wtilde_array = copy(from.wtilde_array);
    d.wx_array_t = copy(from.wx_array_t);
    d.occ_array = copy(from.occ_array);
    d.vcoul_loc = copy(from.vcoul_loc);
    d.aqsmtemp_local_bt = copy(from.aqsmtemp_local_bt);
    d.wx_array_bt = copy(from.wx_array_bt);
    ExecSpace().fence();
    transfer_s = seconds_since(t0);
    return d;
  }
}

void sum_over_ranks(SigmaSums& sums) {
  std::vector<std::complex<double>> all(sums.sch_sum);
  all.insert(all.end(), sums.ssx_sum.begin(), sums.ssx_sum.end());
  session::mpi::sum(all);
  const std::size_t nw = sums.sch_sum.size();
  std::copy(all.begin(), all.begin() + nw, sums.sch_sum.begin());
  std::copy(all.begin() + nw, all.end(), sums.ssx_sum.begin());
}

// Every step of one computation on `space`: the timed runs, the static remainder, the
// reference.
template <class ExecSpace>
void run_on(const ExecSpace& space, const DataFor<ExecSpace>& d, const PolicyEntry& entry, const Tunables& given,
            const Options& o, const std::vector<std::complex<double>>& asxtemp0,
            const std::vector<std::complex<double>>& achtemp0, RunRecord& rec) {
  PolicyRun& r = rec.runs.front();
  try {
    r.tunables = entry.resolve(space, d, given);
  } catch (const gpp::Error& e) {
    throw Error(Status::policy, e.what());
  }
  compat::ScopedRegion region("gpp::api::compute");
  // What the call does, where the caller asked (Options::progress): each run, then the
  // static remainder and the reference, with the command's estimates.
  std::optional<session::Progress> progress;
  if (o.progress) progress.emplace();
  const double updates = d.updates();
  const auto phase = [&](const std::string& what, double total, double rate, const char* unit) {
    if (progress) progress->start("gpp::api: " + what, total, total / rate, unit);
  };
  const auto advance = [&](double units) {
    if (progress) progress->advance(units);
  };
  const auto done = [&] {
    if (progress) progress->finish();
  };
  phase(entry.name + " on the " + to_string(kind_of<ExecSpace>()) + ": " +
            (o.warmup > 0 ? std::to_string(o.warmup) + " warm-up + " : std::string()) + std::to_string(o.repeat) +
            " timed run" + (o.repeat == 1 ? "" : "s"),
        double(o.warmup + o.repeat) * updates, session::prior_update_rate(entry.name, kind_of<ExecSpace>()), "updates");
  SigmaSums sums;
  for (int i = 0; i < o.warmup + o.repeat; ++i) {
    session::mpi::barrier();  // every rank starts together: the slowest rank's time is the run's
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    sums = entry.run(space, d, r.tunables);
    space.fence();
    const double kernel = seconds_since(t0);
    if (i >= o.warmup) r.times.push_back(session::mpi::max(kernel));
    advance(updates);
  }
  done();
  r.rank_kernel_s = session::mpi::gather(r.times.empty() ? 0.0 : r.times.back());
  const auto t1 = std::chrono::steady_clock::now();
  sum_over_ranks(sums);
  r.comm_s = seconds_since(t1);
  r.result = apply_start_values(sums, asxtemp0, achtemp0);
  r.ranks = session::mpi::size();
  r.times_with_transfers = r.times;
  if (o.static_remainder) {
    const double macs = double(d.nbands) * d.ngpown * double(d.ncouls);
    phase("static remainder", macs, session::prior_static_rate(kind_of<ExecSpace>()), "multiply-adds");
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::complex<double>> achstemp{static_remainder(space, d)};
    space.fence();
    session::mpi::sum(achstemp);
    rec.achstemp = achstemp[0];
    rec.static_s = session::mpi::max(seconds_since(t0));
    rec.achstemp_space = r.space;
    advance(macs);
    done();
  }
  if (o.verify) {
    phase("verification reference", updates, session::prior_reference_rate(kind_of<ExecSpace>()), "updates");
    const auto t0 = std::chrono::steady_clock::now();
    session::ReferencePass pass = session::fast_reference(space, d, [&](double n) { advance(n); });
    done();
    sum_over_ranks(pass.sums);
    std::vector<std::complex<double>> achstemp{pass.achstemp};
    session::mpi::sum(achstemp);
    rec.reference_s = session::mpi::max(seconds_since(t0));
    rec.target.against = std::string(to_string(kind_of<ExecSpace>())) + " reference";
    rec.target.tolerance = o.rtol;
    rec.reference = apply_start_values(pass.sums, asxtemp0, achtemp0);
    const double e = relative_error(r.result, rec.reference);
    r.rel_error = session::mpi::max(std::isnan(e) ? INFINITY : e);
    r.verified = r.rel_error <= o.rtol;
    if (!r.verified) r.status = "wrong";
    if (rec.achstemp) rec.achstemp_rel_error = relative_error(*rec.achstemp, achstemp[0]);
  } else {
    rec.target.against = "none";
  }
}

}  // namespace

void check_communicator(std::int64_t fortran_comm) {
  try {
    session::mpi::CommunicatorScope probe(fortran_comm == -1 ? session::mpi::kNoCommunicator : fortran_comm);
  } catch (const gpp::Error& e) {
    throw Error(Status::mpi, e.what());
  }
}

namespace {
Result checked_compute(const Arrays& arrays, const Options& o) {
  if (!Kokkos::is_initialized())
    throw Error(Status::runtime, compat::kokkos_finalized() || lifetime().finalized
                                     ? "Kokkos was finalized: gpp computes only while Kokkos runs"
                                     : "Kokkos is not running: make a gpp::api::Runtime first (C: gpp_context_create)");
  std::optional<session::mpi::CommunicatorScope> scope;
  try {
    scope.emplace(o.mpi_comm == -1 ? session::mpi::kNoCommunicator : o.mpi_comm);
  } catch (const gpp::Error& e) {
    throw Error(Status::mpi, e.what());
  }
  // Everything the caller gave, before any work.
  const Sizes n = check_arrays(arrays);
  if (o.repeat < 1 || o.repeat > 1000000)
    throw Error(Status::argument, "repeat = " + std::to_string(o.repeat) + " is outside 1..1000000");
  if (o.warmup < 0 || o.warmup > 1000000)
    throw Error(Status::argument, "warmup = " + std::to_string(o.warmup) + " is outside 0..1000000");
  if (!(o.rtol > 0) || !std::isfinite(o.rtol))
    throw Error(Status::argument, "rtol must be positive and finite (got " + files::number_text(o.rtol) + ")");
  if (arrays.memory == Memory::Device && !kHasDeviceSpace)
    throw Error(Status::argument, "the arrays are in device memory, but this build has no device space");
  std::optional<SpaceKind> requested;
  if (!o.space.empty()) {
    if (o.space != "host" && o.space != "device")
      throw Error(Status::policy, "space must be host, device or empty (got '" + o.space + "')");
    if (o.space == "device" && !kHasDeviceSpace)
      throw Error(Status::policy, std::string("space device: this build has no device space (its only space is ") +
                                      HostExec::name() + ")");
    requested = o.space == "device" ? SpaceKind::Device : SpaceKind::Host;
  }
  const PolicyEntry* entry = nullptr;
  SpaceKind k = SpaceKind::Host;
  Tunables given;
  try {
    entry = &find_policy(o.policy.empty() ? default_policy_name(requested ? *requested : default_space()) : o.policy);
    k = session::placement(*entry, requested);
    given = internal_tunables(*entry, o.tunables);
  } catch (const gpp::Error& e) {
    throw Error(Status::policy, e.what());
  }

  RunRecord rec;
  rec.command = "api";
  rec.date = record::utc_now();
  rec.command_line = {"gpp::api::compute"};
  rec.build = record::this_build();
  rec.ranks = session::mpi::size();
  record::DeckInfo& deck = rec.deck;
  deck.name = "arrays";
  deck.source = std::string("caller's arrays (") + (arrays.memory == Memory::Host ? "host" : "device") + " memory)";
  deck.generator = "arrays";
  const long long ngpown_total = [&] {
    std::vector<double> g{double(n.ngpown)};
    session::mpi::sum(g.data(), 1);
    return (long long)g[0];
  }();
  deck.sizes = {int(n.nbands), int(ngpown_total), int(n.ncouls), int(n.nw)};
  deck.nstart = arrays.nstart;
  deck.nend = arrays.nstart + int(n.nw) - 1;
  deck.updates = deck.sizes.updates();
  rec.runs.emplace_back();
  PolicyRun& run = rec.runs.front();
  run.policy = entry->name;
  run.space = space_info(k);

  // The tuning file fills what the caller did not give, for this device and size; the
  // source of each value is recorded (caller, tuning file, default).
  Tunables from_file;
  std::string file_source;
  if (!o.tuning_file.empty()) {
    const std::string path = o.tuning_file == "default" ? measure::default_tuning_path() : o.tuning_file;
    if (!path.empty()) {
      const measure::TuningFile file = measure::read_tuning_file(path);
      const measure::TuningEntry* e =
          file.find(run.space.device, run.space.backend, entry->name,
                    measure::sweep::size_class(double(n.nbands) * n.ngpown * n.ncouls * n.nw));
      if (e) from_file = e->tunables;
      file_source = "tuning file " + path;
    }
  }
  run.tunables_source = merge_tuning(*entry, given, from_file, file_source);

  std::vector<std::complex<double>> achtemp0 = arrays.achtemp0, asxtemp0 = arrays.asxtemp0;
  if (achtemp0.empty()) achtemp0.assign(std::size_t(n.nw), {0.0, 0.0});
  if (asxtemp0.empty()) asxtemp0.assign(std::size_t(n.nw), {0.0, 0.0});

  const auto t_setup = std::chrono::steady_clock::now();
  const auto on = [&](auto from) {
    using FromMem = decltype(from);
    GppData<FromMem> wrapped = wrap<FromMem>(arrays, n);
    if (o.check_finite) check_finite(wrapped);
    add_band_contiguous(wrapped);
    rec.data_bytes = (long long)wrapped.bytes();
    with_space(k, [&](auto space) {
      using Exec = decltype(space);
      double transfer_s = 0;
      const DataFor<Exec> d = data_for<Exec>(wrapped, transfer_s);
      rec.transfer_s = transfer_s;
      rec.transfer_bytes = std::is_same_v<typename Exec::memory_space, FromMem> ? 0.0 : double(wrapped.bytes());
      rec.setup_s = seconds_since(t_setup) - transfer_s;
      run_on(space, d, *entry, given, o, asxtemp0, achtemp0, rec);
    });
  };
  if (arrays.memory == Memory::Host) {
    on(Kokkos::HostSpace());
  } else {
    on(DeviceExec::memory_space());
  }
  rec.device_mem_peak_bytes = -1;

  Result res;
  res.achtemp = run.result.achtemp;
  res.asxtemp = run.result.asxtemp;
  if (rec.achstemp) res.achstemp = *rec.achstemp;
  res.policy = run.policy;
  res.space = to_string(k);
  res.backend = run.space.backend;
  res.tunables = public_tunables(run.tunables);
  res.tunables_source = run.tunables_source;
  res.times = run.times;
  res.transfer_s = rec.transfer_s;
  res.static_s = rec.static_s;
  res.verified = run.verified;
  res.rel_error = o.verify ? run.rel_error : -1;
  res.tolerance = o.verify ? o.rtol : 0;
  res.record_json = record::to_json(rec);
  return res;
}

}  // namespace

Result compute(const Arrays& arrays, const Options& o) {
  try {
    return checked_compute(arrays, o);
  } catch (const Error& e) {  // a message names what the caller gave: one line, whatever its bytes
    throw Error(e.status(), files::one_line(e.what()));
  } catch (const std::bad_alloc&) {
    throw Error(Status::memory, "out of host memory");
  } catch (const gpp::Error& e) {
    throw Error(Status::argument, files::one_line(e.what()));
  } catch (const std::exception& e) {
    // Kokkos reports a failed allocation as a std::runtime_error naming it.
    const std::string what = e.what();
    if (what.find("alloc") != std::string::npos) throw Error(Status::memory, files::one_line(what));
    throw Error(Status::internal, files::one_line(what));
  }
}

}  // namespace gpp::api
