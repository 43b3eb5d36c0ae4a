// Latency samples of the load tool and their distribution. The tool records a few
// hundred thousand samples per run, so it keeps every one (8 bytes each) and sorts
// them at the end: the percentiles are exact, not bucketed. Recording takes a lock
// that is held for one push_back; at tens of thousands of samples per second that
// is far below anything the measurement could notice.
//
//   LatencyLog log;
//   log.Add(absl::Microseconds(830));
//   LatencySummary s = log.Summarize();  // s.p99_us, s.max_us, ...
#ifndef TRIX_TESTS_LOAD_LATENCY_H_
#define TRIX_TESTS_LOAD_LATENCY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trix::load {

struct LatencySummary {
  int64_t count = 0;
  double mean_us = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;

  // "p50 0.81 ms  p90 ... max 12.40 ms  (n=123456)".
  std::string Text() const;
  // {"count":...,"mean_ms":...,"p50_ms":...,...} without a trailing newline.
  std::string Json() const;
};

// The value at quantile q (0..1) of sorted samples, nearest rank; 0 when empty.
double Quantile(const std::vector<int64_t>& sorted, double q);

class LatencyLog {
 public:
  void Add(absl::Duration latency);
  LatencySummary Summarize() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<int64_t> samples_us_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_LATENCY_H_
