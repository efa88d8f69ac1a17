// gpp from C++: a non-uniform deck in Kokkos Views (LayoutLeft, the Fortran benchmark's
// shapes), its sums through gpp::api::compute on every space of the build, and the same
// sums from the benchmark's loop written here with std::complex. Exit 1 when they differ
// beyond the bound of two double-precision sums of the same n terms (docs/oracle.md):
// atol = 2 (128 + 4 sqrt(n)) u M, u = 2^-53, M the terms' summed magnitude. The loop
// with one bug (no conjugate) must differ beyond it: the check can fail.
#include <gpp/gpp.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using cplx = std::complex<double>;

struct Deck {
  int ncouls = 37, ngpown = 11, nbands = 19, nw = 3;
  double sexcut = 4.0, limittwo = 0.25;  // gamma = 0.5
  std::vector<cplx> aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array;
  std::vector<double> wx_array_t, occ_array, vcoul_loc;
};

// A deterministic stream of numbers in [0, 1).
struct Lcg {
  std::uint64_t s;
  double operator()() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(s >> 11) * 0x1.0p-53;
  }
};

// Every arm of the physics: wtilde near and far from the frequencies, one tiny (the zero
// arm), occupied, half-occupied and empty bands, negative and positive wx, a skipped G'.
Deck make_deck() {
  Deck d;
  Lcg r{2026};
  d.aqsntemp.resize(std::size_t(d.ncouls) * d.nbands);
  d.aqsmtemp_local.resize(std::size_t(d.ngpown) * d.nbands);
  d.I_eps_array.resize(std::size_t(d.ncouls) * d.ngpown);
  d.wtilde_array.resize(std::size_t(d.ncouls) * d.ngpown);
  for (cplx& z : d.aqsntemp) z = {r() - 0.5, r() - 0.5};
  for (cplx& z : d.aqsmtemp_local) z = {r() - 0.5, r() - 0.5};
  for (int igp = 0; igp < d.ngpown; ++igp)
    for (int ig = 0; ig < d.ncouls; ++ig) {
      const double amp = 0.9 / (1.0 + 0.1 * std::abs(ig - 3 * igp));
      d.I_eps_array[ig + std::size_t(d.ncouls) * igp] = {amp * (r() - 0.3), amp * (r() - 0.5)};
      const double re = (ig + igp) % 97 == 5 ? 1e-9 : 0.2 + 12.0 * r() * r();
      d.wtilde_array[ig + std::size_t(d.ncouls) * igp] = {re, -0.05 * re * r()};
    }
  d.wx_array_t.resize(std::size_t(d.nw) * d.nbands);
  d.occ_array.resize(d.nbands);
  for (int n1 = 0; n1 < d.nbands; ++n1) {
    const double e = n1 < 8 ? -6.0 + 0.7 * n1 + 0.1 * r() : 0.5 + 1.5 * (n1 - 8) + 0.1 * r();
    d.occ_array[n1] = n1 < 7 ? 1.0 : n1 == 7 ? 0.5 : 0.0;
    for (int iw = 0; iw < d.nw; ++iw) {
      double wx = -1.5 + 0.5 * iw - e;
      if (std::abs(wx) < 1e-12) wx = 1e-12;
      d.wx_array_t[iw + std::size_t(d.nw) * n1] = wx;
    }
  }
  d.vcoul_loc.resize(d.ngpown);
  for (int igp = 0; igp < d.ngpown; ++igp) d.vcoul_loc[igp] = igp == 4 ? 0.0 : 8.0 / (0.5 + igp);
  return d;
}

struct Sums {
  std::vector<cplx> achtemp, asxtemp;
  cplx achstemp;
  std::vector<double> m_ach, m_asx;  // summed magnitudes of each sum's terms
  double m_achs = 0;
};

// The benchmark's loop (docs/gpp-spec.md section 1), as literally as C++ allows.
Sums benchmark_loop(const Deck& d, bool conjugate = true) {
  const double TOL_Zero = 1e-12, limitone = 1.0 / (4.0 * 1e-6);
  Sums s;
  s.achtemp.assign(d.nw, 0.0);
  s.asxtemp.assign(d.nw, 0.0);
  s.m_ach.assign(d.nw, 0.0);
  s.m_asx.assign(d.nw, 0.0);
  const auto A = [&](const std::vector<cplx>& a, int rows, int i, int j) { return a[i + std::size_t(rows) * j]; };
  for (int n1 = 0; n1 < d.nbands; ++n1)
    for (int igp = 0; igp < d.ngpown; ++igp)
      for (int ig = 0; ig < d.ncouls; ++ig)
        for (int iw = 0; iw < d.nw; ++iw) {
          const cplx wtilde = A(d.wtilde_array, d.ncouls, ig, igp), eps = A(d.I_eps_array, d.ncouls, ig, igp);
          const cplx wtilde2 = wtilde * wtilde, Omega2 = wtilde2 * eps;
          const double wxt = d.wx_array_t[iw + std::size_t(d.nw) * n1];
          const cplx wdiff = wxt - wtilde, delw = wtilde / wdiff;
          const double delwr = std::norm(delw), wdiffr = std::norm(wdiff);
          cplx sch = 0, ssx = 0;
          if (wdiffr > d.limittwo && delwr < limitone) {
            sch = delw * eps;
            ssx = Omega2 / (wxt * wxt - wtilde2);
          } else if (delwr > TOL_Zero) {
            ssx = -Omega2 * delw / (4.0 * wtilde2 * (delw + 0.5));
          }
          const cplx aqsm = A(d.aqsmtemp_local, d.ngpown, igp, n1);
          const cplx mat = (conjugate ? std::conj(aqsm) : aqsm) * A(d.aqsntemp, d.ncouls, ig, n1);
          if (std::abs(ssx) > d.sexcut * std::abs(eps) && wxt < 0) ssx = 0;
          const cplx ssx_term = d.vcoul_loc[igp] * d.occ_array[n1] * ssx * mat;
          const cplx sch_term = d.vcoul_loc[igp] * sch * mat * 0.5;
          s.asxtemp[iw] -= ssx_term;
          s.achtemp[iw] += sch_term;
          s.m_asx[iw] += std::abs(ssx_term);
          s.m_ach[iw] += std::abs(sch_term);
        }
  for (int n1 = 0; n1 < d.nbands; ++n1)
    for (int igp = 0; igp < d.ngpown; ++igp) {
      cplx S = 0;
      double m = 0;
      for (int ig = 0; ig < d.ncouls; ++ig) {
        S -= A(d.aqsntemp, d.ncouls, ig, n1) * A(d.I_eps_array, d.ncouls, ig, igp);
        m += std::abs(A(d.aqsntemp, d.ncouls, ig, n1) * A(d.I_eps_array, d.ncouls, ig, igp));
      }
      const cplx aqsm = A(d.aqsmtemp_local, d.ngpown, igp, n1);
      s.achstemp += 0.5 * d.vcoul_loc[igp] * std::conj(aqsm) * S;
      s.m_achs += 0.5 * std::abs(d.vcoul_loc[igp]) * std::abs(aqsm) * m;
    }
  return s;
}

// The worst |a - b| / atol over every value (> 1: beyond the bound).
double worst(const Deck& d, const Sums& ref, const std::vector<cplx>& ach, const std::vector<cplx>& asx, cplx achs) {
  const double u = 0x1.0p-53, n = double(d.nbands) * d.ngpown * d.ncouls;
  const auto atol = [&](double m) { return 2.0 * (128.0 + 4.0 * std::sqrt(n)) * u * m; };
  double w = std::abs(achs - ref.achstemp) / atol(ref.m_achs);
  for (int iw = 0; iw < d.nw; ++iw) {
    w = std::max(w, std::abs(ach[iw] - ref.achtemp[iw]) / atol(ref.m_ach[iw]));
    w = std::max(w, std::abs(asx[iw] - ref.asxtemp[iw]) / atol(ref.m_asx[iw]));
  }
  return w;
}

}  // namespace

int main() {
  try {
    gpp::api::Runtime runtime;  // starts Kokkos unless the program already did
    const Deck d = make_deck();
    // The deck in host Views: unmanaged Views of the vectors, as a code holding its own
    // arrays would pass them (Kokkos::View of any memory space the build reaches works).
    using Host = Kokkos::HostSpace;
    using CV = Kokkos::View<const Kokkos::complex<double>**, Kokkos::LayoutLeft, Host>;
    using RM = Kokkos::View<const double**, Kokkos::LayoutLeft, Host>;
    using RV = Kokkos::View<const double*, Kokkos::LayoutLeft, Host>;
    const auto cv = [](const std::vector<cplx>& v, int rows, int cols) {
      return CV(reinterpret_cast<const Kokkos::complex<double>*>(v.data()), rows, cols);
    };
    gpp::api::Views<Host> views;
    views.aqsntemp = cv(d.aqsntemp, d.ncouls, d.nbands);
    views.aqsmtemp_local = cv(d.aqsmtemp_local, d.ngpown, d.nbands);
    views.I_eps_array = cv(d.I_eps_array, d.ncouls, d.ngpown);
    views.wtilde_array = cv(d.wtilde_array, d.ncouls, d.ngpown);
    views.wx_array_t = RM(d.wx_array_t.data(), d.nw, d.nbands);
    views.occ_array = RV(d.occ_array.data(), d.nbands);
    views.vcoul_loc = RV(d.vcoul_loc.data(), d.ngpown);
    views.sexcut = d.sexcut;
    views.limittwo = d.limittwo;

    const Sums ref = benchmark_loop(d);
    const Sums bug = benchmark_loop(d, false);
    const double bug_worst = worst(d, ref, bug.achtemp, bug.asxtemp, bug.achstemp);
    std::printf("the loop without the conjugate: %.3g atol from the loop (must be > 1)\n", bug_worst);
    bool ok = bug_worst > 1;

    const gpp::api::BuildFeatures f = gpp::api::build_features();
    std::printf("gpp %s, Kokkos %s (%s)\n", gpp::api::version().c_str(), f.kokkos_version.c_str(),
                f.kokkos_backends.c_str());
    std::vector<std::string> spaces{"host"};
    if (f.device_space) spaces.push_back("device");
    for (const std::string& space : spaces) {
      gpp::api::Options o;
      o.space = space;
      o.repeat = 3;
      const gpp::api::Result r = gpp::api::compute(views, o);
      const double w = worst(d, ref, r.achtemp, r.asxtemp, r.achstemp);
      std::printf("%-6s %-8s median %.3g s  achtemp(1) = (%.15g, %.15g)  %.3g atol from the loop: %s\n",
                  r.space.c_str(), r.policy.c_str(), r.time_median(), r.achtemp[0].real(), r.achtemp[0].imag(), w,
                  w <= 1 ? "agrees" : "DIFFERS");
      ok = ok && w <= 1;
    }
    return ok ? 0 : 1;
  } catch (const gpp::api::Error& e) {
    std::fprintf(stderr, "gpp_example_cxx: %s\n", e.what());
    return 1;
  }
}
