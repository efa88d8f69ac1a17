#include "gpp_stderr.hpp"

#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>  // memfd_create
#endif

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace gpp::runtime {

namespace {

// While Kokkos starts: the process's own stderr (a duplicate) and the file that stands in
// for it. Plain globals: the abort handler reads them.
int g_real_stderr = -1;
int g_capture = -1;
struct sigaction g_previous_abort {};

// Copies what was captured to the real stderr and puts it back in place. Async-signal-safe
// (pread, write, dup2, close): it runs from the SIGABRT handler and at exit too.
void release_capture() {
  if (g_real_stderr < 0) return;
  char buf[4096];
  off_t at = 0;
  ssize_t n;
  while ((n = pread(g_capture, buf, sizeof buf, at)) > 0) {
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(g_real_stderr, buf + done, std::size_t(n - done));
      if (w <= 0) break;
      done += w;
    }
    at += n;
  }
  dup2(g_real_stderr, STDERR_FILENO);
  close(g_real_stderr);
  g_real_stderr = -1;
}

// Kokkos::abort (and std::terminate) while Kokkos starts: its message is not lost.
void on_abort(int) {
  release_capture();
  sigaction(SIGABRT, &g_previous_abort, nullptr);
  raise(SIGABRT);
}

// A descriptor above 2 (stdin or stdout may be closed) for an anonymous file.
int capture_file() {
  int fd = -1;
#if defined(__linux__)
  fd = memfd_create("gpp-kokkos-stderr", MFD_CLOEXEC);
#endif
  if (fd < 0) {
    std::FILE* f = std::tmpfile();
    if (!f) return -1;
    fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
    std::fclose(f);
    return fd;
  }
  if (fd < 3) {
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    fd = moved;
  }
  return fd;
}

std::vector<std::string> captured_lines(int fd) {
  std::string text;
  char buf[4096];
  off_t at = 0;
  ssize_t n;
  while (text.size() < (std::size_t(1) << 20) && (n = pread(fd, buf, sizeof buf, at)) > 0) {
    text.append(buf, std::size_t(n));
    at += n;
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos)
      lines.push_back(line);  // made printable where it is shown (session)
    start = end + 1;
  }
  return lines;
}

// Ends the capture: stderr is the real one again; with show, what was captured is
// written there first.
void end_capture(bool show) {
  std::fflush(stderr);
  std::cerr.flush();
  sigaction(SIGABRT, &g_previous_abort, nullptr);
  if (show) release_capture();
  if (g_real_stderr >= 0) {
    dup2(g_real_stderr, STDERR_FILENO);
    close(g_real_stderr);
    g_real_stderr = -1;
  }
}

}  // namespace

std::vector<std::string> run_capturing_stderr(const std::function<void()>& body) {
  std::fflush(stderr);
  std::cerr.flush();
  const int capture = capture_file();
  const int real = capture >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
  if (real < 0 || dup2(capture, STDERR_FILENO) < 0) {  // nowhere to capture: Kokkos writes to stderr
    if (real >= 0) close(real);
    if (capture >= 0) close(capture);
    body();
    return {};
  }
  g_real_stderr = real;
  g_capture = capture;
  static const bool released_at_exit = std::atexit(release_capture) == 0;
  (void)released_at_exit;
  struct sigaction handler {};
  handler.sa_handler = on_abort;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGABRT, &handler, &g_previous_abort);
  try {
    body();
  } catch (...) {
    end_capture(true);
    close(capture);
    throw;
  }
  end_capture(false);
  std::vector<std::string> lines = captured_lines(capture);
  close(capture);
  return lines;
}

std::vector<std::string>& kokkos_warnings() {
  static std::vector<std::string> lines;
  return lines;
}

}  // namespace gpp::runtime
