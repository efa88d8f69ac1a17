# Sanitizer builds (docs/dev/testing.md, "Sanitizers and fuzzing"): GPP_SANITIZE names the
# sanitizers gpp's own code and tests are compiled and linked with (the asan and fuzz
# presets: address,undefined). UndefinedBehaviorSanitizer stops at its first report
# (-fno-sanitize-recover=all), as AddressSanitizer does, so that a finding fails the test
# that met it instead of scrolling past in its output. GCC leaves float-cast-overflow out
# of "undefined" (clang puts it in): a double cast to an int it does not fit (a size or a
# count read as a number) is undefined behaviour in both, so it is named too.
# GPP_SANITIZE_EXCLUDE names checks left out, as -fno-sanitize= takes them (the asan preset:
# the UBSan checks that cost most of its compile time, docs/dev/testing.md).
# Kokkos, HDF5 and the other libraries are Debian's, not instrumented: AddressSanitizer
# still sees every access gpp makes to memory they return.
set(GPP_SANITIZE "" CACHE STRING "Sanitizers for gpp's code and tests, as -fsanitize= takes them (e.g. address,undefined)")
set(GPP_SANITIZE_EXCLUDE "" CACHE STRING "Checks of GPP_SANITIZE left out, as -fno-sanitize= takes them (e.g. alignment,enum)")
if(GPP_SANITIZE_EXCLUDE AND NOT GPP_SANITIZE)
  message(FATAL_ERROR "GPP_SANITIZE_EXCLUDE=${GPP_SANITIZE_EXCLUDE} without GPP_SANITIZE: nothing to leave out")
endif()
if(GPP_SANITIZE)
  string(REPLACE ";" "," _gpp_sanitize "${GPP_SANITIZE}")
  if(_gpp_sanitize MATCHES "undefined")
    string(APPEND _gpp_sanitize ",float-cast-overflow")
  endif()
  set(GPP_SANITIZE_FLAGS -fsanitize=${_gpp_sanitize} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  if(GPP_SANITIZE_EXCLUDE)
    string(REPLACE ";" "," _gpp_sanitize_exclude "${GPP_SANITIZE_EXCLUDE}")
    list(APPEND GPP_SANITIZE_FLAGS -fno-sanitize=${_gpp_sanitize_exclude})
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${GPP_SANITIZE_FLAGS}>")
  # GCC's AddressSanitizer poisons each scoped local where its scope ends (use-after-scope).
  # In the host loops over SIMD vectors (GPP_HOST_SIMD_FLAGS' files: the host policy, the
  # fast reference's host loops, the static remainder, the FMA ceiling), large inlined
  # functions whose vectors are scoped locals, that took GCC 12 at -O1 7.5 times the host
  # policy's compile and made it 8 times slower (docs/lab/builds.md): there alone the check
  # is left out. Every access is still checked against its object's bounds.
  if(_gpp_sanitize MATCHES "address" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND GPP_HOST_SIMD_FLAGS -fno-sanitize-address-use-after-scope)
  endif()
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:-fsanitize=${_gpp_sanitize}>")
  # What a program that links the installed library must link too (tests/api's examples):
  # the sanitizer's runtime has to come first in its library list.
  set(GPP_SANITIZE_LINK_OPTION "-fsanitize=${_gpp_sanitize}")
else()
  set(GPP_SANITIZE_LINK_OPTION "")
endif()

# Fuzz targets (tests/fuzz/): OFF; replay (each target with a main of its own that runs it
# on files: any compiler, ctest replays the seed corpus and regression cases); libfuzzer
# (clang's -fsanitize=fuzzer: the targets are fuzzers, ctest replays through them).
set(GPP_FUZZ_TARGETS "OFF" CACHE STRING "Fuzz targets of every input format: OFF, replay or libfuzzer")
set_property(CACHE GPP_FUZZ_TARGETS PROPERTY STRINGS OFF replay libfuzzer)
if(NOT GPP_FUZZ_TARGETS MATCHES "^(OFF|replay|libfuzzer)$")
  message(FATAL_ERROR "GPP_FUZZ_TARGETS=${GPP_FUZZ_TARGETS}: expected OFF, replay or libfuzzer")
endif()
if(GPP_FUZZ_TARGETS STREQUAL "libfuzzer")
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPP_FUZZ_TARGETS=libfuzzer needs clang (-fsanitize=fuzzer); "
                        "${CMAKE_CXX_COMPILER_ID} builds GPP_FUZZ_TARGETS=replay")
  endif()
  # libFuzzer is guided by the coverage of the code a target reaches: the readers live in
  # the rooms' libraries, so all of gpp is compiled with its coverage instrumentation (the
  # sanitizer runtime answers its callbacks in executables that are not fuzzers).
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
endif()
