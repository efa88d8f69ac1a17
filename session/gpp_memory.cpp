#include "gpp_memory.hpp"

#include "gpp_backend.hpp"
#include "gpp_io_util.hpp"
#include "gpp_types.hpp"

#include <utility>
#include <vector>

namespace gpp::session {
namespace {

struct Array {
  const char* name;
  long double bytes;
};

void refuse_unless_fits(const std::string& what, const std::vector<Array>& arrays, long double available,
                        const char* where) {
  long double total = 0;
  const Array* largest = &arrays.front();
  for (const Array& a : arrays) {
    total += a.bytes;
    if (a.bytes > largest->bytes) largest = &a;
  }
  if (available > 0 && total > available)
    throw Error(what + " needs " + files::io::gigabytes(total) + " of " + where + " memory (largest array " +
                largest->name + ": " + files::io::gigabytes(largest->bytes) + "), more than the " +
                files::io::gigabytes(available) + " available");
}

}  // namespace

void check_memory_fits(const std::string& what, long long nbands, long long ngpown, long long ncouls, long long nw,
                       bool input_in_memory) {
  const long double c = 16, r = 8;  // complex, real
  const long double band_g = c * nbands * ncouls, gp_g = c * ngpown * ncouls, gp_band = c * ngpown * nbands;
  // The input arrays (core/gpp_input.hpp) and the derived ones.
  std::vector<Array> host;
  if (!input_in_memory) {
    host = {{"aqsmtemp", band_g}, {"aqsntemp", band_g}, {"I_eps_array", gp_g}, {"wtilde_array", gp_g}};
  }
  host.push_back({"aqsmtemp_local", gp_band});
  host.push_back({"aqsmtemp_local_bt", gp_band});
  host.push_back({"wx_array_t and wx_array_bt", 2 * r * nw * nbands});
  refuse_unless_fits(what, host, (long double)files::io::available_host_memory_bytes(), "host");
  // The device copy of the derived data (to_memory_space) on a GPU backend: G' columns
  // that do not fit are processed in chunks (docs/mpi.md), so only the arrays every
  // chunk repeats and one G' column must fit.
  if (const long long free_bytes = backend::device_memory().free; free_bytes >= 0) {
    const std::vector<Array> device = {
        {"aqsntemp", band_g},
        {"one G' column (I_eps_array, wtilde_array, aqsmtemp_local)", 2 * c * ncouls + 3 * c * nbands},
        {"wx_array_t and wx_array_bt", 2 * r * nw * nbands}};
    refuse_unless_fits(what, device, (long double)free_bytes, "device");
  }
}

}  // namespace gpp::session
