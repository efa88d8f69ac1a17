#pragma once
// The input/output discipline of every command, in one place: before any work, every
// input is a regular file (gpp_inputs.hpp), every output path can be written, is none
// of the inputs (by identity: device and inode, through symlinks and hard links) and no
// other output; then each output is written whole under a temporary name and renamed
// (AtomicOutput), through a symlink to its target, keeping the replaced file's mode.
#include <sys/stat.h>

#include <string>
#include <vector>

namespace gpp::files {

/// The one rule for an existing output, for every command and format: a file its user may
/// not write (made read-only by its owner) is refused, as the shell's `>` refuses it,
/// although the rename that replaces it would ignore its mode. Throws gpp::Error
/// ("WHAT Permission denied (it exists, mode r--r--r--: ...)"); `st` is the target's stat.
void require_replaceable(const std::string& what, const std::string& target, const struct stat& st);

/// "rw-r--r--".
std::string mode_text(unsigned mode);

/// Writes `content` to `path` through a temporary name and a rename (AtomicOutput).
void write_file_atomically(const std::string& path, const std::string& content);

/// A file a command reads, with the option (or role) that named it: "deck", "--input",
/// "--tuning", "--resume", "--ceilings", ...
struct InputFile {
  std::string option, path;
  /// The output option that rewrites this file on purpose ("" for none): the sweep CSV
  /// of --resume rewritten by --csv, the tuning file --tuning-out merges into.
  std::string rewritten_by = {};
  /// A file that need not exist yet (the tuning file a merge starts from).
  bool may_be_missing = false;
};

/// An output file a command was asked for, with the option that named it.
struct OutputRequest {
  std::string option, path;
};

/// Refuses, before any work, in one line: an input that is not a regular file (a FIFO, a
/// device, a directory, a symlink to one) or does not exist; an output that cannot be
/// written (a missing or unwritable directory, a directory or special file as the
/// target, an existing file its user may not write, a name too long for the temporary
/// suffix), that is one of the inputs however spelled (unless that input is rewritten by
/// this output on purpose), or that two options name.
void check_files(const std::vector<InputFile>& inputs, const std::vector<OutputRequest>& outputs);

}  // namespace gpp::files
