#include "gpp_child.hpp"

#include "gpp_error.hpp"
#include "gpp_json.hpp"
#include "gpp_stop.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace gpp::commands {
using formats::format_double;

void check_time_limit(const std::string& option, double seconds) {
  if (!std::isfinite(seconds) || !(seconds > 0) || seconds > 1e6)
    throw Error(option + " " + format_double(seconds) + ": give a time limit in seconds, more than 0 and at most 1e6");
}

ChildResult run_child(const std::vector<std::string>& argv, double limit_s) {
  ChildResult r;
  if (argv.empty()) return r;
  char log_name[] = "/tmp/gpp_child_XXXXXX";
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/gpp_child_XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int log = ::mkstemp(name.data());
  if (log < 0) {
    log = ::mkstemp(log_name);
    if (log < 0) throw Error("cannot create a temporary file for " + argv[0] + ": " + std::strerror(errno));
    name.assign(log_name, log_name + sizeof log_name);
  }
  ::unlink(name.data());  // kept open, gone from the directory
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    throw Error("cannot start " + argv[0] + ": " + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);            // also here: no race with the child's own call
  files::end_on_stop(pid, true);  // in a group of its own, Ctrl-C at the terminal does not reach it
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  bool term_sent = false;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (!term_sent && elapsed() > limit_s) {
      r.timed_out = true;
      ::kill(-pid, SIGTERM);
      term_sent = true;
    } else if (term_sent && elapsed() > limit_s + 2) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (term_sent) ::kill(-pid, SIGKILL);  // anything left of the group
  files::forget_child(pid);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  const off_t size = ::lseek(log, 0, SEEK_END);
  const off_t from = size > 65536 ? size - 65536 : 0;
  ::lseek(log, from, SEEK_SET);
  char buf[65536];
  for (ssize_t n; (n = ::read(log, buf, sizeof buf)) > 0;) r.output.append(buf, std::size_t(n));
  ::close(log);
  return r;
}

}  // namespace gpp::commands
