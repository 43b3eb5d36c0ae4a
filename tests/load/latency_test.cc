#include "tests/load/latency.h"

#include <vector>

#include "gtest/gtest.h"

namespace trix::load {
namespace {

TEST(QuantileTest, NearestRank) {
  std::vector<int64_t> sorted;
  for (int i = 1; i <= 1000; ++i) sorted.push_back(i);
  EXPECT_EQ(Quantile(sorted, 0.5), 500);
  EXPECT_EQ(Quantile(sorted, 0.99), 990);
  EXPECT_EQ(Quantile(sorted, 0.999), 999);
  EXPECT_EQ(Quantile(sorted, 1.0), 1000);
  EXPECT_EQ(Quantile(sorted, 0.0), 1);
}

TEST(QuantileTest, EmptyIsZero) { EXPECT_EQ(Quantile({}, 0.5), 0); }

TEST(LatencyLogTest, SummarizesInMicroseconds) {
  LatencyLog log;
  for (int i = 1; i <= 100; ++i) log.Add(absl::Microseconds(i * 10));
  const LatencySummary s = log.Summarize();
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.p50_us, 500);
  EXPECT_EQ(s.p90_us, 900);
  EXPECT_EQ(s.p99_us, 990);
  EXPECT_EQ(s.max_us, 1000);
  EXPECT_DOUBLE_EQ(s.mean_us, 505);
  EXPECT_EQ(s.Json(),
            "{\"count\":100,\"mean_ms\":0.505,\"p50_ms\":0.500,\"p90_ms\":0.900,"
            "\"p99_ms\":0.990,\"p999_ms\":1.000,\"max_ms\":1.000}");
}

TEST(LatencyLogTest, NegativeIsClampedToZero) {
  LatencyLog log;
  log.Add(absl::Microseconds(-5));
  EXPECT_EQ(log.Summarize().max_us, 0);
}

}  // namespace
}  // namespace trix::load
