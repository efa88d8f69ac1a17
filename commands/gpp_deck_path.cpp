#include "gpp_deck_path.hpp"

#include "gpp_error.hpp"
#include "gpp_text.hpp"

#include <filesystem>
#include <system_error>

// Set by commands/CMakeLists.txt: the decks', shipped defaults' and tools' install
// directories relative to the executable's (GNUInstallDirs' DATADIR/gpp/inputs, tuning and
// tools from BINDIR), the directory the build tree's gpp is linked into, and the source tree.
#ifndef GPP_DECKS_FROM_BINDIR
#error "GPP_DECKS_FROM_BINDIR must be defined"
#endif
#ifndef GPP_BUILD_BINDIR
#error "GPP_BUILD_BINDIR must be defined"
#endif
#ifndef GPP_SOURCE_DECKS
#error "GPP_SOURCE_DECKS must be defined"
#endif
#if !defined(GPP_TUNING_FROM_BINDIR) || !defined(GPP_TOOLS_FROM_BINDIR) || !defined(GPP_SOURCE_DIR)
#error "GPP_TUNING_FROM_BINDIR, GPP_TOOLS_FROM_BINDIR and GPP_SOURCE_DIR must be defined"
#endif

namespace fs = std::filesystem;

namespace gpp::commands {

namespace {

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool same_directory(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return !a.empty() && fs::equivalent(a, b, ec) && !ec;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::vector<std::string> deck_directories() {
  std::vector<std::string> dirs;
  const fs::path bindir = executable_dir();
  if (bindir.empty()) return dirs;
  dirs.push_back((bindir / GPP_DECKS_FROM_BINDIR).lexically_normal().string());
  if (same_directory(bindir, GPP_BUILD_BINDIR)) dirs.push_back(GPP_SOURCE_DECKS);
  return dirs;
}

std::string shipped_tuning_path(const std::string& relative) {
  const fs::path bindir = executable_dir();
  if (!bindir.empty()) {
    const fs::path installed = (bindir / GPP_TUNING_FROM_BINDIR / fs::path(relative).filename()).lexically_normal();
    if (is_file(installed)) return installed.string();
    const fs::path source = fs::path(GPP_SOURCE_DIR) / relative;
    if (same_directory(bindir, GPP_BUILD_BINDIR) && is_file(source)) return source.lexically_normal().string();
  }
  return relative;
}

std::vector<std::string> shipped_tool_candidates(const std::string& name) {
  std::vector<std::string> places;
  const fs::path bindir = executable_dir();
  if (bindir.empty()) return places;
  places.push_back((bindir / GPP_TOOLS_FROM_BINDIR / name).lexically_normal().string());
  if (same_directory(bindir, GPP_BUILD_BINDIR))
    places.push_back((fs::path(GPP_SOURCE_DIR) / "tools" / name).lexically_normal().string());
  return places;
}

std::string resolve_deck(const std::string& given) {
  if (given.empty()) throw Error("empty deck name");
  std::vector<std::string> looked;
  auto found = [&](const fs::path& p) {
    looked.push_back(p.string());
    return is_file(p);
  };
  const fs::path as_given(given);
  const bool add_toml = !as_given.has_extension();
  if (found(as_given)) return given;
  if (add_toml && found(given + ".toml")) return given + ".toml";
  if (given.find('/') == std::string::npos) {
    for (const auto& dir : deck_directories()) {
      if (found(fs::path(dir) / given)) return (fs::path(dir) / given).string();
      if (add_toml && found(fs::path(dir) / (given + ".toml"))) return (fs::path(dir) / (given + ".toml")).string();
    }
  }
  std::string where;
  for (const auto& p : looked) where += (where.empty() ? "" : ", ") + p;
  // A name, not a path: the shipped deck it is nearest to, where one is near.
  std::string hint;
  if (given.find('/') == std::string::npos) {
    std::vector<std::string> names;
    for (const auto& dir : deck_directories()) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".toml" && is_file(e.path())) names.push_back(e.path().stem().string());
    }
    const fs::path stem = add_toml ? as_given : as_given.stem();
    if (const std::string near = files::nearest(stem.string(), names); !near.empty())
      hint = "did you mean " + near + "? ";
  }
  throw Error("no deck '" + given + "' (" + hint + "looked for " + where + ")");
}

}  // namespace gpp::commands
