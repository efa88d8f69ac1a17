#pragma once
// The one exception type of the project: any input or run-time problem the user can
// fix. Free of Kokkos, so that file I/O and the command line need not include it.
#include <stdexcept>

namespace gpp {

/// One line that names what is wrong (the file, record, option or array, and why).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gpp
