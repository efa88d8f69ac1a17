#pragma once
// Refuse a problem that cannot fit before anything is allocated: the arrays
// a session allocates on the host and on the device, against what is available.
#include <string>

namespace gpp::session {

/// Throws gpp::Error, one line naming the largest array, the total and what is
/// available, when the arrays of a problem of these sizes do not fit in host memory (or,
/// on a GPU backend, device memory). `what` names the deck or file. `input_in_memory`:
/// the input arrays are already allocated (a file that was read), so only what comes
/// after them is counted on the host.
void check_memory_fits(const std::string& what, long long nbands, long long ngpown, long long ncouls, long long nw,
                       bool input_in_memory = false);

}  // namespace gpp::session
