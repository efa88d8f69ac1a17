# ctest: `cmake --install` of this build into a scratch prefix gives the GNUInstallDirs
# layout, and the installed gpp, run from another directory, finds decks by name; the
# build-tree gpp finds them in the source tree; a deck in the working directory wins;
# an unknown name is one line listing where gpp looked.
#   -DGPP_BUILD_DIR= -DGPP_SOURCE_DIR= -DGPP_BUILD_EXE= -DWORK=
function(fail msg)
  message(FATAL_ERROR "check_install: ${msg}")
endfunction()
# run(DIR EXPECT_RC OUT_VAR ARGS...): stdout and stderr together.
function(run dir want outvar)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc STREQUAL want)
    fail("`${ARGN}` in ${dir} exited ${rc}, expected ${want}:\n${out}")
  endif()
  set(${outvar} "${out}" PARENT_SCOPE)
endfunction()
function(expect text what)
  string(FIND "${text}" "${what}" at)
  if(at LESS 0)
    fail("expected '${what}' in:\n${text}")
  endif()
endfunction()
function(expect_not text what)
  string(FIND "${text}" "${what}" at)
  if(NOT at LESS 0)
    fail("did not expect '${what}' in:\n${text}")
  endif()
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/elsewhere ${WORK}/empty)
run(${WORK} 0 out ${CMAKE_COMMAND} --install ${GPP_BUILD_DIR} --prefix ${prefix})

include(GNUInstallDirs)
foreach(f ${CMAKE_INSTALL_BINDIR}/gpp
          ${CMAKE_INSTALL_DATADIR}/gpp/inputs/small.toml ${CMAKE_INSTALL_DATADIR}/gpp/inputs/si214.toml
          ${CMAKE_INSTALL_DATADIR}/doc/gpp/README.md ${CMAKE_INSTALL_DATADIR}/doc/gpp/LICENSE
          ${CMAKE_INSTALL_DATADIR}/doc/gpp/install.md ${CMAKE_INSTALL_DATADIR}/gpp/tools/h5py_check.py)
  if(NOT EXISTS ${prefix}/${f})
    fail("${f} is not installed")
  endif()
endforeach()
file(GLOB decks RELATIVE ${GPP_SOURCE_DIR}/inputs ${GPP_SOURCE_DIR}/inputs/*.toml)
file(GLOB installed RELATIVE ${prefix}/${CMAKE_INSTALL_DATADIR}/gpp/inputs ${prefix}/${CMAKE_INSTALL_DATADIR}/gpp/inputs/*)
list(SORT decks)
list(SORT installed)
if(NOT decks STREQUAL installed)
  fail("installed decks '${installed}', the source tree has '${decks}'")
endif()
# Build helpers stay in the source tree.
if(EXISTS ${prefix}/${CMAKE_INSTALL_DATADIR}/gpp/tools/quickstart.sh)
  fail("tools/quickstart.sh must not be installed")
endif()

set(gpp ${prefix}/${CMAKE_INSTALL_BINDIR}/gpp)
set(tiny --nbands 10 --ngpown 7 --ncouls 50 --nvband 4 --repeat 1 --warmup 0 --no-branch-stats)
# By name, with and without .toml, from a directory without decks.
run(${WORK}/elsewhere 0 out ${gpp} run small --repeat 1 --warmup 0 --no-branch-stats)
expect("${out}" "RESULT deck=small ")
expect("${out}" "verified=yes")
run(${WORK}/elsewhere 0 out ${gpp} run si214.toml ${tiny})
expect("${out}" "RESULT deck=si214 ")
run(${WORK}/elsewhere 0 out ${gpp} run --deck si214 ${tiny})
expect("${out}" "RESULT deck=si214 ")
# A deck in the working directory comes first.
file(WRITE ${WORK}/elsewhere/small.toml "name = \"mine\"\nnbands = 9\nngpown = 5\nncouls = 30\nnvband = 3\n")
run(${WORK}/elsewhere 0 out ${gpp} run small ${tiny})
expect("${out}" "RESULT deck=mine ")
# A path is a path: never looked up by its last component.
run(${WORK}/empty 1 out ${gpp} run inputs/small.toml ${tiny})
expect("${out}" "no deck 'inputs/small.toml'")
# Unknown: one line naming every place looked in (the installed decks, not the source tree).
run(${WORK}/empty 1 out ${gpp} run nosuchdeck ${tiny})
string(STRIP "${out}" line)
if(line MATCHES "\n")
  fail("expected one line:\n${out}")
endif()
expect("${out}" "no deck 'nosuchdeck'")
expect("${out}" "nosuchdeck.toml")
file(REAL_PATH ${prefix}/${CMAKE_INSTALL_DATADIR}/gpp/inputs installed_decks)
expect("${out}" "${installed_decks}/nosuchdeck.toml")
expect_not("${out}" "${GPP_SOURCE_DIR}/inputs")
expect_not("${out}" "RESULT")
# The build tree's gpp finds the source tree's decks from anywhere, and says so when not.
run(${WORK}/empty 0 out ${GPP_BUILD_EXE} run si214 ${tiny})
expect("${out}" "RESULT deck=si214 ")
run(${WORK}/empty 1 out ${GPP_BUILD_EXE} run nosuchdeck ${tiny})
expect("${out}" "${GPP_SOURCE_DIR}/inputs/nosuchdeck.toml")
message(STATUS "installed layout and deck lookup checked in ${prefix}")
