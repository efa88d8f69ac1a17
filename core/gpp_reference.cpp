#include "gpp_reference.hpp"

#include "gpp_physics.hpp"
#include "gpp_runtime.hpp"

#include <cmath>
#include <vector>

namespace gpp {
namespace {

// Neumaier's compensated summation of one real stream.
struct Compensated {
  double sum = 0, c = 0;
  void add(double x) {
    const double t = sum + x;
    c += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  long double value() const { return static_cast<long double>(sum) + c; }
};

}  // namespace

SigmaSums reference_sums(const GppData<Kokkos::HostSpace>& d) {
  const int nw = d.nw;
  // Per G': nw x {sch re, sch im, ssx re, ssx im}.
  std::vector<Compensated> acc(std::size_t(d.ngpown) * nw * 4);
  runtime::host_parallel_for("gpp::reference::sums", d.ngpown, [&](const long long gp) {
    const int igp = int(gp);
    Compensated* a = &acc[std::size_t(igp) * nw * 4];
    const double vcoul = d.vcoul_loc(igp);
    for (int n1 = 0; n1 < d.nbands; ++n1) {
      const double occ = d.occ_array(n1);
      const complex_t aqsm = d.aqsmtemp_local(igp, n1);
      for (int ig = 0; ig < d.ncouls; ++ig) {
        const complex_t mat = physics::matngmatmgp(aqsm, d.aqsntemp(ig, n1));
        const complex_t wtilde = d.wtilde_array(ig, igp);
        const complex_t I_eps = d.I_eps_array(ig, igp);
        for (int w = 0; w < nw; ++w) {
          complex_t sch, ssx;
          physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, d.wx_array_t(w, n1), d.limittwo, d.sexcut, sch, ssx);
          SigmaAccum<1> term;
          physics::add_weighted_term(term, 0, vcoul, occ, sch, ssx, mat);
          a[4 * w + 0].add(term.sch[0].real());
          a[4 * w + 1].add(term.sch[0].imag());
          a[4 * w + 2].add(term.ssx[0].real());
          a[4 * w + 3].add(term.ssx[0].imag());
        }
      }
    }
  });
  SigmaSums s;
  s.sch_sum.resize(nw);
  s.ssx_sum.resize(nw);
  for (int w = 0; w < nw; ++w) {
    long double t[4] = {0, 0, 0, 0};
    for (int igp = 0; igp < d.ngpown; ++igp)
      for (int k = 0; k < 4; ++k) t[k] += acc[(std::size_t(igp) * nw + w) * 4 + k].value();
    s.sch_sum[w] = {double(t[0]), double(t[1])};
    s.ssx_sum[w] = {double(t[2]), double(t[3])};
  }
  return s;
}

SigmaSums closed_form_uniform(const DeckParams& p) {
  using C = std::complex<long double>;
  const C a(0.5L, 0.5L);  // every complex array
  const long double e_band = 6.0L, vcoul = 1.0L;
  const C mat = std::conj(a) * a;
  const long double nbands = p.nbands, ncouls = p.ncouls, ngpown = p.ngpown;
  // Bands 1..nvband are occupied; none sits at the Fermi level unless |6 - efermi| < tol.
  const long double occ = std::abs(e_band - p.efermi) < p.tol ? 0.5L : 1.0L;
  const long double occupied = p.nvband * occ;
  SigmaSums s;
  for (int iw = p.nstart; iw <= p.nend; ++iw) {
    long double wx = p.e_lk + p.dw * (iw - 2) - e_band;
    if (std::abs(wx) < 1e-12L) wx = 1e-12L;
    // The plasmon-pole term written out for wtilde = I_eps = a.
    const C wtilde2 = a * a, omega2 = wtilde2 * a, wdiff = wx - a, delw = a / wdiff;
    const long double wdiffr = std::norm(wdiff), delwr = std::norm(delw);
    C sch = 0, ssx = 0;
    if (wdiffr > (long double)p.gamma * p.gamma && delwr < 1.0L / (4.0L * 1e-6L)) {
      sch = delw * a;
      ssx = omega2 / (wx * wx - wtilde2);
    } else if (delwr > 1e-12L) {
      ssx = -omega2 * delw / (4.0L * wtilde2 * (delw + 0.5L));
    }
    if (std::abs(ssx) > p.sexcut * std::abs(a) && wx < 0) ssx = 0;
    const C sch_sum = nbands * ngpown * ncouls * vcoul * sch * mat * 0.5L;
    const C ssx_sum = occupied * ngpown * ncouls * vcoul * ssx * mat;
    s.sch_sum.emplace_back(double(sch_sum.real()), double(sch_sum.imag()));
    s.ssx_sum.emplace_back(double(ssx_sum.real()), double(ssx_sum.imag()));
  }
  return s;
}

std::complex<double> reference_achstemp(const GppData<Kokkos::HostSpace>& d) {
  std::vector<std::complex<long double>> part(d.ngpown);
  runtime::host_parallel_for("gpp::reference::achstemp", d.ngpown, [&](const long long gp) {
    const int igp = int(gp);
    std::complex<long double> acc = 0;
    for (int n1 = 0; n1 < d.nbands; ++n1) {
      std::complex<long double> S = 0;
      for (int ig = 0; ig < d.ncouls; ++ig) {
        const complex_t x = d.aqsntemp(ig, n1), y = d.I_eps_array(ig, igp);
        S -= std::complex<long double>(x.real(), x.imag()) * std::complex<long double>(y.real(), y.imag());
      }
      const complex_t m = d.aqsmtemp_local(igp, n1);
      acc += 0.5L * (long double)d.vcoul_loc(igp) * std::conj(std::complex<long double>(m.real(), m.imag())) * S;
    }
    part[igp] = acc;
  });
  std::complex<long double> t = 0;
  for (const auto& x : part) t += x;
  return {double(t.real()), double(t.imag())};
}

}  // namespace gpp
