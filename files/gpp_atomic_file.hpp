#pragma once
// Output files appear under their final name only when complete: written to a temporary
// name in the same directory (same file system, so rename is atomic), then renamed.
#include <string>

namespace gpp {

class AtomicOutput {
 public:
  /// Reserves `<path>.tmp.<pid>`; nothing is created yet.
  explicit AtomicOutput(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  /// Renames the temporary file to the final name; throws gpp::Error on failure.
  void commit();

 private:
  std::string path_, temp_;
  bool committed_ = false;
};

/// "cannot write PATH: <strerror(errno)>".
[[noreturn]] void throw_write_error(const std::string& path, int errnum);

}  // namespace gpp
