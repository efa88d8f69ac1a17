#include "gpp_stop.hpp"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace gpp::files {
namespace {

volatile sig_atomic_t g_signal = 0;
sem_t g_wake;  // posted by the handler: the only thing it may do besides noting the signal

// Everything the stopping thread reads, under one mutex. Once it holds the mutex to stop,
// it keeps it until the process ends: nothing changes under it any more.
struct State {
  std::mutex m;
  std::condition_variable sections_done;
  bool installed = false, stopping = false, speaks = true;
  std::string command;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::vector<std::pair<unsigned long, std::string>> phases;  // outermost first
  unsigned long next_phase = 1;
  std::string kept;
  std::vector<std::string> written;
  std::set<std::string> temps;
  std::map<pid_t, bool> children;  // pid -> its whole process group
  int sections = 0;
  bool announce = false;  // GPP_TEST_PHASES=1: each phase said on stderr as it begins
  int answer = -1;        // the exit status once the command has answered, else -1
};
State& state() {
  static State* s = new State;  // never destroyed: the stopping thread may outlive main's statics
  return *s;
}
thread_local int t_depth = 0;  // StopDeferred sections open on this thread

extern "C" void on_stop_signal(int sig) {
  if (g_signal != 0) {
    // The second signal: what it would have done without gpp, now.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_signal = sig;
  const int saved = errno;
  ::sem_post(&g_wake);
  errno = saved;
}

std::string seconds_text(double s) {
  char buf[48];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

// Under the mutex: the phases now, outermost first.
std::string phases_locked(const State& st) {
  std::string during;
  for (const auto& p : st.phases) during += (during.empty() ? "" : ", ") + p.second;
  return during;
}

// Under the mutex.
std::string line_locked(const State& st, int sig) {
  const std::string during = phases_locked(st);
  std::string line = "gpp " + (st.command.empty() ? std::string("(no command)") : st.command) + ": stopped by " +
                     signal_name(sig) + (during.empty() ? std::string(" before any work") : " during " + during) +
                     ", after " +
                     seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - st.t0).count());
  if (!st.kept.empty()) {
    line += "; " + st.kept;
  } else if (st.written.empty()) {
    line += "; nothing written";
  } else {
    std::string files;
    for (const auto& w : st.written) files += (files.empty() ? "" : ", ") + w;
    line += "; written whole before the stop: " + files + "; nothing else written";
  }
  return line;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += std::size_t(n);
  }
}

// What was printed reaches stdout before the process ends: the lock of C's stdout is
// tried (the main thread may be inside a write to a full pipe), not waited for.
void flush_stdout() {
  for (int i = 0; i < 50; ++i) {
    if (::ftrylockfile(stdout) == 0) {
      std::fflush(stdout);
      ::funlockfile(stdout);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Under the mutex: for the tests that stop gpp in each phase (they wait for the phase).
void announce_locked(const State& st) {
  if (st.announce && st.speaks) write_all(STDERR_FILENO, "gpp: phase: " + phases_locked(st) + "\n");
}

[[noreturn]] void stop_now() {
  State& st = state();
  std::unique_lock<std::mutex> lock(st.m);
  st.stopping = true;
  // A section never waits for a stop (it is a few milliseconds); the stop waits for it.
  st.sections_done.wait(lock, [&] { return st.sections == 0; });
  const int sig = g_signal;
  for (const auto& [pid, group] : st.children) ::kill(group ? -pid : pid, SIGTERM);
  for (const auto& t : st.temps) ::unlink(t.c_str());
  flush_stdout();
  if (st.answer >= 0) ::_exit(st.answer);
  if (st.speaks) write_all(STDERR_FILENO, (::isatty(STDERR_FILENO) ? "\r\033[K" : "") + line_locked(st, sig) + "\n");
  // A child that ignores SIGTERM is not left behind.
  if (!st.children.empty()) {
    for (int i = 0; i < 20; ++i) {
      bool alive = false;
      for (const auto& [pid, group] : st.children) alive = alive || ::kill(group ? -pid : pid, 0) == 0;
      if (!alive) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const auto& [pid, group] : st.children) ::kill(group ? -pid : pid, SIGKILL);
  }
  ::_exit(128 + sig);
}

void stopping_thread() {
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGINT);
  sigaddset(&both, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &both, nullptr);  // the handler runs on the other threads
  while (::sem_wait(&g_wake) != 0) {
  }
  stop_now();
}

}  // namespace

void catch_stop_signals(const std::string& command, bool speaks) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.command = command;
  st.speaks = speaks;
  if (st.installed) return;
  st.installed = true;
  st.t0 = std::chrono::steady_clock::now();
  const char* announce = std::getenv("GPP_TEST_PHASES");
  st.announce = announce && std::string(announce) == "1";
  ::sem_init(&g_wake, 0, 0);
  std::thread(stopping_thread).detach();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the other threads go on until the stopping thread ends the process
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void answer_given(int code) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.answer = code;
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

StopPhase::StopPhase(std::string what) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  id_ = st.next_phase++;
  st.phases.emplace_back(id_, std::move(what));
  announce_locked(st);
}

StopPhase::~StopPhase() {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  for (auto it = st.phases.begin(); it != st.phases.end(); ++it)
    if (it->first == id_) {
      st.phases.erase(it);
      break;
    }
}

void StopPhase::rename(std::string what) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  for (auto& p : st.phases)
    if (p.first == id_) p.second = std::move(what);
  announce_locked(st);
}

void set_stop_kept(std::string text) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.kept = std::move(text);
}

StopDeferred::StopDeferred(const std::function<void()>& undo) {
  if (t_depth++ > 0) return;
  State& st = state();
  std::unique_lock<std::mutex> lock(st.m);
  // Stopping already: this section never starts (the process ends without it).
  if (st.stopping) {
    if (undo) undo();
    std::condition_variable never;
    never.wait(lock, [] { return false; });
  }
  ++st.sections;
}

StopDeferred::~StopDeferred() {
  if (--t_depth > 0) return;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  if (--st.sections == 0) st.sections_done.notify_all();
}

void remove_on_stop(const std::string& temp) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.temps.insert(temp);
}

void forget_on_stop(const std::string& temp) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.temps.erase(temp);
}

bool rename_unless_stopped(const std::string& temp, const std::string& target, int& error) {
  StopDeferred section;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    error = errno;
    return false;
  }
  st.temps.erase(temp);
  st.written.push_back(target);
  return true;
}

void end_on_stop(pid_t pid, bool group) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.children[pid] = group;
}

void forget_child(pid_t pid) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  st.children.erase(pid);
}

std::string stop_line(int sig) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.m);
  return line_locked(st, sig);
}

}  // namespace gpp::files
