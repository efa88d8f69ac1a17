// The throughput of a 512-bit division (vdivpd) and of vrcp14pd with two Newton steps,
// against the FMA's, on one x86-64 CPU with AVX-512: whether the host policy's loops are
// bound by the divider (docs/lab/cpu-host.md). Independent
// chains held in registers; the FMA loop (16 chains, 2 FMA a cycle assumed) gives the
// clock that converts the others' times into cycles. Not part of the build:
//
//   g++ -O2 -march=native -fopenmp lab/div_throughput.cpp -o div_throughput
//   OMP_NUM_THREADS=1 ./div_throughput
#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#define K(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define K16(X) K(X) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define DECL(i) __m512d a##i = _mm512_set1_pd(1.0 + i * 0.1);
#define KEEP(i) asm volatile("" : "+v"(a##i));
#define SUM(i)                 \
  {                            \
    alignas(64) double b[8];   \
    _mm512_store_pd(b, a##i);  \
    for (double x : b) s += x; \
  }  // not _mm512_reduce_add_pd: GCC bug 105593
double run_div(long n) {
  const __m512d one = _mm512_set1_pd(1.0), e = _mm512_set1_pd(1e-9);
  K(DECL)
#define STEP(i) a##i = _mm512_add_pd(_mm512_div_pd(one, a##i), e);
  for (long t = 0; t < n; ++t) {
    K(STEP) K(KEEP)
  }
#undef STEP
  double s = 0;
  K(SUM) return s;
}
double run_rcp(long n) {  // rcp14 + 2 Newton steps: 1 rcp, 4 FMA per reciprocal
  const __m512d one = _mm512_set1_pd(1.0), e = _mm512_set1_pd(1e-9);
  K(DECL)
#define STEP(i)                                                                        \
  {                                                                                    \
    const __m512d r0 = _mm512_maskz_rcp14_pd(0xFF, a##i);                              \
    const __m512d r1 = _mm512_fmadd_pd(r0, _mm512_fnmadd_pd(a##i, r0, one), r0);       \
    a##i = _mm512_add_pd(_mm512_fmadd_pd(r1, _mm512_fnmadd_pd(a##i, r1, one), r1), e); \
  }
  for (long t = 0; t < n; ++t) {
    K(STEP) K(KEEP)
  }
#undef STEP
  double s = 0;
  K(SUM) return s;
}
double run_fma(long n) {
  const __m512d m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-9);
  K16(DECL)
#define STEP(i) a##i = _mm512_fmadd_pd(a##i, m, c);
  for (long t = 0; t < n; ++t) {
    K16(STEP) K16(KEEP)
  }
#undef STEP
  double s = 0;
  K16(SUM) return s;
}
int main() {
  const long n = 20000000;
  for (int rep = 0; rep < 3; ++rep) {
    double sink = 0;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += run_fma(n);
    auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += run_div(n / 4);
    auto t2 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += run_rcp(n / 4);
    auto t3 = std::chrono::steady_clock::now();
    const double tf = std::chrono::duration<double>(t1 - t0).count(),
                 td = std::chrono::duration<double>(t2 - t1).count(),
                 tr = std::chrono::duration<double>(t3 - t2).count();
    const double hz = n * 8.0 / tf;  // 16 FMA per step at 2 per cycle
    printf(
        "threads %d: fma %.3f s (%.2f GHz at 2 FMA/cycle); vdivpd zmm: %.1f cycles each; rcp14+2 Newton: %.1f cycles each (sink %g)\n",
        omp_get_max_threads(), tf, hz / 1e9, td * hz / (n / 4 * 8.0), tr * hz / (n / 4 * 8.0), sink);
  }
}
