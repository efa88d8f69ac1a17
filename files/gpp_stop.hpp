#pragma once
// What SIGINT (Ctrl-C) and SIGTERM (a batch job's walltime) do, in every command and every
// phase: gpp stops within a second, prints one line saying what it was doing and what is
// kept, and exits 128 + the signal (130, 143).
//
// The handler only notes the signal; a thread of gpp's own acts on it at once, whatever the
// command is doing (a kernel launch, a read, a reference pass: none of them needs to look
// at a flag). Before it ends the process it waits for the few short sections that must
// not be cut (StopDeferred: a row appended to a shared CSV under its lock, a file renamed
// into place), removes the temporary files of outputs not yet in place (an output is
// whole under its final name or not there), stops the external programs gpp started
// (Nsight Compute, the chart script) and flushes what was printed. What a campaign keeps
// is on disk already: each finished point's row was appended and flushed.
//
// A second signal ends the process at once, as the signal would without gpp's handler.
#include <functional>
#include <string>

#include <sys/types.h>

namespace gpp::files {

/// Installs the handlers of SIGINT and SIGTERM and starts the thread that acts on them
/// (once; later calls only change what is said). `command` names the command in the line
/// ("run"); `speaks`: this process prints the line (rank 0 of an MPI job; the others stop
/// silently).
void catch_stop_signals(const std::string& command, bool speaks = true);

/// The command has given its answer (its results, or its error line) and ends with `code`:
/// a stop from now on says nothing and ends the process with `code`. A signal during the
/// teardown that follows (Kokkos and MPI ending; under mpirun, the SIGTERM it sends the
/// other ranks when one rank exits non-zero) changes neither the answer nor the exit status.
void answer_given(int code);

/// The signal that asked to stop (SIGINT, SIGTERM), or 0.
int stop_signal();

/// "SIGINT", "SIGTERM".
std::string signal_name(int sig);

/// What the command is doing, from construction to destruction, as the stop line says it
/// ("the verification reference pass"). Phases nest: a campaign's point, then the timed
/// run of that point ("point 3 of 8 (host band_block=16), timed run 2 of 5").
class StopPhase {
 public:
  explicit StopPhase(std::string what);
  ~StopPhase();
  StopPhase(const StopPhase&) = delete;
  StopPhase& operator=(const StopPhase&) = delete;
  /// Says the phase differently from now on (a timed run's number).
  void rename(std::string what);

 private:
  unsigned long id_;
};

/// What a stop keeps, as the stop line says it ("every finished point (3 of 8) is in
/// s.csv; resume with: ..."); "" goes back to what the written outputs say.
void set_stop_kept(std::string text);

/// A section a stop waits for (a few milliseconds: a row appended under a lock, a rename):
/// the process ends after it, never in it. Nested sections on one thread are one. Where
/// the stop has begun already the section never starts: `undo` runs (what the thread began
/// without the section, such as taking a lock) and the thread waits for the end.
class StopDeferred {
 public:
  explicit StopDeferred(const std::function<void()>& undo = {});
  ~StopDeferred();
  StopDeferred(const StopDeferred&) = delete;
  StopDeferred& operator=(const StopDeferred&) = delete;
};

/// A temporary file removed by a stop (an output written under its temporary name), until
/// forgotten. rename_unless_stopped moves it to `target` with no stop in between: true when
/// renamed (then it is named among what the stop kept), false with `error` (errno) when not.
void remove_on_stop(const std::string& temp);
void forget_on_stop(const std::string& temp);
bool rename_unless_stopped(const std::string& temp, const std::string& target, int& error);

/// A child process (with `group`: its whole process group) that a stop ends first.
void end_on_stop(pid_t pid, bool group);
void forget_child(pid_t pid);

/// The line a stop by `sig` prints now (for the tests of its wording).
std::string stop_line(int sig);

}  // namespace gpp::files
