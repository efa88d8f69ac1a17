#include "gpp_input.hpp"

#include "gpp_physics.hpp"
#include "gpp_runtime.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>
#include <vector>

namespace gpp {
namespace {

template <class... Args>
[[noreturn]] void fail(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  throw Error(os.str());
}

// Counter-based generator: the value at (stream, i) does not depend on the order or
// the thread that asks for it, so filling in parallel stays deterministic.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// Uniform in [0, 1) from a stream's key and a counter.
inline double uniform(const std::uint64_t key, const std::uint64_t i) {
  return double(splitmix64(key + i) >> 11) * 0x1.0p-53;
}
struct Rng {
  std::uint64_t seed;
  std::uint64_t key(const std::uint64_t stream) const { return splitmix64(seed ^ (stream * 0xD1B54A32D192ED03ull)); }
  // uniform in [0, 1)
  double operator()(std::uint64_t stream, std::uint64_t i) const { return uniform(key(stream), i); }
};
enum Stream : std::uint64_t {
  kEnergy = 1,
  kPermBand,
  kPermG,
  kPickG,
  kWtildeRe,
  kWtildeIm,
  kWtildeTiny,
  kIepsRe,
  kIepsIm,
  kAqsnRe,
  kAqsnIm,
  kAqsmRe,
  kAqsmIm,
  kTinyPick
};

// Fisher-Yates with the counter-based generator.
std::vector<int> permutation(int n, const Rng& rng, std::uint64_t stream) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 1);
  for (int i = n - 1; i > 0; --i) {
    const int j = int(rng(stream, std::uint64_t(i)) * (i + 1));
    std::swap(p[i], p[std::min(j, i)]);
  }
  return p;
}

// Column by column in parallel, with column(c, rows, out) writing column c as (re, im)
// pairs: the random generator's loops over a column are written without branches, so that
// the compiler keeps them in vector lanes (a deck of tens of GiB is made in about the time
// its pages take to touch). The values are the same to the bit as one element at a time:
// integer arithmetic, and IEEE operations without contraction (-ffp-contract=off,
// core/CMakeLists.txt).
template <class F>
void fill_columns(HostComplexMatrix& m, F&& column) {
  const int rows = int(m.extent(0));
  const int cols = int(m.extent(1));
  runtime::host_parallel_for("gpp::input::fill", cols, [&](const long long c) {
    column(int(c), rows, reinterpret_cast<double*>(&m(0, int(c))));
  });
}

// Element by element: m(r, c) = f(r, c).
template <class F>
void fill_matrix(HostComplexMatrix& m, F&& f) {
  fill_columns(m, [&](const int c, const int rows, double* const out) {
    for (int r = 0; r < rows; ++r) {
      const complex_t z = f(r, c);
      out[2 * r] = z.real();
      out[2 * r + 1] = z.imag();
    }
  });
}

}  // namespace

// The ranges. An energy of magnitude kMaxEnergy (1e6 eV, or Ry) lies beyond every band
// of every material (the deepest core levels are near 1e5 eV), so no physical deck is
// refused. Within them every quantity the kernel forms stays far from overflow and
// underflow: a frequency wx = e_lk + dw (iw - 2) - e is at most about 1e12 in magnitude
// (|iw| <= kMaxFrequencyIndex, |e| <= kMaxEnergy + 41 + tol/4 for the random generator's
// bands), the regular arm squares it (wx^2 - wtilde^2) and the reciprocal forms square
// that again (|cden|^2 ~ wx^4 ~ 1e48, its reciprocal a normal double); beyond them
// (efermi 1e308: wx^2 = inf) the sums are NaN and verification fails on input that should
// have been refused. sexcut (a dimensionless cutoff factor, typically 4) is squared with
// |I_eps|^2 by the optimised forms. gamma below kMinGamma has gamma^2 = 0, which is gamma
// = 0: no broadening.
void check_physics_parameters(const PhysicsParameters& p) {
  static_assert(kMaxEnergy == 1e6 && kMinGamma == 1e-150, "the messages below say the ranges");
  auto energy = [](const char* name, double v, double low, const char* range) {
    if (!(v >= low && v <= kMaxEnergy)) fail(name, " must be ", range, " (got ", v, ")");
  };
  energy(p.gamma_name, p.gamma, kMinGamma, "between 1e-150 and 1e6");
  energy("sexcut", p.sexcut, 0, "between 0 and 1e6");
  energy("tol", p.tol, 0, "between 0 and 1e6");
  energy("e_lk", p.e_lk, -kMaxEnergy, "between -1e6 and 1e6");
  energy(p.dw_name, p.dw, -kMaxEnergy, "between -1e6 and 1e6");
  energy("efermi", p.efermi, -kMaxEnergy, "between -1e6 and 1e6");
  // An array, not a braced list: nvcc 11.8 (the V100 build's) cannot deduce a list whose
  // later elements are bare braces.
  const std::pair<const char*, int> frequency_indices[] = {{"nstart", p.nstart}, {"nend", p.nend}};
  for (const auto& [name, iw] : frequency_indices)
    if (iw < -kMaxFrequencyIndex || iw > kMaxFrequencyIndex)
      fail(name, " must be between ", -kMaxFrequencyIndex, " and ", kMaxFrequencyIndex, " (got ", iw, ")");
}

namespace {

void common_checks(const DeckParams& p) {
  if (p.nbands <= 0) fail("nbands must be positive (got ", p.nbands, ")");
  if (p.ngpown <= 0) fail("ngpown must be positive (got ", p.ngpown, ")");
  if (p.ncouls <= 0) fail("ncouls must be positive (got ", p.ncouls, ")");
  // A named array, not a braced list: nvcc 11.8 cannot deduce a range-for over
  // {std::pair<...>{...}, {...}} (gcc and clang can).
  const std::pair<const char*, int> sizes[] = {{"nbands", p.nbands}, {"ngpown", p.ngpown}, {"ncouls", p.ncouls}};
  for (const auto& [name, v] : sizes)
    if (v > kMaxSize) fail(name, " = ", v, " exceeds the largest size gpp handles (", kMaxSize, ")");
  if (p.nend - (long long)p.nstart >= 1024) fail("nstart..nend spans more than 1024 frequencies");
  if (p.nstart > p.nend) fail("nstart (", p.nstart, ") must not exceed nend (", p.nend, ")");
  if (p.nvband < 0 || p.nvband > p.nbands) fail("nvband must be between 0 and nbands (", p.nbands, "), got ", p.nvband);
  if (p.ngpown > p.ncouls) fail("ngpown (", p.ngpown, ") must not exceed ncouls (", p.ncouls, ")");
  check_physics_parameters({p.gamma, p.sexcut, p.tol, p.e_lk, p.dw, p.efermi, p.nstart, p.nend, "gamma", "dw"});
  if (p.skipped_gp < 0 || p.skipped_gp >= p.ngpown)
    fail("skipped_gp must be between 0 and ngpown-1 (got ", p.skipped_gp, ")");
  // Keep every matrix addressable with a 32-bit column index and a 64-bit size.
  const double biggest = double(p.ncouls) * std::max(p.nbands, p.ngpown) * sizeof(complex_t);
  if (biggest > double(std::numeric_limits<std::int64_t>::max()) / 4)
    fail("sizes too large: one matrix would take ", biggest, " bytes");
}

InputDeck skeleton(const DeckParams& p, int gvec_ng, const GpShare& share) {
  const int nloc = share.count(p.ngpown);
  InputDeck in;
  in.sig_ntband = p.nbands;
  in.gvec_ng = gvec_ng;
  in.ncoul = p.ncouls;
  in.epsmpi_ngpown_max = nloc;
  in.peinf_ntband_max = p.nbands;
  in.peinf_ntband_dist = p.nbands;
  in.ipe = 0;
  in.ispin = 1;
  in.ngpown = nloc;
  in.ncouls = p.ncouls;
  in.nstart = p.nstart;
  in.nend = p.nend;
  in.sig_fdf = 2;
  in.sig_dw = p.dw;
  in.sig_gamma = p.gamma;
  in.e_lk = p.e_lk;
  in.nvband = p.nvband;
  in.tol = p.tol;
  in.efermi = p.efermi;
  in.sexcut = p.sexcut;
  in.limittwo = p.gamma * p.gamma;
  in.limitone = physics::limitone;
  const int nw = p.nend - p.nstart + 1;
  in.asxtemp0.assign(nw, {0.0, 0.0});
  in.achtemp0.assign(nw, {0.0, 0.0});
  in.aqsmtemp = runtime::host_view<HostComplexMatrix>("gpp::input::aqsmtemp", p.ncouls, p.nbands);
  in.aqsntemp = runtime::host_view<HostComplexMatrix>("gpp::input::aqsntemp", p.ncouls, p.nbands);
  in.I_eps_array = runtime::host_view<HostComplexMatrix>("gpp::input::I_eps_array", p.ncouls, nloc);
  in.wtilde_array = runtime::host_view<HostComplexMatrix>("gpp::input::wtilde_array", p.ncouls, nloc);
  std::vector<std::pair<void*, std::size_t>> arrays;
  for (HostComplexMatrix* m : {&in.aqsmtemp, &in.aqsntemp, &in.I_eps_array, &in.wtilde_array})
    arrays.emplace_back(m->data(), m->span() * sizeof(complex_t));
  in.huge_pages = runtime::advise_huge_pages(arrays);
  return in;
}

}  // namespace

void check_deck_name(const std::string& name) {
  if (name.empty() || name.size() > 128) fail("deck name must be 1 to 128 characters (got ", name.size(), ")");
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
      fail("deck name must not contain control characters (a newline, tab, ...): it is written into every output");
}

void validate(const DeckParams& p) {
  check_deck_name(p.name);
  if (p.generator != "random" && p.generator != "uniform")
    fail("unknown generator '", p.generator, "' (expected random or uniform)");
  common_checks(p);
}

InputDeck generate_random(const DeckParams& p, const GpShare& share) {
  validate(p);
  const Rng rng{p.seed};
  // A few G-vectors beyond ncouls, so that the skipped G' have somewhere to point.
  const int extra_g = std::max(3, p.skipped_gp);
  InputDeck in = skeleton(p, p.ncouls + extra_g, share);
  const int nb = p.nbands;

  // Band energies by true band index: valence bands spread below the Fermi level, the
  // highest one at it (occupation 0.5), conduction bands above.
  in.wfnkq_ekq.resize(nb);
  for (int b = 1; b <= nb; ++b) {
    const double u = rng(kEnergy, b);
    double e;
    if (b < p.nvband) {
      e = p.efermi - 15.0 * double(p.nvband - b) / p.nvband - 0.2 * u;
    } else if (b == p.nvband) {
      e = p.efermi + 0.25 * p.tol * (2 * u - 1);
    } else {
      e = p.efermi + 0.6 + 40.0 * double(b - p.nvband) / std::max(1, nb - p.nvband) + 0.3 * u;
    }
    in.wfnkq_ekq[b - 1] = e;
  }
  // A valence band exactly at e_lk + dw*(nstart-2): its wx is 0 at iw = nstart and takes
  // the TOL_Zero clamp. Another sits 0.1 below e_lk, so |wx| < gamma there (the zero
  // branch when wtilde is tiny).
  if (p.nvband >= 4) {
    const int b = p.nvband / 2;  // 1-based, below the Fermi-level band
    in.wfnkq_ekq[b - 1] = p.e_lk + p.dw * (p.nstart - 2);
    in.wfnkq_ekq[b - 2] = p.e_lk + p.dw * (p.nstart - 2) - 0.1;
  }
  // Local bands are a permutation of the true bands.
  in.peinf_indext_dist = permutation(nb, rng, kPermBand);

  // G' maps: indinv is a permutation of 1..gvec_ng; the local G' point at distinct G,
  // the last skipped_gp of them at G beyond ncouls (skipped).
  in.indinv = permutation(in.gvec_ng, rng, kPermG);
  std::vector<int> position(in.gvec_ng + 1);
  for (int k = 1; k <= in.gvec_ng; ++k) position[in.indinv[k - 1]] = k;
  const std::vector<int> picks = permutation(p.ncouls, rng, kPickG);
  // Built for every G' of the deck, kept for this share's (the numbers of a column do
  // not depend on how many ranks share the deck).
  std::vector<int> inv_igp_index(p.ngpown);
  std::vector<int> gp_of(p.ngpown);  // the G index each G' points at (for I_eps's shape)
  for (int my = 0; my < p.ngpown; ++my) {
    const bool skipped = my >= p.ngpown - p.skipped_gp;
    const int g = skipped ? p.ncouls + 1 + (my - (p.ngpown - p.skipped_gp)) % extra_g : picks[my];
    inv_igp_index[my] = position[g];
    gp_of[my] = g;
  }
  in.inv_igp_index.resize(in.ngpown);
  for (int c = 0; c < in.ngpown; ++c) in.inv_igp_index[c] = inv_igp_index[share.global(c)];

  in.vcoul.resize(in.ncoul);
  for (int g = 1; g <= in.ncoul; ++g) in.vcoul[g - 1] = 8.0 * M_PI / (0.5 + std::cbrt(double(g) * g));

  // wtilde: plasmon-pole frequencies from 0.2 to ~30 with small damping; about 1 in
  // 200 is ~1e-9 (delw ~ 0, the zero branch when |wx| < gamma).
  const std::uint64_t k_pick = rng.key(kTinyPick), k_tiny = rng.key(kWtildeTiny), k_wre = rng.key(kWtildeRe),
                      k_wim = rng.key(kWtildeIm);
  fill_columns(in.wtilde_array, [&, k_pick, k_tiny, k_wre, k_wim](const int c, const int rows, double* const out) {
    const std::uint64_t base = std::uint64_t(share.global(c)) * std::uint64_t(p.ncouls);
#pragma omp simd
    for (int ig = 0; ig < rows; ++ig) {
      const std::uint64_t i = base + std::uint64_t(ig);
      const bool tiny = uniform(k_pick, i) < 0.005;
      const double u = uniform(k_wre, i);
      const double re = 0.2 + 30.0 * u * u;
      const double im = -0.05 * re * uniform(k_wim, i);
      const double small = 1e-9 * (1 + uniform(k_tiny, i));  // made for every G: no branch in the loop
      out[2 * ig] = tiny ? small : re;
      out[2 * ig + 1] = tiny ? 0.0 : im;
    }
  });
  // I_eps: strongest where G = G', decaying away from it, random phase.
  const std::uint64_t k_ire = rng.key(kIepsRe), k_iim = rng.key(kIepsIm);
  fill_columns(in.I_eps_array, [&, k_ire, k_iim](const int c, const int rows, double* const out) {
    const std::uint64_t igp = std::uint64_t(share.global(c));
    const std::uint64_t base = igp * std::uint64_t(p.ncouls);
    const int gp = gp_of[igp];
#pragma omp simd
    for (int ig = 0; ig < rows; ++ig) {
      const std::uint64_t i = base + std::uint64_t(ig);
      const double dist = std::abs(double(ig + 1 - gp));
      const double amp = 0.9 / (1.0 + 0.05 * dist);
      out[2 * ig] = amp * (uniform(k_ire, i) - 0.3);
      out[2 * ig + 1] = amp * (uniform(k_iim, i) - 0.5);
    }
  });
  // aqsntemp and aqsmtemp: random, decaying with G.
  const auto bands = [&](HostComplexMatrix& m, const Stream re, const Stream im) {
    const std::uint64_t k_re = rng.key(re), k_im = rng.key(im);
    fill_columns(m, [&, k_re, k_im](const int n, const int rows, double* const out) {
      const std::uint64_t base = std::uint64_t(n) * std::uint64_t(p.ncouls);
      const double ncouls = double(p.ncouls);
#pragma omp simd
      for (int ig = 0; ig < rows; ++ig) {
        const std::uint64_t i = base + std::uint64_t(ig);
        const double s = 1.0 / (1.0 + 4.0 * ig / ncouls);
        out[2 * ig] = s * (uniform(k_re, i) - 0.5);
        out[2 * ig + 1] = s * (uniform(k_im, i) - 0.5);
      }
    });
  };
  bands(in.aqsntemp, kAqsnRe, kAqsnIm);
  bands(in.aqsmtemp, kAqsmRe, kAqsmIm);
  return in;
}

InputDeck generate_uniform(const DeckParams& p, const GpShare& share) {
  validate(p);
  InputDeck in = skeleton(p, p.ncouls, share);
  const complex_t half(0.5, 0.5);
  in.wfnkq_ekq.assign(p.nbands, 6.0);
  in.peinf_indext_dist.resize(p.nbands);
  std::iota(in.peinf_indext_dist.begin(), in.peinf_indext_dist.end(), 1);
  in.indinv.resize(p.ncouls);
  std::iota(in.indinv.begin(), in.indinv.end(), 1);
  // The mini-apps' map: igp = (my_igp+1)*ncouls/ngpown (0-based), clamped to ncouls-1.
  in.inv_igp_index.resize(in.ngpown);
  for (int c = 0; c < in.ngpown; ++c) {
    const long long my = share.global(c);
    const long long g0 = std::min<long long>((my + 1) * p.ncouls / p.ngpown, p.ncouls - 1);
    in.inv_igp_index[c] = int(g0) + 1;
  }
  in.vcoul.assign(p.ncouls, 1.0);
  fill_matrix(in.wtilde_array, [&](int, int) { return half; });
  fill_matrix(in.I_eps_array, [&](int, int) { return half; });
  fill_matrix(in.aqsntemp, [&](int, int) { return half; });
  fill_matrix(in.aqsmtemp, [&](int, int) { return half; });
  return in;
}

InputDeck generate(const DeckParams& p, const GpShare& share) {
  validate(p);
  if (share.nranks < 1 || share.rank < 0 || share.rank >= share.nranks)
    fail("invalid G' share: rank ", share.rank, " of ", share.nranks);
  if (share.nranks > p.ngpown)
    fail(share.nranks, " ranks but only ngpown = ", p.ngpown, " G' columns to share: use at most ", p.ngpown, " ranks");
  return p.generator == "uniform" ? generate_uniform(p, share) : generate_random(p, share);
}

InputDeck keep_share(const InputDeck& in, const GpShare& share) {
  if (share.nranks > in.ngpown)
    fail(share.nranks, " ranks but only ngpown = ", in.ngpown, " G' columns to share: use at most ", in.ngpown,
         " ranks");
  if (share.whole()) return in;
  InputDeck out = in;
  const int nloc = share.count(in.ngpown);
  out.ngpown = nloc;
  out.epsmpi_ngpown_max = nloc;
  out.inv_igp_index.resize(nloc);
  for (int c = 0; c < nloc; ++c) out.inv_igp_index[c] = in.inv_igp_index[share.global(c)];
  auto slice = [&](const HostComplexMatrix& m, const char* label) {
    auto s = runtime::host_view<HostComplexMatrix>(label, m.extent(0), std::size_t(nloc));
    fill_matrix(s, [&](int ig, int c) { return m(ig, share.global(c)); });
    return s;
  };
  out.wtilde_array = slice(in.wtilde_array, "gpp::input::wtilde_array");
  out.I_eps_array = slice(in.I_eps_array, "gpp::input::I_eps_array");
  return out;
}

namespace {

template <class V>
void check_finite_vector(const V& v, const char* name) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) fail("input array ", name, "(", i + 1, ") is not finite (", v[i], ")");
}

void check_finite_matrix(const HostComplexMatrix& m, const char* name) {
  const std::int64_t rows = m.extent(0), cols = m.extent(1);
  // The columns with a value that is not finite, found in parallel (this is the one full
  // pass over a large file); the first of them is named.
  std::vector<unsigned char> bad(std::size_t(cols), 0);
  runtime::host_parallel_for("gpp::input::check_finite", cols, [&](const long long c) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const complex_t z = m(r, c);
      if (!std::isfinite(z.real()) || !std::isfinite(z.imag())) {
        bad[std::size_t(c)] = 1;
        return;
      }
    }
  });
  const std::int64_t bad_col = std::find(bad.begin(), bad.end(), 1) - bad.begin();
  if (bad_col < cols) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const complex_t z = m(r, bad_col);
      if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
        fail("input array ", name, "(", r + 1, ",", bad_col + 1, ") is not finite (", z.real(), ",", z.imag(), ")");
    }
  }
}

void check_extent(const HostComplexMatrix& m, const char* name, std::int64_t rows, std::int64_t cols) {
  if (std::int64_t(m.extent(0)) != rows || std::int64_t(m.extent(1)) != cols)
    fail("input array ", name, " has shape (", m.extent(0), ",", m.extent(1), "), expected (", rows, ",", cols, ")");
}

}  // namespace

void validate(const InputDeck& in) {
  auto positive = [](int v, const char* name) {
    if (v <= 0) fail("input size ", name, " must be positive (got ", v, ")");
    if (v > kMaxSize) fail("input size ", name, " = ", v, " exceeds the largest size gpp handles (", kMaxSize, ")");
  };
  positive(in.sig_ntband, "sig_ntband");
  positive(in.gvec_ng, "gvec_ng");
  positive(in.ncoul, "ncoul");
  positive(in.epsmpi_ngpown_max, "epsmpi_ngpown_max");
  positive(in.peinf_ntband_max, "peinf_ntband_max");
  positive(in.peinf_ntband_dist, "peinf_ntband_dist");
  positive(in.ngpown, "ngpown");
  positive(in.ncouls, "ncouls");
  if (in.peinf_ntband_dist > in.peinf_ntband_max)
    fail("peinf_ntband_dist (", in.peinf_ntband_dist, ") exceeds peinf_ntband_max (", in.peinf_ntband_max, ")");
  if (in.ngpown > in.epsmpi_ngpown_max)
    fail("ngpown (", in.ngpown, ") exceeds epsmpi_ngpown_max (", in.epsmpi_ngpown_max, ")");
  if (in.ncouls > in.ncoul) fail("ncouls (", in.ncouls, ") exceeds ncoul (", in.ncoul, "), the length of vcoul");
  if (in.nstart > in.nend) fail("nstart (", in.nstart, ") must not exceed nend (", in.nend, ")");
  const std::size_t nw = std::size_t(in.nw());
  if (in.asxtemp0.size() != nw || in.achtemp0.size() != nw) fail("start values asxtemp/achtemp need ", nw, " entries");
  if ((in.has_reference() || !in.achtempref.empty()) && (in.asxtempref.size() != nw || in.achtempref.size() != nw))
    fail("reference values asxtempref/achtempref need ", nw, " entries");
  if (in.peinf_indext_dist.size() != std::size_t(in.peinf_ntband_max))
    fail("peinf_indext_dist has ", in.peinf_indext_dist.size(), " entries, expected ", in.peinf_ntband_max);
  if (in.wfnkq_ekq.size() != std::size_t(in.sig_ntband))
    fail("wfnkq_ekq has ", in.wfnkq_ekq.size(), " entries, expected ", in.sig_ntband);
  if (in.inv_igp_index.size() != std::size_t(in.epsmpi_ngpown_max))
    fail("inv_igp_index has ", in.inv_igp_index.size(), " entries, expected ", in.epsmpi_ngpown_max);
  if (in.indinv.size() != std::size_t(in.gvec_ng))
    fail("indinv has ", in.indinv.size(), " entries, expected ", in.gvec_ng);
  if (in.vcoul.size() != std::size_t(in.ncoul)) fail("vcoul has ", in.vcoul.size(), " entries, expected ", in.ncoul);
  check_extent(in.aqsmtemp, "aqsmtemp", in.ncouls, in.peinf_ntband_max);
  check_extent(in.aqsntemp, "aqsntemp", in.ncouls, in.peinf_ntband_max);
  check_extent(in.wtilde_array, "wtilde_array", in.ncouls, in.ngpown);
  check_extent(in.I_eps_array, "I_eps_array", in.ncouls, in.ngpown);
  for (int n = 0; n < in.peinf_ntband_dist; ++n) {
    const int t = in.peinf_indext_dist[n];
    if (t < 1 || t > in.sig_ntband)
      fail("peinf_indext_dist(", n + 1, ") = ", t, " is outside 1..sig_ntband (", in.sig_ntband, ")");
  }
  for (int my = 0; my < in.ngpown; ++my) {
    const int k = in.inv_igp_index[my];
    if (k < 1 || k > in.gvec_ng) fail("inv_igp_index(", my + 1, ") = ", k, " is outside 1..gvec_ng (", in.gvec_ng, ")");
  }
  const std::pair<const char*, double> scalars[] = {
      {"sig_dw", in.sig_dw}, {"sig_gamma", in.sig_gamma}, {"e_lk", in.e_lk},         {"tol", in.tol},
      {"efermi", in.efermi}, {"sexcut", in.sexcut},       {"limittwo", in.limittwo}, {"limitone", in.limitone}};
  for (const auto& [name, v] : scalars)
    if (!std::isfinite(v)) fail("input scalar ", name, " is not finite (", v, ")");
  // The same checks as a TOML deck's (one function for every input path).
  check_physics_parameters(
      {in.sig_gamma, in.sexcut, in.tol, in.e_lk, in.sig_dw, in.efermi, in.nstart, in.nend, "sig_gamma", "sig_dw"});
  if (in.nvband < 0 || in.nvband > in.sig_ntband)
    fail("nvband must be between 0 and sig_ntband (", in.sig_ntband, "), got ", in.nvband);
  // Frequency-indexed values are named by iw, as in the Fortran arrays.
  auto check_finite_iw = [&](const std::vector<std::complex<double>>& v, const char* name) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i].real()) || !std::isfinite(v[i].imag()))
        fail("input array ", name, "(iw=", in.nstart + int(i), ") is not finite (", v[i].real(), ",", v[i].imag(), ")");
  };
  check_finite_iw(in.asxtemp0, "asxtemp0");
  check_finite_iw(in.achtemp0, "achtemp0");
  check_finite_iw(in.asxtempref, "asxtempref");
  check_finite_iw(in.achtempref, "achtempref");
  const char* record_names[4] = {"asxtemp", "achtemp", "asxtempref", "achtempref"};
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3; ++i) {
      const auto z = in.records_15_18[r][i];
      if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
        fail("input array ", record_names[r], "(", i + 1, ") of record ", 15 + r, " is not finite (", z.real(), ",",
             z.imag(), ")");
    }
  check_finite_vector(in.wfnkq_ekq, "wfnkq_ekq");
  // Band energies are energies as e_lk is (check_physics_parameters: wx = e_lk + ... - e).
  for (std::size_t i = 0; i < in.wfnkq_ekq.size(); ++i)
    if (std::abs(in.wfnkq_ekq[i]) > kMaxEnergy)
      fail("input array wfnkq_ekq(", i + 1, ") = ", in.wfnkq_ekq[i], ": band energies must be between -1e6 and 1e6");
  check_finite_vector(in.vcoul, "vcoul");
  check_finite_matrix(in.aqsmtemp, "aqsmtemp");
  check_finite_matrix(in.aqsntemp, "aqsntemp");
  check_finite_matrix(in.wtilde_array, "wtilde_array");
  check_finite_matrix(in.I_eps_array, "I_eps_array");
}

void validate_before_writing(const InputDeck& in, const std::string& path) {
  try {
    validate(in);
  } catch (const Error& e) {
    throw Error("cannot write " + path + ": " + e.what());
  }
}

GppData<Kokkos::HostSpace> derive(const InputDeck& in) {
  using Types = ViewTypes<Kokkos::HostSpace>;
  GppData<Kokkos::HostSpace> d;
  d.nbands = in.peinf_ntband_dist;
  d.ngpown = in.ngpown;
  d.ncouls = in.ncouls;
  d.nstart = in.nstart;
  d.nend = in.nend;
  d.nw = in.nw();
  d.sexcut = in.sexcut;
  // limitone and limittwo are recomputed from TOL_Small and gamma, as the benchmark does.
  d.limitone = physics::limitone;
  d.limittwo = in.sig_gamma * in.sig_gamma;

  const auto bands = std::make_pair(0, d.nbands);
  d.aqsntemp = Kokkos::subview(in.aqsntemp, Kokkos::ALL, bands);
  d.I_eps_array = in.I_eps_array;
  d.wtilde_array = in.wtilde_array;

  // Allocated without Kokkos's initialisation (a kernel of a space that need not run yet:
  // gpp convert in a GPU build without its GPU); every element is written below.
  d.wx_array_t = runtime::host_view<Types::RealMatrix>("gpp::data::wx_array_t", d.nw, d.nbands);
  d.wx_array_bt = runtime::host_view<Types::RealMatrix>("gpp::data::wx_array_bt", d.nbands, d.nw);
  d.occ_array = runtime::host_view<Types::RealVector>("gpp::data::occ_array", d.nbands);
  for (int n1 = 0; n1 < d.nbands; ++n1) {
    const int n1true = in.peinf_indext_dist[n1];
    const double e = in.wfnkq_ekq[n1true - 1];
    for (int w = 0; w < d.nw; ++w) {
      const int iw = in.nstart + w;
      double wx = in.e_lk + in.sig_dw * (iw - 2) - e;
      if (std::abs(wx) < physics::TOL_Zero) wx = physics::TOL_Zero;
      d.wx_array_t(w, n1) = wx;
      d.wx_array_bt(n1, w) = wx;
    }
    double occ = 0.0;
    if (n1true <= in.nvband) occ = std::abs(e - in.efermi) < in.tol ? 0.5 : 1.0;
    d.occ_array(n1) = occ;
  }

  d.aqsmtemp_local = runtime::host_view<Types::ComplexMatrix>("gpp::data::aqsmtemp_local", d.ngpown, d.nbands);
  d.aqsmtemp_local_bt = runtime::host_view<Types::ComplexMatrix>("gpp::data::aqsmtemp_local_bt", d.nbands, d.ngpown);
  d.vcoul_loc = runtime::host_view<Types::RealVector>("gpp::data::vcoul_loc", d.ngpown);
  // The G index (0-based) of each local G', -1 for a skipped one (both arrays 0 there).
  std::vector<int> g_of(std::size_t(d.ngpown));
  for (int my = 0; my < d.ngpown; ++my) {
    const int igp = in.indinv[in.inv_igp_index[my] - 1];
    const bool skipped = igp < 1 || igp > d.ncouls;
    g_of[std::size_t(my)] = skipped ? -1 : igp - 1;
    d.vcoul_loc(my) = skipped ? 0.0 : in.vcoul[igp - 1];
  }
  // Parallel on the host, each thread writing whole columns: aqsmtemp_local by band
  // (its reads stay in one column of aqsmtemp), then its band-contiguous copy by blocks
  // of G' (read from aqsmtemp_local, which holds them contiguous).
  const auto local = d.aqsmtemp_local;
  runtime::host_parallel_for("gpp::data::aqsmtemp_local", d.nbands, [&](const long long n1) {
    for (int my = 0; my < d.ngpown; ++my) {
      const int g = g_of[std::size_t(my)];
      local(my, int(n1)) = g < 0 ? complex_t(0.0, 0.0) : in.aqsmtemp(g, int(n1));
    }
  });
  constexpr int kGpBlock = 64;
  const auto bt = d.aqsmtemp_local_bt;
  const int ngpown = d.ngpown, nbands = d.nbands;
  runtime::host_parallel_for("gpp::data::aqsmtemp_local_bt", (ngpown + kGpBlock - 1) / kGpBlock,
                             [&](const long long block) {
                               const int first = int(block) * kGpBlock, last = std::min(ngpown, first + kGpBlock);
                               for (int n1 = 0; n1 < nbands; ++n1)
                                 for (int my = first; my < last; ++my) bt(n1, my) = local(my, n1);
                             });
  return d;
}

}  // namespace gpp
