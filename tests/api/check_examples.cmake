# ctest: the library as a user gets it. MODE=install: `cmake --install` of this build into a
# scratch prefix, and its layout (the public headers and nothing else of the source tree,
# the CMake package). MODE=cxx|c|fortran: examples/MODE configured out of tree with
# find_package(gpp CONFIG) against that prefix, built, and run (each exits non-zero when
# gpp's sums differ from its own loop). MODE=python: examples/python/*.py run with the
# installed module first on PYTHONPATH.
#   -DMODE= -DGPP_BUILD_DIR= -DGPP_SOURCE_DIR= -DPREFIX= -DLIBDIR= -DINCLUDEDIR= -DSHARED_SUFFIX= -DWORK= [-DPYTHON= -DPYTHON_DIR=
#   -DCMAKE_C_COMPILER= -DCMAKE_CXX_COMPILER= -DCMAKE_Fortran_COMPILER= -DGENERATOR= -DSANITIZE_LINK=]
function(fail msg)
  message(FATAL_ERROR "check_examples (${MODE}): ${msg}")
endfunction()
function(run)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  message("${out}")
  if(NOT rc EQUAL 0)
    fail("`${ARGN}` exited ${rc}")
  endif()
endfunction()
# The build's own install directories (GNUInstallDirs in a script would guess them again).
set(CMAKE_INSTALL_INCLUDEDIR ${INCLUDEDIR})
set(CMAKE_INSTALL_LIBDIR ${LIBDIR})

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${PREFIX})
  run(${CMAKE_COMMAND} --install ${GPP_BUILD_DIR} --prefix ${PREFIX})
  foreach(f ${CMAKE_INSTALL_INCLUDEDIR}/gpp/gpp.hpp ${CMAKE_INSTALL_INCLUDEDIR}/gpp/gpp.h
            ${CMAKE_INSTALL_LIBDIR}/cmake/gpp/gppConfig.cmake ${CMAKE_INSTALL_LIBDIR}/cmake/gpp/gppConfigVersion.cmake
            ${CMAKE_INSTALL_LIBDIR}/libgpp${SHARED_SUFFIX})
    if(NOT EXISTS ${PREFIX}/${f})
      fail("${f} is not installed")
    endif()
  endforeach()
  # The public headers only: nothing else in include/gpp, and no header of a room (each is
  # named gpp_*.hpp) anywhere. Other headers may be there: a Kokkos built in-tree
  # (GPP_KOKKOS_SOURCE_DIR) installs its own beside gpp's, as its consumers need them.
  file(GLOB_RECURSE headers RELATIVE ${PREFIX}/${CMAKE_INSTALL_INCLUDEDIR} ${PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/*)
  list(FILTER headers INCLUDE REGEX "^gpp/|(^|/)gpp_[^/]*\\.(h|hpp)$")
  list(FILTER headers EXCLUDE REGEX "^gpp/(gpp\\.hpp|gpp\\.h|fortran/gpp\\.mod)$")
  if(headers)
    fail("installed headers beyond the public ones: ${headers}")
  endif()
  return()
endif()

if(MODE STREQUAL "python")
  file(GLOB scripts ${GPP_SOURCE_DIR}/examples/python/*.py)
  if(NOT scripts)
    fail("no examples/python/*.py")
  endif()
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  foreach(s IN LISTS scripts)
    # From an empty folder, the installed module first (never the build tree's).
    execute_process(COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${PREFIX}/${PYTHON_DIR}" MPLBACKEND=Agg
                            ${PYTHON} ${s} WORKING_DIRECTORY ${WORK}
                    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
    message("${s}:\n${out}")
    if(NOT rc EQUAL 0)
      fail("${s} exited ${rc}")
    endif()
    string(FIND "${out}" "${PREFIX}/${PYTHON_DIR}/gpp" at)
    if(at LESS 0)
      fail("${s} did not say that it imported the installed module (${PREFIX}/${PYTHON_DIR}/gpp...)")
    endif()
  endforeach()
  return()
endif()

set(args -S ${GPP_SOURCE_DIR}/examples/${MODE} -B ${WORK} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
foreach(v CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_Fortran_COMPILER)
  if(${v})
    list(APPEND args -D${v}=${${v}})
  endif()
endforeach()
if(GENERATOR)
  list(APPEND args -G ${GENERATOR})
endif()
# A sanitized libgpp (the asan preset): the example links the sanitizer's runtime itself, which
# must come first in a program's library list.
if(SANITIZE_LINK)
  list(APPEND args -DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_LINK})
endif()
file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} ${args})
run(${CMAKE_COMMAND} --build ${WORK})
run(${WORK}/gpp_example_${MODE})
