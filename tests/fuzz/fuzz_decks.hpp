#pragma once
// The input files of `gpp run --input` (and `gpp convert`): what the .dat and HDF5 targets
// assert about a deck the reader accepted.
#include "fuzz_support.hpp"

#include "gpp_deck_io.hpp"
#include "gpp_input.hpp"
#include "gpp_session.hpp"

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

namespace gpp::fuzz {

/// Reads the file as `gpp run --input PATH` does: the reader, its checks, the memory
/// check and the derived arrays (session/gpp_session_file.cpp).
inline session::Session read_as_run_does(const std::string& path) {
  return session::make_session_from_file(path, "", GpShare{});
}

namespace detail {
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
inline bool same_bits(const HostComplexMatrix& a, const HostComplexMatrix& b) {
  return a.extent(0) == b.extent(0) && a.extent(1) == b.extent(1) &&
         (a.span() == 0 || std::memcmp(a.data(), b.data(), a.span() * sizeof(complex_t)) == 0);
}
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
}  // namespace detail

/// The first field in which two decks differ (bit for bit), "" when none does.
inline std::string deck_difference(const InputDeck& a, const InputDeck& b) {
  using detail::same_bits;
#define GPP_FUZZ_SAME(field) \
  if (!same_bits(a.field, b.field)) return #field
  GPP_FUZZ_SAME(sig_ntband);
  GPP_FUZZ_SAME(gvec_ng);
  GPP_FUZZ_SAME(ncoul);
  GPP_FUZZ_SAME(epsmpi_ngpown_max);
  GPP_FUZZ_SAME(peinf_ntband_max);
  GPP_FUZZ_SAME(peinf_ntband_dist);
  GPP_FUZZ_SAME(ipe);
  GPP_FUZZ_SAME(ispin);
  GPP_FUZZ_SAME(ngpown);
  GPP_FUZZ_SAME(ncouls);
  GPP_FUZZ_SAME(peinf_indext_dist);
  GPP_FUZZ_SAME(wfnkq_ekq);
  GPP_FUZZ_SAME(nstart);
  GPP_FUZZ_SAME(nend);
  GPP_FUZZ_SAME(sig_fdf);
  GPP_FUZZ_SAME(sig_dw);
  GPP_FUZZ_SAME(sig_gamma);
  GPP_FUZZ_SAME(e_lk);
  GPP_FUZZ_SAME(inv_igp_index);
  GPP_FUZZ_SAME(indinv);
  GPP_FUZZ_SAME(aqsmtemp);
  GPP_FUZZ_SAME(nvband);
  GPP_FUZZ_SAME(tol);
  GPP_FUZZ_SAME(efermi);
  GPP_FUZZ_SAME(vcoul);
  GPP_FUZZ_SAME(sexcut);
  GPP_FUZZ_SAME(limittwo);
  GPP_FUZZ_SAME(limitone);
  GPP_FUZZ_SAME(wtilde_array);
  GPP_FUZZ_SAME(I_eps_array);
  GPP_FUZZ_SAME(aqsntemp);
  GPP_FUZZ_SAME(asxtemp0);
  GPP_FUZZ_SAME(achtemp0);
  GPP_FUZZ_SAME(asxtempref);
  GPP_FUZZ_SAME(achtempref);
  GPP_FUZZ_SAME(records_15_18);
#undef GPP_FUZZ_SAME
  return "";
}

/// What an accepted deck must be: it passes validate() again (nothing the reader let
/// through fails the check every input path shares), and the derived arrays the kernels
/// read have the deck's shape and finite values (a wx, an occupation, a Coulomb factor).
inline void check_accepted(const session::Session& s) {
  try {
    validate(s.input);
  } catch (const Error& e) {
    violated(std::string("an accepted deck fails validate(): ") + e.what());
  }
  const auto& h = s.host;
  expect(h.nbands == s.input.peinf_ntband_dist && h.ngpown == s.input.ngpown && h.ncouls == s.input.ncouls &&
             h.nw == s.input.nw(),
         "the derived arrays' sizes differ from the deck's");
  expect(int(h.wx_array_t.extent(0)) == h.nw && int(h.wx_array_t.extent(1)) == h.nbands &&
             int(h.occ_array.extent(0)) == h.nbands && int(h.vcoul_loc.extent(0)) == h.ngpown &&
             int(h.aqsmtemp_local.extent(0)) == h.ngpown && int(h.aqsmtemp_local.extent(1)) == h.nbands,
         "a derived array has another shape than the deck's sizes");
  for (int n = 0; n < h.nbands; ++n) {
    const double occ = h.occ_array(n);
    expect(occ == 0.0 || occ == 0.5 || occ == 1.0, "an occupation other than 0, 0.5 or 1");
    for (int w = 0; w < h.nw; ++w) expect(std::isfinite(h.wx_array_t(w, n)), "a wx that is not finite");
  }
  for (int g = 0; g < h.ngpown; ++g) expect(std::isfinite(h.vcoul_loc(g)), "a vcoul_loc that is not finite");
}

/// Writes `in` as `name` in the work directory (the writer `gpp convert` uses) and reads
/// it back as `gpp run --input` does: the deck must come back bit for bit.
inline void check_round_trip(const InputDeck& in, const std::string& name) {
  const std::string path = WorkDir::get().file(name);
  try {
    formats::write_deck_file(in, path);
  } catch (const Error& e) {
    violated("an accepted deck cannot be written as " + name + ": " + e.what());
  }
  InputDeck back;
  try {
    back = read_as_run_does(path).input;
  } catch (const Error& e) {
    violated("an accepted deck written as " + name + " is refused when read back: " + e.what());
  }
  if (const std::string field = deck_difference(in, back); !field.empty())
    violated("an accepted deck written as " + name + " reads back with another " + field);
}

}  // namespace gpp::fuzz
