#include "gpp_interrupt.hpp"

#include <csignal>

namespace gpp::session {
namespace {
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_signal != 0) {
    // The second signal: what it would have done without gpp, now.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}
}  // namespace

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // No SA_RESTART: a blocking call returns (EINTR) and the loop around it sees the stop.
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal() { return int(g_signal); }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(sig);
  }
}

void throw_if_stop_requested() {
  if (const int s = stop_signal()) throw Interrupted(s);
}

void clear_stop_request() { g_signal = 0; }

}  // namespace gpp::session
