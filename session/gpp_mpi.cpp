#include "gpp_mpi.hpp"

#if defined(GPP_HAVE_MPI)
#include <mpi.h>
#endif

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace gpp::session::mpi {

#if defined(GPP_HAVE_MPI)
namespace {
MPI_Comm& node_comm() {
  static MPI_Comm c = MPI_COMM_NULL;
  return c;
}
bool& initialised_here() {
  static bool b = false;
  return b;
}
int int_count(std::size_t n) {
  if (n > std::size_t(INT_MAX)) throw Error("MPI message of " + std::to_string(n) + " elements is too long");
  return int(n);
}

// Open MPI 4 starts a singleton (gpp run without a launcher, and every one-rank command) by
// forking a daemon, orted, which gpp never needs: it serves MPI_Comm_spawn. The daemon
// inherits the file-size limit (ulimit -f) and sizes shared-memory files with ftruncate (its
// PMIx store, the hwloc topology); under a small limit that fails with SIGXFSZ and a dozen
// PMIx lines, MPI_Init aborting, where the serial build writes its one line. Without the
// daemon (ess_singleton_isolated) a singleton starts under any limit, and sooner: no
// process to fork and connect to. A value the user set wins; other MPIs ignore the name; a
// launched rank (mpiexec, srun) has its launcher's daemons already.
//
// Open MPI 4 also keeps a session directory per job under one directory per host and user,
// $TMPDIR/ompi.HOST.UID, which the last job to finish removes when it is empty. A job that
// starts as another finishes can find that directory gone between creating it and creating
// its own inside it: MPI_Init aborts with "A call to mkdir was unable to create the desired
// directory" (about one start in 200 with eight singletons starting at once: two sweeps, a
// batch of runs packed on a node, ctest -j). A singleton gets a directory of its own,
// made here and removed after MPI_Finalize, so that no other job shares its parent. A
// base the user set (OMPI_MCA_orte_tmpdir_base) wins.
//
// A gpp ended by a signal (Ctrl-C on `gpp run`, SIGKILL) cannot remove its directory. Each
// holds a lock (flock) on a file in it for as long as it lives, which the kernel releases
// however the process ends: a singleton starting removes the directories of this user whose
// lock it can take, so that killed runs do not pile up in TMPDIR. The lock file takes its
// name only once locked; a directory without it (its gpp is starting) is left alone.
constexpr const char* kSessionPrefix = "gpp-mpi.";
constexpr const char* kSessionLock = "held-by-a-running-gpp";

std::string& private_session_base() {
  static std::string dir;
  return dir;
}

void remove_abandoned_session_bases(const std::string& tmp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    struct stat st {};
    if (name.rfind(kSessionPrefix, 0) != 0 || name.size() != std::string(kSessionPrefix).size() + 6 ||
        ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    const int fd = ::open((it->path() / kSessionLock).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
    ::close(fd);
  }
}

void singleton_without_a_daemon() {
  for (const char* launched : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(launched)) return;
  ::setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  if (std::getenv("OMPI_MCA_orte_tmpdir_base")) return;
  const char* env_tmp = std::getenv("TMPDIR");
  const std::string tmp = env_tmp && *env_tmp ? env_tmp : "/tmp";
  remove_abandoned_session_bases(tmp);
  std::string dir = tmp + "/" + kSessionPrefix + "XXXXXX";
  if (!::mkdtemp(dir.data())) return;  // Open MPI's own place, and its own message if that fails
  // Held until the process ends: never closed, and not passed on to the children gpp runs.
  // Locked before it takes the name another start looks for.
  const std::string unnamed = dir + "/" + kSessionLock + ".new";
  const int lock = ::open(unnamed.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0 ||
      ::rename(unnamed.c_str(), (dir + "/" + kSessionLock).c_str()) != 0) {
    if (lock >= 0) ::close(lock);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    return;
  }
  private_session_base() = dir;
  ::setenv("OMPI_MCA_orte_tmpdir_base", dir.c_str(), 1);
}

void remove_private_session_base() {
  if (private_session_base().empty()) return;
  std::error_code ignored;  // what cannot be removed stays, as Open MPI's own would
  std::filesystem::remove_all(private_session_base(), ignored);
  private_session_base().clear();
}
}  // namespace

bool enabled() { return true; }

namespace {
// The communicator of the collectives: MPI_COMM_WORLD for the command, a caller's for the
// library (CommunicatorScope).
MPI_Comm& current_comm() {
  static MPI_Comm c = MPI_COMM_WORLD;
  return c;
}
MPI_Comm comm() { return current_comm(); }
}  // namespace

CommunicatorScope::CommunicatorScope(long long fortran_handle) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  const bool mpi_runs = init && !fin;
  if (fortran_handle != kNoCommunicator) {
    if (!mpi_runs) throw Error("an MPI communicator was given, but MPI is not running (MPI_Init first)");
    if (fortran_handle < INT_MIN || fortran_handle > INT_MAX || MPI_Comm_f2c(MPI_Fint(fortran_handle)) == MPI_COMM_NULL)
      throw Error("the MPI communicator given (Fortran handle " + std::to_string(fortran_handle) +
                  ") is not a communicator of this process");
  }
  saved_ = mpi_runs ? (long long)MPI_Comm_c2f(current_comm()) : kNoCommunicator;
  if (mpi_runs)
    current_comm() = fortran_handle == kNoCommunicator ? MPI_COMM_SELF : MPI_Comm_f2c(MPI_Fint(fortran_handle));
}

CommunicatorScope::~CommunicatorScope() {
  if (saved_ != kNoCommunicator) current_comm() = MPI_Comm_f2c(MPI_Fint(saved_));
}

Environment::Environment(int& argc, char**& argv) {
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    singleton_without_a_daemon();
    MPI_Init(&argc, &argv);
    initialised_here() = true;
  }
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm());
}

Environment::~Environment() {
  if (node_comm() != MPI_COMM_NULL) MPI_Comm_free(&node_comm());
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialised_here() && !finalized) MPI_Finalize();
  remove_private_session_base();
}

namespace {
bool running() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}
}  // namespace

int rank() {
  if (!running()) return 0;
  int r = 0;
  MPI_Comm_rank(comm(), &r);
  return r;
}
int size() {
  if (!running()) return 1;
  int n = 1;
  MPI_Comm_size(comm(), &n);
  return n;
}
int local_rank() {
  if (!running() || node_comm() == MPI_COMM_NULL) return 0;
  int r = 0;
  MPI_Comm_rank(node_comm(), &r);
  return r;
}
int local_size() {
  if (!running() || node_comm() == MPI_COMM_NULL) return 1;
  int n = 1;
  MPI_Comm_size(node_comm(), &n);
  return n;
}
void barrier() {
  if (size() > 1) MPI_Barrier(comm());
}
void sum(double* values, int n) {
  if (size() > 1) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, comm());
}
void sum(long long* values, int n) {
  if (size() > 1) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_LONG_LONG, MPI_SUM, comm());
}
void sum(std::vector<std::complex<double>>& values) {
  // std::complex<double> is two doubles (re, im) by the standard's array-compatibility rule.
  sum(reinterpret_cast<double*>(values.data()), int_count(2 * values.size()));
}
void max(std::vector<double>& values) {
  if (size() > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), int_count(values.size()), MPI_DOUBLE, MPI_MAX, comm());
}
void min(std::vector<double>& values) {
  if (size() > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), int_count(values.size()), MPI_DOUBLE, MPI_MIN, comm());
}
std::vector<double> gather(double v) {
  std::vector<double> all(size(), v);
  if (size() > 1) MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm());
  return all;
}
std::vector<std::string> gather(const std::string& s) {
  const int n = size();
  if (n == 1) return {s};
  const int len = int_count(s.size());
  std::vector<int> lens(n), offsets(n, 0);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm());
  long long total = 0;
  for (int r = 0; r < n; ++r) {
    offsets[r] = int(total);
    total += lens[r];
  }
  std::string all(std::size_t(int_count(std::size_t(total))), '\0');
  MPI_Allgatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, comm());
  std::vector<std::string> out(n);
  for (int r = 0; r < n; ++r) out[r] = all.substr(offsets[r], lens[r]);
  return out;
}

void agree(const std::string& error) {
  const int n = size();
  if (n == 1) {
    if (!error.empty()) throw CollectiveError(error);
    return;
  }
  int mine = error.empty() ? n : rank(), first = n;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm());
  if (first == n) return;
  int len = rank() == first ? int(std::min<std::size_t>(error.size(), 4096)) : 0;
  MPI_Bcast(&len, 1, MPI_INT, first, comm());
  std::string message(std::size_t(len), '\0');
  if (rank() == first) message = error.substr(0, std::size_t(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, first, comm());
  throw CollectiveError(first == 0 ? message : "rank " + std::to_string(first) + ": " + message);
}

int abort_all(int code) {
  if (size() > 1) MPI_Abort(comm(), code);
  return code;
}

std::string compare_with_rank0(const std::string& what, const std::string& mine) {
  if (size() == 1) return "";
  // Rank 0's length, then its bytes (lengths first: a rank never waits for more bytes
  // than are sent). Long values are compared whole but quoted short.
  long long len = rank() == 0 ? (long long)mine.size() : 0;
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm());
  std::string root(std::size_t(len), '\0');
  if (rank() == 0) root = mine;
  for (long long off = 0; off < len; off += INT_MAX / 2) {
    const int n = int(std::min<long long>(len - off, INT_MAX / 2));
    MPI_Bcast(root.data() + off, n, MPI_CHAR, 0, comm());
  }
  if (root == mine) return "";
  auto quote = [](const std::string& s) { return "'" + (s.size() > 80 ? s.substr(0, 80) + "..." : s) + "'"; };
  return "runs another " + what + " than rank 0 (" + quote(mine) + ", rank 0: " + quote(root) +
         "): every rank must run the same command on the same deck";
}

#else  // one rank

bool enabled() { return false; }
CommunicatorScope::CommunicatorScope(long long fortran_handle) {
  if (fortran_handle != kNoCommunicator)
    throw Error("an MPI communicator was given, but this gpp was built without MPI (GPP_ENABLE_MPI=OFF)");
}
CommunicatorScope::~CommunicatorScope() = default;
Environment::Environment(int&, char**&) {}
Environment::~Environment() = default;
int rank() { return 0; }
int size() { return 1; }
int local_rank() { return 0; }
int local_size() { return 1; }
void barrier() {}
void sum(double*, int) {}
void sum(long long*, int) {}
void sum(std::vector<std::complex<double>>&) {}
void max(std::vector<double>&) {}
void min(std::vector<double>&) {}
std::vector<double> gather(double v) { return {v}; }
std::vector<std::string> gather(const std::string& s) { return {s}; }
void agree(const std::string& error) {
  if (!error.empty()) throw CollectiveError(error);
}
int abort_all(int code) { return code; }
std::string compare_with_rank0(const std::string&, const std::string&) { return ""; }

#endif

double max(double v) {
  std::vector<double> one{v};
  max(one);
  return one[0];
}

std::vector<std::string>& placement() {
  static std::vector<std::string> p;
  return p;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown host";
  return buf;
}

}  // namespace gpp::session::mpi
