# Warnings in gpp's own sources: -Wall -Wextra on every C++ target of this
# project. Kokkos, Kokkos Kernels, HDF5, CLI11 and GoogleTest come in as system headers
# (imported targets, /usr/include), so their own warnings are not reported; an in-tree Kokkos
# (GPP_KOKKOS_SOURCE_DIR) is built before these options and does not get them.
# GPP_WERROR=ON (CI's builds) makes any warning an error, so that a new one fails. With
# nvcc_wrapper the flags reach the host compiler; with hipcc both passes.
option(GPP_WARNINGS "Compile gpp's own sources with -Wall -Wextra" ON)
option(GPP_WERROR "Treat warnings in gpp's own sources as errors (-Werror; CI)" OFF)
set(GPP_WARNING_FLAGS "")
if(GPP_WARNINGS)
  list(APPEND GPP_WARNING_FLAGS -Wall -Wextra)
endif()
if(GPP_WERROR)
  list(APPEND GPP_WARNING_FLAGS -Werror)
endif()
if(GPP_WARNING_FLAGS)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${GPP_WARNING_FLAGS}>")
endif()
