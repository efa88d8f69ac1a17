#pragma once
// The one loop of every long command (sweep, tune, bench, roofline, ceilings): points,
// each run, verified and kept at once. A finished point's CSV row is appended and flushed
// to disk (a SIGKILL loses at most the point in flight), then its result line is printed
// and flushed. SIGINT and SIGTERM (a batch job's walltime) stop the campaign within a
// second, in any phase (files/gpp_stop.hpp): the point in flight is dropped, what is done
// stays, one line says what was stopped, what is kept and how to resume, and the command
// exits 128 + the signal (130, 143). Files that summarise the campaign (tuning file, JSON
// record, charts) are written whole at the end, and not by a stopped campaign. Progress:
// on a terminal a live line on stderr; otherwise (a batch log) a line on stderr at most
// every kStatusEvery seconds with the points done and the time left.
#include "gpp_command.hpp"
#include "gpp_outputs.hpp"
#include "gpp_record.hpp"
#include "gpp_csv.hpp"
#include "gpp_shared_file.hpp"
#include "gpp_stop.hpp"
#include "gpp_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpp::commands {

class Campaign {
 public:
  static constexpr double kStatusEvery = 30;

  /// `command` ("sweep"), its arguments as given (for the resume line), the points planned.
  Campaign(std::string command, std::vector<std::string> args, std::size_t planned);
  ~Campaign();
  Campaign(const Campaign&) = delete;
  Campaign& operator=(const Campaign&) = delete;

  /// The CSV the rows go to (null: none); the campaign appends to it, point by point.
  void rows_to(formats::SharedRows* rows);
  /// The files written only when the campaign ends ("--json r.json, --tuning-out t.json"):
  /// a stop says they were not written.
  void written_at_end(std::string files);
  /// More points than planned (a search that finds its points as it goes).
  void plan(std::size_t more) { planned_ += more; }
  /// Fewer: planned points that will not run (a search that ran out of time).
  void unplan(std::size_t fewer) { planned_ -= std::min(fewer, planned_ - measured_ - skipped_); }

  /// Before each point: `what` names it in the live line and in what a stop says.
  void next(const std::string& what);
  /// A planned point that needs no run (its row is already in the CSV).
  void skip();
  /// A finished point: `row` (no newline; "" for none) appended to the CSV and on disk,
  /// then `line` printed on stdout and flushed, with no stop in between. Throws
  /// gpp::Error when either fails.
  void done(const std::string& row, const std::string& line);

  std::size_t measured() const { return measured_; }
  std::size_t skipped() const { return skipped_; }
  double elapsed() const;

  /// The command line that continues this campaign (--resume on its CSV), or "" without one.
  std::string resume_command() const;

 private:
  void clear_line();
  void status(bool force);
  void say_what_a_stop_keeps(bool in_flight);

  std::string command_;
  std::vector<std::string> args_;
  std::size_t planned_, measured_ = 0, skipped_ = 0, started_ = 0;
  double measured_s_ = 0;
  formats::SharedRows* rows_ = nullptr;
  bool takes_csv_ = false;  // the command has --csv (rows_to was called)
  bool tty_;
  std::string current_, at_end_;
  std::optional<files::StopPhase> point_;  // the point in flight, as a stop names it
  std::chrono::steady_clock::time_point t0_, point_t0_, last_status_;
};

/// The sweep CSV of a campaign that measures policy runs (sweep, tune, bench): the rows
/// of a resumed file, the rows the campaign appends, and the points already done there,
/// by this process or by another one sharing the file.
class PointRows {
 public:
  /// Before any work: reads `resume` (a file not there yet is a new campaign); the rows
  /// go to `csv` ("" for none).
  PointRows(std::string resume, std::string csv);
  /// Once the record exists: refuses resumed rows of another device, backend, build or
  /// deck (they would mark points done that this run never measured), then starts the
  /// CSV (replaced, with the resumed rows, unless it is the resumed file itself).
  void start(const record::RunRecord& rec);
  /// Whether the point of `row` is done: in the resumed file, measured by this campaign,
  /// or appended meanwhile by another process (rows of this device, build and deck).
  bool done(const measure::sweep::Row& row);
  /// A row this campaign measured (`line`: as Campaign::done appended it).
  void add(const measure::sweep::Row& row, const std::string& line);
  const std::vector<measure::sweep::Row>& rows() const { return rows_; }
  formats::SharedRows* file() { return csv_.path().empty() ? nullptr : &csv_; }
  /// "; 12 rows already in s.csv" or "; s.csv does not exist yet: a new campaign" ("" without --resume).
  std::string resumed_text() const;

 private:
  std::string resume_;
  bool resume_exists_ = false;
  measure::sweep::CsvFile old_;
  formats::SharedRows csv_;
  const record::RunRecord* rec_ = nullptr;
  std::vector<measure::sweep::Row> rows_;
  std::set<std::string> known_;
};

/// The files a campaign writes as it goes and at its end: checked (check_files), and
/// their locks tried, before any work.
void check_shared_outputs(const std::vector<files::InputFile>& inputs,
                          const std::vector<files::OutputRequest>& outputs);

bool file_exists(const std::string& path);

/// The start of a campaign's text: the deck, then the verification target made
/// (prepare_reference) with a line before it on a long deck and what it took after it.
/// `progress` (may be null) reports the reference pass where it is long; `arms`: the pass
/// also counts the arms of every term (a WorkCounter then needs no pass of its own).
void start_verification(session::Session& s, const RunOptions& o, session::Progress* progress = nullptr,
                        bool arms = false);

/// "12.3 s", "4 min 05 s", "2 h 10 min".
std::string duration_text(double seconds);

/// `args` quoted for a POSIX shell where they need it.
std::string shell_words(const std::vector<std::string>& args);

}  // namespace gpp::commands
