#include "tests/load/pacer.h"

#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace trix::load {
namespace {

TEST(TurnPacingTest, SlotsAreSpacedByHalfToOneAndAHalfIntervals) {
  TurnPacing pacing(absl::Milliseconds(100), 7);
  const Clock::time_point start = Clock::now();
  Clock::time_point last = pacing.Next(start);
  EXPECT_GE(last, start + std::chrono::milliseconds(50));
  EXPECT_LE(last, start + std::chrono::milliseconds(150));
  Clock::duration total{};
  for (int i = 0; i < 1000; ++i) {
    // Asked early (at `start`): every slot is still one interval after the last.
    const Clock::time_point slot = pacing.Next(start);
    EXPECT_GE(slot - last, std::chrono::milliseconds(50));
    EXPECT_LE(slot - last, std::chrono::milliseconds(150));
    total += slot - last;
    last = slot;
  }
  const double mean_ms = std::chrono::duration<double, std::milli>(total).count() / 1000;
  EXPECT_NEAR(mean_ms, 100, 5);
}

TEST(TurnPacingTest, ATableThatFellBehindActsAtOnce) {
  TurnPacing pacing(absl::Milliseconds(100), 7);
  const Clock::time_point start = Clock::now();
  pacing.Next(start);
  const Clock::time_point late = start + std::chrono::seconds(10);
  EXPECT_EQ(pacing.Next(late), late);
  const Clock::time_point next = pacing.Next(late);
  EXPECT_GE(next - late, std::chrono::milliseconds(50));
}

TEST(PacerTest, RunsEachCallbackOnceInTheOrderOfItsTime) {
  std::vector<int> order;
  absl::Notification done;
  {
    Pacer pacer;
    const Clock::time_point now = Clock::now();
    // Only the pacer's thread touches `order` until `done`.
    pacer.At(now + std::chrono::milliseconds(30), [&] {
      order.push_back(3);
      done.Notify();
    });
    pacer.At(now + std::chrono::milliseconds(10), [&] { order.push_back(2); });
    pacer.At(now - std::chrono::milliseconds(10), [&] { order.push_back(1); });
    done.WaitForNotification();
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(PacerTest, NothingRunsBeforeItsTime) {
  Pacer pacer;
  const Clock::time_point due = Clock::now() + std::chrono::milliseconds(20);
  Clock::time_point ran;
  absl::Notification done;
  pacer.At(due, [&] {
    ran = Clock::now();
    done.Notify();
  });
  done.WaitForNotification();
  EXPECT_GE(ran, due);
}

TEST(PacerTest, DestroyingDropsWhatHasNotRun) {
  bool ran = false;
  {
    Pacer pacer;
    pacer.At(Clock::now() + std::chrono::hours(1), [&] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace trix::load
