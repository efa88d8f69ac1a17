#include "gpp_output.hpp"

#include <cstdio>
#include <iostream>

namespace gpp::app {

std::string cplx(std::complex<double> z) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.17g, %.17g)", z.real(), z.imag());
  return buf;
}

void print_provenance(const Provenance& p) {
  std::cout << "gpp " << p.version << " (git " << p.git_hash << ")\n"
            << "kokkos: " << p.kokkos_version << ", backend " << p.backend << " (concurrency " << p.concurrency
            << "), device: " << p.device << "\n";
}

void json_provenance(Json& j, const Provenance& p) {
  j.begin_object("provenance")
      .value("program", p.program)
      .value("version", p.version)
      .value("git", p.git_hash)
      .value("kokkos_version", p.kokkos_version)
      .value("backend", p.backend)
      .value("device", p.device)
      .value("concurrency", p.concurrency)
      .value("kokkos_kernels_gemm", p.kokkos_kernels)
      .end_object();
}

void json_deck(Json& j, const Session& s) {
  const auto& d = s.host;
  j.begin_object("deck")
      .value("name", s.params.name)
      .value("source", s.source)
      .value("seed", (long long)s.params.seed)
      .value("nbands", d.nbands)
      .value("ngpown", d.ngpown)
      .value("ncouls", d.ncouls)
      .value("nw", d.nw)
      .value("nstart", d.nstart)
      .value("nend", d.nend)
      .value("nvband", s.input.nvband)
      .value("updates", d.updates())
      .end_object();
}


std::string gib(double bytes) {
  if (bytes < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace gpp::app
