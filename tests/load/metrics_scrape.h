// Reads the table service's Prometheus text (/metrics) over plain HTTP on loopback,
// so that the load tool can report what the server saw over the same window it
// measures: accepted actions, autopilot moves, and how long each step's append to
// PostgreSQL took (trix_table_append_seconds), which is the floor of every
// action's latency.
//
//   absl::StatusOr<MetricValues> a = ScrapeMetrics("127.0.0.1:9464");
//   ...
//   AppendTimes t = AppendTimesBetween(*a, *b);  // mean and bucketed p50/p99
#ifndef TRIX_TESTS_LOAD_METRICS_SCRAPE_H_
#define TRIX_TESTS_LOAD_METRICS_SCRAPE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trix::load {

// Sample name with its labels as printed ("trix_table_actions_total{result=\"ok\"}")
// -> value.
using MetricValues = std::map<std::string, double>;

// `address` is host:port on loopback.
absl::StatusOr<MetricValues> ScrapeMetrics(const std::string& address);
MetricValues ParseMetrics(absl::string_view text);

// The growth of one sample between two scrapes (0 when absent).
double Delta(const MetricValues& from, const MetricValues& to, const std::string& name);

struct AppendTimes {
  double count = 0;
  double mean_ms = 0;
  // Upper bounds of the histogram buckets holding the 50th and 99th percentile
  // (infinity beyond the last bound).
  double p50_le_ms = 0;
  double p99_le_ms = 0;
};
AppendTimes AppendTimesBetween(const MetricValues& from, const MetricValues& to);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_METRICS_SCRAPE_H_
