#pragma once
// The library's arrays (gpp::api::Arrays) on a deck's derived host arrays, wrapped where
// they are, as a caller's arrays are: the tests of the C++ API, the oracle's check of the
// library and the API's benchmark against `gpp run` all call the library this way.
#include <gpp/gpp.hpp>

#include "gpp_types.hpp"

#include <complex>
#include <cstdint>

namespace gpp::test {

/// `d`'s arrays and scalars as the library reads them (nothing copied: `d` must outlive
/// the result).
inline api::Arrays api_arrays_of(const GppData<Kokkos::HostSpace>& d) {
  const auto c = [](const auto& v) {
    return api::Matrix<std::complex<double>>{reinterpret_cast<const std::complex<double>*>(v.data()),
                                             std::int64_t(v.extent(0)), std::int64_t(v.extent(1))};
  };
  api::Arrays a;
  a.aqsntemp = c(d.aqsntemp);
  a.aqsmtemp_local = c(d.aqsmtemp_local);
  a.I_eps_array = c(d.I_eps_array);
  a.wtilde_array = c(d.wtilde_array);
  a.wx_array_t = {d.wx_array_t.data(), d.nw, d.nbands};
  a.occ_array = {d.occ_array.data(), d.nbands};
  a.vcoul_loc = {d.vcoul_loc.data(), d.ngpown};
  a.sexcut = d.sexcut;
  a.limittwo = d.limittwo;
  a.nstart = d.nstart;
  return a;
}

}  // namespace gpp::test
