#include "gpp_device_reference.hpp"

#include "gpp_compat.hpp"
#include "gpp_kernels.hpp"

namespace gpp {
namespace {

using gpp::operator+=;  // Kokkos 3.4 OpenMP joins through volatile references (gpp_compat.hpp)

/// A compensated sum: value = s + c.
struct CompensatedSum {
  double s = 0, c = 0;
  KOKKOS_INLINE_FUNCTION void add(const double x) {
    const double t = s + x;
    c += compat::fabs(s) >= compat::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  KOKKOS_INLINE_FUNCTION void merge(const CompensatedSum& o) {
    // TwoSum of the leading parts, then the tails.
    const double t = s + o.s;
    const double bp = t - s;
    const double err = (s - (t - bp)) + (o.s - bp);
    s = t;
    c += o.c + err;
  }
  double value() const { return s + c; }
};

/// sch re, sch im, ssx re, ssx im of one frequency.
struct CompensatedAccum {
  CompensatedSum v[4];
  KOKKOS_INLINE_FUNCTION CompensatedAccum& operator+=(const CompensatedAccum& o) {
    for (int k = 0; k < 4; ++k) v[k].merge(o.v[k]);
    return *this;
  }
};

}  // namespace

template <class ExecSpace>
SigmaSums device_reference_sums(const ExecSpace& space, const GppData<typename ExecSpace::memory_space>& d) {
  Tunables tile;
  compat::ScopedRegion region("gpp::reference::device");
  const kernels::Inputs<typename ExecSpace::memory_space> in(d);
  SigmaSums s{std::vector<std::complex<double>>(d.nw), std::vector<std::complex<double>>(d.nw)};
  // One launch per frequency, so any number of frequencies works.
  for (int w = 0; w < d.nw; ++w) {
    CompensatedAccum total;
    Kokkos::parallel_reduce(
        "gpp::reference::device_sums", make_mdrange<2>(space, {d.ncouls, d.ngpown}, tile),
        KOKKOS_LAMBDA(const int ig, const int igp, CompensatedAccum& acc) {
          const complex_t wtilde = in.wtilde_array(ig, igp);
          const complex_t I_eps = in.I_eps_array(ig, igp);
          const double vcoul = in.vcoul_loc(igp);
          CompensatedAccum mine;  // in registers; merged into acc once
          for (int n1 = 0; n1 < in.nbands; ++n1) {
            complex_t sch, ssx;
            physics::sigma_term<physics::LiteralForm>(wtilde, I_eps, in.wx_array_t(w, n1), in.limittwo, in.sexcut, sch,
                                                      ssx);
            const complex_t mat = physics::matngmatmgp(in.aqsmtemp_local(igp, n1), in.aqsntemp(ig, n1));
            SigmaAccum<1> term;
            physics::add_weighted_term(term, 0, vcoul, in.occ_array(n1), sch, ssx, mat);
            mine.v[0].add(term.sch[0].real());
            mine.v[1].add(term.sch[0].imag());
            mine.v[2].add(term.ssx[0].real());
            mine.v[3].add(term.ssx[0].imag());
          }
          acc += mine;
        },
        PlusReducer<CompensatedAccum>(total));
    s.sch_sum[w] = {total.v[0].value(), total.v[1].value()};
    s.ssx_sum[w] = {total.v[2].value(), total.v[3].value()};
  }
  return s;
}

template SigmaSums device_reference_sums(const HostExec&, const GppData<HostExec::memory_space>&);
#if GPP_HAS_DEVICE_SPACE
template SigmaSums device_reference_sums(const DeviceExec&, const GppData<DeviceExec::memory_space>&);
#endif

}  // namespace gpp
