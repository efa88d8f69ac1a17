// `gpp --version`: what this binary is and what it runs on.
#include "gpp_backend.hpp"
#include "gpp_build_info.hpp"
#include "gpp_cli.hpp"
#include "gpp_compat.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>
#include <string>

namespace gpp::commands {

std::string kokkos_backends() {
  std::string b;
  auto add = [&](const char* name) { b += (b.empty() ? "" : ",") + std::string(name); };
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  add("Threads");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  add("HIP");
#endif
#if defined(KOKKOS_ENABLE_SYCL)
  add("SYCL");
#endif
  return b;
}

int cmd_version(std::ostream& out) {
  out << "gpp " << record::build_info::version() << "\n"
      << "git " << record::build_info::git_hash() << "\n"
      << "Kokkos " << compat::kokkos_version_string() << " (" << kokkos_backends() << "; default execution space "
      << Kokkos::DefaultExecutionSpace::name() << ")\n";
  // What the device code is compiled for, known without a device (a login node).
  if (const std::string target = backend::device_target(); !target.empty()) out << "device code " << target << "\n";
  return 0;
}

}  // namespace gpp::commands
