#include "gpp_campaign.hpp"
#include "gpp_commands.hpp"

#include "gpp_error.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cctype>
#include <cstdio>
#include <iostream>

namespace gpp::commands {
using files::check_files;
using files::check_lockable;
using files::InputFile;
using files::OutputRequest;
using record::PolicyRun;
using record::row_of;
using record::RunRecord;
using record::space_info;
using session::describe_reference_stored_now;
using session::describe_stored_reference;
using session::Session;
using session::VerifyMode;

std::string duration_text(double s) {
  char buf[48];
  if (!(s >= 0)) s = 0;
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

std::string shell_words(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    bool plain = !a.empty();
    for (const char c : a)
      plain = plain && (std::isalnum((unsigned char)c) || std::string("-_./:=,+@%").find(c) != std::string::npos);
    std::string w = "'";
    for (const char c : a) w += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? a : w + "'");
  }
  return out;
}

Campaign::Campaign(std::string command, std::vector<std::string> args, std::size_t planned)
    : command_(std::move(command)), args_(std::move(args)), planned_(planned), tty_(::isatty(STDERR_FILENO) != 0),
      t0_(std::chrono::steady_clock::now()), point_t0_(t0_), last_status_(t0_) {
  say_what_a_stop_keeps(false);
}

Campaign::~Campaign() {
  clear_line();
  files::set_stop_kept("");
}

void Campaign::rows_to(formats::SharedRows* rows) {
  rows_ = rows;
  takes_csv_ = true;
  say_what_a_stop_keeps(false);
}

void Campaign::written_at_end(std::string files) {
  at_end_ = std::move(files);
  say_what_a_stop_keeps(false);
}

double Campaign::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void Campaign::clear_line() {
  if (tty_) std::cerr << "\r\033[K" << std::flush;
}

void Campaign::status(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const std::size_t done = measured_ + skipped_;
  std::string line = "gpp " + command_ + ": " + std::to_string(done) + " of " + std::to_string(planned_) +
                     " points done, " + duration_text(elapsed());
  if (measured_ > 0 && planned_ > done)
    line += ", about " + duration_text(measured_s_ / double(measured_) * double(planned_ - done)) + " left";
  if (tty_) {
    if (!current_.empty()) line += "; now: " + current_;
    if (line.size() > 160) line = line.substr(0, 157) + "...";
    std::cerr << "\r\033[K" << line << std::flush;
  } else if (force || std::chrono::duration<double>(now - last_status_).count() >= kStatusEvery) {
    std::cerr << line << "\n" << std::flush;
    last_status_ = now;
  }
}

void Campaign::say_what_a_stop_keeps(const bool in_flight) {
  const std::size_t done = measured_ + skipped_;
  std::string kept = in_flight ? "the point in flight is dropped; " : "";
  kept += "finished points: " + std::to_string(done) + " of " + std::to_string(planned_) + " (" +
          std::to_string(measured_) + " measured now, " + std::to_string(skipped_) + " already done), ";
  if (rows_)
    kept += "each in " + rows_->path();
  else if (takes_csv_)
    kept += "only in the lines above (no --csv)";
  else
    kept += "in the lines above";
  if (!at_end_.empty()) kept += "; not written (written only when the campaign ends): " + at_end_;
  if (const std::string resume = resume_command(); !resume.empty()) kept += "; resume with: " + resume;
  files::set_stop_kept(kept);
}

void Campaign::next(const std::string& what) {
  ++started_;
  current_ = what;
  point_t0_ = std::chrono::steady_clock::now();
  point_.reset();
  point_.emplace("point " + std::to_string(measured_ + skipped_ + 1) + " of " + std::to_string(planned_) + " (" + what +
                 ")");
  say_what_a_stop_keeps(true);
  status(false);
}

void Campaign::skip() {
  ++skipped_;
  current_.clear();
  say_what_a_stop_keeps(false);
}

void Campaign::done(const std::string& row, const std::string& line) {
  // The row on disk and its line printed, or neither: a stop waits for both.
  const files::StopDeferred section;
  ++measured_;
  measured_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - point_t0_).count();
  current_.clear();
  point_.reset();
  if (rows_ && !row.empty()) rows_->append(row);
  clear_line();
  std::cout << "[" << measured_ + skipped_ << "/" << planned_ << "] " << line << "\n" << std::flush;
  say_what_a_stop_keeps(false);
  if (!std::cout) throw StdoutLost{};  // main says so
  status(false);
}

std::string Campaign::resume_command() const {
  if (!rows_) return "";
  std::vector<std::string> words{"gpp", command_};
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const std::string& a = args_[i];
    const std::string name = a.substr(0, a.find('='));
    if (name == "--resume" || name == "--csv") {
      if (a.find('=') == std::string::npos) ++i;  // and its value
      continue;
    }
    words.push_back(a);
  }
  words.push_back("--resume");
  words.push_back(rows_->path());
  return shell_words(words);
}

void start_verification(Session& s, const RunOptions& o, session::Progress* progress, const bool arms) {
  std::cout << describe_deck(s) << std::flush;
  const VerifyMode mode = parse_verify_mode(o.verify);
  if (mode != VerifyMode::None) std::cout << "preparing the verification target ...\n" << std::flush;
  prepare_reference(s, mode, o.rtol, arms, progress);
  if (s.target.performed())
    std::cout << "verifying every run against the " << s.target.against << " (" << describe_stored_reference(s)
              << "tolerance " << s.target.tolerance << ", took " << duration_text(s.reference_s)
              << describe_reference_stored_now(s) << ")\n"
              << std::flush;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return !path.empty() && (::stat(path.c_str(), &st) == 0 || errno != ENOENT);
}

void check_shared_outputs(const std::vector<InputFile>& inputs, const std::vector<OutputRequest>& outputs) {
  check_files(inputs, outputs);
  for (const auto& o : outputs)
    if (!o.path.empty()) check_lockable(o.option, o.path);
}

namespace {
/// The row a run of this record would write on `k`: its origin (device, build, deck).
measure::sweep::Row origin_row(const RunRecord& rec, SpaceKind k) {
  PolicyRun run;
  run.space = space_info(k);
  return row_of(rec, run);
}
}  // namespace

PointRows::PointRows(std::string resume, std::string csv)
    : resume_(std::move(resume)), resume_exists_(file_exists(resume_)),
      csv_("--csv", std::move(csv), measure::sweep::csv_header()) {
  if (resume_exists_) old_ = measure::sweep::read_sweep_csv(resume_);
}

void PointRows::start(const RunRecord& rec) {
  rec_ = &rec;
  for (std::size_t i = 0; i < old_.rows.size(); ++i) {
    const measure::sweep::Row& row = old_.rows[i];
    const std::string at = "--resume " + resume_ + ": row " + std::to_string(i + 1) + " ";
    SpaceKind k;
    try {
      k = parse_space(row.space);
    } catch (const Error& e) {
      throw Error(at + "space '" + row.space + "': " + e.what());
    }
    if (const std::string d = measure::sweep::origin_difference(row, origin_row(rec, k)); !d.empty())
      throw Error(at + "is of another " + d +
                  ": rows of another device, backend, build or deck cannot mark points done (sweep into a new CSV)");
  }
  rows_ = old_.rows;
  known_.insert(old_.lines.begin(), old_.lines.end());
  if (file()) csv_.start(old_.lines, csv_.path() != resume_);
}

bool PointRows::done(const measure::sweep::Row& row) {
  if (file() && rec_) {
    // What processes sharing the file appended since we last looked. A row that does not
    // parse, or is of another origin, marks nothing done.
    std::string text;
    for (const std::string& line : csv_.rows())
      if (known_.insert(line).second) text += line + "\n";
    if (!text.empty()) {
      try {
        for (const measure::sweep::Row& r :
             measure::sweep::parse_sweep_csv(measure::sweep::csv_header() + "\n" + text, csv_.path()).rows)
          if (measure::sweep::origin_difference(r, origin_row(*rec_, parse_space(r.space))).empty()) rows_.push_back(r);
      } catch (const Error&) {
      }
    }
  }
  for (const auto& d : rows_)
    if (measure::sweep::same_point(d, row)) return true;
  return false;
}

void PointRows::add(const measure::sweep::Row& row, const std::string& line) {
  rows_.push_back(row);
  known_.insert(line);
}

std::string PointRows::resumed_text() const {
  if (resume_.empty()) return "";
  return resume_exists_ ? "; " + std::to_string(old_.rows.size()) + " rows already in " + resume_
                        : "; " + resume_ + " does not exist yet: a new campaign";
}

}  // namespace gpp::commands
