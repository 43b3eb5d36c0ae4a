#include "services/common/rate_limit.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace trix::service {
namespace {

TEST(RateLimiterTest, BurstThenSustainedRatePerKey) {
  RateLimiter limiter({.per_second = 10, .burst = 5});
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.Allow("flood", t0));
  EXPECT_FALSE(limiter.Allow("flood", t0));
  // Another client keeps its whole bucket.
  EXPECT_TRUE(limiter.Allow("calm", t0));
  // 100 ms refills one token at 10/s.
  EXPECT_TRUE(limiter.Allow("flood", t0 + absl::Milliseconds(100)));
  EXPECT_FALSE(limiter.Allow("flood", t0 + absl::Milliseconds(100)));
  // Never more than the burst, however long the pause.
  int allowed = 0;
  for (int i = 0; i < 20; ++i) allowed += limiter.Allow("flood", t0 + absl::Hours(1));
  EXPECT_EQ(allowed, 5);
}

TEST(RateLimiterTest, SpentAsksWithoutTaking) {
  RateLimiter limiter({.per_second = 10, .burst = 2});
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  EXPECT_FALSE(limiter.Spent("new", t0));
  EXPECT_EQ(limiter.key_count(), 0u);  // asking keeps nothing
  EXPECT_TRUE(limiter.Allow("flood", t0));
  EXPECT_FALSE(limiter.Spent("flood", t0));
  EXPECT_FALSE(limiter.Spent("flood", t0));  // still one token left
  EXPECT_TRUE(limiter.Allow("flood", t0));
  EXPECT_TRUE(limiter.Spent("flood", t0));
  EXPECT_FALSE(limiter.Spent("flood", t0 + absl::Milliseconds(100)));  // refilled one
}

TEST(RateLimiterTest, OffWhenRateIsZero) {
  RateLimiter limiter({.per_second = 0, .burst = 1});
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(limiter.Allow("k"));
}

TEST(RateLimiterTest, ManyKeysStayBounded) {
  RateLimiter limiter({.per_second = 1000, .burst = 1, .max_keys = 64});
  absl::Time t = absl::FromUnixSeconds(1);
  size_t most = 0;
  for (int i = 0; i < 100000; ++i) {
    t += absl::Microseconds(10);
    // A new key always starts with a full bucket.
    ASSERT_TRUE(limiter.Allow(std::to_string(i), t));
    most = std::max(most, limiter.key_count());
  }
  // 100,000 distinct keys, and never more than max_keys buckets held.
  EXPECT_LE(most, 64u);
  EXPECT_GT(most, 0u);
}

}  // namespace
}  // namespace trix::service
