#include "gpp_outputs.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

namespace gpp {

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary | std::ios::trunc);
    if (!f) throw_write_error(path, errno);
    f << content;
    f.flush();
    if (!f) throw Error("cannot write " + path + ": write failed (disk full?)");
  }
  out.commit();
}

void check_outputs(const std::vector<OutputRequest>& outputs, const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, struct stat>> ins;
  for (const auto& in : inputs) {
    struct stat st;
    if (!in.empty() && ::stat(in.c_str(), &st) == 0) ins.push_back({in, st});
  }
  std::vector<std::pair<const OutputRequest*, std::string>> seen;  // request, canonical directory + name
  for (const auto& out : outputs) {
    if (out.path.empty()) continue;
    const std::string what = out.option + " " + out.path + ": ";
    const auto slash = out.path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : out.path.substr(0, slash));
    const std::string base = slash == std::string::npos ? out.path : out.path.substr(slash + 1);
    if (base.empty() || base == "." || base == "..") throw Error(what + "names a directory, not a file");
    // The temporary name adds ".tmp.<pid>".
    if (base.size() + 16 > NAME_MAX) throw Error(what + "the file name is too long");
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) throw Error(what + "directory " + dir + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) throw Error(what + dir + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) throw Error(what + "directory " + dir + " is not writable");
    if (::stat(out.path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) throw Error(what + "it is a directory");
      if (!S_ISREG(st.st_mode)) throw Error(what + "it exists and is not a regular file");
      for (const auto& [in, ist] : ins)
        if (ist.st_dev == st.st_dev && ist.st_ino == st.st_ino)
          throw Error(what + "it is the input " + in + " (the run would replace it)");
    }
    char real_dir[PATH_MAX];
    const std::string canonical = std::string(::realpath(dir.c_str(), real_dir) ? real_dir : dir.c_str()) + "/" + base;
    for (const auto& [other, name] : seen)
      if (name == canonical) throw Error(what + "also named by " + other->option + " (two outputs, one file)");
    seen.push_back({&out, canonical});
  }
}

}  // namespace gpp
