#include "gpp_ceilings.hpp"

#include "gpp_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace gpp::measure::ceilings {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Threads for a register-only kernel: enough to fill every lane of the machine.
template <class ExecSpace>
int fill_threads(const ExecSpace& space) {
  return kind_of<ExecSpace>() == SpaceKind::Host ? space.concurrency() : 4 * space.concurrency();
}

// Independent FMA chains per thread (a static member: usable in device lambdas).
template <class ExecSpace>
struct Chains {
  static constexpr int value = kind_of<ExecSpace>() == SpaceKind::Host ? 8 : kChains;
};

// The host: doubles per vector register of the ISA the file is compiled for
// (GPP_HOST_ARCH), and chains enough to cover the FMA latency (4 cycles) on two FMA ports
// with vector registers to spare: 8 registers' worth of chains where there are 32
// registers (AVX-512), 8 of 16 (AVX), 4 of 16 (SSE2, which has no FMA: a*b+c is a
// multiply and an add, still 2 FLOPs).
#if defined(__AVX512F__)
constexpr int kHostLanes = 8, kHostVectorChains = 8;
#elif defined(__AVX__)
constexpr int kHostLanes = 4, kHostVectorChains = 8;
#else
constexpr int kHostLanes = 2, kHostVectorChains = 4;
#endif
constexpr int kHostChains = kHostLanes * kHostVectorChains;

// One host thread's chains: the j loop is a SIMD loop, so each group of kHostLanes chains
// is one vector FMA (as the assembly shows).
[[gnu::noinline]] double host_fma_chains(const int t, const int iters, const double b, const double c) {
  double a[kHostChains];
  for (int j = 0; j < kHostChains; ++j) a[j] = 1.0 + 1e-3 * j + 1e-9 * t;
  for (int i = 0; i < iters; ++i) {
#pragma omp simd
    for (int j = 0; j < kHostChains; ++j) a[j] = a[j] * b + c;
  }
  double local = 0;
  for (int j = 0; j < kHostChains; ++j) local += a[j];
  return local;
}

}  // namespace

template <class ExecSpace>
Measured fma_peak(const ExecSpace& space, int trials, double min_seconds) {
  const int threads = fill_threads(space);
  constexpr bool host = kind_of<ExecSpace>() == SpaceKind::Host;
  // 16 chains on GPUs (registers are plenty); on the host, vectors of chains
  // (kHostChains: 64 with AVX-512), the j loop vectorised (host_fma_chains).
  constexpr int C = host ? kHostChains : Chains<ExecSpace>::value;
  // a = a*b + c with b slightly below 1 and c small: bounded, never denormal.
  const double b = 1.0 - 1e-9, c = 1e-9;
  auto launch = [&](int iters) {
    double sum = 0;
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (host) {
      // A host lambda: the SIMD loop is host code.
      Kokkos::parallel_reduce(
          "gpp::ceilings::fma", Kokkos::RangePolicy<ExecSpace>(space, 0, threads),
          [=](const int t, double& s) { s += host_fma_chains(t, iters, b, c); }, sum);
    } else {
      Kokkos::parallel_reduce(
          "gpp::ceilings::fma", Kokkos::RangePolicy<ExecSpace>(space, 0, threads),
          KOKKOS_LAMBDA(const int t, double& s) {
            double a[Chains<ExecSpace>::value];
            for (int j = 0; j < Chains<ExecSpace>::value; ++j) a[j] = 1.0 + 1e-3 * j + 1e-9 * t;
            for (int i = 0; i < iters; ++i)
              for (int j = 0; j < Chains<ExecSpace>::value; ++j) a[j] = a[j] * b + c;
            double local = 0;
            for (int j = 0; j < Chains<ExecSpace>::value; ++j) local += a[j];
            s += local;
          },
          sum);
    }
    space.fence();
    const double dt = seconds_since(t0);
    // Every chain stays within (0, 2]: a sum outside says the kernel did not run.
    if (!(sum > 0 && sum <= 2.0 * C * threads)) throw Error("FMA ceiling kernel returned " + std::to_string(sum));
    return dt;
  };
  int iters = 256;
  launch(iters);  // warm-up
  while (iters < (1 << 28)) {
    if (launch(iters) >= min_seconds) break;
    iters *= 2;
  }
  double best = 0;
  for (int k = 0; k < trials; ++k) best = std::max(best, 2.0 * C * double(iters) * threads / launch(iters) / 1e9);
  Measured m;
  m.value = best;
  m.method = std::to_string(threads) + " threads x " + std::to_string(C) +
             " independent FMA chains in registers (a = a*b + c" +
             (host ? ", " + std::to_string(kHostLanes) + " per vector" : std::string()) + "), " +
             std::to_string(iters) + " iterations; best of " + std::to_string(trials) + " launches; FLOPs = 2 per FMA";
  return m;
}

template <class ExecSpace>
std::vector<SweepPoint> bandwidth_sweep(const ExecSpace& space, double min_bytes, double max_bytes,
                                        double bytes_per_trial, int trials, std::string& method, bool rotate,
                                        const std::function<void(const SweepPoint&)>& on_point) {
  const bool host = kind_of<ExecSpace>() == SpaceKind::Host;  // captured by the kernel
  const long long max_n = (long long)(max_bytes / sizeof(double));
  // Threads issued together (a warp of 32 on NVIDIA, a wavefront of 64 on AMD).
  const long long simd = host ? 1 : backend::properties(space).simd_width;
  Kokkos::View<double*, typename ExecSpace::memory_space> x(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gpp::ceilings::stream"), max_n);
  Kokkos::parallel_for(
      "gpp::ceilings::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, max_n),
      KOKKOS_LAMBDA(const long long i) { x(i) = 1.0 + 1e-12 * double(i % 1000); });
  std::vector<SweepPoint> points;
  int threads_used = 0;
  for (double ws = min_bytes; ws <= max_bytes * 1.0001; ws *= 2) {
    const long long n = (long long)(ws / sizeof(double));
    // Host: one contiguous chunk per thread. Device: grid stride (thread t reads t, t+T,
    // ...), so each thread re-reads the same elements on the same multiprocessor.
    const long long lanes = host ? space.concurrency() : 4LL * space.concurrency();
    long long threads = std::min<long long>(lanes, n / kStreamAccumulators);
    // Whole warps (wavefronts): rotated columns stay coalesced.
    if (!host && threads >= 2 * simd) threads = threads / simd * simd;
    // Rotation: pass p reads the columns of thread t + p*shift (a multiple of the warp,
    // about 0.38 of the threads: far from the previous pass's block).
    const long long shift = !host && rotate ? std::max<long long>(simd, (long long)(0.382 * threads) / simd * simd) : 0;
    // elements per thread, a multiple of the accumulators
    const long long per_thread = n / threads / kStreamAccumulators * kStreamAccumulators;
    const long long used = per_thread * threads;
    const int passes = int(std::max(1.0, std::ceil(bytes_per_trial / (used * sizeof(double)))));
    threads_used = int(threads);
    std::vector<double> times;
    for (int k = 0; k <= trials; ++k) {  // k = 0: warm-up
      double sum = 0;
      space.fence();
      const auto t0 = std::chrono::steady_clock::now();
      Kokkos::parallel_reduce(
          "gpp::ceilings::stream", Kokkos::RangePolicy<ExecSpace>(space, 0, threads),
          KOKKOS_LAMBDA(const long long t, double& s) {
            double acc[kStreamAccumulators] = {};
            for (int p = 0; p < passes; ++p) {
              const long long col = shift == 0 ? t : (t + p * shift) % threads;
              for (long long k0 = 0; k0 < per_thread; k0 += kStreamAccumulators)
                for (int j = 0; j < kStreamAccumulators; ++j) {
                  const long long k = k0 + j;
                  acc[j] += x(host ? t * per_thread + k : col + k * threads);
                }
            }
            double local = 0;
            for (int j = 0; j < kStreamAccumulators; ++j) local += acc[j];
            s += local;
          },
          sum);
      space.fence();
      const double dt = seconds_since(t0);
      const double expected = double(used) * passes;  // every element is 1 + O(1e-9)
      if (!(std::abs(sum / expected - 1.0) < 1e-6)) throw Error("stream kernel returned a wrong sum");
      if (k > 0) times.push_back(dt);
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    points.push_back({double(used) * sizeof(double), double(used) * sizeof(double) * passes / median / 1e9});
    if (on_point) on_point(points.back());
  }
  method = std::string("read-only stream (sum of doubles, ") + std::to_string(kStreamAccumulators) +
           " accumulators per thread, " +
           (host     ? "one contiguous chunk per thread"
            : rotate ? "grid-stride over the working set, each pass on another thread's columns (no L1 reuse)"
                     : "grid-stride over the working set, each pass on the thread's own columns") +
           ", up to " + std::to_string(threads_used) + " threads), the set re-read inside one launch until " +
           std::to_string((long long)bytes_per_trial) + " bytes are read; median of " + std::to_string(trials) +
           " launches after a warm-up";
  return points;
}

template <class ExecSpace>
std::vector<LinkPoint> host_link(const ExecSpace& space, const double bytes, const int trials, std::string& method) {
  static_assert(kind_of<ExecSpace>() == SpaceKind::Device, "the host-device link of a device space");
  const std::size_t n = std::size_t(bytes);
  auto alloc = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  Kokkos::View<char*, typename ExecSpace::memory_space> device(alloc("gpp::ceilings::link_device"), n);
  Kokkos::View<char*, backend::PinnedSpace> pinned(alloc("gpp::ceilings::link_pinned"), n);
  Kokkos::View<char*, Kokkos::HostSpace> pageable(alloc("gpp::ceilings::link_pageable"), n);
  // Touched first: a page's first fault is the host's cost, not the link's.
  std::memset(pinned.data(), 1, n);
  std::memset(pageable.data(), 1, n);
  Kokkos::deep_copy(space, device, pinned);
  auto best_of = [&](const auto& dst, const auto& src) {
    double best = 0;
    for (int k = 0; k <= trials; ++k) {  // k = 0: warm-up
      space.fence();
      const auto t0 = std::chrono::steady_clock::now();
      Kokkos::deep_copy(space, dst, src);
      space.fence();
      const double dt = seconds_since(t0);
      if (k > 0 && dt > 0) best = std::max(best, double(n) / dt / 1e9);
    }
    return best;
  };
  std::vector<LinkPoint> points = {
      {"host to device", "page-locked", best_of(device, pinned), double(n)},
      {"host to device", "pageable", best_of(device, pageable), double(n)},
      {"device to host", "page-locked", best_of(pinned, device), double(n)},
      {"device to host", "pageable", best_of(pageable, device), double(n)},
  };
  method = "Kokkos::deep_copy of " + std::to_string(n) + " bytes on an instance of the device space, fenced, between " +
           "device memory and page-locked (" + backend::PinnedSpace::name() + ") or pageable (HostSpace) host memory " +
           "touched beforehand; best of " + std::to_string(trials) + " copies after a warm-up";
  return points;
}

template Measured fma_peak(const HostExec&, int, double);
template std::vector<SweepPoint> bandwidth_sweep(const HostExec&, double, double, double, int, std::string&, bool,
                                                 const std::function<void(const SweepPoint&)>&);
#if GPP_HAS_DEVICE_SPACE
template Measured fma_peak(const DeviceExec&, int, double);
template std::vector<SweepPoint> bandwidth_sweep(const DeviceExec&, double, double, double, int, std::string&, bool,
                                                 const std::function<void(const SweepPoint&)>&);
template std::vector<LinkPoint> host_link(const DeviceExec&, double, int, std::string&);
#endif

}  // namespace gpp::measure::ceilings
