#pragma once
// What a long command says while it works, on stderr (stdout keeps the results): before a
// phase estimated to take long, its estimate; then its progress. On a terminal a live line,
// redrawn in place and cleared when the phase ends; in a batch log (stderr not a terminal)
// a line at most every 30 s with done/total, elapsed time and what is left, and a last line
// when a phase that spoke ends. A thread keeps the line going while one piece of work runs
// (a kernel launch that reports nothing until it ends). Only rank 0 of an MPI job speaks.
//
//   session::Progress progress;
//   progress.start("reference", updates, estimated_s);
//   for (...) { ...; progress.advance(updates_of_the_piece); }
//   progress.finish();
#include <condition_variable>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace gpp::session {

class Progress {
 public:
  struct Options {
    std::ostream* out = nullptr;    // nullptr: std::cerr
    bool live = false;              // redraw one line (a terminal) rather than print lines
    bool enabled = true;            // false: says nothing (ranks other than 0)
    bool heartbeat = true;          // a thread that speaks while no advance comes (tests: false, and tick())
    double announce_s = 10;         // a phase (or plan) estimated at least this long says so as it starts
    double batch_every_s = 30;      // a batch log gets a line this often, at most
    double live_every_s = 0.25;     // a live line is redrawn this often, at most
    double live_after_s = 1;        // a phase estimated shorter than announce_s shows its live line after this
    double long_s = 3600;           // a plan at least this long says how to shorten it
    std::function<double()> clock;  // seconds, monotonic (empty: std::chrono::steady_clock)
  };

  /// stderr; live where stderr is a terminal; enabled on rank 0 only; with a heartbeat.
  Progress();
  explicit Progress(Options o);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// A phase of `total` units (`unit`: "updates", "points", ...) estimated to take
  /// `estimated_s` seconds (<= 0: unknown). Ends a phase still open.
  void start(const std::string& phase, double total, double estimated_s, const std::string& unit = "updates");
  /// `units` more of the phase are done. From the first advance on, what is left is
  /// measured (done so far over the time it took), not estimated.
  void advance(double units);
  /// The phase is over.
  void finish();

  /// A whole command's estimate, before its phases ("gpp WHAT: about ..."): said where it is at least
  /// announce_s, with `how_to_shorten` where it is at least long_s.
  void plan(const std::string& what, double estimated_s, const std::string& how_to_shorten);

  /// Units per second measured in the open phase (0 before its first advance).
  double rate() const;

  /// What the heartbeat does (public for tests that drive their own clock).
  void tick();

  /// "45 s", "12 min 3 s", "2.3 h".
  static std::string duration(double seconds);

 private:
  double now() const;
  std::string status_line(double t) const;  // done/total, elapsed, left
  void draw(double t);                      // locked
  void end_phase(double t);                 // locked
  void emit(const std::string& line);       // locked: a whole line (batch) or the live line
  void run_heartbeat();

  Options o_;
  std::ostream* out_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::thread heartbeat_;
  bool stop_ = false;
  // the open phase
  bool open_ = false;
  std::string phase_, unit_;
  double total_ = 0, done_ = 0, estimated_ = 0;
  double t0_ = 0, last_line_ = 0, last_draw_ = -1;
  bool spoke_ = false, drawn_ = false;
};

}  // namespace gpp::session
