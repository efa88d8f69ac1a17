#pragma once
// CSV, the one reader and writer of every CSV gpp writes and reads back (sweep rows,
// roofline rows, a resumed campaign's file): RFC 4180 quoting (a field with a comma, a
// quote or a line break is quoted, quotes doubled), records split with their quoting in
// mind, and the file a campaign appends its rows to while other processes share it.
#include <string>
#include <vector>

namespace gpp::formats {

/// `v` as a CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& v);

/// The fields of every record of a CSV text (a quoted field may hold commas and newlines;
/// "" inside quotes is one quote). Throws gpp::Error for an unterminated quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

/// The data records of a CSV text after its first line, each as written (a quoted field
/// may hold commas and newlines), without the newline; an incomplete last record (no
/// newline at its end: a writer killed mid-row) is left out.
std::vector<std::string> csv_data_records(const std::string& text);

/// A CSV that rows are appended to as they are measured, shared with other processes.
/// Every append takes the lock, re-reads the file, puts back any of this writer's rows
/// that are missing (a process that replaced the file), appends the new row and flushes
/// it to disk (fdatasync) before the lock is released: a SIGKILL loses at most the row
/// in flight, and a full disk leaves the file as it was (the partial tail is cut off) and
/// ends in one line.
class SharedRows {
 public:
  /// `header` is the first line (no newline) the file must start with.
  SharedRows(std::string option, std::string path, std::string header);

  /// Starts the file: with `replace`, writes the header and `rows` whole (replacing any
  /// file there); else appends the rows of `rows` the file lacks (creating it with the
  /// header when it does not exist). Throws gpp::Error when an existing file does not
  /// start with the header.
  void start(const std::vector<std::string>& rows, bool replace);

  /// Appends one row (no newline), as described above.
  void append(const std::string& row);

  /// The data rows of the file now (header excluded, each as written), read under the
  /// lock: what other processes sharing the file have appended. An incomplete last line
  /// (a writer killed mid-write) is left out.
  std::vector<std::string> rows() const;

  const std::string& path() const { return path_; }

 private:
  std::string option_, path_, header_;
  std::vector<std::string> mine_;  // every row this writer put in the file
};

}  // namespace gpp::formats
