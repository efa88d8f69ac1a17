#pragma once
// What may reach stderr: gpp's contract is one line for a refusal (docs/reliability.md),
// and Kokkos writes its own start-up warnings there.
#include <functional>
#include <string>
#include <vector>

namespace gpp::runtime {

/// Runs body (Kokkos' initialisation) with the stderr descriptor captured and returns
/// what was written to it meanwhile, one entry per non-empty line (without its end;
/// trailing blanks dropped; made printable where it is shown).
/// Kokkos writes its start-up warnings there -- kernels compiled for another compute
/// capability (a V100 binary on an H100, by JIT), an ignored or deprecated variable,
/// OpenMP's binding advice -- and they would break the one line on stderr of a refusal
/// wherever Kokkos warns; gpp keeps them in the run's provenance instead
/// (kokkos_warnings()). Should Kokkos abort or exit meanwhile, what it wrote reaches
/// stderr first. If body throws, what it wrote reaches stderr and the exception passes on.
std::vector<std::string> run_capturing_stderr(const std::function<void()>& body);

/// What Kokkos wrote on stderr as it started in this process (runtime::start sets it);
/// shown by the text output's provenance and the JSON and HDF5 records of a run.
/// `gpp --version` does not start Kokkos (it works without the device) and shows none.
std::vector<std::string>& kokkos_warnings();

}  // namespace gpp::runtime
