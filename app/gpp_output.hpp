#pragma once
// Output pieces shared by `gpp run` and `gpp bench`.
#include "gpp_report.hpp"
#include "gpp_session.hpp"

#include <complex>
#include <string>

namespace gpp::app {

/// FLOPs per update used for the nominal FLOP rate: the paper's Nsight Compute count
/// for v8 on Si-214 (3.710 TFLOP/s x 0.717 s / 2.454e10 updates = 108.4; dadd + dmul
/// + 2*dfma, reciprocal Newton steps included). Rates built on it compare directly
/// with the paper's Table I; they are not our kernels' own instruction counts.
inline constexpr double kNominalFlopsPerUpdate = 108.4;

std::string cplx(std::complex<double> z);  // "(re, im)" with 17 significant digits
void print_provenance(const Provenance& p);
void json_provenance(Json& j, const Provenance& p);
void json_deck(Json& j, const Session& s);
/// "12.3 GiB" or "n/a" for a negative byte count.
std::string gib(double bytes);

}  // namespace gpp::app
