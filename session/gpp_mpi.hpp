#pragma once
// MPI over G' (docs/mpi.md): the few collective operations gpp needs, in one place. A
// build without MPI (GPP_ENABLE_MPI=OFF, the default) compiles the same calls as a
// single rank: size() is 1 and every reduction returns its argument.
#include "gpp_error.hpp"

#include <complex>
#include <string>
#include <vector>

namespace gpp::session::mpi {

/// Built with MPI (GPP_ENABLE_MPI=ON).
bool enabled();

/// MPI_Init (before Kokkos) and MPI_Finalize (after it): the first object of main.
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
};

/// The communicator of every collective below while it lives, given as its Fortran handle
/// (MPI_Comm_c2f): the library's calls on a caller's communicator. kNoCommunicator: this
/// process alone (MPI_COMM_SELF). Outside any scope (the command) it is MPI_COMM_WORLD.
/// Throws gpp::Error for a handle given to a build without MPI, or while MPI is not running.
inline constexpr long long kNoCommunicator = -1;
class CommunicatorScope {
 public:
  explicit CommunicatorScope(long long fortran_handle);
  ~CommunicatorScope();
  CommunicatorScope(const CommunicatorScope&) = delete;
  CommunicatorScope& operator=(const CommunicatorScope&) = delete;

 private:
  [[maybe_unused]] long long saved_ = kNoCommunicator;  // read only in a build with MPI
};

int rank();  // in the communicator (MPI_COMM_WORLD outside a CommunicatorScope); 0 without MPI
int size();  // 1 without MPI
/// Rank among the ranks of this node (MPI_Comm_split_type shared), and their count.
int local_rank();
int local_size();
/// This node's host name.
std::string host_name();

void barrier();
/// In-place sums over all ranks (MPI_Allreduce, MPI_SUM).
void sum(double* values, int n);
void sum(long long* values, int n);
void sum(std::vector<std::complex<double>>& values);
/// Element-wise maximum / minimum over all ranks (in place).
void max(std::vector<double>& values);
void min(std::vector<double>& values);
double max(double v);
/// Every rank's value, in rank order, on every rank.
std::vector<double> gather(double v);
std::vector<std::string> gather(const std::string& s);

/// An error every rank agrees on: thrown on every rank by agree(); main prints it once,
/// from rank 0, and every rank exits with status 1.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

/// Collective: every rank passes its own error ("" for none). When any rank has one,
/// every rank throws CollectiveError with the message of the lowest failing rank
/// (prefixed "rank R: " when it is not rank 0 and there are several ranks), so that one
/// rank's failure never leaves the others waiting in a later collective.
void agree(const std::string& error);

/// Collective: "" when `mine` equals rank 0's value on this rank, else this rank's error
/// ("rank R runs another WHAT than rank 0: ..."), for agree() to spread: every rank must
/// run the same command line, deck and tunables (a different one would wait forever in
/// another collective, or add its sums to the others').
std::string compare_with_rank0(const std::string& what, const std::string& mine);

/// Runs f() on every rank and agree()s on its outcome (gpp::Error, std::exception or
/// std::bad_alloc become the message).
template <class F>
void collectively(F&& f) {
  std::string error;
  try {
    f();
  } catch (const CollectiveError&) {
    throw;
  } catch (const std::bad_alloc&) {
    error = "out of host memory";
  } catch (const std::exception& e) {
    error = e.what();
    if (error.empty()) error = "unknown error";
  }
  agree(error);
}

/// Each rank's placement line (host, device), in rank order: filled at start-up by
/// session::check_placement, empty before.
std::vector<std::string>& placement();

/// Ends every rank at once (MPI_Abort) after an error one rank met outside a collective
/// step; without MPI, or on one rank, returns `code` for main to return.
int abort_all(int code);

}  // namespace gpp::session::mpi
