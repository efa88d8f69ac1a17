#include "gpp_csv.hpp"

#include "gpp_atomic_file.hpp"
#include "gpp_error.hpp"
#include "gpp_inputs.hpp"
#include "gpp_outputs.hpp"
#include "gpp_shared_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

namespace gpp::formats {
using files::FileLock;
using files::kMaxCsvBytes;
using files::read_input_file;
using files::throw_write_error;
using files::write_file_atomically;

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string o = "\"";
  for (char c : v) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      rec.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      rec.push_back(field);
      records.push_back(rec);
      rec.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) throw Error("unterminated quoted field");
  if (any) {
    rec.push_back(field);
    records.push_back(rec);
  }
  return records;
}

namespace {
bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 || errno != ENOENT;
}

// The file's text under its lock: "" when it does not exist.
std::string read_locked(const std::string& what, const std::string& path) {
  return exists(path) ? read_input_file(what, path, kMaxCsvBytes) : std::string();
}
}  // namespace

std::vector<std::string> csv_data_records(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = text.find('\n');
  if (i == std::string::npos) return out;
  ++i;
  std::string rec;
  bool quoted = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') quoted = !quoted;  // "" inside quotes toggles twice
    if (c == '\n' && !quoted) {
      if (!rec.empty() && rec.back() == '\r') rec.pop_back();
      if (!rec.empty()) out.push_back(rec);
      rec.clear();
    } else {
      rec += c;
    }
  }
  return out;  // `rec` left over: a record without its newline, cut off mid-write
}

SharedRows::SharedRows(std::string option, std::string path, std::string header)
    : option_(std::move(option)), path_(std::move(path)), header_(std::move(header)) {}

namespace {
std::string header_of(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string joined(const std::string& header, const std::vector<std::string>& rows) {
  std::string t = header + "\n";
  for (const auto& r : rows) t += r + "\n";
  return t;
}
}  // namespace

void SharedRows::start(const std::vector<std::string>& rows, bool replace) {
  FileLock lock(path_);
  const std::string text = replace ? std::string() : read_locked(option_, path_);
  mine_ = rows;
  if (text.empty()) {
    write_file_atomically(path_, joined(header_, rows));
    return;
  }
  std::string h = header_of(text);
  if (!h.empty() && h.back() == '\r') h.pop_back();
  if (h != header_) throw Error(option_ + " " + path_ + ": its first line is not the header of this CSV");
  const std::vector<std::string> have = csv_data_records(text);
  const std::set<std::string> present(have.begin(), have.end());
  std::vector<std::string> all = have;
  for (const auto& r : rows)
    if (!present.count(r)) all.push_back(r);
  if (all.size() != have.size() || text.back() != '\n') write_file_atomically(path_, joined(header_, all));
}

std::vector<std::string> SharedRows::rows() const {
  FileLock lock(path_);
  return csv_data_records(read_locked(option_, path_));
}

void SharedRows::append(const std::string& row) {
  FileLock lock(path_);
  const std::string text = read_locked(option_, path_);
  if (text.empty()) {  // removed while we ran: made again with every row of ours
    mine_.push_back(row);
    write_file_atomically(path_, joined(header_, mine_));
    return;
  }
  std::string h = header_of(text);
  if (!h.empty() && h.back() == '\r') h.pop_back();
  if (h != header_)
    throw Error(option_ + " " + path_ +
                ": another program replaced it (its first line is no longer this CSV's header)");
  const std::vector<std::string> have = csv_data_records(text);
  const std::set<std::string> present(have.begin(), have.end());
  std::string add;
  for (const auto& r : mine_)
    if (!present.count(r)) add += r + "\n";
  add += row + "\n";
  // A writer killed mid-row left a tail without its newline: it is cut off first.
  const std::size_t keep = text.back() == '\n' ? text.size() : text.rfind('\n') + 1;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw_write_error(path_, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(option_ + " " + path_ + ": no longer a regular file");
  }
  auto fail = [&](int e) {
    // Back to what it was: no partial row is left behind.
    const int rc = ::ftruncate(fd, off_t(keep));
    (void)rc;
    ::close(fd);
    throw_write_error(path_, e);
  };
  if (::ftruncate(fd, off_t(keep)) != 0 || ::lseek(fd, off_t(keep), SEEK_SET) < 0) fail(errno);
  std::size_t done = 0;
  while (done < add.size()) {
    const ssize_t n = ::write(fd, add.data() + done, add.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC);
    done += std::size_t(n);
  }
  if (::fdatasync(fd) != 0) fail(errno);
  if (::close(fd) != 0) throw_write_error(path_, errno);
  mine_.push_back(row);
}

}  // namespace gpp::formats
