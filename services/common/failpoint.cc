#include "services/common/failpoint.h"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "services/common/logging.h"

namespace trix::service {
namespace {

// How many more times each armed failpoint fires: -1 for every time.
using Armed = std::map<std::string, std::unique_ptr<std::atomic<int64_t>>, std::less<>>;

const Armed& ArmedFailpoints() {
  static const Armed* armed = [] {
    auto* names = new Armed;
    if (const char* list = std::getenv("MAMLAKA_FAILPOINTS")) {
      for (absl::string_view item : absl::StrSplit(list, ',', absl::SkipEmpty())) {
        std::pair<absl::string_view, absl::string_view> name_times =
            absl::StrSplit(item, absl::MaxSplits('=', 1));
        int64_t times = -1;
        if (!name_times.second.empty() && !absl::SimpleAtoi(name_times.second, &times)) {
          LogWarn("failpoint: not a count", {{"failpoint", std::string(item)}});
        }
        (*names)[std::string(name_times.first)] =
            std::make_unique<std::atomic<int64_t>>(times);
      }
    }
    return names;
  }();
  return *armed;
}

}  // namespace

bool FailpointArmed(absl::string_view name) {
  const Armed& armed = ArmedFailpoints();
  return !armed.empty() && armed.count(name) > 0;
}

bool FailpointFires(absl::string_view name) {
  const Armed& armed = ArmedFailpoints();
  if (armed.empty()) return false;
  auto it = armed.find(name);
  if (it == armed.end()) return false;
  std::atomic<int64_t>& left = *it->second;
  if (left.load() < 0) return true;
  // Counts down to zero and stays there, however many threads ask at once.
  for (int64_t n = left.load(); n > 0;) {
    if (left.compare_exchange_weak(n, n - 1)) return true;
  }
  return false;
}

void Failpoint(absl::string_view name) {
  if (!FailpointArmed(name)) return;
  LogWarn("failpoint: dying as kill -9 would", {{"failpoint", std::string(name)}});
  raise(SIGKILL);
}

}  // namespace trix::service
