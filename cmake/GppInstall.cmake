# `cmake --install`: GNUInstallDirs places (docs/install.md).
#   bin/gpp                    the program (app/CMakeLists.txt)
#   share/gpp/inputs/*.toml    the decks, found by name: `gpp run si214` from any directory
#   share/gpp/tools/           the scripts users run on gpp's output (python3)
#   share/doc/gpp/             README, LICENSE and docs/
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/inputs
  FILES_MATCHING PATTERN "*.toml")
# Scripts that read gpp's files (charts, analysis, checks); not the build helpers
# (quickstart.sh, device-run.sh) nor test sources (*.f90), which need the source tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpp/tools
  USE_SOURCE_PERMISSIONS FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
