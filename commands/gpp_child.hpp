#pragma once
// External programs gpp starts (Nsight Compute for `gpp roofline`, tools/gpp_plot.py for
// --plot), each under a time limit: a profiler or a chart script that hangs never hangs
// gpp. No shell: the arguments are passed as they are.
#include <string>
#include <vector>

namespace gpp::commands {

struct ChildResult {
  int status = -1;         // exit status; 128 + N for a signal; -1 when it could not start
  bool timed_out = false;  // ended by gpp after `limit_s`
  std::string output;      // what it wrote on stdout and stderr (the last 64 KiB)
};

/// Runs argv[0] (a path, or a name looked up on PATH) with `argv`, stdin from /dev/null,
/// stdout and stderr captured, in its own process group. After `limit_s` seconds the
/// group gets SIGTERM, then SIGKILL 2 seconds later; the result says so.
ChildResult run_child(const std::vector<std::string>& argv, double limit_s);

/// A time limit option's value: positive, finite, at most 10^6 s. Throws gpp::Error.
void check_time_limit(const std::string& option, double seconds);

}  // namespace gpp::commands
