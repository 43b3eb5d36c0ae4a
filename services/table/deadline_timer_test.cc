#include "services/table/deadline_timer.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
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
  absl::Mutex mu;
  std::vector<std::string> fired;
  absl::Notification in_first, release_first;
  DeadlineTimer timer([&](const std::string& key) {
    {
      absl::MutexLock lock(&mu);
      fired.push_back(key);
    }
    if (key == "first") {
      in_first.Notify();
      release_first.WaitForNotification();
    }
  });
  timer.Schedule("first", absl::Now() - absl::Seconds(1));
  ASSERT_TRUE(in_first.WaitForNotificationWithTimeout(absl::Seconds(5)));
  // Due while "first" runs: without Stop it fires as soon as "first" returns.
  timer.Schedule("second", absl::Now() - absl::Seconds(1));
  EXPECT_EQ(timer.pending(), 1u);
  std::thread stopper([&] { timer.Stop(); });
  // Stop drops what is pending before it waits for the running callback.
  const absl::Time give_up = absl::Now() + absl::Seconds(5);
  while (timer.pending() != 0 && absl::Now() < give_up) std::this_thread::yield();
  EXPECT_EQ(timer.pending(), 0u);
  release_first.Notify();
  stopper.join();
  timer.Schedule("third", absl::Now() - absl::Seconds(1));
  EXPECT_EQ(timer.pending(), 0u);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(fired, (std::vector<std::string>{"first"}));
}

TEST(DeadlineTimerTest, ARescheduledKeyKeepsOneDeadline) {
  absl::Mutex mu;
  std::vector<std::string> fired;
  DeadlineTimer timer([&](const std::string& key) {
    absl::MutexLock lock(&mu);
    fired.push_back(key);
  });
  // A table's clock restarted at every card: one deadline, not one per card.
  const absl::Time later = absl::Now() + absl::Hours(1);
  for (int card = 0; card < 10000; ++card) {
    timer.Schedule("table", later + absl::Milliseconds(card));
  }
  timer.Schedule("other", later);
  EXPECT_EQ(timer.pending(), 2u);
  // The latest deadline replaces the earlier ones, also when it is sooner.
  timer.Schedule("table", absl::Now() - absl::Seconds(1));
  absl::MutexLock lock(&mu);
  auto one = [&]() { return !fired.empty(); };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&one), absl::Seconds(5)));
  EXPECT_EQ(fired, (std::vector<std::string>{"table"}));
  EXPECT_EQ(timer.pending(), 1u);  // "other", in an hour
}

}  // namespace
}  // namespace trix::table
