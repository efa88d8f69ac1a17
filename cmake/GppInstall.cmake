# `cmake --install`: GNUInstallDirs places (docs/install.md).
#   bin/gpp                    the program (app/CMakeLists.txt)
#   share/gpp/inputs/*.toml    the decks, found by name: `gpp run si214` from any directory
#   share/gpp/tuning/*.json    the shipped defaults per architecture (tuning-file format)
#   share/gpp/tools/*.py       the scripts users run on gpp's output (python3): tools/ whole;
#                              `gpp roofline --plot` runs gpp_plot.py from there
#   share/doc/gpp/             README, LICENSE and docs/
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/inputs
  FILES_MATCHING PATTERN "*.toml")
# The shipped defaults (tuning/*.json, the build took two of them: `gpp policies` names them).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tuning/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/tuning
  FILES_MATCHING PATTERN "*.json")
# tools/ holds only the scripts users run on gpp's output (Architecture.FoldersByPurpose);
# scripts/ (build, matrix, CI) and lab/ (measurements) need the source tree and stay there.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/tools
  USE_SOURCE_PERMISSIONS FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

# RPATH of the installed gpp: CMAKE_INSTALL_RPATH_USE_LINK_PATH (CMakeLists.txt) covers
# the -L directories (HDF5's) but not libraries linked by full path, as an installed
# Kokkos' imported targets are (a spack prefix, /opt/kokkos): add the directories of
# every imported shared library gpp links through gpp::kokkos and gpp::kokkoskernels,
# except the system's own.
function(_gpp_imported_library_dirs target out)
  set(dirs "")
  set(queue ${target})
  set(seen "")
  while(queue)
    list(POP_FRONT queue t)
    if(NOT TARGET ${t} OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(imported ${t} IMPORTED)
    get_target_property(type ${t} TYPE)
    if(imported AND type MATCHES "SHARED_LIBRARY|UNKNOWN_LIBRARY")
      get_target_property(configs ${t} IMPORTED_CONFIGURATIONS)
      set(props IMPORTED_LOCATION)
      if(configs)
        foreach(c IN LISTS configs)
          string(TOUPPER "${c}" c)
          list(APPEND props IMPORTED_LOCATION_${c})
        endforeach()
      endif()
      foreach(p IN LISTS props)
        get_target_property(loc ${t} ${p})
        if(loc)
          get_filename_component(d "${loc}" DIRECTORY)
          list(APPEND dirs "${d}")
        endif()
      endforeach()
    endif()
    get_target_property(links ${t} INTERFACE_LINK_LIBRARIES)
    if(links)
      foreach(l IN LISTS links)
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" l "${l}")
        list(APPEND queue ${l})
      endforeach()
    endif()
  endwhile()
  list(REMOVE_DUPLICATES dirs)
  list(REMOVE_ITEM dirs ${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES} ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES})
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()
_gpp_imported_library_dirs(gpp_kokkos _gpp_kokkos_dirs)
_gpp_imported_library_dirs(gpp_kokkoskernels _gpp_kk_dirs)
# A Kokkos built in-tree (GPP_KOKKOS_SOURCE_DIR) with shared libraries is installed beside
# libgpp, in the prefix's library folder: the program finds it there, relative to itself.
file(RELATIVE_PATH _gpp_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_property(TARGET gpp APPEND PROPERTY INSTALL_RPATH ${_gpp_kokkos_dirs} ${_gpp_kk_dirs} "$ORIGIN/${_gpp_bin_to_lib}")
