// Adoptions: the bound on calls' adoptions and its refusal, the tables that wait
// their turn (in order, skipping one a claim round took meanwhile, bounded), and
// the unknown ids with their expiry and bound.
#include "services/table/adoptions.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"

namespace trix::table {
namespace {

using Turn = Adoptions::Turn;

const absl::Time kNow = absl::FromUnixSeconds(1000000);

AdoptionOptions Bounds(size_t max_adoptions, size_t max_waiting) {
  AdoptionOptions options;
  options.max_adoptions = max_adoptions;
  options.max_waiting_adoptions = max_waiting;
  options.unknown_table_memory = absl::Seconds(2);
  options.max_unknown_tables = 3;
  return options;
}

class AdoptionsTest : public ::testing::Test {
 protected:
  // Admits a call that may wait; its refusal, if any, in `refused_`.
  Turn Call(Adoptions& adoptions, const std::string& table_id, bool may_wait = true,
            absl::Time now = kNow) {
    refused_ = absl::OkStatus();
    return adoptions.Admit(table_id, may_wait, now, &refused_);
  }
  // Every waiting table StartWaiting hands out while there is room; none skipped.
  std::vector<std::string> StartAll(Adoptions& adoptions) {
    std::vector<std::string> started;
    while (absl::optional<std::string> next =
               adoptions.StartWaiting([](const std::string&) { return true; })) {
      started.push_back(*next);
    }
    return started;
  }
  double Gauge() const { return metrics_.adoptions.Value(); }

  prometheus::Registry registry_;
  HostMetrics metrics_{registry_};
  absl::Status refused_;
  const absl::Status not_found_ = absl::NotFoundError("table t9 does not exist");
};

TEST_F(AdoptionsTest, CallsPastTheBoundThatMayNotWaitAreRefused) {
  Adoptions adoptions(Bounds(2, 10), metrics_);
  EXPECT_EQ(Call(adoptions, "t1"), Turn::kStart);
  EXPECT_EQ(Call(adoptions, "t2"), Turn::kStart);
  EXPECT_EQ(adoptions.loading(), 2u);
  EXPECT_EQ(Gauge(), 2);

  EXPECT_EQ(Call(adoptions, "t3", /*may_wait=*/false), Turn::kRefused);
  EXPECT_EQ(refused_, absl::UnavailableError("this instance is loading 2 tables it does "
                                             "not host; retry in a second"));
  EXPECT_EQ(metrics_.refused_busy.Value(), 1);
  EXPECT_EQ(adoptions.waiting(), 0u);

  adoptions.Ended("t1", /*for_call=*/true, absl::OkStatus(), kNow);
  EXPECT_EQ(adoptions.loading(), 1u);
  EXPECT_EQ(Gauge(), 1);
  EXPECT_EQ(Call(adoptions, "t3", /*may_wait=*/false), Turn::kStart);
  // A refusal pointer is optional.
  EXPECT_EQ(adoptions.Admit("t4", false, kNow, nullptr), Turn::kRefused);
}

TEST_F(AdoptionsTest, AClaimRoundsAdoptionIsNotCounted) {
  Adoptions adoptions(Bounds(1, 10), metrics_);
  EXPECT_EQ(Call(adoptions, "t1"), Turn::kStart);
  adoptions.Ended("t2", /*for_call=*/false, absl::OkStatus(), kNow);
  EXPECT_EQ(adoptions.loading(), 1u);
  EXPECT_EQ(Gauge(), 1);
}

TEST_F(AdoptionsTest, WaitingTablesStartInTheOrderTheyCameAsRoomFrees) {
  Adoptions adoptions(Bounds(1, 10), metrics_);
  EXPECT_EQ(Call(adoptions, "t1"), Turn::kStart);
  EXPECT_EQ(Call(adoptions, "t2"), Turn::kWait);
  EXPECT_EQ(Call(adoptions, "t3"), Turn::kWait);
  EXPECT_EQ(adoptions.waiting(), 2u);
  EXPECT_TRUE(StartAll(adoptions).empty());  // no room yet

  adoptions.Ended("t1", true, absl::OkStatus(), kNow);
  EXPECT_EQ(StartAll(adoptions), std::vector<std::string>{"t2"});
  EXPECT_EQ(adoptions.loading(), 1u);
  EXPECT_EQ(Gauge(), 1);
  adoptions.Ended("t2", true, absl::OkStatus(), kNow);
  EXPECT_EQ(StartAll(adoptions), std::vector<std::string>{"t3"});
  adoptions.Ended("t3", true, absl::OkStatus(), kNow);
  EXPECT_TRUE(StartAll(adoptions).empty());  // nothing waits
  EXPECT_EQ(adoptions.loading(), 0u);
  EXPECT_EQ(Gauge(), 0);
}

TEST_F(AdoptionsTest, WaitingIsBounded) {
  Adoptions adoptions(Bounds(1, 2), metrics_);
  EXPECT_EQ(Call(adoptions, "t1"), Turn::kStart);
  EXPECT_EQ(Call(adoptions, "t2"), Turn::kWait);
  EXPECT_EQ(Call(adoptions, "t3"), Turn::kWait);
  EXPECT_EQ(Call(adoptions, "t4"), Turn::kRefused);
  EXPECT_EQ(refused_, absl::UnavailableError("this instance is loading 1 tables it does "
                                             "not host; retry in a second"));
  EXPECT_EQ(adoptions.waiting(), 2u);
  EXPECT_EQ(metrics_.refused_busy.Value(), 1);
}

TEST_F(AdoptionsTest, AWaitingTableAClaimRoundTookIsSkipped) {
  Adoptions adoptions(Bounds(1, 10), metrics_);
  EXPECT_EQ(Call(adoptions, "t1"), Turn::kStart);
  for (const char* id : {"t2", "t3", "t4"}) EXPECT_EQ(Call(adoptions, id), Turn::kWait);
  adoptions.Ended("t1", true, absl::OkStatus(), kNow);

  // t2's placeholder is gone (a claim round loaded it): t3 starts in its place.
  const absl::flat_hash_set<std::string> gone = {"t2"};
  absl::optional<std::string> next =
      adoptions.StartWaiting([&](const std::string& id) { return !gone.contains(id); });
  EXPECT_EQ(next, "t3");
  EXPECT_EQ(adoptions.waiting(), 1u);
  EXPECT_EQ(adoptions.loading(), 1u);

  // t3 turned out delivered by a claim round: not counted, and t4 may start.
  adoptions.NotStarted();
  EXPECT_EQ(adoptions.loading(), 0u);
  EXPECT_EQ(Gauge(), 0);
  EXPECT_EQ(StartAll(adoptions), std::vector<std::string>{"t4"});
}

TEST_F(AdoptionsTest, AnUnknownIdIsRefusedWithItsLookupUntilItExpires) {
  Adoptions adoptions(Bounds(4, 10), metrics_);
  EXPECT_EQ(Call(adoptions, "t9"), Turn::kStart);
  adoptions.Ended("t9", true, not_found_, kNow);
  EXPECT_EQ(adoptions.unknown(), 1u);
  EXPECT_EQ(adoptions.loading(), 0u);

  EXPECT_EQ(Call(adoptions, "t9", true, kNow + absl::Seconds(1)), Turn::kRefused);
  EXPECT_EQ(refused_, not_found_);
  EXPECT_EQ(metrics_.refused_busy.Value(), 0);  // not busy: unknown
  EXPECT_EQ(adoptions.loading(), 0u);

  // Expired: forgotten, and looked up again.
  EXPECT_EQ(Call(adoptions, "t9", true, kNow + absl::Seconds(2)), Turn::kStart);
  EXPECT_EQ(adoptions.unknown(), 0u);
}

TEST_F(AdoptionsTest, OnlyNotFoundIsRemembered) {
  Adoptions adoptions(Bounds(4, 10), metrics_);
  adoptions.Ended("t1", true, absl::UnavailableError("database away"), kNow);
  adoptions.Ended("t2", false, absl::OkStatus(), kNow);
  EXPECT_EQ(adoptions.unknown(), 0u);
  adoptions.Ended("t3", /*for_call=*/false, not_found_, kNow);  // a claim round's too
  EXPECT_EQ(adoptions.unknown(), 1u);
}

TEST_F(AdoptionsTest, NoMemoryRemembersNothing) {
  AdoptionOptions options = Bounds(4, 10);
  options.unknown_table_memory = absl::ZeroDuration();
  Adoptions adoptions(options, metrics_);
  adoptions.Ended("t9", false, not_found_, kNow);
  EXPECT_EQ(adoptions.unknown(), 0u);
  EXPECT_EQ(Call(adoptions, "t9"), Turn::kStart);
}

TEST_F(AdoptionsTest, UnknownIdsAreBoundedAndTheExpiredMakeRoom) {
  Adoptions adoptions(Bounds(4, 10), metrics_);  // at most 3 unknown ids
  adoptions.Ended("u1", false, not_found_, kNow);
  adoptions.Ended("u2", false, not_found_, kNow + absl::Seconds(1));
  adoptions.Ended("u3", false, not_found_, kNow + absl::Seconds(1));
  // Full of fresh ones: u4 is not remembered.
  adoptions.Ended("u4", false, not_found_, kNow + absl::Seconds(1));
  EXPECT_EQ(adoptions.unknown(), 3u);
  EXPECT_EQ(Call(adoptions, "u4", true, kNow + absl::Seconds(1)), Turn::kStart);
  // u1 expired: it makes room for u5.
  adoptions.Ended("u5", false, not_found_, kNow + absl::Seconds(2));
  EXPECT_EQ(adoptions.unknown(), 3u);
  EXPECT_EQ(Call(adoptions, "u5", true, kNow + absl::Seconds(2)), Turn::kRefused);
  EXPECT_EQ(Call(adoptions, "u1", true, kNow + absl::Seconds(2)), Turn::kStart);
}

TEST_F(AdoptionsTest, ExpiredAndHostedIdsAreForgotten) {
  Adoptions adoptions(Bounds(4, 10), metrics_);
  adoptions.Ended("u1", false, not_found_, kNow);
  adoptions.Ended("u2", false, not_found_, kNow + absl::Seconds(1));
  adoptions.Ended("u3", false, not_found_, kNow + absl::Seconds(1));
  adoptions.DropExpired(kNow + absl::Seconds(1));
  EXPECT_EQ(adoptions.unknown(), 3u);
  adoptions.DropExpired(kNow + absl::Seconds(2));  // u1 expires exactly now: dropped
  EXPECT_EQ(adoptions.unknown(), 2u);
  adoptions.DropExpired(kNow + absl::Seconds(3));
  EXPECT_EQ(adoptions.unknown(), 0u);

  adoptions.Ended("u4", false, not_found_, kNow);
  adoptions.ForgetUnknown("u4");  // created here meanwhile
  EXPECT_EQ(adoptions.unknown(), 0u);
  EXPECT_EQ(Call(adoptions, "u4", true, kNow), Turn::kStart);
}

}  // namespace
}  // namespace trix::table
