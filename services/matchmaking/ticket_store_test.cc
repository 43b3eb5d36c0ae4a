// TicketStore::Admit against real PostgreSQL: a player who resubmits while their
// ticket is being matched gets the seat, never a second ticket beside it.
#include "services/matchmaking/ticket_store.h"

#include "services/matchmaking/matcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <pqxx/pqxx>
#include <thread>

#include "absl/strings/str_cat.h"
#include "services/storage/testing/database_test.h"

namespace trix::matchmaking {
namespace {

class TicketStoreTest : public storage::DatabaseTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    store_ = std::make_unique<TicketStore>(db_->url(), 4);
  }

  static TicketRow Row(const std::string& player, const std::string& request) {
    return {.ticket_id = absl::StrCat(player, "-", request),
            .request_id = request,
            .player_id = player,
            .pool = "complex-partner/0",
            .team = 2,
            .format = 2,
            .rating = 1500};
  }

  void Exec(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec0(sql);
    tx.commit();
  }

  // What the matcher's claim does to a grouped ticket: placing, in a placement.
  void Claim(const std::string& ticket_id, const std::string& group) {
    Exec(absl::StrCat("INSERT INTO mm_placements (request_id, pool, request, possible) "
                      "VALUES ('", group, "', 'complex-partner/0', '', now())"));
    Exec(absl::StrCat("UPDATE mm_tickets SET status = 'placing', group_id = '", group,
                      "' WHERE ticket_id = '", ticket_id, "'"));
  }

  // The matcher's commit of the placed group's seat (its table made), on `c`.
  static void CommitSeat(pqxx::connection& c, const std::string& player,
                         const std::string& ticket_id, const std::string& group) {
    const AssignmentRow seat{.table_id = "table-" + group,
                             .player_id = player,
                             .ticket_id = ticket_id,
                             .address = "table:1",
                             .seat_token = "token",
                             .team = 2,
                             .format = 2,
                             .possible = absl::Now()};
    pqxx::work tx(c);
    const pqxx::result finished =
        Matcher::CommitAssignments(tx, {group}, {ticket_id}, {}, {}, {seat}, {group});
    ASSERT_EQ(finished.size(), 1u);
    tx.commit();
  }

  // Live tickets and live seats of `player`.
  std::pair<int, int> Held(const std::string& player) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    auto tickets = tx.exec_params1(
        "SELECT count(*) FROM mm_tickets WHERE player_id = $1 "
        "AND status IN ('waiting', 'placing')",
        player)[0].as<int>();
    auto seats = tx.exec_params1(
        "SELECT count(*) FROM mm_assignments WHERE player_id = $1 AND NOT finished",
        player)[0].as<int>();
    return {tickets, seats};
  }

  std::unique_ptr<TicketStore> store_;
};

TEST_F(TicketStoreTest, APlayerHoldingALiveSeatGetsItInsteadOfANewTicket) {
  ASSERT_TRUE(store_->Admit({Row("p", "r1")}).ok());
  Claim("p-r1", "g1");
  {
    pqxx::connection c(db_->url());
    CommitSeat(c, "p", "p-r1", "g1");
  }
  // The resubmission's check of live seats ran before that commit: Admit itself
  // must see the seat.
  absl::StatusOr<Admitted> again = store_->Admit({Row("p", "r2")});
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->outcomes.size(), 1u);
  ASSERT_TRUE(again->outcomes[0].assigned.has_value());
  EXPECT_EQ(again->outcomes[0].assigned->table_id, "table-g1");
  EXPECT_EQ(again->outcomes[0].assigned->ticket_id, "p-r1");
  EXPECT_TRUE(again->superseded.empty());
  EXPECT_EQ(Held("p"), std::make_pair(0, 1));
}

TEST_F(TicketStoreTest, ATicketBeingPlacedIsResumedByANewRequest) {
  ASSERT_TRUE(store_->Admit({Row("p", "r1")}).ok());
  Claim("p-r1", "g1");
  absl::StatusOr<Admitted> again = store_->Admit({Row("p", "r2")});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcomes[0].ticket_id, "p-r1");
  EXPECT_TRUE(again->outcomes[0].resumed);
  EXPECT_FALSE(again->outcomes[0].assigned.has_value());
  EXPECT_EQ(Held("p"), std::make_pair(1, 0));
}

TEST_F(TicketStoreTest, ResubmittingWhileTheSeatIsCommittedNeverLeavesBoth) {
  // The commit of a seat and a resubmission of its player, started together, many
  // times: whichever comes first, the player ends with one ticket or one seat.
  pqxx::connection committer(db_->url());
  constexpr int kRounds = 60;
  for (int i = 0; i < kRounds; ++i) {
    const std::string player = absl::StrCat("p", i);
    const std::string group = absl::StrCat("g", i);
    ASSERT_TRUE(store_->Admit({Row(player, "r1")}).ok());
    Claim(player + "-r1", group);
    std::atomic<int> ready{0};
    std::thread commit([&] {
      ++ready;
      while (ready < 2) {
      }
      CommitSeat(committer, player, player + "-r1", group);
    });
    ++ready;
    while (ready < 2) {
    }
    absl::StatusOr<Admitted> again = store_->Admit({Row(player, "r2")});
    commit.join();
    ASSERT_TRUE(again.ok()) << again.status();
    const auto [tickets, seats] = Held(player);
    EXPECT_EQ(tickets + seats, 1) << "round " << i << ": " << tickets << " tickets, "
                                  << seats << " seats";
    // The outcome says which: the seat, or the ticket being placed (resumed).
    const AdmitOutcome& o = again->outcomes[0];
    EXPECT_TRUE(o.assigned.has_value() || (o.resumed && o.ticket_id == player + "-r1"))
        << "round " << i;
  }
}

}  // namespace
}  // namespace trix::matchmaking
