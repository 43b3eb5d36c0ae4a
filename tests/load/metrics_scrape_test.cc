#include "tests/load/metrics_scrape.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/load/load_run.h"

namespace trix::load {
namespace {

constexpr char kBefore[] = R"(# HELP trix_table_actions_total Client actions by outcome
trix_table_actions_total{result="ok"} 100
trix_table_append_seconds_count 10
trix_table_append_seconds_sum 0.01
trix_table_append_seconds_bucket{le="0.0008"} 5
trix_table_append_seconds_bucket{le="0.0016"} 10
trix_table_append_seconds_bucket{le="+Inf"} 10
)";

constexpr char kAfter[] = R"(trix_table_actions_total{result="ok"} 1100
trix_table_append_seconds_count 110
trix_table_append_seconds_sum 0.21
trix_table_append_seconds_bucket{le="0.0008"} 55
trix_table_append_seconds_bucket{le="0.0016"} 108
trix_table_append_seconds_bucket{le="+Inf"} 110
)";

TEST(MetricsScrapeTest, DeltasAndAppendTimes) {
  const MetricValues a = ParseMetrics(kBefore);
  const MetricValues b = ParseMetrics(kAfter);
  EXPECT_EQ(Delta(a, b, "trix_table_actions_total{result=\"ok\"}"), 1000);
  EXPECT_EQ(Delta(a, b, "absent"), 0);
  const AppendTimes t = AppendTimesBetween(a, b);
  EXPECT_EQ(t.count, 100);
  EXPECT_NEAR(t.mean_ms, 2.0, 1e-9);
  EXPECT_NEAR(t.p50_le_ms, 0.8, 1e-9);   // 50 of 100 within 0.8 ms
  EXPECT_TRUE(std::isinf(t.p99_le_ms));  // 98 within 1.6 ms: the rest beyond
}

TEST(CheckLoopbackTest, OnlyThisMachine) {
  EXPECT_TRUE(CheckLoopback("127.0.0.1:50051").ok());
  EXPECT_TRUE(CheckLoopback("localhost:1").ok());
  EXPECT_TRUE(CheckLoopback("[::1]:50051").ok());
  EXPECT_FALSE(CheckLoopback("10.0.0.7:50051").ok());
  EXPECT_FALSE(CheckLoopback("127.evil.com:50051").ok());
  EXPECT_FALSE(CheckLoopback("example.com:443").ok());
}

TEST(ParseModesTest, OneOrAllFour) {
  ASSERT_EQ(ParseModes("mixed")->size(), 4u);
  absl::StatusOr<std::vector<v1::Mode>> one = ParseModes("complex-partner");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)[0].format(), v1::FORMAT_COMPLEX);
  EXPECT_EQ((*one)[0].team(), v1::TEAM_PARTNER);
  EXPECT_FALSE(ParseModes("poker").ok());
}

}  // namespace
}  // namespace trix::load
