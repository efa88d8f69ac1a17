# Kokkos: an installed package (Kokkos 4.x exports Kokkos::kokkos; Debian's Trilinos
# build of 3.4 exports trilinos_kokkoscore with a broken include path) or an in-tree
# source directory given with GPP_KOKKOS_SOURCE_DIR. Everything links gpp::kokkos.
if(GPP_KOKKOS_SOURCE_DIR)
  add_subdirectory(${GPP_KOKKOS_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/kokkos)
  # Kokkos keeps these in its own directory scope.
  get_directory_property(_gpp_kv DIRECTORY ${GPP_KOKKOS_SOURCE_DIR} DEFINITION KOKKOS_VERSION)
  if(_gpp_kv)
    math(EXPR _gpp_major "${_gpp_kv} / 10000")
    math(EXPR _gpp_minor "(${_gpp_kv} / 100) % 100")
    math(EXPR _gpp_patch "${_gpp_kv} % 100")
    set(_gpp_kv "${_gpp_major}.${_gpp_minor}.${_gpp_patch}")
  endif()
  get_directory_property(Kokkos_DEVICES DIRECTORY ${GPP_KOKKOS_SOURCE_DIR} DEFINITION KOKKOS_ENABLED_DEVICES)
  get_directory_property(Kokkos_ARCH DIRECTORY ${GPP_KOKKOS_SOURCE_DIR} DEFINITION KOKKOS_ENABLED_ARCH_LIST)
  set(GPP_KOKKOS_VERSION "${_gpp_kv} (in-tree: ${GPP_KOKKOS_SOURCE_DIR})")
else()
  find_package(Kokkos REQUIRED CONFIG)
  set(GPP_KOKKOS_VERSION "${Kokkos_VERSION}")
  # The presets' Kokkos_* / KokkosKernels_* values configure an in-tree build; an
  # installed Kokkos is checked against GPP_EXPECT_DEVICES/ARCH instead (below).
  foreach(_gpp_v Kokkos_ENABLE_SERIAL Kokkos_ENABLE_OPENMP Kokkos_ENABLE_CUDA Kokkos_ARCH_VOLTA70
                 Kokkos_ARCH_HOPPER90 KokkosKernels_ENABLE_TPL_CUBLAS
                 Kokkos_ENABLE_HIP Kokkos_ARCH_AMD_GFX90A Kokkos_ARCH_AMD_GFX942)
    if(DEFINED ${_gpp_v})
      set(_gpp_preset_value "${${_gpp_v}}")
    endif()
  endforeach()
  if(DEFINED Kokkos_ENABLE_THREADS)  # the threads preset's
    set(_gpp_preset_value "${Kokkos_ENABLE_THREADS}")
  endif()
endif()

add_library(gpp_kokkos INTERFACE)
add_library(gpp::kokkos ALIAS gpp_kokkos)
if(TARGET trilinos_kokkoscore)
  # Debian's Trilinos build: its Kokkos::kokkos target points at a non-existent
  # /usr/lib/include; the headers live in Kokkos_INCLUDE_DIRS (/usr/include/trilinos).
  find_path(GPP_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
    HINTS ${Kokkos_INCLUDE_DIRS} ${KokkosCore_INCLUDE_DIRS} /usr/include/trilinos
    NO_DEFAULT_PATH REQUIRED)
  target_include_directories(gpp_kokkos SYSTEM INTERFACE ${GPP_KOKKOS_INCLUDE_DIR})
  target_link_libraries(gpp_kokkos INTERFACE trilinos_kokkoscore trilinos_kokkoscontainers)
elseif(TARGET Kokkos::kokkos)
  target_link_libraries(gpp_kokkos INTERFACE Kokkos::kokkos)
else()
  message(FATAL_ERROR "gpp: Kokkos was found but exports neither Kokkos::kokkos nor trilinos_kokkoscore")
endif()
if(NOT GPP_KOKKOS_VERSION OR GPP_KOKKOS_VERSION MATCHES "^ ")
  set(GPP_KOKKOS_VERSION "(from KOKKOS_VERSION at run time)")
endif()
set(GPP_KOKKOS_DEVICES "${Kokkos_DEVICES}")
set(GPP_KOKKOS_ARCH "${Kokkos_ARCH}")
if(NOT GPP_KOKKOS_ARCH)
  set(GPP_KOKKOS_ARCH "(none named)")
endif()
# What the preset asked for must be what the Kokkos we found provides: GPU
# architectures are never auto-detected (build machines often have no GPU).
set(GPP_EXPECT_DEVICES "" CACHE STRING "Kokkos backends the Kokkos in use must have, its default execution space first (e.g. CUDA;OPENMP)")
set(GPP_EXPECT_ARCH "" CACHE STRING "Kokkos architecture the Kokkos in use must target (e.g. VOLTA70); empty: generic")
# The default execution space too, not only the presence of each backend
# (cmake/GppKokkosBackends.cmake): a Threads Kokkos is not a Serial one.
include(GppKokkosBackends)
gpp_kokkos_backend_problem(_gpp_backend_problem "${GPP_EXPECT_DEVICES}" "${Kokkos_DEVICES}")
if(_gpp_backend_problem)
  message(FATAL_ERROR "gpp: ${_gpp_backend_problem}")
endif()
if(COMMAND kokkos_check)
  kokkos_check(OPTIONS COMPLEX_ALIGN RETURN_VALUE GPP_KOKKOS_COMPLEX_ALIGN)
  if(GPP_EXPECT_ARCH)
    kokkos_check(ARCH ${GPP_EXPECT_ARCH} RETURN_VALUE _gpp_arch_ok)
    if(NOT _gpp_arch_ok)
      message(FATAL_ERROR "gpp: this preset targets ${GPP_EXPECT_ARCH}; the Kokkos found targets '${Kokkos_ARCH}'")
    endif()
  endif()
endif()

# Kokkos Kernels: achstemp's GEMM. Kokkos Kernels 4.x exports Kokkos::kokkoskernels,
# Debian's 3.4 exports trilinos_kokkoskernels.
set(GPP_HAVE_KOKKOSKERNELS OFF)
add_library(gpp_kokkoskernels INTERFACE)
add_library(gpp::kokkoskernels ALIAS gpp_kokkoskernels)
if(GPP_ENABLE_KOKKOSKERNELS)
  if(GPP_KOKKOSKERNELS_SOURCE_DIR)
    add_subdirectory(${GPP_KOKKOSKERNELS_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/kokkos-kernels)
  else()
    find_package(KokkosKernels REQUIRED CONFIG)
  endif()
  if(TARGET trilinos_kokkoskernels)
    find_path(GPP_KOKKOSKERNELS_INCLUDE_DIR KokkosBlas3_gemm.hpp
      HINTS ${KokkosKernels_INCLUDE_DIRS} /usr/include/trilinos NO_DEFAULT_PATH REQUIRED)
    target_include_directories(gpp_kokkoskernels SYSTEM INTERFACE ${GPP_KOKKOSKERNELS_INCLUDE_DIR})
    target_link_libraries(gpp_kokkoskernels INTERFACE trilinos_kokkoskernels)
  elseif(TARGET Kokkos::kokkoskernels)
    target_link_libraries(gpp_kokkoskernels INTERFACE Kokkos::kokkoskernels)
  elseif(TARGET kokkoskernels)
    target_link_libraries(gpp_kokkoskernels INTERFACE kokkoskernels)
  else()
    message(FATAL_ERROR "gpp: Kokkos Kernels was found but exports no known target")
  endif()
  target_compile_definitions(gpp_kokkoskernels INTERFACE GPP_HAVE_KOKKOSKERNELS=1)
  set(GPP_HAVE_KOKKOSKERNELS ON)
endif()

# HDF5 (C API only).
set(GPP_HAVE_HDF5 OFF)
add_library(gpp_hdf5 INTERFACE)
add_library(gpp::hdf5 ALIAS gpp_hdf5)
if(NOT GPP_ENABLE_HDF5 STREQUAL "OFF")
  if(GPP_ENABLE_HDF5 STREQUAL "ON")
    find_package(HDF5 REQUIRED COMPONENTS C)
  else()
    find_package(HDF5 QUIET COMPONENTS C)
  endif()
  if(HDF5_FOUND)
    if(TARGET hdf5::hdf5)
      target_link_libraries(gpp_hdf5 INTERFACE hdf5::hdf5)
    else()
      target_include_directories(gpp_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
      target_link_libraries(gpp_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
      target_compile_definitions(gpp_hdf5 INTERFACE ${HDF5_DEFINITIONS})
    endif()
    target_compile_definitions(gpp_hdf5 INTERFACE GPP_HAVE_HDF5=1)
    set(GPP_HAVE_HDF5 ON)
  endif()
endif()

# xsimd (header-only; Debian: libxsimd-dev, spack: xsimd): the vector type of the host
# policy's loops (policies/gpp_simd.hpp). Without it the loops run on portable packs.
# Found through its CMake package (xsimd_ROOT, CMAKE_PREFIX_PATH) or as headers
# (GPP_XSIMD_INCLUDE_DIR: the folder holding xsimd/xsimd.hpp); only the headers are used
# (Debian's package names an xtl library in its target that gpp does not need).
set(GPP_HAVE_XSIMD OFF)
set(GPP_XSIMD_VERSION "")
add_library(gpp_xsimd INTERFACE)
add_library(gpp::xsimd ALIAS gpp_xsimd)
if(NOT GPP_ENABLE_XSIMD STREQUAL "OFF")
  find_package(xsimd CONFIG QUIET)
  set(_gpp_xsimd_hints "")
  if(TARGET xsimd)
    get_target_property(_gpp_xsimd_hints xsimd INTERFACE_INCLUDE_DIRECTORIES)
  endif()
  find_path(GPP_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp HINTS ${_gpp_xsimd_hints}
    DOC "The folder holding xsimd/xsimd.hpp (xsimd 8 or later)")
  set(_gpp_xsimd_config "${GPP_XSIMD_INCLUDE_DIR}/xsimd/config/xsimd_config.hpp")
  if(GPP_XSIMD_INCLUDE_DIR AND EXISTS "${_gpp_xsimd_config}")
    file(STRINGS "${_gpp_xsimd_config}" _gpp_xv REGEX "^#define XSIMD_VERSION_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" GPP_XSIMD_VERSION "${_gpp_xv}")
  endif()
  if(GPP_XSIMD_VERSION VERSION_GREATER_EQUAL 8)
    target_include_directories(gpp_xsimd SYSTEM INTERFACE ${GPP_XSIMD_INCLUDE_DIR})
    target_compile_definitions(gpp_xsimd INTERFACE GPP_HAVE_XSIMD=1)
    set(GPP_HAVE_XSIMD ON)
    set(GPP_XSIMD_VERSION "(${GPP_XSIMD_VERSION}, ${GPP_XSIMD_INCLUDE_DIR})")
  elseif(GPP_ENABLE_XSIMD STREQUAL "ON")
    message(FATAL_ERROR "gpp: GPP_ENABLE_XSIMD=ON but no xsimd 8 or later was found "
                        "(set GPP_XSIMD_INCLUDE_DIR to the folder holding xsimd/xsimd.hpp)")
  else()
    set(GPP_XSIMD_VERSION "(not found: the host loops run on portable packs)")
  endif()
endif()

# JSON (run records, ceilings, tuning files): nlohmann/json, header-only (Debian:
# nlohmann-json3-dev; spack: nlohmann-json).
find_package(nlohmann_json 3.10 CONFIG REQUIRED)

find_package(CLI11 CONFIG QUIET)
if(NOT TARGET CLI11::CLI11)
  find_path(GPP_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${GPP_CLI11_INCLUDE})
endif()

if(GPP_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()
