#include "services/common/testing/build_paths.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#ifndef MAMLAKA_SOURCE_FROM_BUILD
#error "MAMLAKA_SOURCE_FROM_BUILD must be the source root relative to the build root"
#endif

namespace trix {
namespace {

namespace fs = std::filesystem;

// <build>/bin/<program> -> <build>; a test run from anywhere else is a setup error
// worth stopping on rather than a "no such file" later.
const fs::path& BuildRoot() {
  static const fs::path* root = [] {
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    const fs::path exe(n > 0 ? std::string(self, n) : std::string());
    const fs::path bin = exe.parent_path();
    if (bin.filename() != "bin" || !fs::exists(bin.parent_path() / "CMakeCache.txt")) {
      std::fprintf(stderr, "build_paths: %s is not in a build tree's bin/\n",
                   exe.c_str());
      std::abort();
    }
    return new fs::path(bin.parent_path());
  }();
  return *root;
}

}  // namespace

std::string BuildPath(std::string_view path) {
  return (BuildRoot() / fs::path(path)).lexically_normal().string();
}

std::string SourcePath(std::string_view path) {
  return (BuildRoot() / MAMLAKA_SOURCE_FROM_BUILD / fs::path(path))
      .lexically_normal()
      .string();
}

}  // namespace trix
