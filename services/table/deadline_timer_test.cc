#include "services/table/deadline_timer.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace trix::table {
namespace {

TEST(DeadlineTimerTest, FiresInDeadlineOrder) {
  absl::Mutex mu;
  std::vector<std::string> fired;
  DeadlineTimer timer([&](const std::string& key) {
    absl::MutexLock lock(&mu);
    fired.push_back(key);
  });
  const absl::Time now = absl::Now();
  timer.Schedule("late", now + absl::Milliseconds(150));
  timer.Schedule("early", now + absl::Milliseconds(50));
  timer.Schedule("past", now - absl::Seconds(1));
  absl::MutexLock lock(&mu);
  auto three = [&]() { return fired.size() == 3; };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&three), absl::Seconds(5)));
  EXPECT_EQ(fired, (std::vector<std::string>{"past", "early", "late"}));
  EXPECT_GE(absl::Now(), now + absl::Milliseconds(150));
}

TEST(DeadlineTimerTest, StopFiresNothingMore) {
  int fired = 0;
  DeadlineTimer timer([&](const std::string&) { ++fired; });
  timer.Schedule("x", absl::Now() + absl::Hours(1));
  EXPECT_EQ(timer.pending(), 1u);
  timer.Stop();
  timer.Schedule("y", absl::Now());
  EXPECT_EQ(fired, 0);
}

}  // namespace
}  // namespace trix::table
