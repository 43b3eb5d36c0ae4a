#include "engine/check.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace trix::check_internal {

Failure::Failure(const char* file, int line, const char* condition)
    : what_(absl::StrCat("FATAL ", file, ":", line, ": check `", condition, "` failed")) {}

Failure::Failure(const char* file, int line, const char* condition,
                 const absl::Status& status)
    : Failure(file, line, condition) {
  absl::StrAppend(&what_, " (", status.ToString(), ")");
}

Failure::~Failure() {
  const std::string message = message_.str();
  std::fprintf(stderr, "%s%s%s\n", what_.c_str(), message.empty() ? "" : ": ",
               message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace trix::check_internal
