#include "services/common/failpoint.h"

#include <signal.h>

#include <cstdlib>
#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "services/common/logging.h"

namespace trix::service {
namespace {

const std::set<std::string>& Armed() {
  static const std::set<std::string>* armed = [] {
    auto* names = new std::set<std::string>;
    if (const char* list = std::getenv("MAMLAKA_FAILPOINTS")) {
      for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
        names->emplace(name);
      }
    }
    return names;
  }();
  return *armed;
}

}  // namespace

bool FailpointArmed(absl::string_view name) {
  return !Armed().empty() && Armed().count(std::string(name)) > 0;
}

void Failpoint(absl::string_view name) {
  if (!FailpointArmed(name)) return;
  LogWarn("failpoint: dying as kill -9 would", {{"failpoint", std::string(name)}});
  raise(SIGKILL);
}

}  // namespace trix::service
