#include "gpp_outputs.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_inputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace gpp::files {

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicOutput out(path);
  {
    std::FILE* f = std::fopen(out.temp_path().c_str(), "wb");
    if (!f) throw_write_error(path, errno);
    const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    const int write_errno = errno;
    if (std::fclose(f) != 0 || !written)
      throw Error("cannot write " + path + ": " + (written ? std::strerror(errno) : std::strerror(write_errno)));
  }
  out.commit();
}

std::string mode_text(unsigned mode) {
  std::string t;
  for (int shift = 6; shift >= 0; shift -= 3) {
    t += (mode >> shift) & 4 ? 'r' : '-';
    t += (mode >> shift) & 2 ? 'w' : '-';
    t += (mode >> shift) & 1 ? 'x' : '-';
  }
  return t;
}

void require_replaceable(const std::string& what, const std::string& target, const struct stat& st) {
  // The rename that replaces an output ignores the file's own mode: without this, a file
  // its owner made read-only would be replaced, where the shell's `>` refuses it.
  if (::access(target.c_str(), W_OK) != 0 && errno == EACCES)
    throw Error(what + "Permission denied (it exists, mode " + mode_text(st.st_mode & 0777) +
                ": gpp replaces no file its user may not write, as the shell's > would not; make it writable or "
                "name another file)");
}

void check_files(const std::vector<InputFile>& inputs, const std::vector<OutputRequest>& outputs) {
  struct Seen {
    const InputFile* in;
    FileIdentity id;
  };
  std::vector<Seen> ins;
  for (const auto& in : inputs) {
    if (in.path.empty()) continue;
    struct stat st;
    if (in.may_be_missing && ::stat(in.path.c_str(), &st) != 0 && errno == ENOENT) continue;
    require_input_file(in.option, in.path);
    if (::stat(in.path.c_str(), &st) == 0) ins.push_back({&in, {st.st_dev, st.st_ino}});
  }
  std::vector<std::pair<const OutputRequest*, std::string>> seen;       // request, canonical target
  std::vector<std::pair<const OutputRequest*, FileIdentity>> existing;  // request, identity of an existing target
  for (const auto& out : outputs) {
    if (out.path.empty()) continue;
    const std::string what = out.option + " " + out.path + ": ";
    const auto last = out.path.find_last_of('/');
    const std::string given_base = last == std::string::npos ? out.path : out.path.substr(last + 1);
    if (given_base.empty() || given_base == "." || given_base == "..")
      throw Error(what + "names a directory, not a file");
    // A symlink is written through: its target is the file checked and replaced.
    std::string target;
    try {
      target = output_target(out.path);
    } catch (const Error& e) {
      throw Error(what + e.what());
    }
    const auto slash = target.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    if (base.empty() || base == "." || base == "..") throw Error(what + "names a directory, not a file");
    // The temporary name adds ".tmp.<pid>".
    if (base.size() + 16 > NAME_MAX) throw Error(what + "the file name is too long");
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) throw Error(what + "directory " + dir + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) throw Error(what + dir + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) throw Error(what + "directory " + dir + " is not writable");
    if (::stat(target.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) throw Error(what + "it is a directory");
      if (!S_ISREG(st.st_mode)) throw Error(what + "it exists and is not a regular file");
      require_replaceable(what, target, st);
      const FileIdentity id{st.st_dev, st.st_ino};
      for (const auto& [in, in_id] : ins)
        if (in_id == id && in->rewritten_by != out.option)
          throw Error(what + "it is the input " + in->path + " (" + in->option + "; the command would replace it)");
      for (const auto& [other, other_id] : existing)
        if (other_id == id) throw Error(what + "also named by " + other->option + " (two outputs, one file)");
      existing.push_back({&out, id});
    }
    char real_dir[PATH_MAX];
    const std::string canonical = std::string(::realpath(dir.c_str(), real_dir) ? real_dir : dir.c_str()) + "/" + base;
    for (const auto& [other, name] : seen)
      if (name == canonical) throw Error(what + "also named by " + other->option + " (two outputs, one file)");
    seen.push_back({&out, canonical});
  }
}

}  // namespace gpp::files
