// HoldReleaseStore's contract (hold_release_store.h), checked against
// PostgreSQL and against the in-memory fake the lobby's tests use
// (testing/memory_hold_release_store.h), over the same tickets: an admission's
// release due after its grace and gone once its ticket is queued, a cancelled
// ticket's hold recorded, a table's end finishing its seats and naming it, the
// holds carried and spent, leases, backoff and the backlog.
#include "services/matchmaking/store/hold_release_store.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "services/matchmaking/store/lobby_stores_under_test.h"

namespace trix::matchmaking {
namespace {

using HoldReleaseStoreContractTest = LobbyStoresTest;

std::vector<DueRelease> LeaseAll(HoldReleaseStore& store) {
  absl::StatusOr<std::vector<DueRelease>> due = store.Lease(100);
  EXPECT_TRUE(due.ok()) << due.status();
  return due.ok() ? *due : std::vector<DueRelease>{};
}

TEST_P(HoldReleaseStoreContractTest, AnAdmissionsHoldIsDueAfterItsGraceUnlessQueued) {
  ASSERT_TRUE(releases().Expect({{"mm-1", "p", 100}, {"mm-2", "q", 10}}, absl::Minutes(1)).ok());
  EXPECT_TRUE(LeaseAll(releases()).empty());  // within the grace
  EXPECT_EQ(releases().Pending().value().pending, 2);
  ASSERT_TRUE(releases().Queued({"mm-1"}).ok());
  ASSERT_TRUE(releases().DueNow({"mm-2"}).ok());
  std::vector<DueRelease> due = LeaseAll(releases());
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].hold_id, "mm-2");
  EXPECT_EQ(due[0].reason, kReleaseAdmission);
  EXPECT_EQ(due[0].player_id, "q");
  EXPECT_EQ(due[0].amount, 10);
  EXPECT_EQ(due[0].tries, 1);
  EXPECT_FALSE(due[0].carried);
  EXPECT_TRUE(LeaseAll(releases()).empty());  // leased
  ASSERT_TRUE(releases().Done("mm-2").ok());
  EXPECT_EQ(releases().Pending().value().pending, 0);
}

TEST_P(HoldReleaseStoreContractTest, ACancelledOrSupersededTicketsHoldIsReleased) {
  Admit({Row("p", "r1", 100, "hold-p"), Row("q", "r1", 100, "hold-q")});
  ASSERT_TRUE(tickets().Cancel({"p-r1"}).ok());
  ASSERT_TRUE(tickets().SupersedeWaiting("q-r1").ok());
  std::vector<DueRelease> due = LeaseAll(releases());
  ASSERT_EQ(due.size(), 2u);
  std::set<std::string> reasons;
  for (const DueRelease& r : due) {
    reasons.insert(r.hold_id + ": " + r.reason);
    EXPECT_FALSE(r.carried);
    EXPECT_EQ(r.table_id, "");
  }
  EXPECT_EQ(reasons,
            (std::set<std::string>{"hold-p: ticket cancelled", "hold-q: ticket superseded"}));
  EXPECT_EQ(releases().Spent({"hold-p", "hold-q", "hold-x"}).value(),
            (std::set<std::string>{"hold-p", "hold-q"}));
}

TEST_P(HoldReleaseStoreContractTest, ATableEndedFinishesItsSeatsAndNamesItInTheRelease) {
  Admit({Row("p", "r1", 100, "hold-p"), Row("q", "r1", 0)});
  stores_->Seat(SeatOf("table-1", "p", "p-r1", 100));
  AssignmentRow free_seat = SeatOf("table-1", "q", "q-r1");
  free_seat.seat = 1;
  stores_->Seat(free_seat);
  EXPECT_TRUE(releases().Carried("hold-p").value());  // matched
  EXPECT_TRUE(releases().Spent({"hold-p"}).value().count("hold-p"));
  ASSERT_TRUE(releases().EndTable("table-1", "table-1", kReleaseVoided).ok());
  EXPECT_TRUE(tickets().LiveAssignmentsOf({"p", "q"}).value().empty());
  std::vector<DueRelease> due = LeaseAll(releases());
  ASSERT_EQ(due.size(), 1u);  // the staked seat's hold only
  EXPECT_EQ(due[0].hold_id, "hold-p");
  EXPECT_EQ(due[0].table_id, "table-1");
  EXPECT_EQ(due[0].reason, kReleaseVoided);
  EXPECT_TRUE(due[0].carried);
}

TEST_P(HoldReleaseStoreContractTest, AReleaseTriedAndFailedWaitsForItsBackoff) {
  ASSERT_TRUE(releases().Expect({{"mm-1", "p", 100}}, absl::ZeroDuration()).ok());
  std::vector<DueRelease> due = LeaseAll(releases());
  ASSERT_EQ(due.size(), 1u);
  ASSERT_TRUE(releases().Later("mm-1", due[0].tries).ok());
  EXPECT_TRUE(LeaseAll(releases()).empty());
  absl::SleepFor(absl::Milliseconds(120));  // past the first backoff (at most 100 ms)
  due = LeaseAll(releases());
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].tries, 2);
  ASSERT_TRUE(releases().Done("mm-1").ok());
  ASSERT_TRUE(releases().Later("mm-1", 2).ok());  // done stays done
  EXPECT_TRUE(LeaseAll(releases()).empty());
  ASSERT_TRUE(releases().Sweep(absl::ZeroDuration()).ok());
  EXPECT_EQ(releases().Pending().value().pending, 0);
}

TEST_P(HoldReleaseStoreContractTest, EndedTicketsWithoutAReleaseAreRecorded) {
  Admit({Row("p", "r1", 100, "hold-p")});
  ASSERT_TRUE(tickets().Cancel({"p-r1"}).ok());
  ASSERT_EQ(LeaseAll(releases()).size(), 1u);
  ASSERT_TRUE(releases().Done("hold-p").ok());
  // Recorded already: nothing new.
  ASSERT_TRUE(releases().RecordEnded(absl::Hours(1)).ok());
  EXPECT_TRUE(LeaseAll(releases()).empty());
  EXPECT_EQ(releases().Pending().value().pending, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, HoldReleaseStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
