#include "gpp_progress.hpp"

#include "gpp_mpi.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace gpp::session {
namespace {

// A live line longer than the terminal wraps, and a carriage return no longer clears it.
constexpr std::size_t kLiveWidth = 79;

std::string count(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n < 1e5 ? "%.0f" : "%.3g", n);
  return buf;
}

}  // namespace

std::string Progress::duration(double seconds) {
  char buf[48];
  if (!(seconds >= 0)) seconds = 0;
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, seconds < 9.95 ? "%.1f s" : "%.0f s", seconds);
  } else if (seconds < 3600) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ld min %ld s", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  }
  return buf;
}

Progress::Progress()
    : Progress([] {
        Options o;
        o.live = ::isatty(STDERR_FILENO) != 0;
        o.enabled = mpi::rank() == 0;
        return o;
      }()) {}

Progress::Progress(Options o) : o_(std::move(o)), out_(o_.out ? o_.out : &std::cerr) {
  if (o_.enabled && o_.heartbeat) heartbeat_ = std::thread([this] { run_heartbeat(); });
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    // A command that ends here by an error prints it on a clean line; a batch log gets no
    // "done" for a phase that did not finish.
    if (open_ && drawn_) *out_ << "\r\033[K" << std::flush;
  }
  cv_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

double Progress::now() const {
  if (o_.clock) return o_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Progress::start(const std::string& phase, double total, double estimated_s, const std::string& unit) {
  std::lock_guard<std::mutex> lock(m_);
  const double t = now();
  end_phase(t);
  open_ = true;
  phase_ = phase;
  unit_ = unit;
  total_ = total;
  done_ = 0;
  estimated_ = estimated_s;
  t0_ = t;
  last_line_ = t;
  last_draw_ = -1;
  spoke_ = drawn_ = false;
  if (!o_.enabled || !(estimated_s >= o_.announce_s)) return;
  if (o_.live) {
    draw(t);
  } else {
    emit("gpp: " + phase_ + ": " + (total_ > 0 ? count(total_) + " " + unit_ + ", " : std::string()) + "about " +
         duration(estimated_s));
  }
}

void Progress::advance(double units) {
  std::lock_guard<std::mutex> lock(m_);
  if (!open_) return;
  done_ += units;
  draw(now());
}

void Progress::tick() {
  std::lock_guard<std::mutex> lock(m_);
  if (open_) draw(now());
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(m_);
  end_phase(now());
}

double Progress::rate() const {
  std::lock_guard<std::mutex> lock(m_);
  const double elapsed = now() - t0_;
  return open_ && done_ > 0 && elapsed > 0 ? done_ / elapsed : 0;
}

void Progress::plan(const std::string& what, double estimated_s, const std::string& how_to_shorten) {
  std::lock_guard<std::mutex> lock(m_);
  if (!o_.enabled || !(estimated_s >= o_.announce_s)) return;
  emit("gpp " + what + ": about " + duration(estimated_s) + " in all (estimated)");
  if (estimated_s >= o_.long_s && !how_to_shorten.empty())
    emit("gpp: that is more than " + duration(o_.long_s) + "; to shorten it: " + how_to_shorten);
}

std::string Progress::status_line(double t) const {
  const double elapsed = t - t0_;
  std::string line = "gpp: " + phase_ + ": ";
  if (total_ > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", std::min(100.0, 100.0 * done_ / total_));
    line += std::string(pct) + " (" + count(done_) + " of " + count(total_) + " " + unit_ + "), ";
  }
  line += duration(elapsed);
  if (done_ > 0 && total_ > done_) {
    line += ", about " + duration((total_ - done_) * elapsed / done_) + " left";
  } else if (done_ <= 0 && estimated_ > 0) {
    line += estimated_ > elapsed ? ", about " + duration(estimated_ - elapsed) + " left"
                                 : ", longer than the estimate of " + duration(estimated_);
  }
  return line;
}

void Progress::draw(double t) {
  if (!o_.enabled) return;
  const double elapsed = t - t0_;
  if (o_.live) {
    const bool shown = drawn_ || estimated_ >= o_.announce_s || elapsed >= o_.live_after_s;
    if (!shown || (last_draw_ >= 0 && t - last_draw_ < o_.live_every_s)) return;
    std::string line = status_line(t);
    if (line.size() > kLiveWidth) line.resize(kLiveWidth);
    *out_ << "\r" << line << "\033[K" << std::flush;
    drawn_ = true;
    last_draw_ = t;
  } else if (t - last_line_ >= o_.batch_every_s) {
    emit(status_line(t));
  }
}

void Progress::end_phase(double t) {
  if (!open_) return;
  open_ = false;
  if (!o_.enabled) return;
  if (o_.live) {
    if (drawn_) *out_ << "\r\033[K" << std::flush;
    drawn_ = false;
  } else if (spoke_) {
    emit("gpp: " + phase_ + ": done" + (total_ > 0 ? ", " + count(total_) + " " + unit_ : std::string()) + " in " +
         duration(t - t0_));
  }
}

void Progress::emit(const std::string& line) {
  if (o_.live && drawn_) {
    *out_ << "\r\033[K";
    drawn_ = false;
    last_draw_ = -1;
  }
  *out_ << line << "\n" << std::flush;
  spoke_ = true;
  last_line_ = now();
}

void Progress::run_heartbeat() {
  std::unique_lock<std::mutex> lock(m_);
  const auto period = std::chrono::duration<double>(std::min(o_.live ? o_.live_every_s : o_.batch_every_s, 1.0));
  while (!stop_) {
    cv_.wait_for(lock, period);
    if (!stop_ && open_) draw(now());
  }
}

}  // namespace gpp::session
