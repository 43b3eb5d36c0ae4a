// Where a test finds the build's programs and the source tree's files, at run time.
//
// No compiled-in checkout path: an object that named its checkout would differ in
// every clone, so a CI clone in another folder could not reuse it from the
// compiler cache (scripts/lib/ccache.sh).
//
// The build root is the folder above the running program's bin/ (every program
// lands in ${CMAKE_BINARY_DIR}/bin); the source root is found from it by the
// relative path CMake knows (".." for the usual build/ inside the checkout). A
// path that is already absolute is returned as it is.
//
//   ServiceProcess::Start({.binary = BuildPath("bin/table-service"),
//                          .migrations_dir = SourcePath("migrations"), ...});
#ifndef TRIX_SERVICES_COMMON_TESTING_BUILD_PATHS_H_
#define TRIX_SERVICES_COMMON_TESTING_BUILD_PATHS_H_

#include <string>
#include <string_view>

namespace trix {

// "bin/table-service" -> "/work/x/build/bin/table-service".
std::string BuildPath(std::string_view path);
// "migrations" -> "/work/x/migrations".
std::string SourcePath(std::string_view path);

}  // namespace trix

#endif  // TRIX_SERVICES_COMMON_TESTING_BUILD_PATHS_H_
