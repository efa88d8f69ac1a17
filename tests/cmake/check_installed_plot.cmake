# ctest Install.RooflinePlotFromPrefix: an installed gpp is whole. This build is installed
# into a scratch prefix, which is then moved, so that no path of the build or the source
# tree leads to it; `gpp roofline --plot` of the moved copy draws its chart with the
# gpp_plot.py of its own prefix. The python it runs (GPP_PLOT_PYTHON, a wrapper around a
# python3 with matplotlib) records the script it was given. Without that script the copy
# refuses --plot in one line naming where it looked, before any work, and never reaches for
# the source tree's; the build tree's gpp takes the source tree's.
#   -DGPP_BUILD_DIR= -DGPP_SOURCE_DIR= -DGPP_BUILD_EXE= -DPYTHON= -DWORK=
function(fail msg)
  message(FATAL_ERROR "check_installed_plot: ${msg}")
endfunction()
# run(DIR EXPECT_RC OUT_VAR ARGS...): stdout and stderr together, with the wrapper python.
function(run dir want outvar)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env GPP_PLOT_PYTHON=${WORK}/python MPLBACKEND=Agg ${ARGN}
                  WORKING_DIRECTORY ${dir} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc STREQUAL want)
    fail("`${ARGN}` in ${dir} exited ${rc}, expected ${want}:\n${out}")
  endif()
  set(${outvar} "${out}" PARENT_SCOPE)
endfunction()
# The scripts the wrapper was given since the last call (its other calls are `-c ...`).
function(scripts_run outvar)
  set(scripts "")
  if(EXISTS ${WORK}/scripts-run.txt)
    file(STRINGS ${WORK}/scripts-run.txt lines)
    file(REMOVE ${WORK}/scripts-run.txt)
    foreach(l IN LISTS lines)
      if(NOT l STREQUAL "-c")
        list(APPEND scripts "${l}")
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES scripts)
  set(${outvar} "${scripts}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/elsewhere)
file(WRITE ${WORK}/python "#!/bin/sh\nprintf '%s\\n' \"$1\" >>'${WORK}/scripts-run.txt'\nexec '${PYTHON}' \"$@\"\n")
file(CHMOD ${WORK}/python PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${GPP_BUILD_DIR} --prefix ${WORK}/prefix
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("cmake --install exited ${rc}:\n${out}")
endif()
file(RENAME ${WORK}/prefix ${WORK}/moved)

include(GNUInstallDirs)
set(gpp ${WORK}/moved/${CMAKE_INSTALL_BINDIR}/gpp)
file(REAL_PATH ${WORK}/moved/${CMAKE_INSTALL_DATADIR}/gpp/tools/gpp_plot.py installed_script)
set(tiny --policy host --nbands 10 --ngpown 7 --ncouls 50 --nvband 4 --repeat 1 --warmup 0)

# The moved install draws with its own script.
run(${WORK}/elsewhere 0 out ${gpp} roofline small ${tiny} --csv r.csv --plot .)
scripts_run(used)
if(NOT used STREQUAL installed_script)
  fail("the installed gpp ran the chart script(s) '${used}', expected ${installed_script}:\n${out}")
endif()
foreach(f r.csv times.png times.svg)
  if(NOT EXISTS ${WORK}/elsewhere/${f})
    fail("${f} was not written:\n${out}")
  endif()
endforeach()

# Without it: one line naming the prefix's place, nothing of the source tree, no work.
file(REMOVE ${installed_script})
run(${WORK}/elsewhere 1 out ${gpp} roofline small ${tiny} --csv r2.csv --plot .)
string(STRIP "${out}" line)
if(line MATCHES "\n" OR NOT line MATCHES "no chart script gpp_plot.py")
  fail("expected one line naming the missing chart script:\n${out}")
endif()
string(FIND "${out}" "${installed_script}" at)
if(at LESS 0)
  fail("the refusal does not name ${installed_script}:\n${out}")
endif()
string(FIND "${out}" "${GPP_SOURCE_DIR}/tools/gpp_plot.py" at)
if(NOT at LESS 0 OR EXISTS ${WORK}/elsewhere/r2.csv)
  fail("the installed gpp looked in the source tree, or wrote r2.csv:\n${out}")
endif()

# The build tree's gpp takes the source tree's script.
file(MAKE_DIRECTORY ${WORK}/build-tree)
run(${WORK}/build-tree 0 out ${GPP_BUILD_EXE} roofline small ${tiny} --csv r.csv --plot .)
scripts_run(used)
file(REAL_PATH ${GPP_SOURCE_DIR}/tools/gpp_plot.py source_script)
if(NOT used STREQUAL source_script)
  fail("the build tree's gpp ran the chart script(s) '${used}', expected ${source_script}:\n${out}")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "gpp roofline --plot: the moved install used ${installed_script}, the build tree ${source_script}")
