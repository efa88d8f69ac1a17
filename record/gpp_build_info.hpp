#pragma once
// What this binary was built from, defined in a source generated at every build
// (cmake/GppWriteBuildInfo.cmake).

namespace gpp::record::build_info {
/// The project version ("0.1.0").
const char* version();
/// The source tree's git commit (12 hex digits), with "-dirty" when tracked files
/// differed from it at build time; "unknown" outside a git checkout.
const char* git_hash();
}  // namespace gpp::record::build_info
