#pragma once
// One problem set up for the runs of a command (deck -> input -> derived arrays, in host
// memory; copied to the device the first time a run there needs it), its reference
// result, and timed runs of policies on it. Shared by `gpp run`, `bench` and `sweep`.
#include "gpp_backend.hpp"
#include "gpp_chunks.hpp"
#include "gpp_counts.hpp"
#include "gpp_input.hpp"
#include "gpp_policy.hpp"
#include "gpp_progress.hpp"
#include "gpp_record.hpp"
#include "gpp_reference_store.hpp"
#include "gpp_result.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpp::session {

/// Auto: closed form for uniform decks, the stored reference of an input file, else the
/// fast reference (session/gpp_fast_reference.hpp) on the device where the build has one,
/// else on the host, taken from the user's store where it holds this deck's
/// (session/gpp_reference_store.hpp); Host: the fast reference computed on the host;
/// Device: on the device (the host in a build without one). Host and Device refresh the
/// store.
enum class VerifyMode { Auto, Host, Device, None };

struct Session {
  DeckParams params;
  std::string source;      // "random generator", "uniform generator", or the input file
  std::string input_path;  // "" for synthetic decks
  bool synthetic = true;   // generated from the deck parameters (not read from a file)
  InputDeck input;
  GppData<Kokkos::HostSpace> host;  // the host space's data (and the references')
  double setup_s = 0;               // generate or read, check, derive
  double read_s = 0;                // of setup_s: reading the input file (0 for synthetic decks)
  double check_s = 0;               // of setup_s: validating what was read
  std::int64_t read_bytes = 0;

  // MPI over G' (docs/mpi.md): this rank's cyclic share of the G' columns. `input` and
  // `host` hold only those columns (their ngpown is the local count).
  GpShare share;
  // A digest of the whole deck's input data (docs/mpi.md: every rank must run the same
  // deck): of the deck parameters for a synthetic deck (the generator is a function of
  // them), of every array and scalar read for an input file.
  std::string deck_digest;
  int ngpown_total = 0;            // G' of the whole deck
  double updates_total = 0;        // terms of the whole deck
  long long skipped_gp_total = 0;  // G' mapped outside 1..ncouls, whole deck (complete_share)

  // G' chunks (--max-device-mem, docs/mpi.md): how each space holds this rank's columns
  // (plan_chunks; unchunked: all resident), and the stream that holds them there, made
  // on first use: the device copy (pinned staging) of the whole share or of its resident
  // columns, and the chunk buffers of the streamed ones.
  ChunkPlan chunks_device, chunks_host;
  std::unique_ptr<ChunkStream<DeviceExec>> stream_device;
  std::unique_ptr<ChunkStream<HostExec>> stream_host;
  std::unique_ptr<ChunkStream<DeviceExec>> whole_device;  // data() of a chunked device: the whole share
  const ChunkPlan& chunks(SpaceKind k) const { return k == SpaceKind::Host ? chunks_host : chunks_device; }

  /// Host -> device copies so far: the one-off copies (bands, resident columns, or the
  /// whole share), and what the streamed passes' copies were not hidden behind kernels.
  double transfer_s() const;
  /// What the streams of space `k` copied (zeros before any copy).
  StreamStats stream_stats(SpaceKind k) const;

  // Verification target, filled by prepare_reference.
  Verification target;  // against, tolerance
  SigmaResult reference;
  std::optional<std::complex<double>> reference_achstemp;
  double reference_s = 0;                    // the reference pass (with the arms when they were asked for)
  record::ReferenceOrigin reference_origin;  // computed, stored, ...: when and where
  // The user's store of references (session/gpp_reference_store.hpp): off unless a
  // command turns it on (the commands: unless --no-reference-cache).
  ReferenceStoreUse store;
  // Every term's arm (branch statistics, the work counts), from the reference pass or a
  // pass of its own (arms_s) where the target needed none.
  std::optional<measure::counts::ArmCounts> arms;
  double arms_s = 0;
  bool arms_stored = false;  // taken from the store where the target needed no pass

  /// The data a kernel on `space` reads, the whole share: the host arrays themselves on
  /// the host, the device copy on a device (copied through page-locked staging, fenced and
  /// timed, on first use).
  template <class ExecSpace>
  const DataFor<ExecSpace>& data(const ExecSpace& space);

  /// Calls f(data) with the data of each G' chunk on `space` in turn (the whole share,
  /// through data(space), when there are no chunks), the chunks' copies overlapped with
  /// the calls (ChunkStream::pass); `first_only` stops after the first.
  template <class ExecSpace, class F>
  void for_each_chunk(const ExecSpace& space, F&& f, bool first_only = false);

 private:
  template <class ExecSpace>
  ChunkStream<ExecSpace>& stream(const ExecSpace& space);
};

/// Collective: what the session needs to know about the other ranks' shares (the
/// skipped G' of the whole deck). Called on every rank once the session is made.
void complete_share(Session& s);

/// Plans the G' chunks of space `k`: at most `max_bytes` of data at once (<= 0: the
/// default, 90% of the device memory free now on a device, no chunks on the host).
/// Throws gpp::Error when not even one G' column fits beside the replicated arrays.
void plan_chunks(Session& s, SpaceKind k, long long max_bytes);

/// "--max-device-mem" values: bytes, or a number with K, M, G, T (powers of 1024, with
/// or without "iB"/"B"). Throws gpp::Error for anything else.
long long parse_bytes(const std::string& text, const std::string& option);

template <class ExecSpace>
ChunkStream<ExecSpace>& Session::stream(const ExecSpace&) {
  const ChunkPlan& plan = chunks(kind_of<ExecSpace>());
  ChunkPlan whole;
  whole.ngpown = whole.resident = host.ngpown;
  auto& s = [&]() -> std::unique_ptr<ChunkStream<ExecSpace>>& {
    if constexpr (kind_of<ExecSpace>() == SpaceKind::Host)
      return stream_host;
    else
      return stream_device;
  }();
  if (!s) s = std::make_unique<ChunkStream<ExecSpace>>(host, plan.chunked() ? plan : whole);
  return *s;
}

template <class ExecSpace, class F>
void Session::for_each_chunk(const ExecSpace& space, F&& f, bool first_only) {
  if (!chunks(kind_of<ExecSpace>()).chunked()) {
    f(data(space));
    return;
  }
  stream(space).pass(
      space, [&](const DataFor<ExecSpace>& d) { f(d); }, first_only);
}

/// Build the session from deck parameters (synthetic decks).
Session make_session(const DeckParams& p, const GpShare& share = {});

/// 16 hex digits: a 64-bit digest (not cryptographic) of a deck's parameters, or of
/// everything an input file holds.
std::string digest_of(const DeckParams& p);
std::string digest_of(const InputDeck& in);

/// Build the session from an input file (.dat or HDF5 deck, session/gpp_session_file.cpp);
/// the deck is called `name`, or after the file when `name` is empty.
Session make_session_from_file(const std::string& path, const std::string& name = "", const GpShare& share = {});

/// "read: ..." line of a session read from a file.
std::string describe_read(const Session& s);

/// Choose and compute the verification target; with `arms`, also every term's arm
/// (s.arms), from the same pass, or from a pass of its own where the target needs none.
/// A pass is taken from the user's store where it holds the deck's (VerifyMode::Auto),
/// and a pass computed is stored (s.store, on rank 0). Collective. Reports on
/// `progress` (may be null).
void prepare_reference(Session& s, VerifyMode mode, double rtol, bool arms = false,
                       session::Progress* progress = nullptr);

/// The space prepare_reference's pass runs on for `mode`; none where the target needs no
/// pass (closed form, an input file's stored reference, a reference in the user's store,
/// --verify none). Looks in the store once (collective).
std::optional<SpaceKind> reference_space(Session& s, VerifyMode mode);

/// Every term's arm: s.arms, where prepare_reference did not count them taken from the
/// user's store, else counted (one pass of the fast reference on the default space, then
/// stored). Collective.
const measure::counts::ArmCounts& arm_counts(Session& s, session::Progress* progress = nullptr);

/// The stored reference of the session's deck for a pass on space `k`: looked up once
/// (collective: rank 0 reads, every rank gets the values), a note on stderr where a file
/// was there but could not be trusted. Null when there is none or the store is off
/// (session/gpp_reference_store.cpp).
const StoredReference* stored_reference(Session& s, SpaceKind k);

/// Stores a pass just computed on space `k` (rank 0 writes; collective only in that every
/// rank calls it), refreshing any file there; a note on stderr where it cannot. Returns
/// the path written ("" if none).
std::string store_reference(Session& s, SpaceKind k, const ReferencePass& pass, double seconds);

/// What the text says of the reference after "verifying against the host reference (":
/// "stored reference, computed DATE on the host (BACKEND, DEVICE) in 5.81 s, read from
/// FILE; " for a stored one, else "".
std::string describe_stored_reference(const Session& s);
/// "; stored in FILE for later runs" where this command's pass was stored, else "".
std::string describe_reference_stored_now(const Session& s);

/// The space a policy runs on: `requested` if given, else the default space where the
/// policy runs there, else the host. Throws gpp::Error if the policy does not run on the
/// requested space.
SpaceKind placement(const PolicyEntry& entry, std::optional<SpaceKind> requested);

/// Resolves the tunables of `entry` on space `k` (gpp::Error for what cannot run).
Tunables resolve(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t);

/// `warmup` untimed runs, then `repeat` timed runs with fences, on space `k`; every
/// run's result is verified. A run estimated longer than half a minute is launched in
/// slices of G' columns of about ten seconds each (record::PolicyRun::launches), so that
/// `progress` (may be null) can follow it.
record::PolicyRun run_policy(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, int repeat,
                             int warmup = 1, session::Progress* progress = nullptr);

/// The data of local G' columns [first, last) of `d`: the large matrices as column views
/// (no copy), aqsmtemp_local copied (its G' index is the first).
template <class Mem>
GppData<Mem> column_slice(const GppData<Mem>& d, int first, int last);

/// Work on `data` estimated longer than kSliceAbove seconds (`per_column`: seconds per G'
/// column) runs in slices of G' columns of about kSliceTarget seconds each, each a launch
/// whose partial result the caller adds, so that its progress can be followed; a launch's
/// overhead (microseconds to a millisecond) is far below a slice's length. Shorter work is
/// one launch. f(piece) runs a piece and returns its seconds, which refine per_column;
/// with `fixed` the slices' width is decided once (timed runs), else after each slice from
/// the rate measured so far. Returns the number of launches.
inline constexpr double kSliceAbove = 30, kSliceTarget = 10;
template <class ExecSpace, class F>
int for_each_slice(const ExecSpace& space, const DataFor<ExecSpace>& data, double& per_column, bool fixed, F&& f) {
  const int ngpown = data.ngpown;
  // The fewest columns of a slice: four per thread of a host space (policies share G' out
  // among threads), 128 on a device (a slice still fills it: 128 x ncouls threads).
  const int min_width =
      std::min(ngpown, std::max(1, kind_of<ExecSpace>() == SpaceKind::Host ? 4 * int(space.concurrency()) : 128));
  const auto width_now = [&] {
    const double estimate = ngpown * per_column;
    if (!(estimate > kSliceAbove) || ngpown < 2 * min_width) return ngpown;
    return std::clamp(int(ngpown * kSliceTarget / estimate), min_width, ngpown);
  };
  int width = width_now(), launches = 0;
  for (int first = 0; first < ngpown; ++launches) {
    const int last = std::min(ngpown, first + width);
    const double seconds = last - first == ngpown ? f(data) : f(column_slice(data, first, last));
    if (seconds > 0) per_column = seconds / (last - first);
    first = last;
    if (!fixed) width = width_now();
  }
  return launches;
}

/// A record of the command with the session's deck, setup and verification target
/// (runs, branches and the static remainder are added by the command).
record::RunRecord make_record(const std::string& command, const std::vector<std::string>& argv, const Session& s);

/// What the runs changed in the setup: the device copy's transfer time (made on first
/// use), the sampled device memory peak.
void update_after_runs(record::RunRecord& r, const Session& s);

/// The verification target, the reference and its time, once the reference is made: a
/// campaign starts its rows from the record before the reference pass, which can be long.
void update_after_verification(record::RunRecord& r, const Session& s);

/// A command's time to solution (record::RunRecord::time_to_solution): marks at the end of its
/// setup, of its verification target and of its kernels; the host -> device transfers
/// the session made inside each phase are taken out of it and counted once, as
/// transfer, so that the phases add up to the wall time since gpp started.
class PhaseClock {
 public:
  explicit PhaseClock(const Session& s) : s_(s) {}
  void setup_done() { mark(0); }
  void verification_done() { mark(1); }
  void kernels_done() { mark(2); }
  /// The phases so far; the output phase until now.
  record::TimeToSolution now() const;
  /// "time to solution ..." lines: the phases, then their sum.
  static std::string describe(const record::TimeToSolution& t);

 private:
  void mark(int phase);
  const Session& s_;
  double at_[3] = {}, transfer_[3] = {};
};

/// Deck, sizes and derived counts as human-readable lines.
std::string describe_deck(const Session& s);

}  // namespace gpp::session
