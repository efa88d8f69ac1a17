#pragma once
// The few API differences between Kokkos 3.4 (Debian 12, CI) and Kokkos 4.x (GPU
// builds, spack). Nothing else in the project may test KOKKOS_VERSION.
#include <Kokkos_Core.hpp>
#if defined(GPP_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#endif

#include <string>
#include <type_traits>

namespace gpp::compat {

/// The square root on every space (not named sqrt: a call of sqrt in a kernel is the device's).
#if KOKKOS_VERSION >= 40000
KOKKOS_FORCEINLINE_FUNCTION double square_root(double x) { return Kokkos::sqrt(x); }
#else
// Kokkos 3.4 keeps the real math functions in Kokkos::Experimental.
KOKKOS_FORCEINLINE_FUNCTION double square_root(double x) { return Kokkos::Experimental::sqrt(x); }
#endif

// Before Kokkos 4.1 (Debian 12's 3.4: host builds) the host compiler's builtins, where it
// has them (GCC and Clang): the fast reference's host pass takes each chunk's list of
// terms off the regular arm bit by bit, and a loop a bit there cost about a tenth of the
// pass (docs/lab/cpu-host.md). A device pass of such a build keeps the loops.
#if KOKKOS_VERSION < 40100 && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__)
#define GPP_COMPAT_HOST_BITS 1
#endif

/// The index of the lowest set bit of x (x != 0): the hardware's instruction where
/// Kokkos has it (4.1 onwards, every backend) or the host compiler does, a loop otherwise.
KOKKOS_FORCEINLINE_FUNCTION int countr_zero(unsigned x) {
#if KOKKOS_VERSION >= 40100
  return Kokkos::Experimental::countr_zero_builtin(x);
#elif defined(GPP_COMPAT_HOST_BITS)
  return __builtin_ctz(x);
#else
  int n = 0;
  for (; !(x & 1u); x >>= 1) ++n;
  return n;
#endif
}

/// The number of set bits of x: the hardware's instruction where Kokkos has it (4.1
/// onwards) or the host compiler does, a loop otherwise.
KOKKOS_FORCEINLINE_FUNCTION int popcount(unsigned x) {
#if KOKKOS_VERSION >= 40100
  return Kokkos::Experimental::popcount_builtin(x);
#elif defined(GPP_COMPAT_HOST_BITS)
  return __builtin_popcount(x);
#else
  int n = 0;
  for (; x != 0u; x &= x - 1u) ++n;
  return n;
#endif
}

/// |z| of a Kokkos complex, as the paper's literal abs() (a square root per call).
KOKKOS_FORCEINLINE_FUNCTION double abs(const Kokkos::complex<double>& z) {
  return square_root(z.real() * z.real() + z.imag() * z.imag());
}

/// "major.minor.patch" of the Kokkos the program was compiled against.
inline std::string kokkos_version_string() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

/// Whether Kokkos was finalized in this process (it cannot start again): Kokkos 4 says so;
/// Kokkos 3.4 has no such query, and its callers track what they finalized themselves.
inline bool kokkos_finalized() {
#if KOKKOS_VERSION >= 40000
  return Kokkos::is_finalized();
#else
  return false;
#endif
}

/// Kokkos::Profiling::ScopedRegion (Kokkos 4.x) for Kokkos 3.4 as well.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

/// A second instance of a device execution space, with a queue of its own: work given to
/// it (the G' chunks' copies) runs beside the kernels of `space`. Kokkos 4 and 5 make it
/// with partition_space; Kokkos 3.4 has none, and there the copies share `space`'s queue
/// (they then run between the kernels: the same results, no overlap). A host space is
/// returned as it is: its copies are synchronous, and an OpenMP partition would split
/// its threads.
template <class ExecSpace>
ExecSpace independent_instance(const ExecSpace& space) {
  if constexpr (std::is_same_v<ExecSpace, Kokkos::DefaultHostExecutionSpace>) {
    return space;
  } else {
#if KOKKOS_VERSION >= 40000
    return Kokkos::Experimental::partition_space(space, 1)[0];
#else
    return space;
#endif
  }
}

#if defined(GPP_HAVE_KOKKOSKERNELS)
/// C = alpha op(A) op(B) + beta C on `space` (Kokkos Kernels 3.4 has no execution-space
/// argument: it runs on the Views' default space, fenced around).
template <class ExecSpace, class A, class B, class C, class Scalar>
void gemm(const ExecSpace& space, const char* transA, const char* transB, const Scalar alpha, const A& a, const B& b,
          const Scalar beta, const C& c) {
#if KOKKOS_VERSION >= 40000
  KokkosBlas::gemm(space, transA, transB, alpha, a, b, beta, c);
#else
  space.fence();
  KokkosBlas::gemm(transA, transB, alpha, a, b, beta, c);
  Kokkos::fence();
#endif
}
#endif

}  // namespace gpp::compat

/// Kokkos 3.4's Threads backend hands a team_reduce result back through a const volatile
/// lvalue (Kokkos_ThreadsTeam.hpp: `reducer.reference() = *((type volatile const*)p)`),
/// which a class without a volatile assignment cannot take. A value type reduced over a
/// team declares this assignment from `const volatile Type&`, forwarded to its ordinary
/// copy. It is a template, so never the copy assignment: the type keeps its implicit,
/// trivial copy and move (Kokkos 4 and every other backend never call it).
#define GPP_COMPAT_VOLATILE_SOURCE_ASSIGN(Type)                         \
  template <class V, class = std::enable_if_t<std::is_same_v<V, Type>>> \
  KOKKOS_INLINE_FUNCTION Type& operator=(const volatile V& other) {     \
    return *this = const_cast<const Type&>(other);                      \
  }

namespace gpp {
/// Kokkos 3.4's OpenMP backend joins reduction values through volatile references
/// (FunctorValueJoin's `*(volatile T*)lhs += *(const volatile T*)rhs`) when a reducer's
/// join is not the volatile one it looks for; Kokkos 4 dropped volatile joins and never
/// calls this. It forwards a volatile += to the value type's own operator+= (SigmaAccum,
/// BranchCounts): the values are not volatile objects, only reached through volatile
/// pointers. Argument-dependent lookup finds it for gpp's types (a type in an unnamed
/// namespace needs `using gpp::operator+=;` there); a non-volatile += still calls the
/// member, the better match.
template <class T, class = std::enable_if_t<std::is_class_v<T>>>
KOKKOS_INLINE_FUNCTION volatile T& operator+=(volatile T& lhs, const volatile T& rhs) {
  const_cast<T&>(lhs) += const_cast<const T&>(rhs);
  return lhs;
}
}  // namespace gpp
