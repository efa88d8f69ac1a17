# ctest: `gpp --version` prints the version, the git hash of the source tree as it is
# now (checked here with `git status`, not with the commands that generated it), the
# Kokkos version CMake found and its backends, then any warning Kokkos gave as it
# started (a line each); `gpp run` reports the same hash.
#   -DGPP_EXE= -DGPP_SOURCE_DIR= -DGPP_VERSION= -DGIT_EXECUTABLE= -DKOKKOS_VERSION= -DKOKKOS_DEVICES=
function(fail msg)
  message(FATAL_ERROR "check_version: ${msg}")
endfunction()

execute_process(COMMAND ${GPP_EXE} --version OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("gpp --version exited ${rc}: ${err}")
endif()
if(NOT out MATCHES "^gpp ([0-9]+\\.[0-9]+\\.[0-9]+)\ngit ([0-9a-f]+(-dirty)?|unknown)\nKokkos ([0-9]+)\\.([0-9]+)\\.([0-9]+) \\(([A-Za-z,]+); default execution space ([A-Za-z]+)\\)\n(kokkos warning: [^\n]+\n)*$")
  fail("unexpected format:\n${out}")
endif()
set(version "${CMAKE_MATCH_1}")
set(hash "${CMAKE_MATCH_2}")
set(kv "${CMAKE_MATCH_4}.${CMAKE_MATCH_5}.${CMAKE_MATCH_6}")
set(backends "${CMAKE_MATCH_7}")
set(default_space "${CMAKE_MATCH_8}")

if(NOT version STREQUAL GPP_VERSION)
  fail("version ${version}, the project is ${GPP_VERSION}")
endif()

# The hash: the source tree's HEAD, "-dirty" exactly when a tracked file differs.
set(expected "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel WORKING_DIRECTORY ${GPP_SOURCE_DIR}
    OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE grc)
  if(grc EQUAL 0)
    get_filename_component(top "${top}" REALPATH)
    get_filename_component(src "${GPP_SOURCE_DIR}" REALPATH)
  endif()
  if(grc EQUAL 0 AND top STREQUAL src)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${GPP_SOURCE_DIR}
      OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(SUBSTRING "${head}" 0 12 expected)
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${GPP_SOURCE_DIR} OUTPUT_VARIABLE changes)
    if(NOT changes STREQUAL "")
      string(APPEND expected "-dirty")
    endif()
  endif()
endif()
if(NOT hash STREQUAL expected)
  fail("git ${hash}, the source tree is at ${expected} (rebuild after changing the tree)")
endif()

# Kokkos: the version CMake found (3.4.01 and 3.4.1 are the same) and its backends.
if(KOKKOS_VERSION MATCHES "^([0-9]+)\\.0*([0-9]+)\\.0*([0-9]+)")
  set(found "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
  if(NOT kv STREQUAL found)
    fail("Kokkos ${kv}, CMake found ${KOKKOS_VERSION}")
  endif()
endif()
string(REPLACE "," ";" backends_list "${backends}")
foreach(d IN LISTS KOKKOS_DEVICES)
  string(TOLOWER "${d}" d)
  set(have OFF)
  foreach(b IN LISTS backends_list)
    string(TOLOWER "${b}" b)
    if(b STREQUAL d)
      set(have ON)
    endif()
  endforeach()
  if(NOT have)
    fail("backends '${backends}' lack ${d} (Kokkos_DEVICES: ${KOKKOS_DEVICES})")
  endif()
endforeach()
list(FIND backends_list "${default_space}" i)
if(i LESS 0)
  fail("default execution space ${default_space} is not among the backends ${backends}")
endif()

# Provenance of a run comes from the same generated source.
execute_process(COMMAND ${GPP_EXE} run ${GPP_SOURCE_DIR}/inputs/small.toml --nbands 6 --ngpown 4 --ncouls 20
                        --nvband 2 --repeat 1 --warmup 0 --no-branch-stats
  OUTPUT_VARIABLE run_out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("gpp run exited ${rc}: ${err}")
endif()
string(FIND "${run_out}" "gpp ${version} (git ${hash})" at)
if(at LESS 0)
  fail("gpp run's provenance does not name git ${hash}:\n${run_out}")
endif()
message(STATUS "gpp --version: ${version}, git ${hash}, Kokkos ${kv} (${backends})")
