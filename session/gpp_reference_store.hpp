#pragma once
// The user's store of verification references (docs/wall-time.md, "The stored reference"):
// a deck's reference pass (its sums per frequency, achstemp and every term's arm) is
// computed once and kept in $XDG_CACHE_HOME/gpp/ (by default ~/.cache/gpp/), one small JSON
// file per deck and space, so that a later run of the same deck verifies against it
// without a pass. A file is used only when everything in it matches: its format, the deck's
// content (a digest of every array and scalar the kernel reads), the space it was computed
// on, the reference code that computed it, the build's floating-point mode, the sizes, and
// a checksum of its values. Anything else is computed again (one note line on stderr) and
// never fails the run. Writing is a temporary file in the same folder, renamed: two
// processes computing the same reference leave one whole file.
#include "gpp_fast_reference.hpp"
#include "gpp_input.hpp"
#include "gpp_spaces.hpp"
#include "gpp_types.hpp"

#include <optional>
#include <string>

namespace gpp::session {

/// Bumped when the reference's results change by anything gpp_fast_reference.{hpp,cpp}'s
/// own digest (reference_code_version) cannot see: how the session adds its chunks' and
/// ranks' passes, or what a stored file's values mean.
inline constexpr int kReferenceCodeVersion = 1;
/// The layout of a stored file.
inline constexpr int kReferenceFileFormat = 1;
/// Largest stored file read: a reference of thousands of frequencies is a few hundred KB.
inline constexpr long long kMaxReferenceFileBytes = 16LL << 20;

/// "1+<16 hex digits of the fast reference's sources>+<floating-point mode>": the code a
/// stored reference must have been computed by.
std::string reference_code_version();

/// A deck's reference as stored: the whole deck's (every rank's share, every chunk),
/// and where and when it was computed.
struct StoredReference {
  ReferencePass pass;  // sums per frequency (start values not applied), achstemp, arms
  std::string date;    // UTC, ISO 8601
  SpaceKind space = SpaceKind::Host;
  std::string backend, device, host;  // Kokkos backend, device or CPU model, host name
  std::string gpp;                    // version and git hash of the gpp that computed it
  double seconds = 0;                 // what the pass took
  int ranks = 1;
  std::string deck_name;  // for a reader of the file; not part of the key
};

/// What a stored file must match.
struct ReferenceKey {
  std::string content;  // deck_content_digest
  DeckSizes sizes;      // bands, G' of the whole deck, G, frequencies
  int nstart = 0, nend = 0;
  SpaceKind space = SpaceKind::Host;
  std::string code = reference_code_version();
  /// "reference-NBANDSxNGPOWNxNCOULSxNW-<16 hex digits of the content and space>.json".
  std::string file_name() const;
};

/// 16 hex digits: a digest of everything the kernel reads (sizes, frequencies, limits,
/// aqsntemp, wx_array_t, occ_array, and per G' column I_eps_array, wtilde_array,
/// aqsmtemp and vcoul), the same for any number of MPI ranks and chunks: each G' column
/// is digested with its global index and the columns' digests are added. Collective
/// (every rank calls it); several host threads.
std::string deck_content_digest(const GppData<Kokkos::HostSpace>& host, const GpShare& share, int ngpown_total);

/// The folder of the store: $XDG_CACHE_HOME/gpp where XDG_CACHE_HOME is an absolute path,
/// else $HOME/.cache/gpp, as the XDG base directory specification says (a relative
/// XDG_CACHE_HOME is ignored, and `note` says so); "" when HOME is not an absolute path
/// either (`note` says why).
std::string reference_store_dir(std::string& note);

/// The stored reference of `key` in `path`: nullopt when there is no file (note "") or
/// when it cannot be trusted or read (note says why, one line: damaged, another deck's,
/// another reference code's, not a regular file, unreadable).
std::optional<StoredReference> read_stored_reference(const std::string& path, const ReferenceKey& key,
                                                     std::string& note);

/// Writes the reference into `dir` (created, 0700, with its parents as `mkdir -p`) as
/// key.file_name(), whole: a temporary file beside it, renamed. "" or why it could not.
std::string write_stored_reference(const std::string& dir, const ReferenceKey& key, const StoredReference& r);

/// The file's text (JSON, docs/formats.md, "Stored reference").
std::string stored_reference_text(const ReferenceKey& key, const StoredReference& r);

// ---- a session's use of the store (session/gpp_session.cpp calls these) ----

/// What a session found in, and did with, the store.
struct ReferenceStoreUse {
  bool enabled = false;  // use and refresh the store (the commands: unless --no-reference-cache)
  std::string content;   // the deck's content digest, once computed
  bool looked_up = false;
  double lookup_s = 0;  // the digest of the deck and the file read
  SpaceKind looked_up_space = SpaceKind::Host;
  std::optional<StoredReference> found;  // on every rank (where and when: on rank 0)
  // rank 0:
  bool dir_known = false;
  std::string dir;          // the store's folder ("" for none)
  bool unwritable = false;  // a folder in the file's place
  bool noted = false;       // the lookup said why it could not use the file
  std::string path;         // the file read or written, "" if none
};

/// The lookup and the store of a session's reference, stored_reference and
/// store_reference, are declared with the Session they take (session/gpp_session.hpp).

}  // namespace gpp::session
