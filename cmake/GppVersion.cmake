# Git hash for provenance; "unknown" outside a git checkout (e.g. a spack tarball).
find_package(Git QUIET)
set(GPP_GIT_HASH "unknown")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _hash
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _hash)
    set(GPP_GIT_HASH ${_hash})
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE _dirty ERROR_QUIET)
    if(NOT _dirty EQUAL 0)
      set(GPP_GIT_HASH "${GPP_GIT_HASH}-dirty")
    endif()
  endif()
endif()
