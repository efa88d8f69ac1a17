# The host instruction set. The Kokkos builds gpp uses name no CPU
# architecture (Debian's 3.4; the CUDA installs name only the GPU), so without a flag the
# host code is compiled for baseline x86-64 (SSE2: no AVX, no FMA) and the host policy
# cannot use the machine's vector units.
#
#   GPP_HOST_ARCH=native        -march=native (the default, unless Kokkos names a CPU arch
#                               or CMAKE_CXX_FLAGS already has -march/-mcpu)
#   GPP_HOST_ARCH=<cpu>         -march=<cpu>, e.g. sapphirerapids, znver4, x86-64-v4
#   GPP_HOST_ARCH=OFF (or "")   no flag: a portable binary (spack builds: spack's target flags)
#
# The flag applies to every C++ source of gpp. With nvcc_wrapper as CXX (CUDA builds) it reaches
# the host compiler (nvcc_wrapper forwards flags nvcc does not know with -Xcompiler). With
# hipcc (HIP builds) it is given as -Xarch_host -march=<value> (GPP_HOST_ONLY_XARCH below).
# GPP_HOST_ARCH_FLAGS holds the flags used (recorded in the build info's cxx_flags).
set(_gpp_cpu_archs NATIVE AMDAVX ZEN ZEN2 ZEN3 ZEN4 ZEN5 SNB HSW BDW SKL SKX ICL ICX SPR KNC KNL
    ARMV80 ARMV81 ARMV8_THUNDERX ARMV8_THUNDERX2 A64FX ARMV9_GRACE POWER8 POWER9 RISCV_SG2042 RISCV_RVA22V)
set(_gpp_kokkos_cpu_arch "")
foreach(_a IN LISTS Kokkos_ARCH)
  string(TOUPPER "${_a}" _a)
  if(_a IN_LIST _gpp_cpu_archs)
    set(_gpp_kokkos_cpu_arch "${_a}")
  endif()
endforeach()
if(_gpp_kokkos_cpu_arch OR CMAKE_CXX_FLAGS MATCHES "-march=|-mcpu=|-xHost|-x[A-Z]")
  set(_gpp_default_arch "OFF")
else()
  set(_gpp_default_arch "native")
endif()
set(GPP_HOST_ARCH "${_gpp_default_arch}" CACHE STRING
  "Host ISA: native (default unless Kokkos names a CPU architecture), a -march value (e.g. sapphirerapids), or OFF for a portable binary")

# hipcc (or clang -x hip) compiles each source twice, for the host and for the GPU, and both
# passes get every flag on the command line; nvcc_wrapper hands the flags nvcc does not know
# to the host compiler only. Flags meant for the host CPU must not reach the GPU pass: with
# -fopenmp-simd there the device link of gpp_ceilings.cpp fails (`undefined symbol:
# __kmpc_alloc_shared`, ROCm 5.2), and -march=<CPU> names no GPU. Under HIP each host-only
# flag is therefore given as `-Xarch_host <flag>` (checked with Debian's ROCm 5.2.3 / clang 15
# and 5.7.1 / clang 17: scripts/hip-build.sh). Serial, OpenMP and CUDA builds get the flags as
# before.
set(GPP_HOST_ONLY_XARCH OFF)
if("HIP" IN_LIST Kokkos_DEVICES AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(GPP_HOST_ONLY_XARCH ON)
endif()

set(GPP_HOST_ARCH_FLAGS "")
if(GPP_HOST_ARCH AND NOT GPP_HOST_ARCH STREQUAL "")
  if(_gpp_kokkos_cpu_arch)
    message(WARNING "gpp: Kokkos already targets the CPU architecture ${_gpp_kokkos_cpu_arch}; "
                    "GPP_HOST_ARCH=${GPP_HOST_ARCH} adds -march=${GPP_HOST_ARCH} on top of it")
  endif()
  include(CheckCXXCompilerFlag)
  string(MAKE_C_IDENTIFIER "GPP_HAVE_MARCH_${GPP_HOST_ARCH}" _gpp_flag_var)
  check_cxx_compiler_flag("-march=${GPP_HOST_ARCH}" ${_gpp_flag_var})
  if(${_gpp_flag_var})
    set(GPP_HOST_ARCH_FLAGS "-march=${GPP_HOST_ARCH}")
  elseif(GPP_HOST_ARCH STREQUAL "native")
    message(WARNING "gpp: ${CMAKE_CXX_COMPILER} does not accept -march=native; building for the compiler's default ISA "
                    "(set GPP_HOST_ARCH to a CPU name, or OFF to silence this)")
  else()
    message(FATAL_ERROR "gpp: GPP_HOST_ARCH=${GPP_HOST_ARCH}: ${CMAKE_CXX_COMPILER} does not accept -march=${GPP_HOST_ARCH}")
  endif()
endif()
if(GPP_HOST_ARCH_FLAGS)
  # C++ only: the Fortran oracle (tests, docs/oracle.md) keeps its compiler's default ISA,
  # so that its stored results stay reproducible to the last digit.
  if(GPP_HOST_ONLY_XARCH)
    # SHELL: keeps the pair together (target options are de-duplicated one word at a time).
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:SHELL:-Xarch_host ${GPP_HOST_ARCH_FLAGS}>")
  else()
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${GPP_HOST_ARCH_FLAGS}>")
  endif()
endif()

# GPP_HOST_SIMD_FLAGS, for the host loops written as `omp simd` (the host policy, the fast
# reference's host loops, the static remainder's built-in product) and the host FMA ceiling:
# `#pragma omp simd` without the OpenMP runtime (the serial build has no -fopenmp), and
# 512-bit vectors where the ISA has them (g++ tunes Intel CPUs for 256-bit vectors by
# default; without AVX-512 the flag changes nothing).
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-fopenmp-simd GPP_HAVE_FOPENMP_SIMD)
set(GPP_HOST_SIMD_FLAGS "")
if(GPP_HAVE_FOPENMP_SIMD)
  list(APPEND GPP_HOST_SIMD_FLAGS -fopenmp-simd)
endif()
# -fno-trapping-math: g++ 12 will not if-convert the occupied bands' G loop (the
# cutoff's compare after a product) while FP operations may trap; it changes no value
# (IEEE defaults, no FP exception is enabled or read).
check_cxx_compiler_flag(-fno-trapping-math GPP_HAVE_NO_TRAPPING_MATH)
if(GPP_HAVE_NO_TRAPPING_MATH)
  list(APPEND GPP_HOST_SIMD_FLAGS -fno-trapping-math)
endif()
# GPP_HOST_VECTOR_WIDTH: the vector width g++/clang prefer in the `omp simd` loops (the host
# policy's rows and portable packs, the ceiling) where the ISA offers several
# (-mprefer-vector-width=N); 512 by default. The xsimd loops take the ISA's widest. 256 or
# 128 to measure against it: 512 was the faster on the AVX-512 hosts gpp was measured on
# (docs/lab/cpu-host.md).
set(GPP_HOST_VECTOR_WIDTH "512" CACHE STRING "Preferred vector width of the host policy's loops: 512, 256 or 128")
set_property(CACHE GPP_HOST_VECTOR_WIDTH PROPERTY STRINGS 512 256 128)
if(NOT GPP_HOST_VECTOR_WIDTH MATCHES "^(512|256|128)$")
  message(FATAL_ERROR "GPP_HOST_VECTOR_WIDTH=${GPP_HOST_VECTOR_WIDTH}: expected 512, 256 or 128")
endif()
if(GPP_HOST_ARCH_FLAGS)
  check_cxx_compiler_flag(-mprefer-vector-width=${GPP_HOST_VECTOR_WIDTH} GPP_HAVE_PREFER_VECTOR_WIDTH_${GPP_HOST_VECTOR_WIDTH})
  if(GPP_HAVE_PREFER_VECTOR_WIDTH_${GPP_HOST_VECTOR_WIDTH})
    list(APPEND GPP_HOST_SIMD_FLAGS -mprefer-vector-width=${GPP_HOST_VECTOR_WIDTH})
  endif()
endif()

# GPP_HOST_SIMD_FLAGS is a source file's COMPILE_OPTIONS list (policies/CMakeLists.txt): those
# are not de-duplicated and take no SHELL: prefix (CMake 3.25), so under HIP each flag follows
# its own -Xarch_host word.
if(GPP_HOST_ONLY_XARCH AND GPP_HOST_SIMD_FLAGS)
  set(_gpp_host_only "")
  foreach(_f IN LISTS GPP_HOST_SIMD_FLAGS)
    list(APPEND _gpp_host_only -Xarch_host ${_f})
  endforeach()
  set(GPP_HOST_SIMD_FLAGS "${_gpp_host_only}")
endif()

if(GPP_HOST_ARCH_FLAGS)
  set(GPP_HOST_ARCH_SUMMARY "${GPP_HOST_ARCH_FLAGS}")
elseif(_gpp_kokkos_cpu_arch)
  set(GPP_HOST_ARCH_SUMMARY "Kokkos_ARCH_${_gpp_kokkos_cpu_arch} (Kokkos' flags)")
else()
  set(GPP_HOST_ARCH_SUMMARY "none (compiler default, portable)")
endif()
if(GPP_HOST_ONLY_XARCH AND (GPP_HOST_ARCH_FLAGS OR GPP_HOST_SIMD_FLAGS))
  string(APPEND GPP_HOST_ARCH_SUMMARY " (host pass only: -Xarch_host)")
endif()
