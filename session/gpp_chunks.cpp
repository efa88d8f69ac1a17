#include "gpp_chunks.hpp"

#include "gpp_compat.hpp"
#include "gpp_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace gpp::session {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr std::size_t kAlign = 256;  // a device's allocation granularity: every array starts coalesced
std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Pieces of an upload at most this large when there are no chunk buffers to reuse: large
// enough for the link's full speed, small enough that packing one hides the previous copy.
constexpr std::size_t kUploadPieceBytes = std::size_t(64) << 20;

// Threads that pack a chunk into page-locked staging (the packing thread and its helpers):
// copying from pageable memory is bound by each core's memory traffic, well below a PCIe 5
// or NVLink-C2C link, and a quarter of 16 cores left a chunked pass waiting on its packs.
// Half the host space's threads: the others launch the kernels and leave memory bandwidth
// to the copies (all of them slowed both). At most 16.
unsigned pack_threads() {
  const int host = Kokkos::DefaultHostExecutionSpace().concurrency();
  const unsigned n = host > 1 ? unsigned(host) / 2 : std::thread::hardware_concurrency() / 4;
  return std::clamp(n, 1u, 16u);
}

}  // namespace

GppData<Kokkos::HostSpace> gp_columns(const GppData<Kokkos::HostSpace>& h, int first, int last) {
  return column_slice(h, first, last);
}

ChunkBytes chunk_bytes(const GppData<Kokkos::HostSpace>& h) {
  const double c = sizeof(complex_t), r = sizeof(double);
  ChunkBytes b;
  // aqsntemp, wx_array_t and wx_array_bt, occ_array in every chunk.
  b.replicated = c * double(h.ncouls) * h.nbands + 2 * r * double(h.nw) * h.nbands + r * h.nbands;
  // wtilde_array and I_eps_array, aqsmtemp_local and its band-contiguous copy, vcoul_loc,
  // and the static remainder's S (nbands x G') while achstemp is computed.
  b.per_column = 2 * c * double(h.ncouls) + 3 * c * double(h.nbands) + r;
  return b;
}

ChunkPlan plan_columns(int ngpown, long long columns, const ChunkBytes& b) {
  ChunkPlan p;
  p.ngpown = ngpown;
  if (columns >= ngpown) {
    p.resident = ngpown;
    return p;
  }
  p.slots = columns >= 2 ? 2 : 1;
  const long long widest = std::max<long long>(1, (long long)std::floor(kMaxChunkBytes / b.per_column));
  p.width = int(std::max<long long>(1, std::min(columns / p.slots, widest)));
  const long long left = columns - (long long)p.slots * p.width;
  p.resident = left >= p.width ? int(std::min<long long>(left, ngpown)) : 0;
  for (int first = p.resident; first < ngpown; first += p.width)
    p.streamed.emplace_back(first, std::min(ngpown, first + p.width));
  return p;
}

std::vector<ChunkStep> chunk_schedule(int m, int slots, bool kernels, bool resident_kernel) {
  std::vector<ChunkStep> s;
  auto add = [&](ChunkStep::Op op, int c) { s.push_back({op, c}); };
  if (m <= 0) {
    if (resident_kernel) add(ChunkStep::Kernel, -1);
    return s;
  }
  if (slots >= 2) {
    add(ChunkStep::Pack, 0);
    add(ChunkStep::WaitPack, 0);
    add(ChunkStep::Copy, 0);
    if (m > 1) add(ChunkStep::Pack, 1);
    if (resident_kernel) add(ChunkStep::Kernel, -1);
    for (int k = 0; k < m; ++k) {
      add(ChunkStep::WaitCopy, k);
      if (k + 1 < m) {
        add(ChunkStep::WaitPack, k + 1);
        add(ChunkStep::Copy, k + 1);
      }
      if (k + 2 < m) add(ChunkStep::Pack, k + 2);
      if (kernels) add(ChunkStep::Kernel, k);
    }
  } else {
    // One buffer: chunk k+1 is packed while chunk k runs, copied once it ran.
    add(ChunkStep::Pack, 0);
    if (resident_kernel) add(ChunkStep::Kernel, -1);
    for (int k = 0; k < m; ++k) {
      add(ChunkStep::WaitPack, k);
      add(ChunkStep::Copy, k);
      add(ChunkStep::WaitCopy, k);
      if (k + 1 < m) add(ChunkStep::Pack, k + 1);
      if (kernels) add(ChunkStep::Kernel, k);
    }
  }
  return s;
}

ChunkLayout::ChunkLayout(int ncouls, int nbands, int width) {
  const std::size_t c = sizeof(complex_t), w = std::size_t(width);
  i_eps = 0;
  wtilde = aligned(i_eps + c * std::size_t(ncouls) * w);
  aqsm = aligned(wtilde + c * std::size_t(ncouls) * w);
  aqsm_bt = aligned(aqsm + c * w * std::size_t(nbands));
  vcoul = aligned(aqsm_bt + c * std::size_t(nbands) * w);
  bytes = aligned(vcoul + sizeof(double) * w);
}

// ---------------------------------------------------------------- the stream

template <class ExecSpace>
struct ChunkStream<ExecSpace>::Block {
  const char* src;        // the first byte of the first column, in a host array
  std::size_t src_ld;     // bytes from one column to the next there
  std::size_t col_bytes;  // bytes of each column copied
  std::size_t cols;
  std::size_t offset;  // in the staging buffer
  char* dst;           // on the space: cols * col_bytes contiguous bytes
  std::size_t bytes() const { return col_bytes * cols; }
  // Bytes [x, y) of the packed block into staging at `base`.
  void pack(char* base, std::size_t x, const std::size_t y) const {
    if (src_ld == col_bytes) {
      std::memcpy(base + offset + x, src + x, y - x);
      return;
    }
    while (x < y) {
      const std::size_t c = x / col_bytes, o = x % col_bytes, n = std::min(col_bytes - o, y - x);
      std::memcpy(base + offset + x, src + c * src_ld + o, n);
      x += n;
    }
  }
};

template <class ExecSpace>
class ChunkStream<ExecSpace>::Packer {
 public:
  Packer() : thread_([this] { loop(); }) {}
  ~Packer() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Packer(const Packer&) = delete;
  Packer& operator=(const Packer&) = delete;

  void start(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(m_);
      task_ = std::move(task);
      busy_ = true;
    }
    wake_.notify_all();
  }
  /// Until the task started last has finished; rethrows what it threw.
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return !busy_; });
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return stop_ || task_; });
        if (!task_) return;
        task = std::move(task_);
        task_ = nullptr;
      }
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(m_);
        error_ = error;
        busy_ = false;
      }
      done_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  std::function<void()> task_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts once the members it reads exist
};

namespace {
// Packs `blocks` into `base`, the bytes split evenly over `threads` threads (this one
// and threads - 1 helpers) when there are enough of them to matter.
template <class Block>
void pack_blocks(const std::vector<Block>& blocks, char* base, const unsigned threads) {
  std::size_t total = 0;
  for (const Block& b : blocks) total += b.bytes();
  const unsigned n = total < (std::size_t(8) << 20) ? 1u : threads;
  auto part = [&](const unsigned t) {
    const std::size_t lo = total * t / n, hi = total * (t + 1) / n;
    std::size_t at = 0;  // where the block starts in the packed bytes (without the alignment gaps)
    for (const Block& b : blocks) {
      const std::size_t x = std::max(lo, at), y = std::min(hi, at + b.bytes());
      if (x < y) b.pack(base, x - at, y - at);
      at += b.bytes();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < n; ++t) helpers.emplace_back(part, t);
  part(0);
  for (std::thread& h : helpers) h.join();
}
}  // namespace

template <class ExecSpace>
ChunkStream<ExecSpace>::ChunkStream(const GppData<Kokkos::HostSpace>& host, ChunkPlan plan)
    : host_(host), plan_(std::move(plan)) {}

template <class ExecSpace>
ChunkStream<ExecSpace>::~ChunkStream() = default;

template <class ExecSpace>
void ChunkStream<ExecSpace>::allocate_staging(const std::size_t bytes) {
  if (!staging_.empty() && staging_[0].extent(0) >= bytes) return;
  staging_.clear();
  for (int k = 0; k < 2; ++k)
    staging_.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::chunks::staging"), bytes);
  if (!packer_) packer_ = std::make_unique<Packer>();
}

template <class ExecSpace>
void ChunkStream<ExecSpace>::run(const ExecSpace& space, const std::vector<ChunkStep>& steps,
                                 const std::vector<Piece>& pieces, const std::function<void(int)>& kernel,
                                 double& copy_s) {
  if (!have_copy_space_) {
    copy_space_ = compat::independent_instance(space);
    have_copy_space_ = true;
  }
  const int staging_slots = plan_.slots == 1 && kernel ? 1 : 2;
  const unsigned threads = pack_threads();
  backend::QueueTimer<ExecSpace> timer;
  using Dst = Kokkos::View<char*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Src = Kokkos::View<const char*, Staging, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  try {
    for (const ChunkStep& st : steps) {
      switch (st.op) {
        case ChunkStep::Pack: {
          const Piece* piece = &pieces[std::size_t(st.chunk)];
          char* base = staging_[std::size_t(st.chunk % staging_slots)].data();
          packer_->start([piece, base, threads] { pack_blocks(*piece, base, threads); });
          break;
        }
        case ChunkStep::WaitPack:
          packer_->wait();
          break;
        case ChunkStep::Copy: {
          const char* base = staging_[std::size_t(st.chunk % staging_slots)].data();
          timer.start(copy_space_);
          for (const Block& b : pieces[std::size_t(st.chunk)])
            Kokkos::deep_copy(copy_space_, Dst(b.dst, b.bytes()), Src(base + b.offset, b.bytes()));
          timer.stop(copy_space_);
          break;
        }
        case ChunkStep::WaitCopy: {
          copy_space_.fence();
          const double t = timer.seconds();
          copy_s = copy_s < 0 || t < 0 ? -1 : copy_s + t;
          break;
        }
        case ChunkStep::Kernel:
          kernel(st.chunk);
          break;
      }
    }
  } catch (...) {
    // Nothing may still read the pieces or write the buffers once they are gone.
    try {
      packer_->wait();
    } catch (...) {
    }
    copy_space_.fence();
    throw;
  }
}

template <class ExecSpace>
typename ChunkStream<ExecSpace>::Piece ChunkStream<ExecSpace>::chunk_piece(const int first, const int last,
                                                                           const int slot) const {
  const GppData<Kokkos::HostSpace>& h = host_;
  const std::size_t c = sizeof(complex_t), w = std::size_t(last - first);
  const ChunkLayout l(h.ncouls, h.nbands, int(w));
  char* dst = buffers_[std::size_t(slot)].data();
  auto bytes_of = [](const auto* p) { return reinterpret_cast<const char*>(p); };
  const std::size_t g_ld = c * std::size_t(h.I_eps_array.stride(1));
  const std::size_t w_ld = c * std::size_t(h.wtilde_array.stride(1));
  const std::size_t bt_ld = c * std::size_t(h.aqsmtemp_local_bt.stride(1));
  const std::size_t m_ld = c * std::size_t(h.aqsmtemp_local.stride(1));
  const std::size_t col = c * std::size_t(h.ncouls);
  return {
      {bytes_of(h.I_eps_array.data()) + first * g_ld, g_ld, col, w, l.i_eps, dst + l.i_eps},
      {bytes_of(h.wtilde_array.data()) + first * w_ld, w_ld, col, w, l.wtilde, dst + l.wtilde},
      // aqsmtemp_local's G' index is its first: rows first..last-1 of every band's column.
      {bytes_of(h.aqsmtemp_local.data()) + first * c, m_ld, c * w, std::size_t(h.nbands), l.aqsm, dst + l.aqsm},
      {bytes_of(h.aqsmtemp_local_bt.data()) + first * bt_ld, bt_ld, c * std::size_t(h.nbands), w, l.aqsm_bt,
       dst + l.aqsm_bt},
      {bytes_of(h.vcoul_loc.data() + first), sizeof(double) * w, sizeof(double) * w, 1, l.vcoul, dst + l.vcoul},
  };
}

template <class ExecSpace>
std::vector<typename ChunkStream<ExecSpace>::Piece> ChunkStream<ExecSpace>::upload_pieces(const Data& d) const {
  const GppData<Kokkos::HostSpace>& h = host_;
  const std::size_t c = sizeof(complex_t), r = sizeof(double), R = std::size_t(plan_.resident);
  auto bytes_of = [](const auto* p) { return reinterpret_cast<const char*>(p); };
  auto dst_of = [](auto* p) { return reinterpret_cast<char*>(p); };
  // Every array as one block (a sub-matrix: leading dimension, bytes per column, columns).
  std::vector<Block> blocks = {
      {bytes_of(h.aqsntemp.data()), c * std::size_t(h.aqsntemp.stride(1)), c * std::size_t(h.ncouls),
       std::size_t(h.nbands), 0, dst_of(d.aqsntemp.data())},
      {bytes_of(h.wx_array_t.data()), r * std::size_t(h.wx_array_t.stride(1)), r * std::size_t(h.nw),
       std::size_t(h.nbands), 0, dst_of(d.wx_array_t.data())},
      {bytes_of(h.wx_array_bt.data()), r * std::size_t(h.wx_array_bt.stride(1)), r * std::size_t(h.nbands),
       std::size_t(h.nw), 0, dst_of(d.wx_array_bt.data())},
      {bytes_of(h.occ_array.data()), r * std::size_t(h.nbands), r * std::size_t(h.nbands), 1, 0,
       dst_of(d.occ_array.data())},
  };
  if (R > 0) {
    const std::size_t col = c * std::size_t(h.ncouls);
    blocks.push_back({bytes_of(h.I_eps_array.data()), c * std::size_t(h.I_eps_array.stride(1)), col, R, 0,
                      dst_of(d.I_eps_array.data())});
    blocks.push_back({bytes_of(h.wtilde_array.data()), c * std::size_t(h.wtilde_array.stride(1)), col, R, 0,
                      dst_of(d.wtilde_array.data())});
    blocks.push_back({bytes_of(h.aqsmtemp_local.data()), c * std::size_t(h.aqsmtemp_local.stride(1)), c * R,
                      std::size_t(h.nbands), 0, dst_of(d.aqsmtemp_local.data())});
    blocks.push_back({bytes_of(h.aqsmtemp_local_bt.data()), c * std::size_t(h.aqsmtemp_local_bt.stride(1)),
                      c * std::size_t(h.nbands), R, 0, dst_of(d.aqsmtemp_local_bt.data())});
    blocks.push_back({bytes_of(h.vcoul_loc.data()), r * R, r * R, 1, 0, dst_of(d.vcoul_loc.data())});
  }
  // Split into pieces of at most one staging buffer, column by column.
  const std::size_t cap = staging_[0].extent(0);
  std::vector<Piece> pieces(1);
  std::size_t used = 0;
  for (Block b : blocks) {
    while (b.cols > 0) {
      const std::size_t at = aligned(used);
      const std::size_t fit = at >= cap ? 0 : (cap - at) / b.col_bytes;
      if (fit == 0) {
        if (used == 0) throw Error("internal error: one column does not fit a staging buffer");
        pieces.emplace_back();
        used = 0;
        continue;
      }
      Block part = b;
      part.cols = std::min(fit, b.cols);
      part.offset = at;
      pieces.back().push_back(part);
      used = at + part.bytes();
      b.src += part.cols * b.src_ld;
      b.dst += part.bytes();
      b.cols -= part.cols;
    }
  }
  return pieces;
}

template <class ExecSpace>
const typename ChunkStream<ExecSpace>::Data& ChunkStream<ExecSpace>::resident(const ExecSpace& space) {
  if (uploaded_) return resident_;
  const GppData<Kokkos::HostSpace>& h = host_;
  const int R = plan_.resident;
  const auto t0 = std::chrono::steady_clock::now();
  if constexpr (std::is_same_v<Mem, Kokkos::HostSpace>) {
    // The host reads its arrays in place: views of the resident columns (aqsmtemp_local's
    // rows copied: its G' index is its first).
    resident_ = gp_columns(h, 0, R);
    (void)space;
  } else {
    using Types = ViewTypes<Mem>;
    Data& d = resident_;
    copy_scalars(h, d);
    d.ngpown = R;
    auto alloc = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
    d.aqsntemp = typename Types::ComplexMatrix(alloc("gpp::data::aqsntemp"), h.ncouls, h.nbands);
    d.wx_array_t = typename Types::RealMatrix(alloc("gpp::data::wx_array_t"), h.nw, h.nbands);
    d.wx_array_bt = typename Types::RealMatrix(alloc("gpp::data::wx_array_bt"), h.nbands, h.nw);
    d.occ_array = typename Types::RealVector(alloc("gpp::data::occ_array"), h.nbands);
    d.I_eps_array = typename Types::ComplexMatrix(alloc("gpp::data::I_eps_array"), h.ncouls, R);
    d.wtilde_array = typename Types::ComplexMatrix(alloc("gpp::data::wtilde_array"), h.ncouls, R);
    d.aqsmtemp_local = typename Types::ComplexMatrix(alloc("gpp::data::aqsmtemp_local"), R, h.nbands);
    d.aqsmtemp_local_bt = typename Types::ComplexMatrix(alloc("gpp::data::aqsmtemp_local_bt"), h.nbands, R);
    d.vcoul_loc = typename Types::RealVector(alloc("gpp::data::vcoul_loc"), R);
    // The chunk buffers' size when there are chunks (the staging buffers are theirs);
    // else pieces of kUploadPieceBytes, released after the upload.
    const std::size_t column_max = sizeof(complex_t) * std::size_t(std::max({h.ncouls, h.nbands, R, 1}));
    const std::size_t cap =
        plan_.chunked() ? std::max<std::size_t>(ChunkLayout(h.ncouls, h.nbands, plan_.width).bytes, column_max)
                        : std::min<std::size_t>(kUploadPieceBytes, std::max<std::size_t>(d.bytes(), column_max));
    allocate_staging(std::max(cap, column_max));
    const std::vector<Piece> pieces = upload_pieces(d);
    double copy_s = 0;
    run(space, chunk_schedule(int(pieces.size()), 2, false, false), pieces, nullptr, copy_s);
    stats_.upload_copy_s = copy_s;
    for (const Piece& p : pieces)
      for (const Block& b : p) stats_.upload_bytes += double(b.bytes());
    if (!plan_.chunked()) {
      staging_.clear();  // page-locked memory is scarce: kept only for streaming
      packer_.reset();
    }
  }
  stats_.upload_s = seconds_since(t0);
  uploaded_ = true;
  return resident_;
}

template <class ExecSpace>
typename ChunkStream<ExecSpace>::Data ChunkStream<ExecSpace>::chunk_data(const int first, const int last,
                                                                         const int slot) const {
  using Types = ViewTypes<Mem>;
  const int w = last - first;
  const ChunkLayout l(host_.ncouls, host_.nbands, w);
  char* base = buffers_[std::size_t(slot)].data();
  auto complexes = [&](std::size_t off) { return reinterpret_cast<complex_t*>(base + off); };
  Data d = resident_;  // the bands' arrays and the scalars
  d.ngpown = w;
  d.I_eps_array = typename Types::ComplexMatrix(complexes(l.i_eps), host_.ncouls, w);
  d.wtilde_array = typename Types::ComplexMatrix(complexes(l.wtilde), host_.ncouls, w);
  d.aqsmtemp_local = typename Types::ComplexMatrix(complexes(l.aqsm), w, host_.nbands);
  d.aqsmtemp_local_bt = typename Types::ComplexMatrix(complexes(l.aqsm_bt), host_.nbands, w);
  d.vcoul_loc = typename Types::RealVector(reinterpret_cast<double*>(base + l.vcoul), w);
  return d;
}

template <class ExecSpace>
void ChunkStream<ExecSpace>::pass(const ExecSpace& space, const Consumer& f, const bool first_only) {
  const Data& res = resident(space);
  if (!plan_.chunked() || (first_only && plan_.resident > 0)) {
    f(res);
    return;
  }
  const GppData<Kokkos::HostSpace>& h = host_;
  if (buffers_.empty()) {
    const std::size_t bytes = ChunkLayout(h.ncouls, h.nbands, plan_.width).bytes;
    allocate_staging(bytes);
    for (int k = 0; k < plan_.slots; ++k)
      buffers_.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::chunks::buffer"), bytes);
  }
  const int m = first_only ? 1 : int(plan_.streamed.size());
  std::vector<Piece> pieces;
  double bytes = 0;
  for (int i = 0; i < m; ++i) {
    pieces.push_back(
        chunk_piece(plan_.streamed[std::size_t(i)].first, plan_.streamed[std::size_t(i)].second, i % plan_.slots));
    for (const Block& b : pieces.back()) bytes += double(b.bytes());
  }
  double kernel_s = 0, copy_s = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto kernel = [&](const int i) {
    const auto tk = std::chrono::steady_clock::now();
    if (i < 0) {
      f(res);
    } else {
      const auto& [first, last] = plan_.streamed[std::size_t(i)];
      f(chunk_data(first, last, i % plan_.slots));
    }
    kernel_s += seconds_since(tk);
  };
  run(space, chunk_schedule(m, plan_.slots, true, plan_.resident > 0 && !first_only), pieces, kernel, copy_s);
  stats_.passes += 1;
  stats_.stream_bytes += bytes;
  stats_.pass_s += seconds_since(t0);
  stats_.kernel_s += kernel_s;
  stats_.copy_s = stats_.copy_s < 0 || copy_s < 0 ? -1 : stats_.copy_s + copy_s;
}

template class ChunkStream<HostExec>;
#if GPP_HAS_DEVICE_SPACE
template class ChunkStream<DeviceExec>;
#endif

}  // namespace gpp::session
