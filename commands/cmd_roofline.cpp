// `gpp roofline DECK --policy LIST [--space ...] [--repeat N] --csv FILE [--ceilings FILE]
//  [--ncu PATH|auto|off] [--plot DIR]`: for each policy the timed runs of `gpp bench`,
// the counted FLOPs and compulsory bytes of its own form of the physics (an analytic
// roofline point on every backend) and, on a CUDA device with Nsight Compute, the
// profiled FP64 instructions and bytes per memory level (docs/roofline.md).
#include "gpp_campaign.hpp"
#include "gpp_command.hpp"
#include "gpp_counts.hpp"
#include "gpp_deck_path.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_roofline.hpp"
#include "gpp_child.hpp"
#include "gpp_inputs.hpp"
#include "gpp_json.hpp"

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

namespace gpp::commands {
using files::kMaxCsvBytes;
using files::read_input_file;
using formats::format_double;
using measure::CeilingsSummary;
using measure::ncu_metrics;
using measure::NcuCounters;
using measure::parse_ncu_raw_csv;
using measure::read_ceilings;
using measure::roofline_csv_header;
using measure::roofline_csv_row;
using measure::roofline_csv_table;
using measure::RooflineRow;
using record::PolicyRun;
using record::RunRecord;
using record::space_info;
using record::SpaceInfo;
using session::resolve;
using session::run_policy;
using session::Session;

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

std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

std::string ncu_version(const std::string& ncu, double limit_s) {
  const ChildResult r = run_child({ncu, "--version"}, limit_s);
  if (r.timed_out)
    throw Error("--ncu " + ncu + ": 'ncu --version' did not finish within " + format_double(limit_s) +
                " s (--profiler-timeout)");
  const std::string& out = r.output;
  const std::size_t v = out.find("Version ");
  if (v == std::string::npos) return "ncu";
  std::string ver;
  for (std::size_t i = v + 8; i < out.size() && !std::isspace((unsigned char)out[i]); ++i) ver += out[i];
  return "ncu " + ver;
}

/// The command-line arguments that describe the deck (everything but the options
/// `gpp roofline` sets itself for the profiled child run).
std::vector<std::string> deck_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> own = {"--csv",      "--json",  "--output", "--ceilings", "--ncu",    "--plot", "--policy",
                                  "--policies", "--space", "--repeat", "--warmup",   "--verify", "--rtol", "--param"};
  for (const TunableSpec& spec : tunable_table()) own.push_back(std::string("--") + spec.option);
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

/// The tunables `t` of `e` as options of the profiled `gpp run`, each in its text form.
std::vector<std::string> tunable_arguments(const PolicyEntry& e, const Tunables& t) {
  std::vector<std::string> a;
  for (const TunableSpec& spec : tunable_table())
    if (spec.is_set(t) && e.reads(spec))
      a.insert(a.end(), {std::string("--") + spec.option, tunable_text(spec.get(t))});
  for (const auto& [name, value] : t.params)
    if (e.param(name)) a.insert(a.end(), {"--param", name + "=" + value});
  return a;
}

/// One ncu launch of `gpp run` for one policy; the counters of its NVTX range, or the
/// reason it failed.
std::optional<NcuCounters> profile(const std::string& ncu, const std::vector<std::string>& deck_args,
                                   const PolicyEntry& e, const Tunables& t, double limit_s, std::string& why) {
  const std::string base = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") + "/gpp_ncu_" +
                           std::to_string(::getpid()) + "_" + e.name;
  const std::string report = base + ".csv";
  std::string metrics;
  for (const auto& m : ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> cmd = {ncu,
                                  "--csv",
                                  "--page",
                                  "raw",
                                  "--print-units",
                                  "base",
                                  "--clock-control",
                                  "none",
                                  "--metrics",
                                  metrics,
                                  "--nvtx",
                                  "--nvtx-include",
                                  "gpp::policy::" + e.name + "/",
                                  "--log-file",
                                  report,
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
  if (::isatty(STDERR_FILENO))
    std::cerr << "profiling " << e.name << " (at most " << limit_s << " s): " << line << "\n";
  const ChildResult r = run_child(cmd, limit_s);
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_report{report};
  if (r.timed_out)
    throw Error("--ncu: profiling " + e.name + " did not finish within " + format_double(limit_s) +
                " s and was stopped (--profiler-timeout sets the limit)");
  if (r.status != 0) {
    why = "ncu exited with status " + std::to_string(r.status) + ": " + tail(r.output, 400);
    return std::nullopt;
  }
  try {
    return parse_ncu_raw_csv(read_input_file("ncu report", report, kMaxCsvBytes));
  } catch (const Error& err) {
    why = err.what();
    return std::nullopt;
  }
}

/// The python that draws the charts: $GPP_PLOT_PYTHON, else python3 on PATH.
std::string plot_python() {
  if (const char* p = std::getenv("GPP_PLOT_PYTHON"); p && *p) return p;
  return find_on_path("python3");
}

/// The chart script: the installed one (<prefix>/share/gpp/tools/gpp_plot.py) first, then,
/// for a gpp run from its build tree, the source tree's; "" when neither is a readable file.
std::string plot_script() {
  for (const auto& p : shipped_tool_candidates("gpp_plot.py")) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), R_OK) == 0) return p;
  }
  return "";
}

/// Refuses --plot before any work when no chart could be drawn: no python3, no script,
/// no matplotlib, or a python that does not answer within the time limit.
void check_plot_tools(const std::string& dir, double limit_s) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw Error("--plot " + dir + ": not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw Error("--plot " + dir + ": the directory is not writable");
  const std::string python = plot_python();
  if (python.empty()) throw Error("--plot: needs python3 (on PATH, or $GPP_PLOT_PYTHON)");
  if (plot_script().empty()) {
    std::string looked;
    for (const auto& p : shipped_tool_candidates("gpp_plot.py")) looked += (looked.empty() ? "" : ", ") + p;
    throw Error("--plot: no chart script gpp_plot.py (looked for " + looked + ")");
  }
  const ChildResult r = run_child({python, "-c", "import matplotlib, numpy"}, limit_s);
  if (r.timed_out)
    throw Error("--plot: " + python + " did not answer within " + format_double(limit_s) + " s (--plot-timeout)");
  if (r.status != 0)
    throw Error("--plot: " + python + " cannot import matplotlib and numpy (Debian: python3-matplotlib)");
}

/// The charts --plot draws: the arguments of tools/gpp_plot.py for each (its last is the
/// file name without its extension).
std::vector<std::vector<std::string>> charts_of(const std::string& dir, const std::string& csv,
                                                const std::string& ceilings, const std::vector<std::string>& policies) {
  std::vector<std::vector<std::string>> charts = {{"times", "--csv", csv, "--out", dir + "/times"}};
  if (!ceilings.empty()) {
    charts.push_back({"path", "--csv", csv, "--ceilings", ceilings, "--out", dir + "/path"});
    for (const auto& p : policies)
      charts.push_back(
          {"roofline", "--csv", csv, "--ceilings", ceilings, "--policy", p, "--out", dir + "/roofline-" + p});
  }
  return charts;
}
const char* const kChartFormats[] = {"png", "svg"};

/// Every chart file --plot would replace, checked as every output is, before any work.
void check_chart_files(const std::vector<std::vector<std::string>>& charts) {
  std::vector<files::OutputRequest> outputs;
  for (const auto& c : charts)
    for (const char* format : kChartFormats) outputs.push_back({"--plot", c.back() + "." + format});
  files::check_files({}, outputs);
}

/// Draws every chart, each under the time limit; the files written. gpp::Error for a
/// chart that was not drawn (a requested chart that is missing is a failure).
std::vector<std::string> plot(const std::string& dir, const std::string& csv, const std::string& ceilings,
                              const std::vector<std::string>& policies, double limit_s) {
  const std::string python = plot_python(), script = plot_script();
  const std::vector<std::vector<std::string>> charts = charts_of(dir, csv, ceilings, policies);
  std::vector<std::string> written;
  for (const auto& c : charts) {
    std::vector<std::string> cmd{python, script};
    cmd.insert(cmd.end(), c.begin(), c.end());
    cmd.insert(cmd.end(), {"--formats", std::string(kChartFormats[0]) + "," + kChartFormats[1]});
    const ChildResult r = run_child(cmd, limit_s);
    if (r.timed_out)
      throw Error("--plot: the " + c[0] + " chart was not drawn: " + script + " did not finish within " +
                  format_double(limit_s) + " s (--plot-timeout)");
    if (r.status != 0) {
      std::string last = r.output;
      while (!last.empty() && last.back() == '\n') last.pop_back();
      last = last.substr(last.find_last_of('\n') == std::string::npos ? 0 : last.find_last_of('\n') + 1);
      throw Error("--plot: the " + c[0] + " chart was not drawn (" + script + " exited with status " +
                  std::to_string(r.status) + ": " + tail(last, 200) + ")");
    }
    written.push_back(r.output);
  }
  return written;
}

}  // namespace

int cmd_roofline(const std::vector<std::string>& args) {
  CLI::App app{"Roofline data of policies on a deck: times, counted FLOPs and bytes, Nsight Compute counters",
               "gpp roofline"};
  RunOptions o;
  add_run_options(app, o, "roofline");
  std::string ceilings_path, ncu_option = "auto", plot_dir, resume;
  bool ceilings_any_device = false;
  double profiler_timeout = 3600, plot_timeout = 300;
  app.add_option("--ceilings", ceilings_path,
                 "Ceilings JSON (gpp ceilings --json) of this device, for the % of FP64 peak");
  app.add_flag("--ceilings-any-device", ceilings_any_device,
               "Use a ceilings file measured on another device or backend (refused otherwise)");
  app.add_option("--profiler-timeout", profiler_timeout, "Stop Nsight Compute after this many seconds per policy")
      ->capture_default_str();
  app.add_option("--plot-timeout", plot_timeout, "Stop gpp_plot.py after this many seconds per chart")
      ->capture_default_str();
  app.add_option("--ncu", ncu_option,
                 "Nsight Compute: its path, auto (on a CUDA device: $NCU, PATH, "
                 "/usr/local/cuda/bin/ncu) or off")
      ->capture_default_str();
  app.add_option("--plot", plot_dir, "Draw the charts into this directory (python3 gpp_plot.py, from share/gpp/tools)");
  app.add_option("--resume", resume,
                 "Continue this roofline CSV: policies already in it (same tunables, device, build and deck) are "
                 "skipped and new rows are appended to it (or to --csv); a file that does not exist yet is started");
  if (int rc = parse(app, "roofline", args); rc >= 0) return rc;
  if (!resume.empty() && o.csv_path.empty()) o.csv_path = resume;
  if (o.csv_path.empty()) throw Error("--csv FILE (or --resume FILE) is required (the roofline CSV, docs/formats.md)");
  check_time_limit("--profiler-timeout", profiler_timeout);
  check_time_limit("--plot-timeout", plot_timeout);
  o.more_inputs = {{"--ceilings", ceilings_path}, {"--resume", resume, "--csv", true}};
  check_shared_outputs(o.more_inputs, {{"--csv", o.csv_path}});
  const auto done_points = resume.empty() || !file_exists(resume) ? std::vector<std::vector<std::string>>()
                                                                  : measure::read_roofline_points(resume);
  std::optional<CeilingsSummary> ceilings;
  if (!ceilings_path.empty()) ceilings = read_ceilings(ceilings_path);
  if (!plot_dir.empty()) {
    check_plot_tools(plot_dir, plot_timeout);
    const std::optional<SpaceKind> space = o.space.empty() ? std::nullopt : std::optional(parse_space(o.space));
    std::vector<std::string> names;
    for (const PolicyEntry* e :
         select_policies(o.policy.empty() ? default_policy_name(space ? *space : default_space()) : o.policy))
      names.push_back(e->name);
    check_chart_files(charts_of(plot_dir, o.csv_path, ceilings_path, names));
  }
  session::Progress progress;
  Prepared p = prepare(app, o, &progress);
  std::optional<double> peak;
  if (ceilings) {
    // The percentage of peak is this machine's: a ceilings file of another device (or
    // backend) is refused unless that is the intent.
    for (const auto& r : p.runs) {
      const SpaceInfo where = space_info(r.space);
      if (!ceilings_any_device && (where.device != ceilings->device || where.backend != ceilings->backend))
        throw Error("--ceilings " + ceilings_path + ": measured on " + ceilings->device + " (" + ceilings->backend +
                    "), but " + r.entry->name + " runs on " + where.device + " (" + where.backend +
                    "): measure this device (gpp ceilings --json), or give --ceilings-any-device");
    }
    peak = ceilings->fp64_peak_gflops;
  }
  bool cuda_device = false;
  for (const auto& r : p.runs)
    cuda_device = cuda_device || (r.space == SpaceKind::Device && std::string(DeviceExec::name()) == "Cuda");
  const std::string ncu = resolve_ncu(ncu_option, cuda_device);
  const std::string profiler = ncu.empty() ? "none" : ncu_version(ncu, profiler_timeout);
  Session& s = p.session;
  std::vector<std::string> command_line{"gpp", "roofline"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  RunRecord rec = make_record("roofline", command_line, s);
  formats::SharedRows csv("--csv", o.csv_path, roofline_csv_header());
  {
    // Replaced unless it is the resumed file; then the rows of the resumed file.
    std::vector<std::string> old;
    if (!resume.empty() && file_exists(resume))
      old = formats::csv_data_records(read_input_file("--resume", resume, kMaxCsvBytes));
    csv.start(old, o.csv_path != resume);
  }
  Campaign c("roofline", args, p.runs.size());
  c.rows_to(&csv);
  std::string unwritten = o.json_path.empty() ? "" : "--json " + o.json_path;
  if (!plot_dir.empty()) unwritten += (unwritten.empty() ? "" : ", ") + std::string("the charts (--plot)");
  c.written_at_end(unwritten);
  start_verification(s, o, &progress, true);
  update_after_verification(rec, s);

  // The text of each policy is printed as it is measured; charts and the JSON at the end.
  std::ostringstream out;
  std::cout << "profiler: " << profiler << "\n";
  if (!resume.empty()) std::cout << done_points.size() << " rows already in " << resume << "\n";
  std::cout << "counting the arms of every term (the FLOP counts' branch mix) ...\n" << std::flush;
  const WorkCounter work(s, &progress);
  const measure::counts::ArmCounts& arms = work.arms;
  const measure::counts::Shape& shape = work.shape;
  rec.branches = arms.branches();
  std::cout << describe_branches(*rec.branches) << "\n";
  std::cout << std::left << std::setw(15) << "policy" << std::right << std::setw(12) << "median [s]" << std::setw(12)
            << "FLOP/update" << std::setw(12) << "GFLOP/s" << std::setw(12) << "AI compuls." << std::setw(14)
            << "GFLOP/s (ncu)" << std::setw(9) << "AI L1" << std::setw(9) << "AI L2" << std::setw(9) << "AI DRAM"
            << std::setw(9) << "% peak"
            << "\n"
            << std::flush;
  for (const auto& planned : p.runs) {
    RooflineRow row;
    row.date = rec.date;
    row.git = rec.build.git;
    row.device = space_info(planned.space).device;
    row.backend = space_info(planned.space).backend;
    row.space = to_string(planned.space);
    row.deck = rec.deck.name;
    row.sizes = rec.deck.sizes;
    row.updates = rec.deck.updates;
    row.policy = planned.entry->name;
    row.tunables = describe_tunables(resolve(s, *planned.entry, planned.space, planned.tunables));
    {
      std::string line = roofline_csv_row(row);
      const auto key = measure::roofline_point_key(formats::parse_csv(line).front());
      if (std::find(done_points.begin(), done_points.end(), key) != done_points.end()) {
        c.skip();
        continue;
      }
    }
    c.next(planned.entry->name);
    rec.runs.push_back(run_policy(s, *planned.entry, planned.space, planned.tunables, o.repeat, o.warmup));
    const PolicyRun& run = rec.runs.back();
    const measure::counts::Work w = measure::counts::count_policy(run.policy, shape, arms, run.tunables);
    row.tunables = describe_tunables(run.tunables);
    row.repeats = int(run.times.size());
    row.time_s = run.median();
    row.flops_counted = w.ops.flops();
    row.reciprocals_counted = w.ops.reciprocals;
    row.flops_nominal = rec.deck.updates * measure::counts::kNominalFlopsPerUpdate;
    row.bytes_compulsory = w.bytes_compulsory;
    row.fma_ratio_counted = w.fma_ratio_bound();
    row.fp64_peak_gflops = peak;
    std::ostringstream line;
    if (!ncu.empty() && planned.space == SpaceKind::Device) {
      std::string why;
      const files::StopPhase phase("profiling " + run.policy + " with " + profiler);
      row.ncu = profile(ncu, deck_arguments(args), *planned.entry, run.tunables, profiler_timeout, why);
      if (row.ncu) {
        row.profiler = profiler;
        row.clock_control = "none";
      } else {
        out << "warning: " << run.policy << ": no profile (" << why << "); analytic row only\n";
      }
    }
    const double g = row.flops_counted / row.time_s / 1e9;
    line << std::left << std::setw(15) << run.policy << std::right << std::setprecision(4) << std::setw(12)
         << row.time_s << std::setw(12) << row.flops_counted / row.updates << std::setw(12) << g << std::setw(12)
         << row.flops_counted / row.bytes_compulsory;
    if (row.ncu) {
      const double f = row.ncu->dadd + row.ncu->dmul + 2 * row.ncu->dfma;
      line << std::setw(14) << f / row.time_s / 1e9 << std::setw(9) << f / row.ncu->bytes_l1 << std::setw(9)
           << f / row.ncu->bytes_l2 << std::setw(9) << f / row.ncu->bytes_dram;
    } else {
      line << std::setw(14) << "-" << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-";
    }
    if (peak)
      line << std::setw(9)
           << 100 * (row.ncu ? (row.ncu->dadd + row.ncu->dmul + 2 * row.ncu->dfma) : row.flops_counted) / row.time_s /
                  1e9 / *peak;
    line << (run.status == "ok" ? "" : "  " + run.status);
    std::string csv_line = roofline_csv_row(row);
    csv_line.pop_back();  // its newline
    c.done(csv_line, line.str());
  }
  out << "FLOPs: counted from each policy's form of the physics (FMA = 2, reciprocals apart); nominal "
      << measure::counts::kNominalFlopsPerUpdate << " FLOPs/update is the paper's count (see docs/roofline.md)\n";
  RunOptions other = o;
  other.csv_path.clear();
  write_outputs(other, rec);
  if (!plot_dir.empty()) {
    const files::StopPhase phase("drawing the charts");
    std::vector<std::string> names;
    for (const auto& r : rec.runs) names.push_back(r.policy);
    for (const auto& lines : plot(plot_dir, o.csv_path, ceilings_path, names, plot_timeout)) out << lines;
  }
  std::cout << out.str() << std::flush;
  return rec.passed() ? 0 : 2;
}

}  // namespace gpp::commands
