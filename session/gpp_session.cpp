#include "gpp_session.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpp_compat.hpp"
#include "gpp_backend.hpp"
#include "gpp_estimate.hpp"
#include "gpp_fast_reference.hpp"
#include "gpp_mpi.hpp"
#include "gpp_reference.hpp"  // closed_form_uniform
#include "gpp_runtime.hpp"
#include "gpp_stderr.hpp"
#include "gpp_stop.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <sstream>
#include <thread>

namespace gpp::session {
using files::one_line;
using files::StopPhase;
using record::DeckInfo;
using record::PolicyRun;
using record::RunRecord;
using record::space_info;
using record::this_build;
using record::TimeToSolution;
using record::utc_now;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The sums of every rank (one MPI_Allreduce of 4*nw doubles; nothing on one rank).
void sum_over_ranks(SigmaSums& sums) {
  std::vector<std::complex<double>> all(sums.sch_sum);
  all.insert(all.end(), sums.ssx_sum.begin(), sums.ssx_sum.end());
  mpi::sum(all);
  const std::size_t nw = sums.sch_sum.size();
  std::copy(all.begin(), all.begin() + nw, sums.sch_sum.begin());
  std::copy(all.begin() + nw, all.end(), sums.ssx_sum.begin());
}

void add_to(SigmaSums& total, const SigmaSums& part) {
  if (total.sch_sum.empty()) {
    total = part;
    return;
  }
  for (std::size_t w = 0; w < part.sch_sum.size(); ++w) {
    total.sch_sum[w] += part.sch_sum[w];
    total.ssx_sum[w] += part.ssx_sum[w];
  }
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Counts G' whose vcoul_loc is 0 (skipped: mapped outside 1..ncouls) on this rank.
int skipped_gp(const GppData<Kokkos::HostSpace>& d) {
  int skipped = 0;
  for (int i = 0; i < d.ngpown; ++i) skipped += d.vcoul_loc(i) == 0.0;
  return skipped;
}
}  // namespace

void complete_share(Session& s) {
  long long skipped = skipped_gp(s.host);
  mpi::sum(&skipped, 1);
  s.skipped_gp_total = skipped;
}

void plan_chunks(Session& s, SpaceKind k, long long max_bytes) {
  auto& plan = k == SpaceKind::Host ? s.chunks_host : s.chunks_device;
  plan = ChunkPlan{};
  if (k == SpaceKind::Host)
    s.stream_host.reset();
  else
    s.stream_device.reset();
  double budget = double(max_bytes);
  if (max_bytes <= 0) {
    if (k == SpaceKind::Host || !kHasDeviceSpace) return;  // the host reads its arrays in place
    const long long free_bytes = backend::device_memory().free;
    if (free_bytes < 0) return;
    budget = 0.9 * double(free_bytes);
  }
  const ChunkBytes b = chunk_bytes(s.host);
  const int ngpown = s.host.ngpown;
  if (b.replicated + b.per_column * ngpown <= budget) return;  // the whole share fits
  const double columns = std::floor((budget - b.replicated) / b.per_column);
  if (columns < 1) {
    std::ostringstream o;
    o.precision(4);
    o << (max_bytes > 0 ? "--max-device-mem " : "the free device memory ") << budget / 1073741824.0
      << " GiB is too small for one G' column: the bands' arrays take " << b.replicated / 1073741824.0
      << " GiB and each G' column " << b.per_column / 1048576.0 << " MiB";
    throw Error(o.str());
  }
  plan = plan_columns(ngpown, (long long)std::min<double>(columns, ngpown), b);
}

double Session::transfer_s() const {
  double t = 0;
  for (SpaceKind k : {SpaceKind::Device, SpaceKind::Host}) {
    const StreamStats st = stream_stats(k);
    t += st.upload_s + st.exposed_s();
  }
  return t;
}

StreamStats Session::stream_stats(SpaceKind k) const {
  StreamStats sum;
  auto add = [&](const auto& stream) {
    if (!stream) return;
    const StreamStats& st = stream->stats();
    sum.upload_bytes += st.upload_bytes;
    sum.upload_s += st.upload_s;
    sum.upload_copy_s = sum.upload_copy_s < 0 || st.upload_copy_s < 0 ? -1 : sum.upload_copy_s + st.upload_copy_s;
    sum.passes += st.passes;
    sum.stream_bytes += st.stream_bytes;
    sum.copy_s = sum.copy_s < 0 || st.copy_s < 0 ? -1 : sum.copy_s + st.copy_s;
    sum.pass_s += st.pass_s;
    sum.kernel_s += st.kernel_s;
  };
  if (k == SpaceKind::Host) {
    add(stream_host);
  } else if (kHasDeviceSpace) {
    add(stream_device);
    add(whole_device);
  }
  return sum;
}

long long parse_bytes(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return Error(option + " must be a positive size in bytes, optionally with K, M, G or T (powers of 1024), got '" +
                 text + "'");
  };
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = text.substr(used);
  for (char& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  double scale = 1;
  if (!unit.empty()) {
    const std::string prefixes = "KMGT";
    const auto p = prefixes.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (p == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) throw bad();
    scale = std::pow(1024.0, double(p + 1));
  }
  const double bytes = v * scale;
  if (!std::isfinite(bytes) || !(bytes >= 1) || bytes > 9.0e18) throw bad();
  return (long long)bytes;
}

template <class ExecSpace>
const DataFor<ExecSpace>& Session::data(const ExecSpace& space) {
  if constexpr (std::is_same_v<ExecSpace, HostExec>) {
    (void)space;
    return host;
  } else {
    compat::ScopedRegion region("gpp::transfer");
    ChunkStream<ExecSpace>* whole = &stream(space);
    if (chunks_device.chunked()) {
      // A chunked device asked for the whole share (what counting the work reads).
      if (!whole_device) {
        ChunkPlan all;
        all.ngpown = all.resident = host.ngpown;
        whole_device = std::make_unique<ChunkStream<ExecSpace>>(host, all);
      }
      whole = whole_device.get();
    }
    const auto& d = whole->resident(space);
    backend::sample_memory();
    return d;
  }
}
template const DataFor<HostExec>& Session::data(const HostExec&);
#if GPP_HAS_DEVICE_SPACE
template const DataFor<DeviceExec>& Session::data(const DeviceExec&);
#endif

namespace {
// 64-bit words mixed in one after another (FNV-style multiply, then a final avalanche):
// a few GB/s on one core. An array of 64 MiB or more is digested in blocks of 16 MiB by
// several threads, and the blocks' digests are mixed in order: the same value for any
// thread count (si510's file in about 0.1 s on 16 cores instead of a second).
class Digest {
 public:
  void bytes(const void* data, std::size_t n) {
    constexpr std::size_t kBlock = std::size_t(16) << 20;
    if (n >= 4 * kBlock) {
      const auto* p = static_cast<const unsigned char*>(data);
      const std::size_t blocks = (n + kBlock - 1) / kBlock;
      std::vector<std::uint64_t> words(blocks);
      const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
      auto part = [&](const std::size_t t) {
        for (std::size_t b = t; b < blocks; b += threads) {
          Digest d;
          d.serial(p + b * kBlock, std::min(kBlock, n - b * kBlock));
          words[b] = d.h_;
        }
      };
      std::vector<std::thread> helpers;
      for (std::size_t t = 1; t < std::min(threads, blocks); ++t) helpers.emplace_back(part, t);
      part(0);
      for (std::thread& h : helpers) h.join();
      for (const std::uint64_t w : words) word(w);
      word(n);
      return;
    }
    serial(data, n);
  }
  void serial(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      word(w);
    }
    std::uint64_t tail = n;
    for (; i < n; ++i) tail = (tail << 8) | p[i];
    word(tail);
  }
  template <class T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  void text(const std::string& s) { bytes(s.data(), s.size()); }
  template <class T>
  void vec(const std::vector<T>& v) {
    bytes(v.data(), v.size() * sizeof(T));
  }
  std::string hex() const {
    std::uint64_t x = h_;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)x);
    return buf;
  }

 private:
  void word(std::uint64_t w) { h_ = (h_ ^ w) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};
}  // namespace

std::string digest_of(const DeckParams& p) {
  Digest d;
  d.text("params");
  d.text(p.name);
  d.text(p.generator);
  for (const long long v : {(long long)p.nbands, (long long)p.ngpown, (long long)p.ncouls, (long long)p.nvband,
                            (long long)p.nstart, (long long)p.nend, (long long)p.skipped_gp})
    d.value(v);
  d.value(p.seed);
  for (const double v : {p.gamma, p.sexcut, p.e_lk, p.dw, p.efermi, p.tol}) d.value(v);
  return d.hex();
}

std::string digest_of(const InputDeck& in) {
  Digest d;
  d.text("file");
  for (const int v :
       {in.sig_ntband, in.gvec_ng, in.ncoul, in.epsmpi_ngpown_max, in.peinf_ntband_max, in.peinf_ntband_dist, in.ipe,
        in.ispin, in.ngpown, in.ncouls, in.nstart, in.nend, in.sig_fdf, in.nvband})
    d.value(v);
  for (const double v : {in.sig_dw, in.sig_gamma, in.e_lk, in.tol, in.efermi, in.sexcut, in.limittwo, in.limitone})
    d.value(v);
  d.vec(in.peinf_indext_dist);
  d.vec(in.wfnkq_ekq);
  d.vec(in.inv_igp_index);
  d.vec(in.indinv);
  d.vec(in.vcoul);
  for (const auto* m : {&in.aqsmtemp, &in.wtilde_array, &in.I_eps_array, &in.aqsntemp}) {
    d.value(std::uint64_t(m->extent(0)));
    d.value(std::uint64_t(m->extent(1)));
    d.bytes(m->data(), m->span() * sizeof(complex_t));
  }
  for (const auto* v : {&in.asxtemp0, &in.achtemp0, &in.asxtempref, &in.achtempref}) d.vec(*v);
  d.bytes(in.records_15_18.data(), sizeof in.records_15_18);
  return d.hex();
}

Session make_session(const DeckParams& p, const GpShare& share) {
  runtime::start();  // prepare() started it after the checks of the deck; tests call this directly
  Session s;
  s.params = p;
  s.deck_digest = digest_of(p);
  compat::ScopedRegion region("gpp::setup");
  const StopPhase phase("the setup (the deck generated, its arrays derived)");
  const auto t0 = std::chrono::steady_clock::now();
  s.input = generate(p, share);  // this rank's G' columns only
  s.source = p.generator + " generator";
  s.synthetic = true;
  s.host = derive(s.input);
  s.share = share;
  s.ngpown_total = p.ngpown;
  s.updates_total = double(s.host.nbands) * p.ngpown * double(s.host.ncouls) * s.host.nw;
  s.setup_s = seconds_since(t0);
  return s;
}

namespace {
// One pass of the fast reference over this rank's share on space k (each G' chunk in turn),
// summed over the ranks.
session::ReferencePass reference_pass(Session& s, SpaceKind k, const std::string& what, session::Progress* progress) {
  const double updates = s.host.updates();
  const StopPhase phase("the " + what + " pass on the " + to_string(k));
  // the pass's kernels, for a profiler: ncu --nvtx --nvtx-include "gpp::reference::device/"
  const backend::Range range(std::string("gpp::reference::") + to_string(k));
  if (progress) progress->start(what + " (" + to_string(k) + ")", updates, updates / session::prior_reference_rate(k));
  session::ReferencePass pass;
  const auto done = [&](double n) {
    if (progress) progress->advance(n);
  };
  with_space(k, [&](auto space) {
    s.for_each_chunk(space, [&](const auto& data) { pass += session::fast_reference(space, data, done); });
  });
  if (progress) progress->finish();
  sum_over_ranks(pass.sums);
  std::vector<std::complex<double>> achstemp{pass.achstemp};
  mpi::sum(achstemp);
  pass.achstemp = achstemp[0];
  long long n[24];
  for (int i = 0; i < 24; ++i) n[i] = pass.arms.n[i];
  mpi::sum(n, 24);
  for (int i = 0; i < 24; ++i) pass.arms.n[i] = n[i];
  return pass;
}
}  // namespace

std::optional<SpaceKind> reference_space(Session& s, VerifyMode mode) {
  if (mode == VerifyMode::None) return std::nullopt;
  if (mode == VerifyMode::Host) return SpaceKind::Host;
  if (mode == VerifyMode::Device) return default_space();  // the host in a build without a device
  if ((s.params.generator == "uniform" && s.synthetic) || s.input.has_reference()) return std::nullopt;
  if (stored_reference(s, default_space())) return std::nullopt;
  return default_space();
}

namespace {
// The reference's origin for a pass computed now on space k, or one from the store.
record::ReferenceOrigin origin_of_pass(SpaceKind k, double seconds, const std::string& file) {
  record::ReferenceOrigin o;
  o.source = "computed";
  o.date = utc_now();
  o.space = to_string(k);
  o.device = space_info(k).device;
  o.pass_s = seconds;
  o.file = file;
  return o;
}
record::ReferenceOrigin origin_of_stored(const Session& s, const StoredReference& r) {
  record::ReferenceOrigin o;
  o.source = "stored";
  o.date = r.date;
  o.space = to_string(r.space);
  o.device = r.device;
  o.pass_s = r.seconds;
  o.file = s.store.path;
  return o;
}
}  // namespace

void prepare_reference(Session& s, VerifyMode mode, double rtol, bool arms, session::Progress* progress) {
  compat::ScopedRegion region("gpp::reference");
  const auto t0 = std::chrono::steady_clock::now();
  s.target = Verification{};
  s.target.tolerance = rtol;
  s.reference_origin = record::ReferenceOrigin{};
  const bool looked_up_before = s.store.looked_up;  // by an estimate of the command's time
  const std::optional<SpaceKind> pass_space = reference_space(s, mode);
  if (mode == VerifyMode::None) {
    s.target.against = "none";
  } else if (!pass_space && s.params.generator == "uniform" && s.synthetic) {
    s.target.against = "closed form";
    s.reference_origin.source = "closed form";
    // Each sum has nbands*ngpown*ncouls equal terms (constant data).
    s.target.tolerance =
        std::max(rtol, closed_form_tolerance(double(s.host.nbands) * s.ngpown_total * double(s.host.ncouls)));
    s.reference = apply_start_values(closed_form_uniform(s.params), s.input.asxtemp0, s.input.achtemp0);
  } else if (!pass_space && s.input.has_reference()) {
    s.target.against = "stored reference";
    s.reference_origin.source = "input file";
    s.reference.achtemp = s.input.achtempref;
    s.reference.asxtemp = s.input.asxtempref;
  } else {
    // The fast reference: the physics written apart from the policies, compensated sums,
    // on the device where the build has one (Auto), and the arms from the same pass; or
    // that pass as the user's store keeps it (reference_space found it there).
    const SpaceKind k = pass_space ? *pass_space : default_space();
    s.target.against = std::string(to_string(k)) + " reference";
    const StoredReference* stored = pass_space ? nullptr : stored_reference(s, k);
    session::ReferencePass pass;
    if (stored) {
      pass = stored->pass;
      s.reference_origin = origin_of_stored(s, *stored);
    } else {
      const auto t1 = std::chrono::steady_clock::now();
      pass = reference_pass(s, k, "verification reference", progress);
      const double seconds = seconds_since(t1);
      s.reference_origin = origin_of_pass(k, seconds, store_reference(s, k, pass, seconds));
    }
    s.reference = apply_start_values(pass.sums, s.input.asxtemp0, s.input.achtemp0);
    s.reference_achstemp = pass.achstemp;
    s.arms = pass.arms;
  }
  // A pass, or what finding it in the store took (the digest of the deck, the file read).
  s.reference_s = s.reference_origin.date.empty() ? 0 : seconds_since(t0);
  if (s.reference_origin.source == "stored" && looked_up_before) s.reference_s += s.store.lookup_s;
  if (arms && !s.arms) arm_counts(s, progress);
}

const measure::counts::ArmCounts& arm_counts(Session& s, session::Progress* progress) {
  if (!s.arms) {
    const SpaceKind k = default_space();
    if (const StoredReference* stored = stored_reference(s, k)) {
      s.arms = stored->pass.arms;
      s.arms_stored = true;
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      const ReferencePass pass = reference_pass(s, k, "branch statistics", progress);
      s.arms = pass.arms;
      s.arms_s = seconds_since(t0);
      store_reference(s, k, pass, s.arms_s);
    }
  }
  return *s.arms;
}

std::string describe_stored_reference(const Session& s) {
  const record::ReferenceOrigin& o = s.reference_origin;
  if (o.source != "stored") return "";
  const StoredReference* r = s.store.found ? &*s.store.found : nullptr;
  std::ostringstream text;
  text << "stored reference, computed " << o.date << " on the " << o.space;
  if (r && !r->backend.empty()) text << " (" << r->backend << ", " << r->device << ")";
  char took[32];
  std::snprintf(took, sizeof took, "%.3g s", o.pass_s);
  text << " in " << (o.pass_s < 60 ? std::string(took) : Progress::duration(o.pass_s)) << ", read from " << o.file
       << "; ";
  return text.str();
}

std::string describe_reference_stored_now(const Session& s) {
  const record::ReferenceOrigin& o = s.reference_origin;
  return o.source == "computed" && !o.file.empty() ? "; stored in " + o.file + " for later runs" : "";
}

SpaceKind placement(const PolicyEntry& entry, std::optional<SpaceKind> requested) {
  if (requested) {
    if (!entry.runs_on(*requested))
      throw Error("policy " + entry.name + " does not run on the " + to_string(*requested) +
                  " space; it runs on: " + entry.spaces());
    return *requested;
  }
  return entry.runs_on(default_space()) ? default_space() : SpaceKind::Host;
}

Tunables resolve(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t) {
  return with_space(k, [&](auto space) {
    Tunables resolved;
    s.for_each_chunk(
        space, [&](const auto& data) { resolved = entry.resolve(space, data, t); }, true);
    return resolved;
  });
}

template <class Mem>
GppData<Mem> column_slice(const GppData<Mem>& d, int first, int last) {
  using Types = ViewTypes<Mem>;
  GppData<Mem> c = d;
  const auto cols = std::make_pair(first, last);
  c.ngpown = last - first;
  c.I_eps_array = Kokkos::subview(d.I_eps_array, Kokkos::ALL, cols);
  c.wtilde_array = Kokkos::subview(d.wtilde_array, Kokkos::ALL, cols);
  c.aqsmtemp_local_bt = Kokkos::subview(d.aqsmtemp_local_bt, Kokkos::ALL, cols);
  c.vcoul_loc = Kokkos::subview(d.vcoul_loc, cols);
  // (its G' index is the first: a range of rows is not a LayoutLeft view)
  c.aqsmtemp_local = typename Types::ComplexMatrix(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::slice::aqsmtemp_local"), c.ngpown, d.nbands);
  Kokkos::deep_copy(c.aqsmtemp_local, Kokkos::subview(d.aqsmtemp_local, cols, Kokkos::ALL));
  return c;
}
template GppData<Kokkos::HostSpace> column_slice(const GppData<Kokkos::HostSpace>&, int, int);
#if GPP_HAS_DEVICE_SPACE
template GppData<DeviceExec::memory_space> column_slice(const GppData<DeviceExec::memory_space>&, int, int);
#endif

PolicyRun run_policy(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, int repeat, int warmup,
                     session::Progress* progress) {
  PolicyRun r;
  r.policy = entry.name;
  r.space = space_info(k);
  backend::Range range("gpp::policy::" + entry.name);  // ncu --nvtx-include "gpp::policy::NAME/"
  std::vector<double> kernel_s, pass_s, comm_s;        // this rank's, per timed repeat
  const double updates = s.host.updates();
  // Seconds per G' column: the prior until a piece of work has been timed, then measured.
  const double per_column_updates = updates / std::max(1, s.host.ngpown);
  double per_column = per_column_updates / session::prior_update_rate(entry.name, k);
  if (progress)
    progress->start(entry.name + " on the " + to_string(k) + ": " +
                        (warmup > 0 ? std::to_string(warmup) + " warm-up + " : std::string()) + std::to_string(repeat) +
                        " timed run" + (repeat == 1 ? "" : "s"),
                    double(warmup + repeat) * updates, double(warmup + repeat) * s.host.ngpown * per_column);
  StreamStats before;
  with_space(k, [&](auto space) {
    r.tunables = resolve(s, entry, k, t);
    before = s.stream_stats(k);
    // One pass: the policy on each G' chunk, in slices where it is long (kernel time:
    // fenced, the chunks' copies excluded; pass time: the copies that were not hidden
    // behind a kernel included), then the sums of every rank (communication time). The
    // timed runs' slices are fixed; a warm-up's follow the rate it measures.
    auto once = [&](const bool fixed) {
      SigmaSums sums;
      double kernel = 0;
      int launches = 0;
      mpi::barrier();  // every rank starts together: the slowest rank's time is the job's
      space.fence();
      const auto tp = std::chrono::steady_clock::now();
      s.for_each_chunk(space, [&](const auto& data) {
        launches += for_each_slice(space, data, per_column, fixed, [&](const auto& piece) {
          space.fence();
          const auto t0 = std::chrono::steady_clock::now();
          const SigmaSums part = entry.run(space, piece, r.tunables);
          space.fence();
          const double seconds = seconds_since(t0);
          kernel += seconds;
          add_to(sums, part);
          if (progress) progress->advance(piece.ngpown * per_column_updates);
          return seconds;
        });
      });
      const double pass = seconds_since(tp);
      const auto t1 = std::chrono::steady_clock::now();
      sum_over_ranks(sums);
      const double comm = seconds_since(t1);
      return std::make_tuple(apply_start_values(sums, s.input.asxtemp0, s.input.achtemp0), kernel, pass, comm,
                             launches);
    };
    auto check = [&](const SigmaResult& res) {
      if (!s.target.performed()) return;
      const double e = relative_error(res, s.reference);
      r.rel_error = std::isnan(e) ? INFINITY : std::max(r.rel_error, e);
    };
    StopPhase phase(entry.name + " on the " + to_string(k));
    const std::string runs = " (" + entry.name + " on the " + to_string(k) + ")";
    for (int i = 0; i < warmup; ++i) {
      phase.rename("warm-up run " + std::to_string(i + 1) + " of " + std::to_string(warmup) + runs);
      check(std::get<0>(once(false)));  // module load, first touch, allocations
    }
    for (int i = 0; i < repeat; ++i) {
      phase.rename("timed run " + std::to_string(i + 1) + " of " + std::to_string(repeat) + runs);
      auto [res, kernel, pass, comm, launches] = once(true);
      kernel_s.push_back(kernel);
      pass_s.push_back(pass);
      comm_s.push_back(comm);
      r.launches = std::max(r.launches, launches);
      backend::sample_memory();
      check(res);
      r.result = std::move(res);
    }
  });
  if (progress) progress->finish();
  // A repeat takes the slowest rank's kernel time plus the reduction as the rank that
  // waited least saw it (the others' wait is the imbalance, not communication).
  std::vector<double> slowest(kernel_s), slowest_pass(pass_s), reduction(comm_s);
  mpi::max(slowest);
  mpi::max(slowest_pass);
  mpi::min(reduction);
  for (std::size_t i = 0; i < slowest.size(); ++i) {
    r.times.push_back(slowest[i] + reduction[i]);
    r.times_with_transfers.push_back(slowest_pass[i] + reduction[i]);
  }
  r.ranks = mpi::size();
  r.rank_kernel_s = mpi::gather(median_of(kernel_s));
  r.comm_s = median_of(reduction);
  // The streamed chunks' copies of this rank, per pass (warm-up included).
  const StreamStats after = s.stream_stats(k);
  if (const int passes = after.passes - before.passes; passes > 0) {
    r.stream_bytes = (after.stream_bytes - before.stream_bytes) / passes;
    r.stream_copy_s = after.copy_s < 0 || before.copy_s < 0 ? -1 : (after.copy_s - before.copy_s) / passes;
  }
  r.chunks = std::max(1, s.chunks(k).launches());
  // Every rank verified the same sums; the worst error any rank saw is the run's.
  r.rel_error = mpi::max(r.rel_error);
  r.verified = s.target.performed() && r.rel_error <= s.target.tolerance;
  if (s.target.performed() && !r.verified) r.status = "wrong";
  return r;
}

RunRecord make_record(const std::string& command, const std::vector<std::string>& argv, const Session& s) {
  RunRecord r;
  r.command = command;
  r.date = utc_now();
  r.command_line = argv;
  for (const std::string& w : runtime::kokkos_warnings()) r.kokkos_warnings.push_back(one_line(w));
  r.build = this_build();
  DeckInfo& d = r.deck;
  d.name = s.params.name;
  d.source = s.source;
  d.generator = s.synthetic ? s.params.generator : "file";
  d.input_path = s.input_path;
  if (s.synthetic && s.params.generator == "random") d.seed = (long long)s.params.seed;
  d.sizes = {s.host.nbands, s.ngpown_total, s.host.ncouls, s.host.nw};
  d.nstart = s.host.nstart;
  d.nend = s.host.nend;
  d.nvband = s.input.nvband;
  d.updates = s.updates_total;
  r.setup_s = s.setup_s;
  r.read_s = s.read_s;
  r.check_s = s.check_s;
  r.read_bytes = s.read_bytes;
  r.data_bytes = (long long)s.host.bytes();  // this rank's
  r.ranks = mpi::size();
  update_after_runs(r, s);
  update_after_verification(r, s);
  return r;
}

void update_after_verification(RunRecord& r, const Session& s) {
  r.target = s.target;
  r.reference = s.reference;
  r.reference_s = s.reference_s;
  r.reference_origin = s.reference_origin;
}

void update_after_runs(RunRecord& r, const Session& s) {
  r.transfer_s = s.transfer_s();
  const StreamStats st = s.stream_stats(SpaceKind::Device);
  r.transfer_bytes = st.upload_bytes;
  r.transfer_copy_s = st.upload_copy_s;
  r.device_mem_peak_bytes = backend::memory_peak();
}

void PhaseClock::mark(const int phase) {
  at_[phase] = runtime::seconds_since_start();
  transfer_[phase] = s_.transfer_s();
  for (int k = phase + 1; k < 3; ++k) at_[k] = at_[phase], transfer_[k] = transfer_[phase];
}

TimeToSolution PhaseClock::now() const {
  TimeToSolution t;
  t.total_s = runtime::seconds_since_start();
  const double transfer = s_.transfer_s();
  t.setup_s = at_[0] - transfer_[0];
  t.verification_s = (at_[1] - at_[0]) - (transfer_[1] - transfer_[0]);
  t.kernel_s = (at_[2] - at_[1]) - (transfer_[2] - transfer_[1]);
  t.transfer_s = transfer;
  t.output_s = (t.total_s - at_[2]) - (transfer - transfer_[2]);
  return t;
}

std::string PhaseClock::describe(const TimeToSolution& t) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "time to solution [s]: setup %.3f + transfer %.3f + kernels %.3f + verification %.3f + output %.3f\n"
                "time to solution: %.3f s (the wall time since gpp started)\n",
                t.setup_s, t.transfer_s, t.kernel_s, t.verification_s, t.output_s, t.total_s);
  return buf;
}

std::string describe_deck(const Session& s) {
  std::ostringstream o;
  const auto& d = s.host;
  o << "deck: " << s.params.name << " (" << s.source;
  if (s.params.generator == "random" && s.synthetic) o << ", seed " << s.params.seed;
  o << ")\n";
  o << "sizes: nbands=" << d.nbands << " ngpown=" << s.ngpown_total << " ncouls=" << d.ncouls << " nw=" << d.nw
    << " (iw " << d.nstart << ".." << d.nend << ") nvband=" << s.input.nvband << "\n";
  const long long skipped = s.skipped_gp_total;
  double occupied = 0;
  int half = 0;
  for (int i = 0; i < d.nbands; ++i) {
    occupied += d.occ_array(i) > 0;
    half += d.occ_array(i) == 0.5;
  }
  o << "derived: occupied bands " << occupied << " (" << half << " at the Fermi level), skipped G' " << skipped
    << ", limittwo " << d.limittwo << ", sexcut " << d.sexcut << "\n";
  o << "updates: " << s.updates_total << " (band x G' x G x frequency)\n";
  if (s.share.nranks > 1)
    o << "ranks: " << s.share.nranks << ", G' dealt cyclically: " << s.ngpown_total / s.share.nranks << " to "
      << (s.ngpown_total + s.share.nranks - 1) / s.share.nranks << " columns per rank\n";
  return o.str();
}

}  // namespace gpp::session
