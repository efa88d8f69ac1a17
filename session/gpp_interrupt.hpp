#pragma once
// Long campaigns (sweep, tune, bench, roofline, ceilings) end cleanly on SIGINT (Ctrl-C)
// and SIGTERM (what a batch scheduler sends at the end of a job's time): the first
// signal asks the campaign to stop; the point in flight is dropped at its next repeat
// (a kernel cannot be stopped mid-launch), every finished point is already on disk, and
// the command prints how to resume and exits 128 + the signal. A second signal ends the
// process at once, as the signal would without gpp's handler.
#include <stdexcept>
#include <string>

namespace gpp::session {

/// Installs the handlers (idempotent). Until then SIGINT and SIGTERM end gpp at once.
void catch_stop_signals();

/// The signal that asked to stop (SIGINT, SIGTERM), or 0.
int stop_signal();
inline bool stop_requested() { return stop_signal() != 0; }

/// "SIGINT", "SIGTERM".
std::string signal_name(int sig);

/// Thrown (by run_policy, between repeats) when a stop was asked for: the point in
/// flight is dropped.
struct Interrupted : std::runtime_error {
  explicit Interrupted(int sig) : std::runtime_error("interrupted by " + signal_name(sig)), signal(sig) {}
  int signal;
};

/// Throws Interrupted when a stop was asked for.
void throw_if_stop_requested();

/// For tests: forget a stop request (the handlers stay).
void clear_stop_request();

}  // namespace gpp::session
