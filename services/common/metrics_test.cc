#include "services/common/metrics.h"

#include "gtest/gtest.h"
#include "prometheus/counter.h"

namespace trix::service {
namespace {

TEST(MetricsTest, UnservedRegistryCounts) {
  auto metrics = Metrics::Start("127.0.0.1", -1);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ((*metrics)->port(), -1);
  auto& family = prometheus::BuildCounter().Name("x_total").Help("x").Register(
      (*metrics)->registry());
  family.Add({}).Increment();
  EXPECT_EQ(family.Add({}).Value(), 1);
}

TEST(MetricsTest, ServesOnAFreePort) {
  auto metrics = Metrics::Start("127.0.0.1", 0);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_GT((*metrics)->port(), 0);
}

TEST(MetricsTest, BucketsAscend) {
  const auto buckets = Metrics::LatencyBuckets();
  ASSERT_GT(buckets.size(), 10u);
  for (size_t i = 1; i < buckets.size(); ++i) EXPECT_GT(buckets[i], buckets[i - 1]);
}

}  // namespace
}  // namespace trix::service
