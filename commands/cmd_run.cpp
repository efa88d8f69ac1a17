// `gpp run DECK|--input FILE [--policy NAME|LIST|all] [--space device|host] [--repeat N]
//  [--json FILE] [--csv FILE] [--output FILE.h5]`
#include "gpp_command.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_mpi.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <iostream>

namespace gpp::commands {
using record::PolicyRun;
using record::result_line;
using record::RunRecord;
using record::space_info;
using session::ChunkPlan;
using session::describe_deck;
using session::describe_read;
using session::describe_reference_stored_now;
using session::describe_stored_reference;
using session::kSliceTarget;
using session::PhaseClock;
using session::run_policy;
using session::Session;
using session::update_after_runs;
using session::VerifyMode;

namespace {
std::string cplx(std::complex<double> z) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.17g, %.17g)", z.real(), z.imag());
  return buf;
}
std::string gib(double bytes) {
  if (bytes < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}
// Per-rank kernel times, their maximum and imbalance, and the reduction (docs/mpi.md).
std::string describe_ranks(const PolicyRun& r) {
  std::ostringstream o;
  o << std::setprecision(4);
  double sum = 0, most = 0;
  for (double t : r.rank_kernel_s) {
    sum += t;
    most = std::max(most, t);
  }
  const double mean = sum / double(r.rank_kernel_s.size());
  o << "ranks: " << r.ranks << "; kernel median per rank [s]:";
  for (double t : r.rank_kernel_s) o << " " << t;
  o << "; max " << most << " s, imbalance (max/mean) " << (mean > 0 ? most / mean : 0.0) << "; MPI_Allreduce of "
    << 4 * r.result.achtemp.size() << " doubles: " << r.comm_s * 1e6 << " us (median)\n";
  return o.str();
}
// A run long enough to be launched in G' slices (session/gpp_session.hpp, for_each_slice).
std::string describe_slices(const PolicyRun& r) {
  return "timed in " + std::to_string(r.launches) + " launches per run (G' slices of about " +
         std::to_string(int(kSliceTarget)) + " s, each fenced and timed, partial sums added)\n";
}

// One-off host -> device copies: how much, how long, how fast.
std::string describe_transfer(const RunRecord& r) {
  std::ostringstream o;
  o << std::setprecision(4) << "transfer: " << r.transfer_s
    << " s (host -> device copies, and the chunks' copies into their buffers, not hidden behind kernels)";
  if (r.transfer_bytes > 0) {
    o << "; copied once: " << gib(double(r.transfer_bytes));
    if (r.transfer_copy_s > 0)
      o << " (copies " << r.transfer_copy_s << " s at " << r.transfer_bytes / r.transfer_copy_s / 1e9
        << " GB/s through page-locked staging)";
  }
  o << "\n";
  return o.str();
}
// The plan of a chunked space.
std::string describe_chunks(const ChunkPlan& c, SpaceKind k) {
  std::ostringstream o;
  o << "G' chunks on the " << to_string(k) << " (--max-device-mem): " << c.resident << " of " << c.ngpown
    << " columns resident, " << c.ngpown - c.resident << " streamed each pass in " << c.streamed.size()
    << " chunks of at most " << c.width << " through " << c.slots
    << (c.slots == 1 ? " buffer" : " buffers (copies overlap kernels)") << "; partial sums added\n";
  return o.str();
}
// A chunked run's time with the copies and the copies' bandwidth.
std::string describe_streaming(const PolicyRun& r) {
  std::ostringstream o;
  o << std::setprecision(4) << "time with chunk copies: median " << r.median_with_transfers()
    << " s (transfers included: every pass streams " << gib(double(r.stream_bytes));
  if (r.stream_copy_s > 0)
    o << "; copies " << r.stream_copy_s << " s a pass at " << r.stream_bytes / r.stream_copy_s / 1e9 << " GB/s";
  o << "; " << r.median_with_transfers() - r.median() << " s a pass not hidden behind kernels)\n";
  return o.str();
}
}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  CLI::App app{"Run the GPP kernel on a deck, time it and verify it", "gpp run"};
  RunOptions o;
  bool no_branch_stats = false;
  add_run_options(app, o, "run");
  app.add_flag("--no-branch-stats", no_branch_stats, "Skip counting the branches each term takes");
  if (int rc = parse(app, "run", args); rc >= 0) return rc;

  // Everything that can be refused is refused here, before anything is printed.
  session::Progress progress;
  Prepared p = prepare(app, o, &progress);
  Session& s = p.session;
  PhaseClock clock(s);
  clock.setup_done();
  std::vector<std::string> command_line{"gpp", "run"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  const VerifyMode mode = parse_verify_mode(o.verify);
  const SpaceKind first = p.runs.front().space;

  // The header, before the long work: provenance (the spaces of the runs to come) and deck.
  std::cout << describe_plan_provenance(make_record("run", command_line, s), p.runs) << describe_deck(s) << std::flush;
  progress.plan("run", estimated_seconds(s, p.runs, mode, !no_branch_stats, true, o.repeat + o.warmup),
                "fewer repeats (--repeat 1 --warmup 0), a smaller deck (--ngpown, --ncouls, --nbands), a faster "
                "policy (host on a CPU, tuned on a GPU), --verify none, --no-branch-stats");

  prepare_reference(s, mode, o.rtol, !no_branch_stats, &progress);
  clock.verification_done();
  RunRecord rec = make_record("run", command_line, s);
  rec.rank_placement = session::mpi::placement();
  if (!no_branch_stats) rec.branches = s.arms->branches();
  add_static_remainder(s, rec, first, &progress);
  for (const auto& planned : p.runs) {
    rec.runs.push_back(run_policy(s, *planned.entry, planned.space, planned.tunables, o.repeat, o.warmup, &progress));
    rec.runs.back().tunables_source = planned.tunables_source;
  }
  update_after_runs(rec, s);
  clock.kernels_done();
  rec.time_to_solution = clock.now();

  // The output files first: an output that fails (a full disk) is the one line printed
  // after the header.
  write_outputs(o, rec);
  std::cout << "setup: " << s.setup_s << " s (generate/read, check, derive); data: " << gib(double(rec.data_bytes))
            << (rec.ranks > 1 ? " on rank 0" : "") << (s.input.huge_pages ? " (in 2 MiB pages)" : "") << "\n";
  std::cout << describe_transfer(rec);
  for (SpaceKind k : {SpaceKind::Device, SpaceKind::Host})
    if (s.chunks(k).chunked() &&
        std::any_of(rec.runs.begin(), rec.runs.end(), [&](const PolicyRun& r) { return r.space.kind == k; }))
      std::cout << describe_chunks(s.chunks(k), k);
  if (!s.synthetic) std::cout << describe_read(s);
  if (rec.branches)
    std::cout << describe_branches(*rec.branches)
              << (s.arms_s > 0 ? "branch statistics: counted in " + gpp::files::number_text(s.arms_s) +
                                     " s (a pass of the "
                                     "fast reference; --no-branch-stats skips it)\n"
                  : s.arms_stored ? "branch statistics: from the reference cache's pass of this deck\n"
                                  : std::string());
  if (s.target.performed())
    std::cout << "verifying against the " << s.target.against << " (" << describe_stored_reference(s) << "tolerance "
              << s.target.tolerance << ", took " << s.reference_s << " s"
              << (s.reference_origin.source == "computed" && rec.branches ? ", branch statistics included" : "")
              << describe_reference_stored_now(s) << ")\n";
  const double updates = rec.deck.updates;
  if (rec.runs.size() == 1) {
    const auto& r = rec.runs[0];
    std::cout << "policy: " << r.policy << " on the " << to_string(r.space.kind) << " (" << r.space.backend << "; "
              << describe_tunables(r.tunables) << "; tunables from: " << r.tunables_source << ")\n";
    for (int w = 0; w < rec.deck.sizes.nw; ++w)
      std::cout << "achtemp(iw=" << rec.deck.nstart + w << ") = " << cplx(r.result.achtemp[w]) << "\n";
    for (int w = 0; w < rec.deck.sizes.nw; ++w)
      std::cout << "asxtemp(iw=" << rec.deck.nstart + w << ") = " << cplx(r.result.asxtemp[w]) << "\n";
    std::cout << "achstemp = " << cplx(*rec.achstemp) << " (static remainder, " << rec.static_s << " s, "
              << (rec.build.kokkos_kernels ? "KokkosBlas::gemm" : "built-in product") << ")\n";
    std::cout << std::setprecision(6) << "time: median " << r.median() << " s, min " << r.min() << " s, max " << r.max()
              << " s over " << r.times.size() << " repeats (warm-up excluded, transfers excluded)\n";
    if (r.chunks > 1 && r.stream_bytes > 0) std::cout << describe_streaming(r);
    std::cout << "updates/s: " << updates / r.median() << "\n";
    if (r.launches > r.chunks) std::cout << describe_slices(r);
    if (r.ranks > 1) std::cout << describe_ranks(r);
  } else {
    for (const auto& r : rec.runs)
      if (r.ranks > 1) std::cout << r.policy << ": " << describe_ranks(r);
    std::cout << "\n"
              << std::left << std::setw(16) << "policy" << std::setw(8) << "space" << std::right << std::setw(13)
              << "median [s]" << std::setw(14) << "updates/s" << std::setw(12) << "rel error"
              << "  verified\n";
    for (const auto& r : rec.runs)
      std::cout << std::left << std::setw(16) << r.policy << std::setw(8) << to_string(r.space.kind) << std::right
                << std::setw(13) << std::setprecision(5) << r.median() << std::setw(14) << std::setprecision(4)
                << updates / r.median() << std::setw(12) << std::setprecision(2) << r.rel_error << "  "
                << (!s.target.performed() ? "n/a"
                    : r.verified          ? "yes"
                                          : "NO")
                << "\n";
    for (const auto& r : rec.runs)
      std::cout << "tunables (" << r.policy << "): " << describe_tunables(r.tunables) << " (from: " << r.tunables_source
                << ")\n";
    for (const auto& r : rec.runs)
      if (r.launches > r.chunks) std::cout << r.policy << ": " << describe_slices(r);
    for (const auto& r : rec.runs)
      if (r.chunks > 1 && r.stream_bytes > 0) std::cout << r.policy << ": " << describe_streaming(r);
    std::cout << std::setprecision(6) << "\nachstemp = " << cplx(*rec.achstemp) << "\n";
  }
  if (s.target.performed()) {
    for (const auto& r : rec.runs)
      std::cout << "verification (" << r.policy << "): against the " << s.target.against << ", relative error "
                << std::setprecision(3) << r.rel_error << " (tolerance " << s.target.tolerance
                << "): " << (r.verified ? "PASSED" : "FAILED") << "\n";
    if (rec.achstemp_rel_error)
      std::cout << "verification (achstemp): relative error " << *rec.achstemp_rel_error << ": "
                << (*rec.achstemp_rel_error <= s.target.tolerance ? "PASSED" : "FAILED") << "\n";
  } else {
    std::cout << "verification: not performed (--verify none)\n";
  }
  std::cout << std::setprecision(6);
  if (rec.device_mem_peak_bytes >= 0)
    std::cout << "device memory in use, peak sampled: " << gib(double(rec.device_mem_peak_bytes))
              << " (whole device, context included)\n";
  for (const auto& r : rec.runs) std::cout << result_line(rec, r) << "\n";
  std::cout << PhaseClock::describe(clock.now()) << std::flush;
  return rec.passed() ? 0 : 2;
}

}  // namespace gpp::commands
