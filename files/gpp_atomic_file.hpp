#pragma once
// Output files appear under their final name only when complete: written to a temporary
// name in the same directory as the file they replace (same file system, so rename is
// atomic), then renamed. A symlink is written through: the file it points to is
// replaced, the link stays. A replaced file keeps its permission bits.
#include <string>

namespace gpp::files {

/// The file a write to `path` lands in: `path` itself, or, when `path` is a symlink, the
/// file it points to (followed to the end, relative links from their own directory).
/// Throws gpp::Error for a loop of links.
std::string output_target(const std::string& path);

class AtomicOutput {
 public:
  /// Reserves `<target>.tmp.<pid>` beside the target (output_target(path)); nothing is
  /// created yet.
  explicit AtomicOutput(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  /// Gives the temporary file the mode of the file it replaces (if any) and renames it
  /// to the target; throws gpp::Error on failure.
  void commit();

 private:
  std::string path_, target_, temp_;
  bool committed_ = false;
};

/// "cannot write PATH: <strerror(errno)>".
[[noreturn]] void throw_write_error(const std::string& path, int errnum);

}  // namespace gpp::files
