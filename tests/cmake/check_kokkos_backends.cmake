# ctest: a preset refuses a Kokkos whose default execution space is not the one it names
# (cmake/GppKokkosBackends.cmake). First the rule on the backend lists that Kokkos 3.4
# to 5.x export; then a real configure of gpp with the serial preset's expectation
# against a stand-in Kokkos package that has Threads (Kokkos 3.4's PTHREAD spelling):
# it must stop at configure with one clear line.
#   -DGPP_SOURCE_DIR= -DWORK= [-DCMAKE_C_COMPILER= -DCMAKE_CXX_COMPILER= -DGENERATOR=]
cmake_minimum_required(VERSION 3.21)
function(fail msg)
  message(FATAL_ERROR "check_kokkos_backends: ${msg}")
endfunction()
list(APPEND CMAKE_MODULE_PATH ${GPP_SOURCE_DIR}/cmake)
include(GppKokkosBackends)

# expect(<expected> <found> <"" or a regex the refusal must match>)
function(expect expected found want)
  gpp_kokkos_backend_problem(problem "${expected}" "${found}")
  if(want STREQUAL "")
    if(problem)
      fail("preset '${expected}' with Kokkos '${found}' refused: ${problem}")
    endif()
  elseif(NOT problem MATCHES "${want}")
    fail("preset '${expected}' with Kokkos '${found}': expected a refusal matching '${want}', got '${problem}'")
  endif()
endfunction()

# The default space, by Kokkos' own order (device, parallel host, Serial).
foreach(case "SERIAL=SERIAL" "PTHREAD;SERIAL=THREADS" "SERIAL;THREADS=THREADS" "OPENMP;SERIAL=OPENMP"
             "OPENMP;PTHREAD;SERIAL=OPENMP" "OPENMP;CUDA;SERIAL=CUDA" "SERIAL;HIP=HIP" "Serial;OpenMP=OPENMP")
  string(REPLACE "=" ";" parts "${case}")
  list(POP_BACK parts want)
  gpp_kokkos_default_space(got ${parts})
  if(NOT got STREQUAL want)
    fail("default space of '${parts}' is '${got}', expected '${want}'")
  endif()
endforeach()

# What each preset accepts.
expect("SERIAL" "SERIAL" "")
expect("OPENMP" "OPENMP;SERIAL" "")
expect("OPENMP" "OPENMP" "")
expect("THREADS" "PTHREAD;SERIAL" "")      # Kokkos 3.4
expect("THREADS" "THREADS;SERIAL" "")      # Kokkos 3.6 and later
expect("CUDA" "CUDA;OPENMP;SERIAL" "")     # a GPU preset: any host backend beside it
expect("CUDA" "CUDA;SERIAL" "")
expect("HIP" "HIP;SERIAL" "")
expect("" "PTHREAD;SERIAL" "")             # no expectation: anything
# ... and what each refuses.
expect("SERIAL" "PTHREAD;SERIAL" "runs on SERIAL, but .*makes THREADS its default execution space")
expect("SERIAL" "OPENMP;SERIAL" "makes OPENMP its default")
expect("SERIAL" "CUDA;SERIAL" "makes CUDA its default")
expect("THREADS" "SERIAL" "needs Kokkos with THREADS; the Kokkos found has SERIAL")
expect("THREADS" "OPENMP;PTHREAD;SERIAL" "makes OPENMP its default")
expect("OPENMP" "OPENMP;PTHREAD;SERIAL" "also has the host backend THREADS")
expect("OPENMP" "CUDA;OPENMP" "makes CUDA its default")
expect("CUDA" "OPENMP;SERIAL" "needs Kokkos with CUDA")
expect("HIP" "" "needs Kokkos with HIP; the Kokkos found has no backend")

# A real configure: the serial preset's expectation, a Threads Kokkos. It needs the build's
# compilers: a build tree run on another machine (scripts/volta-run.sh runs a bundle of one
# on the GPU machine) may lack them, and the test is then reported skipped, not passed.
foreach(v CMAKE_C_COMPILER CMAKE_CXX_COMPILER)
  if(IS_ABSOLUTE "${${v}}" AND NOT EXISTS "${${v}}")
    message("check_kokkos_backends: skipped the configure: the build's compiler ${${v}} is not on this machine")
    return()
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/kokkos)
file(WRITE ${WORK}/kokkos/KokkosConfig.cmake [=[
# A stand-in for an installed Kokkos 3.4 built with Kokkos_ENABLE_PTHREAD (check_kokkos_backends.cmake).
set(Kokkos_VERSION 3.4.1)
set(Kokkos_DEVICES PTHREAD;SERIAL)
set(Kokkos_ARCH "")
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
endif()
]=])
file(WRITE ${WORK}/kokkos/KokkosConfigVersion.cmake [=[
set(PACKAGE_VERSION 3.4.1)
set(PACKAGE_VERSION_COMPATIBLE TRUE)
]=])
set(args -S ${GPP_SOURCE_DIR} -B ${WORK}/build -DGPP_EXPECT_DEVICES=SERIAL -DKokkos_DIR=${WORK}/kokkos
    -DGPP_ENABLE_TESTS=OFF -DGPP_ENABLE_KOKKOSKERNELS=OFF)
foreach(v CMAKE_C_COMPILER CMAKE_CXX_COMPILER)
  if(${v})
    list(APPEND args -D${v}=${${v}})
  endif()
endforeach()
if(GENERATOR)
  list(APPEND args -G ${GENERATOR})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  fail("the serial preset's expectation configured against a Threads Kokkos:\n${out}")
endif()
set(line "gpp: this preset runs on SERIAL, but the Kokkos found \\(THREADS\\+SERIAL\\) makes THREADS its default execution space")
string(REGEX REPLACE "[ \n]+" " " err_text "${err}")  # CMake wraps long messages
if(NOT err_text MATCHES "${line}")
  fail("configure failed, but not with the refusal:\n${err}")
endif()
file(REMOVE_RECURSE ${WORK})
