#pragma once
// One problem set up for the runs of a command (deck -> input -> derived arrays, in host
// memory; copied to the device the first time a run there needs it), its reference
// result, and timed runs of policies on it. Shared by `gpp run`, `bench` and `sweep`.
#include "gpp_input.hpp"
#include "gpp_policy.hpp"
#include "gpp_record.hpp"
#include "gpp_result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpp::app {

/// Auto: closed form for uniform decks, the stored reference of an input file, else the
/// host reference up to kHostReferenceMaxUpdates and the device reference beyond.
enum class VerifyMode { Auto, Host, Device, None };

/// Largest deck (updates) the automatic choice verifies with the host reference:
/// ~50-100 ns per term on one core makes 2e9 terms a few minutes on a 16-core host.
inline constexpr double kHostReferenceMaxUpdates = 2e9;

struct Session {
  DeckParams params;
  std::string source;     // "random generator", "uniform generator", or the input file
  std::string input_path; // "" for synthetic decks
  bool synthetic = true;  // generated from the deck parameters (not read from a file)
  InputDeck input;
  GppData<Kokkos::HostSpace> host;          // the host space's data (and the references')
  GppData<DeviceExec::memory_space> device; // the device's copy, made on first use
  bool on_device = false;
  double setup_s = 0;     // generate or read, check, derive
  double read_s = 0;      // of setup_s: reading the input file (0 for synthetic decks)
  double check_s = 0;     // of setup_s: validating what was read
  std::int64_t read_bytes = 0;
  double transfer_s = 0;  // host -> device copy (0 when nothing ran on a device)

  // Verification target, filled by prepare_reference.
  Verification target;  // against, tolerance
  SigmaResult reference;
  std::optional<std::complex<double>> reference_achstemp;
  double reference_s = 0;

  /// The data a kernel on `space` reads: the host arrays themselves on the host, the
  /// device copy on a device (copied, fenced and timed into transfer_s, on first use).
  template <class ExecSpace>
  const DataFor<ExecSpace>& data(const ExecSpace& space);
};

/// Build the session from deck parameters (synthetic decks).
Session make_session(const DeckParams& p);

/// Build the session from an input file (.dat or HDF5 deck, app/gpp_session_file.cpp);
/// the deck is called `name`, or after the file when `name` is empty.
Session make_session_from_file(const std::string& path, const std::string& name = "");

/// "read: ..." line of a session read from a file.
std::string describe_read(const Session& s);

/// Choose and compute the verification target.
void prepare_reference(Session& s, VerifyMode mode, double rtol);

/// The space a policy runs on: `requested` if given, else the default space where the
/// policy runs there, else the host. Throws gpp::Error if the policy does not run on the
/// requested space.
SpaceKind placement(const PolicyEntry& entry, std::optional<SpaceKind> requested);

/// Resolves the tunables of `entry` on space `k` (gpp::Error for what cannot run).
Tunables resolve(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t);

/// `warmup` untimed runs, then `repeat` timed runs with fences, on space `k`; every
/// run's result is verified.
PolicyRun run_policy(Session& s, const PolicyEntry& entry, SpaceKind k, const Tunables& t, int repeat, int warmup = 1);

/// A record of the command with the session's deck, setup and verification target
/// (runs, branches and the static remainder are added by the command).
RunRecord make_record(const std::string& command, const std::vector<std::string>& argv, const Session& s);

/// What the runs changed in the setup: the device copy's transfer time (made on first
/// use), the sampled device memory peak.
void update_after_runs(RunRecord& r, const Session& s);

/// Deck, sizes and derived counts as human-readable lines.
std::string describe_deck(const Session& s);

}  // namespace gpp::app
