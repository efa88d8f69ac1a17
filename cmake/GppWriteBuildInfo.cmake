# cmake -DGPP_SOURCE_DIR=... -DGPP_OUTPUT=... -DGPP_VERSION=... [-DGIT_EXECUTABLE=...] -P GppWriteBuildInfo.cmake
# Writes the definitions of record/gpp_build_info.hpp to GPP_OUTPUT, touching the file only
# when its content changes (configure_file compares before writing).
set(_hash "unknown")
if(GIT_EXECUTABLE)
  # Only when GPP_SOURCE_DIR is itself the top of a checkout: a tarball unpacked inside
  # some other repository (a spack stage, a home directory under git) is not one.
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel
    WORKING_DIRECTORY ${GPP_SOURCE_DIR} OUTPUT_VARIABLE _top
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0)
    get_filename_component(_top "${_top}" REALPATH)
    get_filename_component(_src "${GPP_SOURCE_DIR}" REALPATH)
  endif()
  if(_rc EQUAL 0 AND _top STREQUAL _src)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
      WORKING_DIRECTORY ${GPP_SOURCE_DIR} OUTPUT_VARIABLE _head
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
    if(_rc EQUAL 0 AND _head)
      set(_hash "${_head}")
      # Tracked files whose content differs from HEAD (staged or not); untracked files
      # do not count, nor does a file only touched.
      execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD --
        WORKING_DIRECTORY ${GPP_SOURCE_DIR} RESULT_VARIABLE _dirty ERROR_QUIET)
      if(NOT _dirty EQUAL 0)
        set(_hash "${_hash}-dirty")
      endif()
    endif()
  endif()
endif()
set(_content "// Generated at build time by cmake/GppWriteBuildInfo.cmake: do not edit.
#include \"gpp_build_info.hpp\"

namespace gpp::record::build_info {
const char* version() { return \"${GPP_VERSION}\"; }
const char* git_hash() { return \"${_hash}\"; }
}  // namespace gpp::record::build_info
")
set(_old "")
if(EXISTS "${GPP_OUTPUT}")
  file(READ "${GPP_OUTPUT}" _old)
endif()
if(NOT _old STREQUAL _content)
  file(WRITE "${GPP_OUTPUT}" "${_content}")
endif()
