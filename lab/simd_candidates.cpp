// Candidate SIMD abstractions for the host policy's G loops, compared on one loop: an
// empty band's loop with two frequencies sharing one division and the regular arm tested
// per term (policies/host.cpp's empty_band with W = 2, SharedDivide, Checked), over one G
// block of 1024 G held in L1. Each candidate is the same arithmetic in another notation:
//   omp      `#pragma omp simd` with scalar reductions (the host policy's fallback before the
//            loops were written once over a vector type)
//   xsimd    xsimd::batch<double> (Debian: libxsimd-dev)
//   hwy      Highway, static target (Debian: libhwy-dev)
//   kokkos   Kokkos::Experimental::simd (Kokkos 4.x built with a CPU architecture; only
//            with -DWITH_KOKKOS_SIMD and Kokkos' include paths)
// Not part of the build; docs/lab/cpu-host.md has the commands and
// the numbers. Each prints ns per vector of G and a checksum (the same sums for all
// candidates, to a few ulps).
//
//   g++ -O3 -march=x86-64-v3 -fopenmp-simd -fno-trapping-math -std=c++17 \
//       lab/simd_candidates.cpp -o simd_candidates && ./simd_candidates
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <xsimd/xsimd.hpp>

#ifndef NO_HWY
#include <hwy/highway.h>
#endif

#ifdef WITH_KOKKOS_SIMD
#include <Kokkos_SIMD.hpp>
#endif

namespace {

constexpr int kLen = 1024;

struct Rows {
  const double *wr, *wi2, *thr, *wir, *wii, *air, *aii, *ar, *ai;
};
struct Sums {
  double u[2][4];  // per frequency: sum inv U (re, im), sum inv V (re, im)
};

__attribute__((noinline)) Sums loop_omp(const Rows& r, const double* x) {
  const double* __restrict wr = r.wr;
  const double* __restrict wi2 = r.wi2;
  const double* __restrict thr = r.thr;
  const double* __restrict wir = r.wir;
  const double* __restrict wii = r.wii;
  const double* __restrict air = r.air;
  const double* __restrict aii = r.aii;
  const double* __restrict a_re = r.ar;
  const double* __restrict a_im = r.ai;
  const double x0 = x[0], x1 = x[1];
  double u0r = 0, u0i = 0, v0r = 0, v0i = 0, u1r = 0, u1i = 0, v1r = 0, v1i = 0;
#pragma omp simd reduction(+ : u0r, u0i, v0r, v0i, u1r, u1i, v1r, v1i)
  for (int k = 0; k < kLen; ++k) {
    const double ar = a_re[k], ai = a_im[k];
    const double Ur = wir[k] * ar - wii[k] * ai, Ui = wir[k] * ai + wii[k] * ar;
    const double Vr = air[k] * ar - aii[k] * ai, Vi = air[k] * ai + aii[k] * ar;
    const double d0 = x0 - wr[k], d1 = x1 - wr[k];
    const double wd0 = d0 * d0 + wi2[k], wd1 = d1 * d1 + wi2[k];
    const double R = 1.0 / (wd0 * wd1);
    const double i0 = wd0 > thr[k] ? R * wd1 : 0.0, i1 = wd1 > thr[k] ? R * wd0 : 0.0;
    u0r += i0 * Ur, u0i += i0 * Ui, v0r += i0 * Vr, v0i += i0 * Vi;
    u1r += i1 * Ur, u1i += i1 * Ui, v1r += i1 * Vr, v1i += i1 * Vi;
  }
  return Sums{{{u0r, u0i, v0r, v0i}, {u1r, u1i, v1r, v1i}}};
}

__attribute__((noinline)) Sums loop_xsimd(const Rows& r, const double* x) {
  using V = xsimd::batch<double>;
  constexpr int N = V::size;
  const V xv[2] = {V(x[0]), V(x[1])};
  V s[2][4];
  for (auto& f : s)
    for (V& v : f) v = V(0.0);
  for (int k = 0; k < kLen; k += N) {
    const V ar = V::load_unaligned(r.ar + k), ai = V::load_unaligned(r.ai + k);
    const V wir = V::load_unaligned(r.wir + k), wii = V::load_unaligned(r.wii + k);
    const V air = V::load_unaligned(r.air + k), aii = V::load_unaligned(r.aii + k);
    const V Ur = xsimd::fms(wir, ar, wii * ai), Ui = xsimd::fma(wir, ai, wii * ar);
    const V Vr = xsimd::fms(air, ar, aii * ai), Vi = xsimd::fma(air, ai, aii * ar);
    const V wr = V::load_unaligned(r.wr + k), wi2 = V::load_unaligned(r.wi2 + k), thr = V::load_unaligned(r.thr + k);
    V wd[2];
    for (int w = 0; w < 2; ++w) {
      const V d = xv[w] - wr;
      wd[w] = xsimd::fma(d, d, wi2);
    }
    const V R = V(1.0) / (wd[0] * wd[1]);
    const V inv[2] = {xsimd::select(wd[0] > thr, R * wd[1], V(0.0)), xsimd::select(wd[1] > thr, R * wd[0], V(0.0))};
    for (int w = 0; w < 2; ++w) {
      s[w][0] = xsimd::fma(inv[w], Ur, s[w][0]);
      s[w][1] = xsimd::fma(inv[w], Ui, s[w][1]);
      s[w][2] = xsimd::fma(inv[w], Vr, s[w][2]);
      s[w][3] = xsimd::fma(inv[w], Vi, s[w][3]);
    }
  }
  Sums out;
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 4; ++i) out.u[w][i] = xsimd::hadd(s[w][i]);
  return out;
}

#ifndef NO_HWY
namespace hn = hwy::HWY_NAMESPACE;
__attribute__((noinline)) Sums loop_hwy(const Rows& r, const double* x) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const int N = int(hn::Lanes(d));
  const V xv[2] = {hn::Set(d, x[0]), hn::Set(d, x[1])};
  V s[2][4];
  for (auto& f : s)
    for (V& v : f) v = hn::Zero(d);
  for (int k = 0; k < kLen; k += N) {
    const V ar = hn::LoadU(d, r.ar + k), ai = hn::LoadU(d, r.ai + k);
    const V wir = hn::LoadU(d, r.wir + k), wii = hn::LoadU(d, r.wii + k);
    const V air = hn::LoadU(d, r.air + k), aii = hn::LoadU(d, r.aii + k);
    const V Ur = hn::MulSub(wir, ar, hn::Mul(wii, ai)), Ui = hn::MulAdd(wir, ai, hn::Mul(wii, ar));
    const V Vr = hn::MulSub(air, ar, hn::Mul(aii, ai)), Vi = hn::MulAdd(air, ai, hn::Mul(aii, ar));
    const V wr = hn::LoadU(d, r.wr + k), wi2 = hn::LoadU(d, r.wi2 + k), thr = hn::LoadU(d, r.thr + k);
    V wd[2];
    for (int w = 0; w < 2; ++w) {
      const V dd = hn::Sub(xv[w], wr);
      wd[w] = hn::MulAdd(dd, dd, wi2);
    }
    const V R = hn::Div(hn::Set(d, 1.0), hn::Mul(wd[0], wd[1]));
    const V inv[2] = {hn::IfThenElseZero(hn::Gt(wd[0], thr), hn::Mul(R, wd[1])),
                      hn::IfThenElseZero(hn::Gt(wd[1], thr), hn::Mul(R, wd[0]))};
    for (int w = 0; w < 2; ++w) {
      s[w][0] = hn::MulAdd(inv[w], Ur, s[w][0]);
      s[w][1] = hn::MulAdd(inv[w], Ui, s[w][1]);
      s[w][2] = hn::MulAdd(inv[w], Vr, s[w][2]);
      s[w][3] = hn::MulAdd(inv[w], Vi, s[w][3]);
    }
  }
  Sums out;
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 4; ++i) out.u[w][i] = hn::GetLane(hn::SumOfLanes(d, s[w][i]));
  return out;
}
#endif

#ifdef WITH_KOKKOS_SIMD
__attribute__((noinline)) Sums loop_kokkos(const Rows& r, const double* x) {
  using V = Kokkos::Experimental::native_simd<double>;
  constexpr int N = int(V::size());
  const auto tag = Kokkos::Experimental::simd_flag_default;
  const auto load = [&](const double* p) {
    V v;
    v.copy_from(p, tag);
    return v;
  };
  const V xv[2] = {V(x[0]), V(x[1])};
  V s[2][4];
  for (auto& f : s)
    for (V& v : f) v = V(0.0);
  for (int k = 0; k < kLen; k += N) {
    const V ar = load(r.ar + k), ai = load(r.ai + k);
    const V wir = load(r.wir + k), wii = load(r.wii + k), air = load(r.air + k), aii = load(r.aii + k);
    const V Ur = Kokkos::fma(wir, ar, -(wii * ai)), Ui = Kokkos::fma(wir, ai, wii * ar);
    const V Vr = Kokkos::fma(air, ar, -(aii * ai)), Vi = Kokkos::fma(air, ai, aii * ar);
    const V wr = load(r.wr + k), wi2 = load(r.wi2 + k), thr = load(r.thr + k);
    V wd[2];
    for (int w = 0; w < 2; ++w) {
      const V dd = xv[w] - wr;
      wd[w] = Kokkos::fma(dd, dd, wi2);
    }
    const V R = V(1.0) / (wd[0] * wd[1]);
    const V inv[2] = {Kokkos::Experimental::condition(wd[0] > thr, R * wd[1], V(0.0)),
                      Kokkos::Experimental::condition(wd[1] > thr, R * wd[0], V(0.0))};
    for (int w = 0; w < 2; ++w) {
      s[w][0] = Kokkos::fma(inv[w], Ur, s[w][0]);
      s[w][1] = Kokkos::fma(inv[w], Ui, s[w][1]);
      s[w][2] = Kokkos::fma(inv[w], Vr, s[w][2]);
      s[w][3] = Kokkos::fma(inv[w], Vi, s[w][3]);
    }
  }
  Sums out;
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 4; ++i) out.u[w][i] = Kokkos::Experimental::reduce(s[w][i], std::plus<>());
  return out;
}
#endif

template <class F>
void time_it(const char* name, int lanes, F f, const Rows& r, const double* x) {
  const int reps = 20000;
  double check = 0;
  Sums s = f(r, x);  // warm
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) {
    s = f(r, x);
    check += s.u[0][0] + s.u[1][3];
    asm volatile("" ::: "memory");
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-7s lanes %d  %6.2f ns per vector  %6.3f ns per G  sums %.15e %.15e\n", name, lanes,
              ns / reps / (kLen / lanes), ns / reps / kLen, s.u[0][0], s.u[1][3]);
  (void)check;
}

}  // namespace

int main() {
  std::vector<double> buf(9 * kLen);
  std::srand(7);
  auto rnd = [] { return double(std::rand()) / RAND_MAX; };
  double* p[9];
  for (int i = 0; i < 9; ++i) p[i] = buf.data() + i * kLen;
  for (int k = 0; k < kLen; ++k) {
    const double wr = 0.2 + 30 * rnd(), wi = 0.1 * rnd();
    const double ir = rnd() - 0.5, ii = rnd() - 0.5;
    p[0][k] = wr, p[1][k] = wi * wi, p[2][k] = (k % 17 == 0) ? 1e300 : 1e-3;
    p[3][k] = wr * ir - wi * ii, p[4][k] = wr * ii + wi * ir;
    p[5][k] = (wr * wr + wi * wi) * ir, p[6][k] = (wr * wr + wi * wi) * ii;
    p[7][k] = rnd() - 0.5, p[8][k] = rnd() - 0.5;
  }
  const Rows r{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]};
  const double x[2] = {11.3, -4.7};
  for (int round = 0; round < 3; ++round) {
    time_it("omp", 1, loop_omp, r, x);
    time_it("xsimd", int(xsimd::batch<double>::size), loop_xsimd, r, x);
#ifndef NO_HWY
    time_it("hwy", int(hn::Lanes(hn::ScalableTag<double>())), loop_hwy, r, x);
#endif
#ifdef WITH_KOKKOS_SIMD
    time_it("kokkos", int(Kokkos::Experimental::native_simd<double>::size()), loop_kokkos, r, x);
#endif
  }
}
