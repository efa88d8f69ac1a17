#pragma once
// One problem set up on the device (deck -> input -> derived arrays -> device copy),
// its reference result, and timed runs of policies on it. Shared by `gpp run` and
// `gpp bench`.
#include "gpp_diagnostics.hpp"
#include "gpp_input.hpp"
#include "gpp_policy.hpp"
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
  std::string source;  // "random generator", "uniform generator", or the input file
  bool synthetic = true;  // generated from the deck parameters (not read from a file)
  InputDeck input;
  GppData<Kokkos::HostSpace> host;
  DeviceData device;
  double setup_s = 0;     // generate or read, check, derive
  double read_s = 0;      // of setup_s: reading the input file (0 for synthetic decks)
  double check_s = 0;     // of setup_s: validating what was read
  std::int64_t read_bytes = 0;
  double transfer_s = 0;  // host -> device copy (0 on host backends)
  double static_s = 0;
  std::complex<double> achstemp;
  std::optional<BranchCounts> branches;

  // Verification target, filled by prepare_reference.
  Verification target;  // against, tolerance
  SigmaResult reference;
  std::optional<std::complex<double>> reference_achstemp;
  double reference_s = 0;
};

/// Build the session from deck parameters (synthetic decks).
Session make_session(const DeckParams& p);

/// Build the session from an input file (.dat or HDF5 deck, app/gpp_session_file.cpp);
/// the deck is called `name`, or after the file when `name` is empty.
Session make_session_from_file(const std::string& path, const std::string& name = "");

/// Copy s.host to the device (fenced and timed into s.transfer_s; device memory sampled).
void transfer_to_device(Session& s);

/// "read: ..." line of a session read from a file.
std::string describe_read(const Session& s);

/// Choose and compute the verification target.
void prepare_reference(Session& s, VerifyMode mode, double rtol);

struct PolicyRun {
  std::string policy;
  Tunables tunables;
  SigmaResult result;
  std::vector<double> times;  // seconds, warm-up excluded
  double rel_error = 0;       // worst over all repeats
  bool verified = false;
  double min() const;
  double median() const;
  double max() const;
};

/// `warmup` untimed runs, then `repeat` timed runs with fences; every run's result is
/// verified.
PolicyRun run_policy(const Session& s, const PolicyEntry& entry, const Tunables& t, int repeat, int warmup = 1);

/// Deck, sizes and derived counts as human-readable lines.
std::string describe_deck(const Session& s);

}  // namespace gpp::app
