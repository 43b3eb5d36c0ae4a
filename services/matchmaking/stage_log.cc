#include "services/matchmaking/stage_log.h"

#include <algorithm>
#include <cmath>

#include "services/common/logging.h"

namespace trix::matchmaking {

void StageLog::Add(const std::string& stage, absl::Duration d) {
  if (!on()) return;
  absl::MutexLock lock(&mu_);
  ms_[stage].push_back(absl::ToDoubleMilliseconds(d));
}

void StageLog::Count(const std::string& what, double n) {
  if (!on()) return;
  absl::MutexLock lock(&mu_);
  ms_[what].push_back(n);
}

void StageLog::MaybeLog() {
  if (!on()) return;
  std::map<std::string, std::vector<double>> ms;
  {
    absl::MutexLock lock(&mu_);
    if (absl::Now() - last_ < every_) return;
    last_ = absl::Now();
    ms.swap(ms_);
  }
  service::LogFields fields;
  for (auto& [stage, v] : ms) {
    std::sort(v.begin(), v.end());
    auto at = [&v](double q) {
      const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
      return v[std::min(v.size(), std::max<size_t>(rank, 1)) - 1];
    };
    auto round = [](double x) { return std::round(x * 10) / 10; };
    fields.emplace_back(stage, nlohmann::json{{"n", v.size()},
                                              {"p50", round(at(0.5))},
                                              {"p99", round(at(0.99))},
                                              {"max", round(v.back())}});
  }
  if (!fields.empty()) service::LogInfo("matcher stages", fields);
}

}  // namespace trix::matchmaking
