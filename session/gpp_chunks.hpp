#pragma once
// G' chunks (docs/mpi.md): which of a rank's G' columns a space keeps and which it streams,
// the order of the stream's packs, copies and kernels, and the stream itself.
//
// A share that fits the space is copied once and kept. One that does not keeps as many
// columns as fit beside two chunk buffers (the resident part, copied once) and streams
// the rest through the buffers in every pass: a helper thread packs chunk k+2 into a
// page-locked staging buffer while chunk k+1 is copied from the other staging buffer on
// an execution space instance of its own, and chunk k runs on the space; copies and
// kernels meet only where a buffer is reused (chunk_schedule). The same code runs on the
// host space, with host buffers: its copies are synchronous there, but the plan, the
// packing, the buffers' rotation and the accounting are the ones a GPU runs, which is
// where the tests check them.
#include "gpp_backend.hpp"
#include "gpp_policy.hpp"
#include "gpp_types.hpp"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpp::session {

/// The host data of local G' columns [first, last): the large matrices as column views
/// (no copy), aqsmtemp_local copied (its G' index is the first).
GppData<Kokkos::HostSpace> gp_columns(const GppData<Kokkos::HostSpace>& h, int first, int last);

/// Bytes a space's copy of the data needs: the arrays every chunk repeats (bands, G) and
/// those of one G' column (with the static remainder's temporary).
struct ChunkBytes {
  double replicated = 0, per_column = 0;
};
ChunkBytes chunk_bytes(const GppData<Kokkos::HostSpace>& h);

/// How a space holds a rank's G' columns. Without chunks (the share fits), every column
/// is resident and nothing is streamed.
struct ChunkPlan {
  int ngpown = 0;    // the share's columns
  int resident = 0;  // columns [0, resident): copied to the space once and kept
  int width = 0;     // the widest streamed chunk, in columns
  int slots = 0;     // chunk buffers: 2 (one fills while the other is read), 1 when only one fits
  std::vector<std::pair<int, int>> streamed;  // [first, last) of each streamed chunk, in order
  bool chunked() const { return !streamed.empty(); }
  /// Kernel launches per pass: the resident part (when it has columns), then each chunk.
  int launches() const { return (resident > 0 ? 1 : 0) + int(streamed.size()); }
};

/// The widest streamed chunk, in bytes of its columns: a chunk this size keeps a copy
/// engine and a GPU busy for tens of milliseconds (launches and fences are amortised),
/// and what the budget has beyond two such buffers stays resident instead of streaming.
inline constexpr double kMaxChunkBytes = 512.0 * 1048576.0;

/// The plan for `columns` columns of `b.per_column` bytes that fit the space beside the
/// replicated arrays (`columns` >= 1): all resident when columns >= ngpown; otherwise two
/// buffers (one when only one column fits) of the widest chunk that fits, at most
/// kMaxChunkBytes of columns, and the columns left beyond them resident (none when fewer
/// than one chunk's width: one launch more would save too little).
ChunkPlan plan_columns(int ngpown, long long columns, const ChunkBytes& b);

/// One step of a pass over `m` streamed chunks (chunk i uses buffer i % slots).
struct ChunkStep {
  enum Op { Pack, WaitPack, Copy, WaitCopy, Kernel } op;
  int chunk;  // -1: the resident part's kernel
};

/// The order of a pass, fixed before it runs (tests check it: ChunkSchedule.*):
///  - a chunk is packed, then copied, then run (Pack, WaitPack, Copy, WaitCopy, Kernel);
///  - one pack at a time (the packing thread), and a copy fence (WaitCopy) waits for
///    exactly one copy: no later copy has started;
///  - a staging buffer is packed again only after its copy was waited for, a device
///    buffer is copied into again only after the kernel that read it ran;
///  - with two slots, chunk k+1's copy and chunk k+2's pack start before chunk k's kernel,
///    and the resident kernel runs while chunk 0 is copied and chunk 1 packed;
///  - `kernels` false (uploads of resident data: every piece has its own destination,
///    nothing reads a buffer): packs and copies only, each pack beside the previous copy.
std::vector<ChunkStep> chunk_schedule(int m, int slots, bool kernels, bool resident_kernel);

/// What a space's stream has copied and how long it was exposed.
struct StreamStats {
  double upload_bytes = 0, upload_s = 0;  // copied once (bands, resident columns, or the whole share)
  double upload_copy_s = 0;               // of upload_s: the copies' own time (device timers; -1: unknown)
  int passes = 0;                         // streamed passes
  double stream_bytes = 0;                // copied by the streamed passes, all of them
  double copy_s = 0;                      // the streamed copies' own time (device timers; -1: unknown)
  double pass_s = 0;                      // the streamed passes' wall time
  double kernel_s = 0;                    // of pass_s: inside the kernels (the passes' callbacks)
  double exposed_s() const { return pass_s - kernel_s; }  // copies not hidden behind kernels
};

/// A page-locked-staging copier and, with a chunk plan, the stream of one execution
/// space. Kept by the session; its buffers and its packing thread live as long as it.
template <class ExecSpace>
class ChunkStream {
 public:
  using Mem = typename ExecSpace::memory_space;
  using Data = GppData<Mem>;
  using Staging = std::conditional_t<kind_of<ExecSpace>() == SpaceKind::Host, Kokkos::HostSpace, backend::PinnedSpace>;
  using Consumer = std::function<void(const Data&)>;

  /// `host`: the session's arrays (the stream keeps views of them).
  ChunkStream(const GppData<Kokkos::HostSpace>& host, ChunkPlan plan);
  ~ChunkStream();
  ChunkStream(const ChunkStream&) = delete;
  ChunkStream& operator=(const ChunkStream&) = delete;

  /// The bands' arrays and the resident columns on the space: copied the first time
  /// (timed into stats().upload_s), kept. On the host space, views of the host arrays.
  const Data& resident(const ExecSpace& space);

  /// One pass: f(resident part), then f(chunk) for every streamed chunk, in column order,
  /// the copies overlapped with the kernels (chunk_schedule). `first_only`: only the
  /// first piece of data (the resident part, else the first chunk): what resolving a
  /// policy's tunables reads. Rethrows what f throws once the stream is quiet.
  void pass(const ExecSpace& space, const Consumer& f, bool first_only = false);

  const ChunkPlan& plan() const { return plan_; }
  const StreamStats& stats() const { return stats_; }

 private:
  struct Block;  // a LayoutLeft sub-matrix of a host array and where it goes
  using Piece = std::vector<Block>;
  class Packer;  // the helper thread that packs one piece at a time
  Piece chunk_piece(int first, int last, int slot) const;
  std::vector<Piece> upload_pieces(const Data& d) const;
  void run(const ExecSpace& space, const std::vector<ChunkStep>& steps, const std::vector<Piece>& pieces,
           const std::function<void(int)>& kernel, double& copy_s);
  Data chunk_data(int first, int last, int slot) const;
  void allocate_staging(std::size_t bytes);

  GppData<Kokkos::HostSpace> host_;
  ChunkPlan plan_;
  StreamStats stats_;
  Data resident_;
  bool uploaded_ = false;
  ExecSpace copy_space_;
  bool have_copy_space_ = false;
  std::vector<Kokkos::View<char*, Staging>> staging_;
  std::vector<Kokkos::View<char*, Mem>> buffers_;  // the chunk buffers, `slots` of them
  std::unique_ptr<Packer> packer_;
};

/// The byte offsets of a chunk's arrays in its buffer (and in its staging buffer), each
/// aligned to 256 bytes: I_eps_array, wtilde_array (ncouls x w), aqsmtemp_local
/// (w x nbands), aqsmtemp_local_bt (nbands x w), vcoul_loc (w).
struct ChunkLayout {
  std::size_t i_eps = 0, wtilde = 0, aqsm = 0, aqsm_bt = 0, vcoul = 0, bytes = 0;
  ChunkLayout(int ncouls, int nbands, int width);
};

}  // namespace gpp::session
