#pragma once
// The vector types of the host policy's G loops and the few operations those loops need
// beyond arithmetic: a fused multiply-add, a value kept where a mask is set (else 0),
// comparisons into masks, a mask's lanes as bits, the lanes of a mask appended to a list of
// indices, a gather by index, the sums of several vectors' lanes, a prefetch.
//
// Three kinds of vector, the same loops over each (policies/host.cpp):
//   Xsimd      xsimd::batch<double> for the instruction set the compiler targets
//              (GPP_HOST_ARCH: AVX-512 8 lanes, AVX2 4, SSE2 and NEON 2), where the build
//              found xsimd (GPP_HAVE_XSIMD)
//   Pack<N>    N doubles with element loops, which the compiler vectorises as it can: the
//              loops of a build without xsimd (N from the targeted instruction set)
//   Pack<1>    one G at a time: the scalar form of the same loops
// Native is the first two's: the build's vector.
// xsimd, not Kokkos::Experimental::simd: Kokkos' vector ABIs exist only where Kokkos itself
// was configured for a CPU (Kokkos_ARCH_...), which gpp's builds leave to GPP_HOST_ARCH,
// and Kokkos 3.4 has none; nor Highway 1.0 (Debian 12), which refuses g++ 12's
// -march=sapphirerapids (docs/lab/cpu-host.md, "One SIMD abstraction").
//
// This is the one file of the project with instruction-set intrinsics: where xsimd 8 has
// no operation for a mask's bits, compressed indices or an indexed gather, they are
// written here per instruction set, with a portable loop for the others.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

// Not in a CUDA or HIP device pass, which never runs the host loops, nor under nvcc before
// CUDA 12.3 with GCC 12 or later as the host compiler: those CUDA headers #define _Float16,
// which breaks GCC 12's <immintrin.h> (avx512fp16intrin.h, kokkos-kernels#2108). CUDA 11.8
// with g++ 11, the pair scripts/volta-build.sh uses, is not affected.
#if defined(__NVCC__) && defined(__GNUC__) && __GNUC__ >= 12 && \
    (__CUDACC_VER_MAJOR__ < 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ < 3))
#define GPP_SIMD_NVCC_BLOCKS_INTRINSICS 1
#else
#define GPP_SIMD_NVCC_BLOCKS_INTRINSICS 0
#endif
#if defined(GPP_HAVE_XSIMD) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !GPP_SIMD_NVCC_BLOCKS_INTRINSICS
#include <xsimd/xsimd.hpp>
#endif
// xsimd's batch of doubles where xsimd has one for the target (x86-64: SSE2 and later;
// aarch64: NEON)
#if defined(XSIMD_VERSION_MAJOR) && (XSIMD_WITH_SSE2 || XSIMD_WITH_NEON64)
#define GPP_SIMD_XSIMD 1
#else
#define GPP_SIMD_XSIMD 0
#endif
#define GPP_SIMD_AVX512 0
#define GPP_SIMD_AVX2 0
#define GPP_SIMD_NEON64 0
#if GPP_SIMD_XSIMD && XSIMD_WITH_AVX512F && defined(__AVX512VL__)
#include <immintrin.h>
#undef GPP_SIMD_AVX512
#define GPP_SIMD_AVX512 1
#elif GPP_SIMD_XSIMD && XSIMD_WITH_AVX2
#include <immintrin.h>
#undef GPP_SIMD_AVX2
#define GPP_SIMD_AVX2 1
#elif GPP_SIMD_XSIMD && XSIMD_WITH_NEON64
#include <arm_neon.h>
#undef GPP_SIMD_NEON64
#define GPP_SIMD_NEON64 1
#endif

namespace gpp::simd {

// Whether this build's vector loops are xsimd's.
inline constexpr bool kHaveXsimd = GPP_SIMD_XSIMD;

// Calls f(std::integral_constant<int, i>{}) for i = 0 .. N-1, unrolled: the loops' arrays
// of per-frequency vectors are indexed by constants and stay in registers.
template <int N, class F, int... I>
inline void each(const F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
inline void each(const F& f) {
  each<N>(f, std::make_integer_sequence<int, N>{});
}

// The lanes a build without xsimd packs: the width of the targeted instruction set.
#if defined(__AVX512F__)
inline constexpr int kPortableLanes = 8;
#elif defined(__AVX__)
inline constexpr int kPortableLanes = 4;
#elif defined(__SSE2__) || defined(__ARM_NEON)
inline constexpr int kPortableLanes = 2;
#else
inline constexpr int kPortableLanes = 1;
#endif

// ---------------------------------------------------------------- Pack<N>

template <int N>
struct PackMask {
  bool m[N];
  friend PackMask operator&(const PackMask& a, const PackMask& b) {
    return apply(a, b, [](bool x, bool y) { return x && y; });
  }
  friend PackMask operator|(const PackMask& a, const PackMask& b) {
    return apply(a, b, [](bool x, bool y) { return x || y; });
  }
  friend PackMask operator~(const PackMask& a) {
    PackMask r;
    for (int i = 0; i < N; ++i) r.m[i] = !a.m[i];
    return r;
  }

 private:
  template <class F>
  static PackMask apply(const PackMask& a, const PackMask& b, const F& f) {
    PackMask r;
    for (int i = 0; i < N; ++i) r.m[i] = f(a.m[i], b.m[i]);
    return r;
  }
};

template <int N>
struct Pack {
  static constexpr int size = N;
  double v[N];
  Pack() = default;
  explicit Pack(const double x) {
    for (int i = 0; i < N; ++i) v[i] = x;
  }
  static Pack load_unaligned(const double* p) {
    Pack r;
    for (int i = 0; i < N; ++i) r.v[i] = p[i];
    return r;
  }
  friend Pack operator+(const Pack& a, const Pack& b) {
    return apply(a, b, [](double x, double y) { return x + y; });
  }
  friend Pack operator-(const Pack& a, const Pack& b) {
    return apply(a, b, [](double x, double y) { return x - y; });
  }
  friend Pack operator*(const Pack& a, const Pack& b) {
    return apply(a, b, [](double x, double y) { return x * y; });
  }
  friend Pack operator/(const Pack& a, const Pack& b) {
    return apply(a, b, [](double x, double y) { return x / y; });
  }
  friend PackMask<N> operator>(const Pack& a, const Pack& b) {
    return compare(a, b, [](double x, double y) { return x > y; });
  }
  friend PackMask<N> operator<(const Pack& a, const Pack& b) {
    return compare(a, b, [](double x, double y) { return x < y; });
  }

 private:
  template <class F>
  static Pack apply(const Pack& a, const Pack& b, const F& f) {
    Pack r;
    for (int i = 0; i < N; ++i) r.v[i] = f(a.v[i], b.v[i]);
    return r;
  }
  template <class F>
  static PackMask<N> compare(const Pack& a, const Pack& b, const F& f) {
    PackMask<N> r;
    for (int i = 0; i < N; ++i) r.m[i] = f(a.v[i], b.v[i]);
    return r;
  }
};

// a * b + c with one rounding where the target has an FMA instruction (as xsimd's fma), else
// with two (std::fma without the instruction is a library call per element).
inline double fused(const double a, const double b, const double c) {
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

template <int N>
inline Pack<N> fused_mul_add(const Pack<N>& a, const Pack<N>& b, const Pack<N>& c) {
  Pack<N> r;
  for (int i = 0; i < N; ++i) r.v[i] = fused(a.v[i], b.v[i], c.v[i]);
  return r;
}
template <int N>
inline Pack<N> fused_mul_sub(const Pack<N>& a, const Pack<N>& b, const Pack<N>& c) {
  Pack<N> r;
  for (int i = 0; i < N; ++i) r.v[i] = fused(a.v[i], b.v[i], -c.v[i]);
  return r;
}
template <int N>
inline Pack<N> keep(const PackMask<N>& m, const Pack<N>& a) {
  Pack<N> r;
  for (int i = 0; i < N; ++i) r.v[i] = m.m[i] ? a.v[i] : 0.0;
  return r;
}
template <int N>
inline Pack<N> select(const PackMask<N>& m, const Pack<N>& a, const Pack<N>& b) {
  Pack<N> r;
  for (int i = 0; i < N; ++i) r.v[i] = m.m[i] ? a.v[i] : b.v[i];
  return r;
}
template <int N>
inline unsigned bits(const PackMask<N>& m) {
  unsigned b = 0;
  for (int i = 0; i < N; ++i) b |= unsigned(m.m[i]) << i;
  return b;
}
template <int N>
inline bool any(const PackMask<N>& m) {
  return bits(m) != 0;
}
// sums[i] = the sum of v[i]'s lanes, i < count (pairwise within each vector).
template <int N>
inline void lane_sums(const Pack<N>* v, const int count, double* sums) {
  for (int i = 0; i < count; ++i) {
    double t[N];
    for (int j = 0; j < N; ++j) t[j] = v[i].v[j];
    for (int w = 1; w < N; w *= 2)
      for (int j = 0; j + w < N; j += 2 * w) t[j] += t[j + w];
    sums[i] = t[0];
  }
}

// ---------------------------------------------------------------- xsimd

#if GPP_SIMD_XSIMD
using Xsimd = xsimd::batch<double>;
// xsimd 8 has no AVX-512 FMA of its own: its generic one is a product and a sum, which g++
// contracts (-ffp-contract=fast) and clang does not (a multiply and an add where one FMA
// was), and which each compiler may contract differently in the two places that must
// compute |wdiff|^2 alike (host.cpp's near-pole pass).
template <class A>
inline xsimd::batch<double, A> fused_mul_add(const xsimd::batch<double, A>& a, const xsimd::batch<double, A>& b,
                                             const xsimd::batch<double, A>& c) {
#if GPP_SIMD_AVX512
  if constexpr (std::is_base_of_v<xsimd::avx512f, A>) return _mm512_fmadd_pd(a, b, c);
#endif
  return xsimd::fma(a, b, c);
}
template <class A>
inline xsimd::batch<double, A> fused_mul_sub(const xsimd::batch<double, A>& a, const xsimd::batch<double, A>& b,
                                             const xsimd::batch<double, A>& c) {
#if GPP_SIMD_AVX512
  if constexpr (std::is_base_of_v<xsimd::avx512f, A>) return _mm512_fmsub_pd(a, b, c);
#endif
  return xsimd::fms(a, b, c);
}
// With AVX-512, g++ and clang make the product this keeps one zero-masked multiply.
template <class A>
inline xsimd::batch<double, A> keep(const xsimd::batch_bool<double, A>& m, const xsimd::batch<double, A>& a) {
  return xsimd::select(m, a, xsimd::batch<double, A>(0.0));
}
// With AVX-512, a select of an FMA's result and its addend is one merge-masked FMA.
template <class A>
inline xsimd::batch<double, A> select(const xsimd::batch_bool<double, A>& m, const xsimd::batch<double, A>& a,
                                      const xsimd::batch<double, A>& b) {
  return xsimd::select(m, a, b);
}
template <class A>
inline bool any(const xsimd::batch_bool<double, A>& m) {
  return xsimd::any(m);
}
template <class A>
inline unsigned bits(const xsimd::batch_bool<double, A>& m) {
  using Reg = typename xsimd::batch_bool<double, A>::register_type;
#if GPP_SIMD_AVX512
  if constexpr (std::is_base_of_v<xsimd::avx512f, A>) return static_cast<Reg>(m);
#endif
#if GPP_SIMD_AVX2
  if constexpr (std::is_base_of_v<xsimd::avx, A>) return unsigned(_mm256_movemask_pd(static_cast<Reg>(m)));
#endif
#if GPP_SIMD_NEON64
  if constexpr (std::is_base_of_v<xsimd::neon64, A>) {
    const uint64x2_t r = static_cast<Reg>(m);
    return unsigned(vgetq_lane_u64(r, 0) & 1u) | unsigned(vgetq_lane_u64(r, 1) & 1u) << 1;
  }
#endif
  constexpr int N = int(xsimd::batch<double, A>::size);
  bool b[N];
  m.store_unaligned(b);
  unsigned r = 0;
  for (int i = 0; i < N; ++i) r |= unsigned(b[i]) << i;
  return r;
}
template <class A>
inline void lane_sums(const xsimd::batch<double, A>* v, const int count, double* sums) {
  using V = xsimd::batch<double, A>;
  constexpr int N = int(V::size);
  for (int i0 = 0; i0 < count; i0 += N) {
    V rows[N];
    for (int i = 0; i < N; ++i) rows[i] = i0 + i < count ? v[i0 + i] : V(0.0);
#if GPP_SIMD_AVX512
    // xsimd 8's haddp in 512-bit shuffles that g++ 12 warns about from its own headers
    // (a false -Wuninitialized, GCC bug 105593); the zero-masked forms under an all-ones
    // mask are the same instructions
    __m512d t[4], u[2];
    for (int i = 0; i < 4; ++i)
      t[i] = _mm512_add_pd(_mm512_maskz_unpacklo_pd(0xFF, rows[2 * i], rows[2 * i + 1]),
                           _mm512_maskz_unpackhi_pd(0xFF, rows[2 * i], rows[2 * i + 1]));
    const auto fold = [](const __m512d p, const __m512d q) {
      return _mm512_add_pd(_mm512_maskz_shuffle_f64x2(0xFF, p, q, 0x88), _mm512_maskz_shuffle_f64x2(0xFF, p, q, 0xDD));
    };
    u[0] = fold(t[0], t[1]);
    u[1] = fold(t[2], t[3]);
    const V s = fold(u[0], u[1]);
#else
    const V s = xsimd::haddp(rows);
#endif
    alignas(64) double r[N];
    s.store_aligned(r);
    for (int i = 0; i < N && i0 + i < count; ++i) sums[i0 + i] = r[i];
  }
}
#endif

// ---------------------------------------------------------------- every vector type

#if GPP_SIMD_XSIMD
using Native = Xsimd;
#else
using Native = Pack<kPortableLanes>;
#endif

template <class V>
struct Traits;
template <int N>
struct Traits<Pack<N>> {
  using Mask = PackMask<N>;
  static constexpr int lanes = N;
};
#if GPP_SIMD_XSIMD
template <class A>
struct Traits<xsimd::batch<double, A>> {
  using Mask = xsimd::batch_bool<double, A>;
  static constexpr int lanes = int(xsimd::batch<double, A>::size);
};
#endif
template <class V>
using MaskOf = typename Traits<V>::Mask;
template <class V>
inline constexpr int kLanes = Traits<V>::lanes;

template <class V>
inline V load(const double* p) {
  return V::load_unaligned(p);
}

// The vector of lane indices 0, 1, ..., as doubles.
template <class V>
inline V lane_index() {
  alignas(64) double i[kLanes<V>];
  for (int j = 0; j < kLanes<V>; ++j) i[j] = j;
  return load<V>(i);
}
// Lanes 0 .. n-1 set (n <= the lane count).
template <class V>
inline MaskOf<V> first_lanes(const int n) {
  return lane_index<V>() < V(double(n));
}
template <class V>
inline MaskOf<V> all_lanes() {
  return V(0.0) < V(1.0);
}

// A list of indices built a vector at a time: append_unset(m) adds, for each lane i
// clear in m, the index of that lane (the first call's lanes are 0 .. kLanes-1, each call
// the next kLanes), in order. Each call writes kLanes ints at the list's end, whichever
// are kept: the storage must hold kLanes ints more than the list can hold. The list of G
// a loop hands to the next pass: with AVX-512 the indices are compressed in a register
// (vpcompressd), which holds the next indices too; elsewhere each lane's index is stored
// and the end advances past the kept ones (branch-free).
template <class V>
class IndexList {
 public:
  explicit IndexList(int* out = nullptr) : out_(out) {}
  int size() const { return n_; }
  void append_unset(const MaskOf<V>& m) {
    const unsigned keep = ~bits(m) & ((1u << kLanes<V>)-1);
    for (int i = 0; i < kLanes<V>; ++i) {
      out_[n_] = next_ + i;
      n_ += (keep >> i) & 1u;
    }
    next_ += kLanes<V>;
  }

 private:
  int* out_;
  int n_ = 0, next_ = 0;
};
#if GPP_SIMD_AVX512
template <>
class IndexList<Xsimd> {
 public:
  explicit IndexList(int* out = nullptr) : out_(out), next_(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)) {}
  int size() const { return n_; }
  void append_unset(const MaskOf<Xsimd>& m) {
    const __mmask8 keep = static_cast<__mmask8>(~static_cast<unsigned>(static_cast<__mmask8>(m)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_ + n_), _mm256_maskz_compress_epi32(keep, next_));
    n_ += __builtin_popcount(static_cast<unsigned>(keep));
    next_ = _mm256_add_epi32(next_, _mm256_set1_epi32(8));
  }

 private:
  int* out_;
  int n_ = 0;
  __m256i next_;
};
#endif
#if GPP_SIMD_AVX2
// AVX2 has no compress: the kept lanes' offsets come from a table of the 16 masks of 4
// lanes (a load and an add, where a store and an add per lane took 4 of each).
template <>
class IndexList<Xsimd> {
 public:
  explicit IndexList(int* out = nullptr) : out_(out) {}
  int size() const { return n_; }
  void append_unset(const MaskOf<Xsimd>& m) {
    const unsigned keep = ~bits(m) & 0xFu;
    const __m128i offsets = _mm_load_si128(reinterpret_cast<const __m128i*>(kKept[keep]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out_ + n_), _mm_add_epi32(offsets, _mm_set1_epi32(next_)));
    n_ += __builtin_popcount(keep);
    next_ += 4;
  }

 private:
  // kKept[b]: the lanes set in b, in order (the rest 0)
  alignas(16) static constexpr int kKept[16][4] = {
      {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
      {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0}, {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
  int* out_;
  int n_ = 0, next_ = 0;
};
#endif

// row[idx[i]] in lane i (every idx[i] a valid index).
template <class V>
inline V gather(const double* row, const int* idx) {
#if GPP_SIMD_AVX512
  if constexpr (kLanes<V> == 8 && std::is_same_v<V, Xsimd>)
    // the masked forms under an all-ones mask: the plain ones draw a false
    // -Wmaybe-uninitialized from g++ 12's headers
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF,
                                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx)), row, 8);
#endif
#if GPP_SIMD_AVX2
  if constexpr (kLanes<V> == 4 && std::is_same_v<V, Xsimd>)
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), row, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx)),
                                    _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
#endif
  alignas(64) double v[kLanes<V>];
  for (int i = 0; i < kLanes<V>; ++i) v[i] = row[idx[i]];
  return load<V>(v);
}

// A hint that p will be read soon (into L1); never faults. Always inlined: g++ finds a
// function that only prefetches free of side effects and drops the calls it has not
// inlined yet (calls from an always-inlined loop body, as host.cpp's, lost every prefetch).
__attribute__((always_inline)) inline void prefetch(const double* p) { __builtin_prefetch(p, 0, 3); }

// What the loops over V are: "xsimd avx512bw, 8 lanes", "portable packs of 4 lanes",
// "scalar".
template <class V>
inline std::string describe() {
  if constexpr (std::is_same_v<V, Pack<1>>) {
    return "scalar";
  } else if constexpr (std::is_same_v<V, Pack<kLanes<V>>>) {
    return "portable packs of " + std::to_string(kLanes<V>) + " lanes";
  } else {
#if GPP_SIMD_XSIMD
    return std::string("xsimd ") + V::arch_type::name() + ", " + std::to_string(kLanes<V>) + " lanes";
#endif
  }
}

}  // namespace gpp::simd
