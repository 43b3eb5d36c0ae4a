#include "services/common/backoff.h"

#include "gtest/gtest.h"

namespace trix::service {
namespace {

TEST(BackoffTest, DoublesFromFirstUpToMaxAndStartsOverAfterASuccess) {
  Backoff backoff(absl::Milliseconds(100), absl::Seconds(1));
  EXPECT_EQ(backoff.next(), absl::Milliseconds(100));
  EXPECT_EQ(backoff.Failed(), absl::Milliseconds(100));
  EXPECT_EQ(backoff.Failed(), absl::Milliseconds(200));
  EXPECT_EQ(backoff.Failed(), absl::Milliseconds(400));
  EXPECT_EQ(backoff.next(), absl::Milliseconds(800));
  EXPECT_EQ(backoff.Failed(), absl::Milliseconds(800));
  EXPECT_EQ(backoff.Failed(), absl::Seconds(1));
  EXPECT_EQ(backoff.Failed(), absl::Seconds(1));
  EXPECT_EQ(backoff.failures(), 6);
  backoff.Reset();
  EXPECT_EQ(backoff.Failed(), absl::Milliseconds(100));
}

TEST(BackoffTest, AfterManyFailuresStaysAtMax) {
  Backoff backoff(absl::Milliseconds(100), absl::Seconds(5));
  EXPECT_EQ(backoff.After(0), absl::Milliseconds(100));
  EXPECT_EQ(backoff.After(7), absl::Seconds(5));
  EXPECT_EQ(backoff.After(1000000), absl::Seconds(5));
}

TEST(BackoffTest, JitteredStaysInItsRangeAndVaries) {
  const absl::Duration wait = absl::Seconds(1);
  absl::Duration lowest = absl::InfiniteDuration(), highest = absl::ZeroDuration();
  for (int i = 0; i < 1000; ++i) {
    const absl::Duration d = Jittered(wait);
    lowest = std::min(lowest, d);
    highest = std::max(highest, d);
    ASSERT_GE(d, absl::Milliseconds(500));
    ASSERT_LT(d, absl::Milliseconds(1500));
    const absl::Duration shorter = Jittered(wait, 0.5, 1.0);
    ASSERT_GE(shorter, absl::Milliseconds(500));
    ASSERT_LT(shorter, wait);
  }
  EXPECT_LT(lowest, absl::Milliseconds(600));
  EXPECT_GT(highest, absl::Milliseconds(1400));
}

}  // namespace
}  // namespace trix::service
