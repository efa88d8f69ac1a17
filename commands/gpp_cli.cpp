#include "gpp_cli.hpp"

#include "gpp_deck_path.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_mpi.hpp"
#include "gpp_text.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

namespace gpp::commands {
using files::excerpt;
using files::is_text;
using files::one_line;
using session::VerifyMode;

namespace {

// A TOML deck is a few hundred bytes; anything far larger is not one (/dev/zero, a
// data file given by mistake) and is refused before it is read.
constexpr std::int64_t kMaxDeckBytes = 1 << 20;

// The deck file is checked before CLI11 opens it (opening a FIFO blocks, /dev/zero
// never ends, an HDF5 or .dat file would be parsed as TOML): a regular file, at most
// kMaxDeckBytes, text. Throws gpp::Error (one line, exit 1).
void check_deck_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot read deck " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error("cannot read deck " + path + ": it is a directory");
  if (!S_ISREG(st.st_mode)) throw Error("cannot read deck " + path + ": not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read deck " + path + ": " + std::strerror(errno));
  std::string text(8, '\0');
  f.read(text.data(), std::streamsize(text.size()));
  if (f.gcount() == 8 && text == "\211HDF\r\n\032\n")
    throw Error("deck " + path + " is an HDF5 file, not a TOML deck (read it with --input " + path + ")");
  if (st.st_size > kMaxDeckBytes)
    throw Error("deck " + path + " is " + std::to_string(st.st_size) + " bytes, too large for a TOML deck (at most " +
                std::to_string(kMaxDeckBytes) + "); input files (.dat, .h5) are read with --input");
  f.clear();
  f.seekg(0);
  text.assign(std::size_t(st.st_size), '\0');
  f.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(f.gcount()));
  if (!is_text(text))
    throw Error("deck " + path + " is not a text file (a TOML deck is UTF-8 text; input files are read with --input)");
}

// CLI11's TOML reader with one more check: a key given twice (under either spelling,
// e_lk and e-lk) is an error instead of the first value silently winning.
class DeckToml : public CLI::ConfigTOML {
 public:
  explicit DeckToml(const CLI::App& app) : app_(app) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::vector<CLI::ConfigItem> items = CLI::ConfigTOML::from_config(input);
    std::vector<std::pair<const CLI::Option*, std::string>> seen;
    for (const auto& item : items) {
      if (item.name == "++" || item.name == "--") continue;  // section markers
      const std::string key = item.fullname();
      const CLI::Option* o = item.parents.empty() ? app_.get_option_no_throw("--" + item.name) : nullptr;
      // CLI11 merges a key repeated on consecutive lines into one item of several values.
      if (o && o->get_items_expected_max() == 1 && item.inputs.size() > 1)
        throw Error("deck key '" + key + "' takes one value, the deck gives " + std::to_string(item.inputs.size()) +
                    " (a key repeated, or a list)");
      for (const auto& [opt, name] : seen)
        if ((o && opt == o) || name == key)
          throw Error("deck key '" + key + "' is given twice" + (name != key ? " (also as '" + name + "')" : "") +
                      ": remove one");
      seen.emplace_back(o, key);
    }
    return items;
  }

 private:
  const CLI::App& app_;
};

// CLI11's PositiveNumber prints its range as two 309-digit numbers; these say it plainly.
// Repeats and warm-up runs: at most a million (a larger count is a typo, not a benchmark).
constexpr long long kMaxRuns = 1000000;
CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        long long n = 0;
        if (!CLI::detail::lexical_cast(v, n)) return "expected a positive integer, got '" + excerpt(v) + "'";
        if (n <= 0) return "must be a positive integer (got " + excerpt(v) + ")";
        if (n > kMaxRuns) return "must be at most " + std::to_string(kMaxRuns) + " (got " + excerpt(v) + ")";
        return "";
      },
      "POSITIVE");
}
CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        long long n = 0;
        if (!CLI::detail::lexical_cast(v, n)) return "expected a non-negative integer, got '" + excerpt(v) + "'";
        if (n < 0) return "must be zero or positive (got " + excerpt(v) + ")";
        if (n > kMaxRuns) return "must be at most " + std::to_string(kMaxRuns) + " (got " + excerpt(v) + ")";
        return "";
      },
      "NON-NEGATIVE");
}
}  // namespace

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(v, x)) return "expected a positive number, got '" + excerpt(v) + "'";
        if (!(x > 0) || !std::isfinite(x)) return "must be a positive finite number (got " + excerpt(v) + ")";
        return "";
      },
      "POSITIVE");
}

namespace {

// The seed is an unsigned 64-bit integer: digits only (CLI11 would wrap -1 to 2^64-1).
CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
          return "the seed must be a whole number from 0 to 18446744073709551615 (got '" + excerpt(v) + "')";
        if (v.size() > 20 || (v.size() == 20 && v > "18446744073709551615"))
          return "the seed must be at most 18446744073709551615 (got " + excerpt(v) + ")";
        return "";
      },
      "SEED");
}

}  // namespace

void set_deck_file_option(CLI::App& app, const std::string& names) {
  CLI::Option* deck =
      app.set_config(names, "", "Deck: a TOML file of deck keys, or a deck's name (small, si214, ...)", false);
  // A deck is a path or, from any directory, the name of an installed deck
  // (gpp_deck_path.hpp); then the file is checked, before CLI11 opens it.
  deck->transform([](const std::string& given) { return resolve_deck(given); });
  deck->check(CLI::Validator([](std::string& path) { return check_deck_file(path), std::string(); }, "FILE"));
  app.config_formatter(std::make_shared<DeckToml>(app));
  app.allow_config_extras(CLI::config_extras_mode::error);
}

void add_deck_options(CLI::App& app, DeckParams& p) {
  set_deck_file_option(app, "--deck,deck");
  app.add_option("--name", p.name, "Deck name")->capture_default_str();
  app.add_option("--generator", p.generator,
                 "Synthetic data: random (non-uniform, every branch) or uniform (mini-app constants)")
      ->capture_default_str();
  app.add_option("--nbands", p.nbands, "Bands (peinf_ntband_dist)");
  app.add_option("--ngpown", p.ngpown, "Local G' (ngpown)");
  app.add_option("--ncouls", p.ncouls, "G vectors (ncouls)");
  app.add_option("--nvband", p.nvband, "Occupied (valence) bands");
  app.add_option("--nstart", p.nstart, "First frequency index iw")->capture_default_str();
  app.add_option("--nend", p.nend, "Last frequency index iw")->capture_default_str();
  app.add_option("--seed", p.seed, "Seed of the random generator")->check(seed_value())->capture_default_str();
  app.add_option("--gamma", p.gamma, "Broadening gamma (limittwo = gamma^2)")->capture_default_str();
  app.add_option("--sexcut", p.sexcut, "Screened-exchange cutoff factor")->capture_default_str();
  app.add_option("--e-lk,--e_lk", p.e_lk, "Energy of the state (e_lk)")->capture_default_str();
  app.add_option("--dw", p.dw, "Frequency step (sig_dw)")->capture_default_str();
  app.add_option("--efermi", p.efermi, "Fermi level")->capture_default_str();
  app.add_option("--tol", p.tol, "Fermi-level tolerance (occupation 0.5 within it)")->capture_default_str();
  app.add_option("--skipped-gp,--skipped_gp", p.skipped_gp, "G' mapped outside 1..ncouls (random generator)")
      ->capture_default_str();
}

void add_tunable_options(CLI::App& app, Tunables& t) {
  for (const TunableSpec& spec : tunable_table()) {
    // One value as every output prints it (a tile as 128x1x1, or as a list 128,1,1), held
    // to the table's check: the same line a sweep's grid gives for it.
    const auto set = [&t, &spec](const std::string& text) {
      try {
        spec.set(t, spec.parse(text));
      } catch (const Error& e) {
        throw CLI::ValidationError(e.what());
      }
    };
    app.add_option_function<std::string>(
           std::string("--") + spec.option, set,
           std::string(spec.help) + (spec.one_size() ? "" : ", as outputs print them (128x1x1) or as a list (128,1,1)"))
        ->type_name(spec.one_size() ? "SIZE" : "SIZES");
  }
  app.add_option_function<std::vector<std::string>>(
         "--param",
         [&t](const std::vector<std::string>& given) {
           for (const std::string& g : given) {
             auto [name, value] = parse_param("--param", g);
             if (!t.params.emplace(name, value).second)
               throw CLI::ValidationError("--param " + name + " is given twice");
           }
         },
         "A policy's named choice, NAME=VALUE (repeatable; `gpp policies` lists them, e.g. --param loops=scalar)")
      ->allow_extra_args(false)
      ->take_all();
}

void add_timing_options(CLI::App& app, int& repeat, int& warmup) {
  app.add_option("--repeat", repeat, "Timed repeats after the warm-up")
      ->check(positive_integer())
      ->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed runs before the timed ones")
      ->check(non_negative_integer())
      ->capture_default_str();
}

void add_input_option(CLI::App& app, std::string& input_path) {
  app.add_option("--input", input_path,
                 "Read the input from a file instead of a deck: the original Fortran .dat or an HDF5 deck (.h5)");
}

void add_verify_options(CLI::App& app, std::string& verify, double& rtol, bool& no_reference_cache) {
  app.add_option("--verify", verify,
                 "auto (closed form for a uniform deck, an input file's stored reference, else the fast reference "
                 "on the device where there is one, else on the host, taken from the reference cache when it holds "
                 "this deck's), host or device (the fast reference computed there, and the cache refreshed), none")
      ->check(CLI::IsMember({"auto", "host", "device", "none"}))
      ->capture_default_str();
  app.add_option("--rtol", rtol, "Relative tolerance of verification")->check(positive_number())->capture_default_str();
  app.add_flag("--no-reference-cache", no_reference_cache,
               "Neither read nor write the reference cache, $XDG_CACHE_HOME/gpp (default ~/.cache/gpp): each "
               "deck's verification reference, computed once (docs/wall-time.md)");
}

void add_space_option(CLI::App& app, std::string& space) {
  app.add_option("--space", space,
                 std::string("Execution space: device or host (default: each policy on the device where it runs "
                             "there, else on the host; this build: ") +
                     (kHasDeviceSpace ? std::string("device ") + DeviceExec::name() + ", host " + HostExec::name()
                                      : std::string("host ") + HostExec::name() + " only") +
                     ")");
}

VerifyMode parse_verify_mode(const std::string& s) {
  if (s == "none") return VerifyMode::None;
  if (s == "host") return VerifyMode::Host;
  if (s == "device") return VerifyMode::Device;
  return VerifyMode::Auto;
}

namespace {
// An empty value (an unset shell variable: --policy "$P", or --json=) is refused: CLI11
// would store it, and every command reads an empty policy, path or space as one not given,
// which would silently run the default.
void refuse_empty_values(const CLI::App& app, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(0, eq);
      const CLI::Option* o = app.get_option_no_throw(name);
      if (!o || o->get_type_size_max() == 0) continue;  // a flag, or not an option (CLI11 says so)
      const bool empty = eq != std::string::npos ? eq + 1 == a.size() : i + 1 < args.size() && args[++i].empty();
      if (empty) throw Error(one_line(name) + ": an empty value (give one, or leave the option out for its default)");
    } else if (a.empty()) {
      throw Error("an empty argument ('') on the command line");
    }
  }
}

// The long names of the command's options ("--band-block"), or without the dashes.
std::vector<std::string> option_names(const CLI::App& app, bool dashes) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) names.push_back((dashes ? "--" : "") + n);
  return names;
}

// An option the command does not have is one line naming the nearest it has (CLI11 said
// "The following arguments were not expected: 3 --band-blok", its value first).
void refuse_unknown_options(const CLI::App& app, const std::string& command, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return;  // the rest are positionals
    if (a.size() < 3 || a.rfind("--", 0) != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (app.get_option_no_throw(name)) continue;
    const std::string near = files::nearest(name, option_names(app, true));
    throw Error("unknown option " + one_line(name) +
                (near.empty() ? " (gpp " + command + " --help lists its options)" : " (did you mean " + near + "?)"));
  }
}

// CLI11's own words for what it refuses, as gpp says it: a word too many, a number that
// does not fit, a deck key the deck reader does not know.
std::string usage_error(const CLI::App& app, const std::string& command, const CLI::ParseError& e) {
  std::string msg = e.what();
  const std::string extras = "INI was not able to parse ";
  if (msg.rfind(extras, 0) == 0) {
    const std::string key = msg.substr(extras.size());
    const std::string near = files::nearest(key, option_names(app, false));
    return "unknown deck key '" + key + "'" + (near.empty() ? "" : " (did you mean " + near + "?)");
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::size_t colon = msg.find(": ");
    const std::string words = colon == std::string::npos ? msg : msg.substr(colon + 2);
    return "unexpected argument" + std::string(words.find(' ') == std::string::npos ? " '" : "s '") + words +
           "' (gpp " + command + " takes one deck, a name or a file, and options with their values; gpp " + command +
           " --help lists them)";
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    // "Could not convert: --nbands = 3000000000": an integer that does not fit is too large
    // (or too small), not a value of the wrong kind.
    const std::string head = "Could not convert: ";
    const std::size_t eq = msg.find(" = ");
    if (msg.rfind(head, 0) == 0 && eq != std::string::npos) {
      const std::string name = msg.substr(head.size(), eq - head.size()), value = msg.substr(eq + 3);
      const bool integer = !value.empty() && value.find_first_not_of("+-0123456789") == std::string::npos &&
                           value.find_first_of("0123456789") != std::string::npos &&
                           value.find_first_of("+-", 1) == std::string::npos;
      if (integer) {
        // The deck's integers (nbands, ngpown, ...) are ints: the range is theirs.
        const CLI::Option* o = app.get_option_no_throw(name);
        const bool is_int = o && o->get_type_name() == "INT";
        return name + ": " + excerpt(value) + " is too " + (value[0] == '-' ? "small" : "large") +
               (is_int ? " (an integer from " + std::to_string(std::numeric_limits<int>::min()) + " to " +
                             std::to_string(std::numeric_limits<int>::max()) + ")"
                       : std::string());
      }
      return name + ": expected a number, got '" + excerpt(value) + "'";
    }
  }
  return msg;
}
}  // namespace

int parse(CLI::App& app, const std::string& command, const std::vector<std::string>& given) {
  // Parsing reads the deck file (CLI11's config reader): every rank reads it, and a
  // refusal of it (or of an option) is agreed on by all ranks and printed once, by rank 0
  // (main), never one line per rank and MPI_Abort.
  int rc = -1;
  session::mpi::collectively([&] {
    refuse_empty_values(app, given);
    refuse_unknown_options(app, command, given);
    // `gpp run FILE.dat` is `gpp run --input FILE.dat`, for every command that reads one.
    std::vector<std::string> storage{"gpp " + command};
    const std::vector<std::string> args = app.get_option_no_throw("--input") ? input_file_as_option(app, given) : given;
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    try {
      app.parse(int(argv.size()), argv.data());
    } catch (const CLI::CallForHelp& e) {
      rc = app.exit(e);
    } catch (const CLI::ParseError& e) {
      throw Error(usage_error(app, command, e));  // every usage error is exit 1 (CLI11's own codes differ by kind)
    }
  });
  return rc;
}

void check_sizes_given(CLI::App& app) {
  std::string missing;
  int n = 0;
  for (const char* key : {"nbands", "ngpown", "ncouls"})
    if (app.count(std::string("--") + key) == 0) missing += std::string(n++ ? ", " : "") + key;
  if (n == 0) return;
  const CLI::Option* config = app.get_config_ptr();
  const std::string deck = config && config->count() > 0 ? config->as<std::string>() : "";
  if (deck.empty())
    throw Error(
        "no deck: give one (a name such as small or si214, or a .toml file) or the sizes --nbands, --ngpown "
        "and --ncouls (missing: " +
        missing + ")");
  if (n == 3) throw Error("deck " + deck + " sets no sizes (is it empty?): it needs nbands, ngpown and ncouls");
  throw Error("deck " + deck + " does not set " + missing + " (give it in the deck or as an option)");
}

std::vector<const PolicyEntry*> select_policies(const std::string& spec) {
  std::vector<const PolicyEntry*> out;
  if (spec == "all") {
    for (const auto& e : policy_registry()) out.push_back(&e);
    return out;
  }
  // Every item named: "a,,b", "a," and ",a" have an empty one (getline would drop a
  // trailing one silently).
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    const std::string name = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty()) throw Error("--policy '" + excerpt(spec) + "': an empty policy name in the list");
    const PolicyEntry* e = &find_policy(name);
    if (std::find(out.begin(), out.end(), e) != out.end())
      throw Error("--policy '" + excerpt(spec) + "': " + e->name + " is named twice");
    out.push_back(e);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Tunables tunables_for(const PolicyEntry& entry, const Tunables& t) {
  Tunables r;
  for (const TunableSpec& spec : tunable_table())
    if (entry.reads(spec)) spec.set(r, spec.get(t));
  for (const auto& [name, value] : t.params)
    if (entry.param(name)) r.params[name] = value;
  return r;
}

int cmd_policies(const std::vector<std::string>& args) {
  CLI::App app{"List every execution policy with its tunables", "gpp policies"};
  if (int rc = parse(app, "policies", args); rc >= 0) return rc;
  for (const auto& e : policy_registry()) {
    std::string tun, defaults;
    for (const auto& t : e.tunables) tun += (tun.empty() ? "" : " ") + ("--" + t);
    for (const SpaceKind k : {SpaceKind::Device, SpaceKind::Host})
      if ((k == SpaceKind::Host || kHasDeviceSpace) && e.runs_on(k) && default_policy_name(k) == e.name)
        defaults += (defaults.empty() ? " (default on the " : " and the ") + std::string(to_string(k));
    std::cout << std::left << std::setw(16) << e.name << " " << e.description
              << " [tunables: " << (tun.empty() ? "none" : tun) << "] [runs on: " << e.spaces() << "]"
              << " [frequencies: "
              << (e.max_nw > 0 ? "in passes of at most " + std::to_string(e.max_nw) : std::string("one at a time"))
              << "]" << (defaults.empty() ? "" : defaults + ")") << "\n";
    if (!e.defaults_file.empty())
      std::cout << std::setw(16) << ""
                << "   defaults: " << shipped_tuning_path(e.defaults_file) << " (" << e.defaults_basis << ")\n";
    for (const ParamSpec& p : e.params) {
      std::string values;
      for (const std::string& v : p.values) values += (values.empty() ? "" : "|") + v;
      std::cout << std::setw(16) << ""
                << "   --param " << p.name << "=" << values << " (default " << p.values.front()
                << "): " << p.description << "\n";
    }
  }
  return 0;
}

}  // namespace gpp::commands
