# Version and git hash for `gpp --version` and every record's provenance, regenerated at
# every build (not at configure time): the gpp_build_info_update target runs
# GppWriteBuildInfo.cmake, which rewrites the generated source only when its content
# changes, so a build of an unchanged tree recompiles nothing. The hash is "unknown"
# outside a git checkout (e.g. a release tarball or a spack stage), and carries "-dirty"
# when tracked files differ from HEAD at build time.
find_package(Git QUIET)
set(GPP_BUILD_INFO_SOURCE ${PROJECT_BINARY_DIR}/generated/gpp_build_info.cpp)
set(_gpp_build_info_command ${CMAKE_COMMAND}
  -DGPP_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DGPP_OUTPUT=${GPP_BUILD_INFO_SOURCE}
  -DGPP_VERSION=${PROJECT_VERSION}
  -DGIT_EXECUTABLE=${GIT_EXECUTABLE}
  -P ${CMAKE_CURRENT_LIST_DIR}/GppWriteBuildInfo.cmake)
# Once now, so the source exists before the first build.
execute_process(COMMAND ${_gpp_build_info_command} RESULT_VARIABLE _gpp_rc)
if(NOT _gpp_rc EQUAL 0)
  message(FATAL_ERROR "gpp: cannot write ${GPP_BUILD_INFO_SOURCE}")
endif()
# A custom target is always out of date: it runs at every build.
add_custom_target(gpp_build_info_update
  COMMAND ${_gpp_build_info_command}
  BYPRODUCTS ${GPP_BUILD_INFO_SOURCE}
  COMMENT "Checking the git hash for provenance"
  VERBATIM)
add_library(gpp_build_info STATIC ${GPP_BUILD_INFO_SOURCE})
add_library(gpp::build_info ALIAS gpp_build_info)
add_dependencies(gpp_build_info gpp_build_info_update)
target_include_directories(gpp_build_info PUBLIC ${PROJECT_SOURCE_DIR}/record)
