// `gpp roofline DECK --policy LIST [--space ...] [--repeat N] --csv FILE [--ceilings FILE]
//  [--ncu PATH|auto|off] [--plot DIR]`: for each policy the timed runs of `gpp bench`,
// the counted FLOPs and compulsory bytes of its own form of the physics (an analytic
// roofline point on every backend) and, on a CUDA device with Nsight Compute, the
// profiled FP64 instructions and bytes per memory level (docs/roofline.md).
#include "gpp_command.hpp"
#include "gpp_counts.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_roofline.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpp::app {
namespace {

bool executable(const std::string& p) {
  struct stat st;
  return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && executable(d + "/" + name)) return d + "/" + name;
  return "";
}

/// ncu to use: "" for none. auto: $NCU, then PATH, then /usr/local/cuda/bin/ncu.
std::string resolve_ncu(const std::string& option, bool cuda_device) {
  if (option == "off") return "";
  if (option == "auto") {
    if (!cuda_device) return "";
    if (const char* env = std::getenv("NCU"); env && executable(env)) return env;
    if (std::string p = find_on_path("ncu"); !p.empty()) return p;
    return executable("/usr/local/cuda/bin/ncu") ? "/usr/local/cuda/bin/ncu" : "";
  }
  if (!executable(option)) throw Error("--ncu " + option + ": not an executable file (or use auto or off)");
  if (!cuda_device) throw Error("--ncu " + option + ": Nsight Compute profiles the CUDA device space only");
  return option;
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char ch : s) o += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return o + "'";
}

/// Runs a shell command; its exit status.
int run_shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ncu_version(const std::string& ncu) {
  const std::string tmp = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") + "/gpp_ncu_version_" +
                          std::to_string(::getpid());
  run_shell(shell_quote(ncu) + " --version > " + shell_quote(tmp) + " 2>&1");
  const std::string out = slurp(tmp);
  std::remove(tmp.c_str());
  const std::size_t v = out.find("Version ");
  if (v == std::string::npos) return "ncu";
  std::string ver;
  for (std::size_t i = v + 8; i < out.size() && !std::isspace((unsigned char)out[i]); ++i) ver += out[i];
  return "ncu " + ver;
}

/// The command-line arguments that describe the deck (everything but the options
/// `gpp roofline` sets itself for the profiled child run).
std::vector<std::string> deck_arguments(const std::vector<std::string>& args) {
  static const std::vector<std::string> own = {
      "--csv",  "--json",      "--output",   "--ceilings",  "--ncu",       "--plot",          "--policy",
      "--policies", "--space", "--repeat",   "--warmup",    "--verify",    "--rtol",          "--band-block",
      "--ig-block", "--team-size", "--vector-length", "--tile"};
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string name = a.substr(0, a.find('='));
    if (std::find(own.begin(), own.end(), name) != own.end()) {
      if (a.find('=') == std::string::npos) ++i;  // its value
      continue;
    }
    kept.push_back(a);
  }
  return kept;
}

std::vector<std::string> tunable_arguments(const PolicyEntry& e, const Tunables& t) {
  std::vector<std::string> a;
  auto reads = [&](const char* n) { return std::find(e.tunables.begin(), e.tunables.end(), n) != e.tunables.end(); };
  auto add = [&](const char* n, int v) {
    if (v > 0 && reads(n)) a.insert(a.end(), {std::string("--") + n, std::to_string(v)});
  };
  add("band-block", t.band_block);
  add("ig-block", t.ig_block);
  add("team-size", t.team_size);
  add("vector-length", t.vector_length);
  if (!t.tile.empty() && reads("tile")) {
    std::string s;
    for (std::size_t i = 0; i < t.tile.size(); ++i) s += (i ? "," : "") + std::to_string(t.tile[i]);
    a.insert(a.end(), {"--tile", s});
  }
  return a;
}

/// One ncu launch of `gpp run` for one policy; the counters of its NVTX range, or the
/// reason it failed.
std::optional<NcuCounters> profile(const std::string& ncu, const std::vector<std::string>& deck_args,
                                   const PolicyEntry& e, const Tunables& t, std::string& why) {
  const std::string base = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") + "/gpp_ncu_" +
                           std::to_string(::getpid()) + "_" + e.name;
  const std::string report = base + ".csv", log = base + ".log";
  std::string metrics;
  for (const auto& m : ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> cmd = {ncu,          "--csv",     "--page",          "raw",       "--print-units", "base",
                                  "--clock-control", "none", "--metrics",       metrics,     "--nvtx",
                                  "--nvtx-include", "gpp::policy::" + e.name + "/", "--log-file", report,
                                  "/proc/self/exe"};
  // /proc/self/exe would name ncu's own binary in the child: resolve it here.
  std::array<char, 4096> self{};
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) {
    why = "cannot find this program's path (/proc/self/exe)";
    return std::nullopt;
  }
  cmd.back() = std::string(self.data(), std::size_t(n));
  cmd.push_back("run");
  cmd.insert(cmd.end(), deck_args.begin(), deck_args.end());
  for (const std::string& a : {std::string("--policy"), e.name, std::string("--space"), std::string("device"),
                               std::string("--repeat"), std::string("1"), std::string("--warmup"), std::string("0"),
                               std::string("--verify"), std::string("none"), std::string("--no-branch-stats")})
    cmd.push_back(a);
  const auto tun = tunable_arguments(e, t);
  cmd.insert(cmd.end(), tun.begin(), tun.end());
  std::string line;
  for (const auto& a : cmd) line += (line.empty() ? "" : " ") + shell_quote(a);
  std::cerr << "profiling " << e.name << ": " << line << "\n";
  const int rc = run_shell(line + " > " + shell_quote(log) + " 2>&1");
  const std::string text = slurp(report), out = slurp(log);
  std::remove(report.c_str());
  std::remove(log.c_str());
  if (rc != 0) {
    why = "ncu exited with status " + std::to_string(rc) + ": " + out.substr(out.size() > 400 ? out.size() - 400 : 0) +
          text.substr(text.size() > 400 ? text.size() - 400 : 0);
    return std::nullopt;
  }
  try {
    return parse_ncu_raw_csv(text);
  } catch (const Error& err) {
    why = err.what();
    return std::nullopt;
  }
}

void plot(const std::string& dir, const std::string& csv, const std::string& ceilings,
          const std::vector<std::string>& policies) {
  const std::string script = std::string(GPP_SOURCE_DIR) + "/tools/gpp_plot.py";
  const std::string python = find_on_path("python3");
  if (python.empty() || ::access(script.c_str(), R_OK) != 0) {
    std::cerr << "--plot: skipped (needs python3 and " << script << ")\n";
    return;
  }
  std::vector<std::string> cmds = {"times --csv " + shell_quote(csv) + " --out " + shell_quote(dir + "/times")};
  if (!ceilings.empty()) {
    cmds.push_back("path --csv " + shell_quote(csv) + " --ceilings " + shell_quote(ceilings) + " --out " +
                   shell_quote(dir + "/path"));
    for (const auto& p : policies)
      cmds.push_back("roofline --csv " + shell_quote(csv) + " --ceilings " + shell_quote(ceilings) + " --policy " +
                     shell_quote(p) + " --out " + shell_quote(dir + "/roofline-" + p));
  }
  for (const auto& c : cmds) {
    const std::string line = shell_quote(python) + " " + shell_quote(script) + " " + c + " --formats png,svg";
    if (run_shell(line) != 0) std::cerr << "--plot: failed: " << line << "\n";
  }
}

}  // namespace

int cmd_roofline(const std::vector<std::string>& args) {
  CLI::App app{"Roofline data of policies on a deck: times, counted FLOPs and bytes, Nsight Compute counters",
               "gpp roofline"};
  RunOptions o;
  add_run_options(app, o, "roofline");
  std::string ceilings_path, ncu_option = "auto", plot_dir;
  app.add_option("--ceilings", ceilings_path, "Ceilings JSON (gpp ceilings --json) for the % of FP64 peak");
  app.add_option("--ncu", ncu_option, "Nsight Compute: its path, auto (on a CUDA device: $NCU, PATH, "
                                      "/usr/local/cuda/bin/ncu) or off")
      ->capture_default_str();
  app.add_option("--plot", plot_dir, "Draw the charts into this directory (python3 tools/gpp_plot.py)");
  if (int rc = parse(app, "roofline", input_file_as_option(args)); rc >= 0) return rc;
  if (o.csv_path.empty()) throw Error("--csv FILE is required (the roofline CSV, docs/formats.md)");
  std::optional<double> peak;
  if (!ceilings_path.empty()) peak = read_fp64_peak(ceilings_path);
  if (!plot_dir.empty()) {
    struct stat st;
    if (::stat(plot_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Error("--plot " + plot_dir + ": not a directory");
  }
  Prepared p = prepare(app, o);
  bool cuda_device = false;
  for (const auto& r : p.runs)
    cuda_device = cuda_device || (r.space == SpaceKind::Device && std::string(DeviceExec::name()) == "Cuda");
  const std::string ncu = resolve_ncu(ncu_option, cuda_device);
  const std::string profiler = ncu.empty() ? "none" : ncu_version(ncu);
  Session& s = p.session;
  prepare_reference(s, parse_verify_mode(o.verify), o.rtol);
  std::vector<std::string> command_line{"gpp", "roofline"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  RunRecord rec = make_record("roofline", command_line, s);

  std::cout << describe_deck(s) << "profiler: " << profiler << "\n";
  const WorkCounter work(s, p.runs.front().space);
  const counts::ArmCounts& arms = work.arms;
  const counts::Shape& shape = work.shape;
  rec.branches = arms.branches();
  std::cout << describe_branches(*rec.branches) << "\n";
  std::cout << std::left << std::setw(15) << "policy" << std::right << std::setw(12) << "median [s]" << std::setw(12)
            << "FLOP/update" << std::setw(12) << "GFLOP/s" << std::setw(12) << "AI compuls." << std::setw(14)
            << "GFLOP/s (ncu)" << std::setw(9) << "AI L1" << std::setw(9) << "AI L2" << std::setw(9) << "AI DRAM"
            << std::setw(9) << "% peak" << "\n";
  std::string rows;
  for (const auto& planned : p.runs) {
    rec.runs.push_back(run_policy(s, *planned.entry, planned.space, planned.tunables, o.repeat, o.warmup));
    const PolicyRun& run = rec.runs.back();
    const counts::Work w = counts::count_policy(run.policy, shape, arms, run.tunables);
    RooflineRow row;
    row.date = rec.date;
    row.git = rec.build.git;
    row.device = run.space.device;
    row.backend = run.space.backend;
    row.space = to_string(run.space.kind);
    row.deck = rec.deck.name;
    row.nbands = rec.deck.nbands;
    row.ngpown = rec.deck.ngpown;
    row.ncouls = rec.deck.ncouls;
    row.nw = rec.deck.nw;
    row.updates = rec.deck.updates;
    row.policy = run.policy;
    row.tunables = describe_tunables(run.tunables);
    row.repeats = int(run.times.size());
    row.time_s = run.median();
    row.flops_counted = w.ops.flops();
    row.reciprocals_counted = w.ops.reciprocals;
    row.flops_nominal = rec.deck.updates * counts::kNominalFlopsPerUpdate;
    row.bytes_compulsory = w.bytes_compulsory;
    row.fma_ratio_counted = w.fma_ratio_bound();
    row.fp64_peak_gflops = peak;
    if (!ncu.empty() && planned.space == SpaceKind::Device) {
      std::string why;
      row.ncu = profile(ncu, deck_arguments(args), *planned.entry, run.tunables, why);
      if (row.ncu) {
        row.profiler = profiler;
        row.clock_control = "none";
      } else {
        std::cerr << "warning: " << run.policy << ": no profile (" << why << "); analytic row only\n";
      }
    }
    rows += roofline_csv_row(row);
    // The whole file again after each policy (atomically): an interrupted run (a job's
    // time limit, a profiler that hangs) keeps every finished row in a complete CSV.
    write_file_atomically(o.csv_path, roofline_csv_header() + "\n" + rows);
    const double g = row.flops_counted / row.time_s / 1e9;
    std::cout << std::left << std::setw(15) << run.policy << std::right << std::setprecision(4) << std::setw(12)
              << row.time_s << std::setw(12) << row.flops_counted / row.updates << std::setw(12) << g << std::setw(12)
              << row.flops_counted / row.bytes_compulsory;
    if (row.ncu) {
      const double f = row.ncu->dadd + row.ncu->dmul + 2 * row.ncu->dfma;
      std::cout << std::setw(14) << f / row.time_s / 1e9 << std::setw(9) << f / row.ncu->bytes_l1 << std::setw(9)
                << f / row.ncu->bytes_l2 << std::setw(9) << f / row.ncu->bytes_dram;
    } else {
      std::cout << std::setw(14) << "-" << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-";
    }
    if (peak)
      std::cout << std::setw(9) << 100 * (row.ncu ? (row.ncu->dadd + row.ncu->dmul + 2 * row.ncu->dfma) : row.flops_counted) /
                                       row.time_s / 1e9 / *peak;
    std::cout << (run.status == "ok" ? "" : "  " + run.status) << std::endl;
  }
  std::cout << "FLOPs: counted from each policy's form of the physics (FMA = 2, reciprocals apart); nominal "
            << counts::kNominalFlopsPerUpdate << " FLOPs/update is the paper's count (see docs/roofline.md)\n";
  RunOptions other = o;
  other.csv_path.clear();
  write_outputs(other, rec);
  if (!plot_dir.empty()) {
    std::vector<std::string> names;
    for (const auto& r : rec.runs) names.push_back(r.policy);
    plot(plot_dir, o.csv_path, ceilings_path, names);
  }
  return rec.passed() ? 0 : 2;
}

}  // namespace gpp::app
