#pragma once
// What the library's sources share and the public headers do not show: the checked sizes
// of a caller's arrays, and the one place where the API's tunables (names and values as
// text) meet the policies' own (gpp::Tunables).
#include <gpp/gpp.hpp>

#include "gpp_policy.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace gpp::api {

/// The sizes of a caller's arrays, each checked against the others.
struct Sizes {
  std::int64_t ncouls = 0, nbands = 0, ngpown = 0, nw = 0;
};

/// Every array given, of the right shape, aligned, not null; sexcut, limittwo and the start
/// values valid; no size whose arrays could not exist. Throws Error (Status::argument)
/// naming the first problem. Reads no element.
Sizes check_arrays(const Arrays& a);

/// Throws Error (Status::mpi) unless `fortran_comm` is -1 (none) or a communicator of this
/// process in a build with MPI, while MPI runs.
void check_communicator(std::int64_t fortran_comm);

/// The caller's tunables as the policy's: "band-block", "ig-block", "team-size",
/// "vector-length" (positive integers), "tile" ("32,4,1"), or a param of the policy
/// ("loops" = "vector"). Throws gpp::Error for a name the policy does not read or a value
/// it does not take.
Tunables internal_tunables(const PolicyEntry& entry, const std::map<std::string, std::string>& given);

/// The tunables that are set, by the API's names ("tile" = "32,4,1").
std::map<std::string, std::string> public_tunables(const Tunables& t);

/// Fills the tunables of `entry` that `t` does not set from `from` (a tuning file's entry,
/// called `source`); returns where the values came from: "caller", `source`, "default",
/// or per tunable ("band-block: caller; team-size: tuning file PATH").
std::string merge_tuning(const PolicyEntry& entry, Tunables& t, const Tunables& from, const std::string& source);

}  // namespace gpp::api
