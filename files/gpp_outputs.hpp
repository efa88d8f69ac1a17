#pragma once
// The output side of every command: each output path checked before any work (never an
// input, never another output, a writable directory), and written whole under a
// temporary name, then renamed (AtomicOutput).
#include <string>
#include <vector>

namespace gpp {

/// Writes `content` to `path` through a temporary name and a rename.
void write_file_atomically(const std::string& path, const std::string& content);

/// The output files a command was asked for, each with the option that named it.
struct OutputRequest {
  std::string option, path;
};

/// Refuses, before any work, every output that cannot be written: a missing or
/// unwritable directory, a directory or special file as the target, a name too long for
/// the temporary suffix, an output that is one of the inputs, two outputs at one path.
void check_outputs(const std::vector<OutputRequest>& outputs, const std::vector<std::string>& inputs);

}  // namespace gpp
