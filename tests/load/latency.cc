#include "tests/load/latency.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace trix::load {

double Quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  // Nearest rank: the smallest sample with at least q of all samples at or below.
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return static_cast<double>(sorted[std::min(index, sorted.size() - 1)]);
}

void LatencyLog::Add(absl::Duration latency) {
  const int64_t us = absl::ToInt64Microseconds(latency);
  absl::MutexLock lock(&mu_);
  samples_us_.push_back(us < 0 ? 0 : us);
}

LatencySummary LatencyLog::Summarize() const {
  std::vector<int64_t> sorted;
  {
    absl::MutexLock lock(&mu_);
    sorted = samples_us_;
  }
  std::sort(sorted.begin(), sorted.end());
  LatencySummary s;
  s.count = static_cast<int64_t>(sorted.size());
  if (sorted.empty()) return s;
  double sum = 0;
  for (int64_t v : sorted) sum += static_cast<double>(v);
  s.mean_us = sum / static_cast<double>(sorted.size());
  s.p50_us = Quantile(sorted, 0.50);
  s.p90_us = Quantile(sorted, 0.90);
  s.p99_us = Quantile(sorted, 0.99);
  s.p999_us = Quantile(sorted, 0.999);
  s.max_us = static_cast<double>(sorted.back());
  return s;
}

std::string LatencySummary::Text() const {
  return absl::StrFormat(
      "p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms  "
      "mean %.2f ms  (n=%d)",
      p50_us / 1000, p90_us / 1000, p99_us / 1000, p999_us / 1000, max_us / 1000,
      mean_us / 1000, count);
}

std::string LatencySummary::Json() const {
  return absl::StrFormat(
      "{\"count\":%d,\"mean_ms\":%.3f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"p999_ms\":%.3f,\"max_ms\":%.3f}",
      count, mean_us / 1000, p50_us / 1000, p90_us / 1000, p99_us / 1000, p999_us / 1000,
      max_us / 1000);
}

}  // namespace trix::load
