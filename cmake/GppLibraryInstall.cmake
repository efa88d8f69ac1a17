# `cmake --install` of the library (docs/install.md, "The library"):
#   lib/libgpp.so*                  the C++ API (target gpp::gpp: with Kokkos) and the C interface (gpp::c)
#   lib/libgpp_fortran.so*          the Fortran module's procedures (gpp::fortran), with a Fortran compiler
#   include/gpp/gpp.hpp, gpp.h      the public headers, nothing else of the source tree
#   include/gpp/fortran/gpp.mod     the module as this build's Fortran compiler wrote it
#   share/gpp/fortran/gpp.f90       its source, for a program built with another compiler
#   lib/cmake/gpp/                  the CMake package: find_package(gpp CONFIG)
#   lib/pythonX.Y/site-packages/    the Python module gpp (api/python/CMakeLists.txt)
if(NOT TARGET gpp_api)
  return()  # no library in this build (api/CMakeLists.txt says why)
endif()
include(CMakePackageConfigHelpers)
set(GPP_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpp)

# The installed libgpp finds a Kokkos outside the system directories by RPATH, as the
# program does (cmake/GppInstall.cmake; HDF5's and MPI's come with the link path), and one
# built in-tree beside itself ($ORIGIN): a C or Fortran caller links libgpp alone, and the
# loader looks for libgpp's own libraries where libgpp's RPATH says.
set_property(TARGET gpp_api APPEND PROPERTY INSTALL_RPATH ${_gpp_kokkos_dirs} ${_gpp_kk_dirs} "$ORIGIN")
set_target_properties(gpp_api PROPERTIES EXPORT_NAME c)
set_target_properties(gpp_cxx PROPERTIES EXPORT_NAME gpp)
set_target_properties(gpp_kokkos PROPERTIES EXPORT_NAME kokkos)
set(_gpp_export_targets gpp_api gpp_cxx gpp_kokkos)
if(TARGET gpp_fortran)
  set_target_properties(gpp_fortran PROPERTIES EXPORT_NAME fortran)
  set_property(TARGET gpp_fortran APPEND PROPERTY INSTALL_RPATH ${_gpp_kokkos_dirs} "$ORIGIN")
  target_include_directories(gpp_fortran PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/gpp/fortran>)
  list(APPEND _gpp_export_targets gpp_fortran)
  install(FILES ${PROJECT_BINARY_DIR}/api/fortran/mod/gpp.mod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpp/fortran)
  install(FILES ${PROJECT_SOURCE_DIR}/api/fortran/gpp.f90 DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/fortran)
endif()
install(TARGETS ${_gpp_export_targets} EXPORT gppTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/gpp/gpp.hpp ${PROJECT_SOURCE_DIR}/include/gpp/gpp.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpp)
install(EXPORT gppTargets NAMESPACE gpp:: DESTINATION ${GPP_CMAKE_INSTALL_DIR})

# What the package finds again for its consumer: the Kokkos it was built with (the public
# header includes Kokkos), and MPI where the build has it (the communicator a caller
# passes is of that MPI). HDF5, Kokkos Kernels and the rest stay inside libgpp.
set(GPP_PACKAGE_KOKKOS_DIR "${Kokkos_DIR}")
set(GPP_PACKAGE_MPI ${GPP_ENABLE_MPI})
set(GPP_PACKAGE_FORTRAN OFF)
if(TARGET gpp_fortran)
  set(GPP_PACKAGE_FORTRAN ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gppConfig.cmake.in ${PROJECT_BINARY_DIR}/gppConfig.cmake
  INSTALL_DESTINATION ${GPP_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gppConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gppConfig.cmake ${PROJECT_BINARY_DIR}/gppConfigVersion.cmake
  DESTINATION ${GPP_CMAKE_INSTALL_DIR})
