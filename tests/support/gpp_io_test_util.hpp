#pragma once
// Helpers of the file I/O tests: decks shaped like the real benchmark file (padding
// beyond the local sizes, values for iw outside nstart..nend), exact deck comparison,
// raw bytes, the record map of a .dat file, and running the gpp binary.
#include "gpp_runtime.hpp"
#include "gpp_test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gpp::test {

/// A synthetic deck with everything the real file can hold beyond what a synthetic deck
/// uses: more bands, G' and v(G) stored than used (padding), odd ipe/ispin/sig_fdf, raw
/// limittwo/limitone that differ from the recomputed ones, start values, a (made-up)
/// stored reference and values for iw = 1, outside nstart..nend = 2..3.
inline InputDeck fortran_like_deck(int nbands = 12, int ngpown = 8, int ncouls = 40, int nvband = 5) {
  InputDeck in = generate_random(small_deck(nbands, ngpown, ncouls, nvband));
  const int extra_bands = 3, extra_gp = 2, extra_g = 5;
  auto widen = [&](const HostComplexMatrix& m, int cols, const char* label, double salt) {
    // Without initialisation (every element is written below), as gpp's own decks: an
    // initialised View of this size is filled by a kernel on the host space, which a test
    // without Kokkos (GPP_TEST_NO_DEVICE with Kokkos 4's OpenMP) must not launch.
    auto w = gpp::runtime::host_view<HostComplexMatrix>(label, m.extent(0), std::size_t(cols));
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < int(m.extent(0)); ++r)
        w(r, c) = c < int(m.extent(1)) ? m(r, c) : complex_t(salt + 0.01 * r, -0.02 * c);
    return w;
  };
  in.peinf_ntband_max = nbands + extra_bands;
  in.aqsmtemp = widen(in.aqsmtemp, in.peinf_ntband_max, "aqsmtemp", 0.25);
  in.aqsntemp = widen(in.aqsntemp, in.peinf_ntband_max, "aqsntemp", -0.5);
  in.peinf_indext_dist.insert(in.peinf_indext_dist.end(), {0, -7, 99});
  in.sig_ntband = nbands + 4;
  for (int i = 0; i < 4; ++i) in.wfnkq_ekq.push_back(50.0 + i);
  in.epsmpi_ngpown_max = ngpown + extra_gp;
  in.inv_igp_index.insert(in.inv_igp_index.end(), {0, 123456});
  in.ncoul = ncouls + extra_g;
  for (int i = 0; i < extra_g; ++i) in.vcoul.push_back(1e-3 * (i + 1));
  in.ipe = 3;
  in.ispin = 2;
  in.sig_fdf = 7;
  in.limittwo = 0.123;
  in.limitone = 1.0;
  in.asxtemp0 = {{0.5, -0.25}, {1.5, 0.125}};
  in.achtemp0 = {{-2.0, 0.75}, {0.0, 3.0}};
  in.asxtempref = {{1.0, 2.0}, {3.0, 4.0}};
  in.achtempref = {{-1.0, -2.0}, {-3.0, -4.0}};
  for (int r = 0; r < 4; ++r) in.records_15_18[r][0] = {10.0 * (r + 1), -1.0 * (r + 1)};
  return in;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every field bitwise equal; the first difference as the failure message.
inline ::testing::AssertionResult decks_identical(const InputDeck& a, const InputDeck& b) {
  std::ostringstream why;
  auto ints = [&](const char* n, long long x, long long y) {
    if (x != y && why.tellp() == 0) why << n << ": " << x << " vs " << y;
  };
  auto real = [&](const char* n, double x, double y) {
    if (!same_bits(x, y) && why.tellp() == 0) why << n << ": " << x << " vs " << y;
  };
  ints("sig_ntband", a.sig_ntband, b.sig_ntband);
  ints("gvec_ng", a.gvec_ng, b.gvec_ng);
  ints("ncoul", a.ncoul, b.ncoul);
  ints("epsmpi_ngpown_max", a.epsmpi_ngpown_max, b.epsmpi_ngpown_max);
  ints("peinf_ntband_max", a.peinf_ntband_max, b.peinf_ntband_max);
  ints("peinf_ntband_dist", a.peinf_ntband_dist, b.peinf_ntband_dist);
  ints("ipe", a.ipe, b.ipe);
  ints("ispin", a.ispin, b.ispin);
  ints("ngpown", a.ngpown, b.ngpown);
  ints("ncouls", a.ncouls, b.ncouls);
  ints("nstart", a.nstart, b.nstart);
  ints("nend", a.nend, b.nend);
  ints("sig_fdf", a.sig_fdf, b.sig_fdf);
  ints("nvband", a.nvband, b.nvband);
  real("sig_dw", a.sig_dw, b.sig_dw);
  real("sig_gamma", a.sig_gamma, b.sig_gamma);
  real("e_lk", a.e_lk, b.e_lk);
  real("tol", a.tol, b.tol);
  real("efermi", a.efermi, b.efermi);
  real("sexcut", a.sexcut, b.sexcut);
  real("limittwo", a.limittwo, b.limittwo);
  real("limitone", a.limitone, b.limitone);
  if (why.tellp() == 0 && a.peinf_indext_dist != b.peinf_indext_dist) why << "peinf_indext_dist differs";
  if (why.tellp() == 0 && a.inv_igp_index != b.inv_igp_index) why << "inv_igp_index differs";
  if (why.tellp() == 0 && a.indinv != b.indinv) why << "indinv differs";
  auto reals = [&](const char* n, const std::vector<double>& x, const std::vector<double>& y) {
    bool same = x.size() == y.size();
    for (std::size_t i = 0; same && i < x.size(); ++i) same = same_bits(x[i], y[i]);
    if (!same && why.tellp() == 0) why << n << " differs";
  };
  reals("wfnkq_ekq", a.wfnkq_ekq, b.wfnkq_ekq);
  reals("vcoul", a.vcoul, b.vcoul);
  auto cplx = [&](const char* n, const std::vector<std::complex<double>>& x,
                  const std::vector<std::complex<double>>& y) {
    bool same = x.size() == y.size();
    for (std::size_t i = 0; same && i < x.size(); ++i)
      same = same_bits(x[i].real(), y[i].real()) && same_bits(x[i].imag(), y[i].imag());
    if (!same && why.tellp() == 0) why << n << " differs";
  };
  cplx("asxtemp0", a.asxtemp0, b.asxtemp0);
  cplx("achtemp0", a.achtemp0, b.achtemp0);
  cplx("asxtempref", a.asxtempref, b.asxtempref);
  cplx("achtempref", a.achtempref, b.achtempref);
  for (int r = 0; r < 4; ++r)
    cplx("records_15_18", {a.records_15_18[r].begin(), a.records_15_18[r].end()},
         {b.records_15_18[r].begin(), b.records_15_18[r].end()});
  auto matrix = [&](const char* n, const HostComplexMatrix& x, const HostComplexMatrix& y) {
    if (why.tellp() != 0) return;
    if (x.extent(0) != y.extent(0) || x.extent(1) != y.extent(1)) {
      why << n << " shape differs";
      return;
    }
    for (std::size_t c = 0; c < x.extent(1); ++c)
      for (std::size_t r = 0; r < x.extent(0); ++r)
        if (!same_bits(x(r, c).real(), y(r, c).real()) || !same_bits(x(r, c).imag(), y(r, c).imag())) {
          why << n << "(" << r + 1 << "," << c + 1 << ") differs";
          return;
        }
  };
  matrix("aqsmtemp", a.aqsmtemp, b.aqsmtemp);
  matrix("aqsntemp", a.aqsntemp, b.aqsntemp);
  matrix("wtilde_array", a.wtilde_array, b.wtilde_array);
  matrix("I_eps_array", a.I_eps_array, b.I_eps_array);
  if (why.tellp() == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why.str();
}

using Bytes = std::vector<unsigned char>;

inline Bytes read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const Bytes& b, std::size_t n = std::size_t(-1)) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(std::min(n, b.size())));
}

inline bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

/// A temporary path of this process, in memory where it can be (memory_scratch_dir).
inline std::string temp_path(const std::string& name) { return memory_scratch_dir() + "gpp_io_" + name; }

/// Where each record of a .dat file lies: the offset of its leading marker and its
/// payload length, found by walking the markers (independently of the reader).
struct RecordSpan {
  std::size_t marker, payload, length;
};
inline std::vector<RecordSpan> record_map(const Bytes& b) {
  std::vector<RecordSpan> r;
  std::size_t pos = 0;
  while (pos + 4 <= b.size()) {
    std::int32_t m;
    std::memcpy(&m, &b[pos], 4);
    r.push_back({pos, pos + 4, std::size_t(m)});
    pos += 8 + std::size_t(m);
  }
  return r;
}

template <class T>
void poke(Bytes& b, std::size_t pos, T v) {
  std::memcpy(&b[pos], &v, sizeof v);
}
template <class T>
T peek(const Bytes& b, std::size_t pos) {
  T v;
  std::memcpy(&v, &b[pos], sizeof v);
  return v;
}

struct Outcome {
  int code;
  std::string out;  // stdout and stderr together
};

/// Runs the gpp binary with `args` (and the environment assignments `env`, "A=1 B=2").
/// OMP_PROC_BIND is set because Kokkos' OpenMP backend otherwise prints a start-up
/// warning, which is not gpp's output.
inline Outcome gpp_exe(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + " OMP_PROC_BIND=false " + std::string(GPP_EXE) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  Outcome o{-1, ""};
  if (!p) return o;
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), p)) o.out += buf.data();
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

/// A gpp run's stdout and stderr apart (a refusal prints nothing on stdout).
struct SplitOutcome {
  int code;
  std::string out, err;
};

/// Runs `gpp args` as gpp_exe does, stdout and stderr kept apart; `redirect` ("" or, say,
/// ">/dev/full") replaces stdout's pipe.
inline SplitOutcome gpp_exe_split(const std::string& args, const std::string& env = "",
                                  const std::string& redirect = "") {
  std::string err_path = scratch_dir() + "gpp_test_stderr_XXXXXX";
  const int fd = ::mkstemp(err_path.data());
  SplitOutcome o{-1, "", ""};
  if (fd < 0) return o;
  ::close(fd);
  const std::string cmd =
      env + " OMP_PROC_BIND=false " + std::string(GPP_EXE) + " " + args + " 2>" + err_path + " " + redirect;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf;
    while (fgets(buf.data(), buf.size(), p)) o.out += buf.data();
    const int status = pclose(p);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::ifstream f(err_path);
  o.err.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  std::remove(err_path.c_str());
  return o;
}

/// A python3 that imports h5py ("" if none): the one CMake found, else Debian's
/// /usr/bin/python3 (python3-h5py), which a pyenv or venv python3 on PATH may hide.
inline std::string python_with_h5py() {
  static const std::string found = [] {
    for (const std::string& p : {std::string(GPP_PYTHON3), std::string("/usr/bin/python3")})
      if (!p.empty() && std::system((p + " -c 'import h5py' >/dev/null 2>&1").c_str()) == 0) return p;
    return std::string();
  }();
  return found;
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace gpp::test
