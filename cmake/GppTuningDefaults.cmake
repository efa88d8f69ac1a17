# The shipped defaults (tuning/*.json, in the tuning-file format; docs/formats.md): the
# build takes the entry of its GPU architecture for the `tuned` policy and the entry of its
# host ISA for the `host` policy, and compiles their values in: the run's default
# tunables and params, and the shapes that must be known at compile time (G' per thread,
# launch bounds, the host loops' prefetch distance). The files are installed
# (share/gpp/tuning/) and `gpp policies` names the two the build took.
#
#   GPP_TUNING_DEVICE_FILE   tuning/<arch>.json: sm_70, sm_80, sm_90, gfx90a, gfx942 from the
#                            Kokkos architecture; sm_90 for a build without a GPU (the
#                            `tuned` policy then runs on the host only, as a reference)
#   GPP_TUNING_HOST_FILE     tuning/host-<isa>.json: avx512, avx2, neon or generic, from what
#                            the host flags (GPP_HOST_ARCH, Kokkos' or the compiler's
#                            default) define
# Either may be set to another file of the same form (a site's own defaults).

set(_gpp_device_arch "")
foreach(_a IN LISTS Kokkos_ARCH)
  string(TOUPPER "${_a}" _a)
  if(_a STREQUAL "VOLTA70")
    set(_gpp_device_arch sm_70)
  elseif(_a STREQUAL "AMPERE80")
    set(_gpp_device_arch sm_80)
  elseif(_a MATCHES "^HOPPER90$")
    set(_gpp_device_arch sm_90)
  elseif(_a MATCHES "^(AMD_GFX90A|VEGA90A)$")
    set(_gpp_device_arch gfx90a)
  elseif(_a MATCHES "^AMD_GFX942")
    set(_gpp_device_arch gfx942)
  endif()
endforeach()
if(NOT _gpp_device_arch)
  set(_gpp_device_arch sm_90)
endif()

# The host ISA as the compiler sees it with the host flags.
include(CheckCXXSourceCompiles)
set(_gpp_saved_flags "${CMAKE_REQUIRED_FLAGS}")
if(GPP_HOST_ARCH_FLAGS AND NOT GPP_HOST_ONLY_XARCH)
  set(CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS} ${GPP_HOST_ARCH_FLAGS}")
endif()
set(_gpp_host_isa generic)
check_cxx_source_compiles("#if !defined(__AVX512F__)\n#error\n#endif\nint main() { return 0; }" GPP_HOST_ISA_AVX512)
check_cxx_source_compiles("#if !defined(__AVX2__) || !defined(__FMA__)\n#error\n#endif\nint main() { return 0; }"
                          GPP_HOST_ISA_AVX2)
check_cxx_source_compiles("#if !defined(__aarch64__)\n#error\n#endif\nint main() { return 0; }" GPP_HOST_ISA_AARCH64)
set(CMAKE_REQUIRED_FLAGS "${_gpp_saved_flags}")
if(GPP_HOST_ISA_AVX512)
  set(_gpp_host_isa avx512)
elseif(GPP_HOST_ISA_AVX2)
  set(_gpp_host_isa avx2)
elseif(GPP_HOST_ISA_AARCH64)
  set(_gpp_host_isa neon)
endif()

set(GPP_TUNING_DEVICE_FILE "${PROJECT_SOURCE_DIR}/tuning/${_gpp_device_arch}.json" CACHE FILEPATH
  "The shipped defaults of the tuned policy (tuning/<GPU arch>.json)")
set(GPP_TUNING_HOST_FILE "${PROJECT_SOURCE_DIR}/tuning/host-${_gpp_host_isa}.json" CACHE FILEPATH
  "The shipped defaults of the host policy (tuning/host-<ISA>.json)")

# _gpp_tuning_entry(FILE POLICY OUT): the JSON of FILE's entry for POLICY (one with
# size_class "any"), its basis checked; a clear error for anything else.
function(_gpp_tuning_entry file policy out)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "gpp: shipped defaults ${file} not found")
  endif()
  file(READ "${file}" json)
  string(JSON kind ERROR_VARIABLE err GET "${json}" kind)
  if(err OR NOT kind STREQUAL "gpp-tuning")
    message(FATAL_ERROR "gpp: ${file} is not a gpp tuning file (${err})")
  endif()
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" entries)
  if(err)
    message(FATAL_ERROR "gpp: ${file}: ${err}")
  endif()
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON p GET "${json}" entries ${i} policy)
      string(JSON sc GET "${json}" entries ${i} size_class)
      if(p STREQUAL policy AND sc STREQUAL "any")
        string(JSON e GET "${json}" entries ${i})
        string(JSON basis ERROR_VARIABLE err GET "${e}" basis)
        if(err OR NOT basis MATCHES "^(measured|reasoned)$")
          message(FATAL_ERROR "gpp: ${file}: the ${policy} entry's basis is not measured or reasoned")
        endif()
        set(${out} "${e}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endif()
  message(FATAL_ERROR "gpp: ${file} has no entry for the ${policy} policy with size_class \"any\"")
endfunction()

# _gpp_tuning_int(JSON OUT KEY...): a positive integer at KEY... of JSON, an entry of the
# file _gpp_tuning_file names (in errors).
function(_gpp_tuning_int json out)
  string(JSON v ERROR_VARIABLE err GET "${json}" ${ARGN})
  if(err OR NOT v MATCHES "^[1-9][0-9]*$")
    list(JOIN ARGN "." key)
    message(FATAL_ERROR "gpp: ${_gpp_tuning_file}: ${key} is not a positive integer (${err}${v})")
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# _gpp_tuning_ints(JSON OUT KEY...): a non-empty array of positive integers, as "a, b, c".
function(_gpp_tuning_ints json out)
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" ${ARGN})
  if(err OR n EQUAL 0)
    list(JOIN ARGN "." key)
    message(FATAL_ERROR "gpp: ${_gpp_tuning_file}: ${key} is not a non-empty array (${err})")
  endif()
  math(EXPR last "${n} - 1")
  set(list "")
  foreach(i RANGE ${last})
    _gpp_tuning_int("${json}" v ${ARGN} ${i})
    list(APPEND list ${v})
  endforeach()
  list(JOIN list ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

set(_gpp_tuning_file "${GPP_TUNING_DEVICE_FILE}")
_gpp_tuning_entry("${GPP_TUNING_DEVICE_FILE}" tuned _gpp_tuned)
_gpp_tuning_int("${_gpp_tuned}" GPP_TUNED_BAND_BLOCK tunables band_block)
_gpp_tuning_int("${_gpp_tuned}" GPP_TUNED_TEAM_SIZE tunables team_size)
_gpp_tuning_int("${_gpp_tuned}" GPP_TUNED_OCCUPIED_GP shape occupied_gp)
_gpp_tuning_int("${_gpp_tuned}" GPP_TUNED_EMPTY_GP shape empty_gp)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_OCCUPIED_BLOCKS shape occupied_blocks)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_EMPTY_BLOCKS shape empty_blocks)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_SPLIT_UNROLL shape split_unroll)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_OCCUPIED_UNROLL shape occupied_unroll)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_EMPTY_UNROLL shape empty_unroll)
_gpp_tuning_ints("${_gpp_tuned}" GPP_TUNED_BAND_BLOCK_CHOICES shape band_block_choices)
# the choices in increasing order, the first the run's default band block (the one a GPU
# takes where none fits the L2; policies/gpp_tuned_shape.hpp: default_band_block)
string(REPLACE ", " ";" _gpp_choices "${GPP_TUNED_BAND_BLOCK_CHOICES}")
list(GET _gpp_choices 0 _gpp_first)
if(NOT _gpp_first EQUAL GPP_TUNED_BAND_BLOCK)
  message(FATAL_ERROR "gpp: ${_gpp_tuning_file}: shape.band_block_choices must begin with tunables.band_block (${GPP_TUNED_BAND_BLOCK})")
endif()
set(_gpp_last 0)
foreach(_c IN LISTS _gpp_choices)
  if(NOT _c GREATER _gpp_last)
    message(FATAL_ERROR "gpp: ${_gpp_tuning_file}: shape.band_block_choices is not in increasing order")
  endif()
  set(_gpp_last ${_c})
endforeach()
string(JSON GPP_TUNED_BASIS GET "${_gpp_tuned}" basis)

set(_gpp_tuning_file "${GPP_TUNING_HOST_FILE}")
_gpp_tuning_entry("${GPP_TUNING_HOST_FILE}" host _gpp_host)
_gpp_tuning_int("${_gpp_host}" GPP_HOST_BAND_BLOCK tunables band_block)
_gpp_tuning_int("${_gpp_host}" GPP_HOST_IG_BLOCK tunables ig_block)
string(JSON _gpp_prefetch ERROR_VARIABLE _gpp_err GET "${_gpp_host}" shape prefetch_ahead)
if(_gpp_err OR NOT _gpp_prefetch MATCHES "^[0-9]+$")
  message(FATAL_ERROR "gpp: ${GPP_TUNING_HOST_FILE}: shape.prefetch_ahead is not a count of G (0: none)")
endif()
set(GPP_HOST_PREFETCH "${_gpp_prefetch}")
foreach(_p loops rcp_empty rcp_occupied occ_form)
  string(JSON _v ERROR_VARIABLE _gpp_err GET "${_gpp_host}" tunables params ${_p})
  if(_gpp_err OR NOT _v MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "gpp: ${GPP_TUNING_HOST_FILE}: tunables.params.${_p} is missing")
  endif()
  string(TOUPPER "${_p}" _P)
  set(GPP_HOST_PARAM_${_P} "${_v}")
endforeach()
string(JSON GPP_HOST_BASIS GET "${_gpp_host}" basis)

file(RELATIVE_PATH GPP_TUNING_DEVICE_NAME "${PROJECT_SOURCE_DIR}" "${GPP_TUNING_DEVICE_FILE}")
file(RELATIVE_PATH GPP_TUNING_HOST_NAME "${PROJECT_SOURCE_DIR}" "${GPP_TUNING_HOST_FILE}")
configure_file(${PROJECT_SOURCE_DIR}/policies/gpp_tuning_defaults.hpp.in
               ${PROJECT_BINARY_DIR}/generated/gpp_tuning_defaults.hpp @ONLY)
# A changed file reconfigures.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${GPP_TUNING_DEVICE_FILE}" "${GPP_TUNING_HOST_FILE}")
message(STATUS "gpp: shipped defaults ${GPP_TUNING_DEVICE_NAME} (tuned, ${GPP_TUNED_BASIS}) and "
               "${GPP_TUNING_HOST_NAME} (host, ${GPP_HOST_BASIS})")
