// PostgresTicketStore where only PostgreSQL can show it: a player who resubmits
// while their ticket is being matched gets the seat, never a second ticket beside
// it (admissions racing the matcher's commit and another request), and the sweep
// of old rows. The contract both ticket stores keep is
// store/ticket_store_contract_test.cc.
#include "services/matchmaking/store/postgres_ticket_store.h"

#include "services/matchmaking/store/postgres_match_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <pqxx/pqxx>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/pg/testing/database_test.h"

namespace trix::matchmaking {
namespace {

class TicketStoreTest : public pg::DatabaseTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    store_ = std::make_unique<PostgresTicketStore>(db_->url(), 4, SeatTokens("test seat key"));
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
    Exec(absl::StrCat("INSERT INTO mm_placements (request_id, pool, request, possible, "
                      "seats, seat_tickets) VALUES ('", group,
                      "', 'complex-partner/0', '', now(), '{0}', ARRAY['", ticket_id,
                      "'])"));
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
    const pqxx::result finished = PostgresMatchStore::CommitAssignments(
        tx, {.created = {group}, .created_tickets = {ticket_id}, .rows = {seat},
             .row_requests = {group}});
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

  std::unique_ptr<PostgresTicketStore> store_;
};

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

TEST_F(TicketStoreTest, ATicketQueuedByAnotherRequestMeanwhileIsResumed) {
  // Another request of the player inserts its ticket after this admission's lock
  // found none, and commits while this admission's insert waits on it: the
  // admission queues nothing and resumes that ticket.
  pqxx::connection other(db_->url());
  pqxx::work queueing(other);
  queueing.exec0(
      "INSERT INTO mm_tickets (ticket_id, request_id, player_id, pool, team, format, "
      "rating) VALUES ('p-r1', 'r1', 'p', 'complex-partner/0', 2, 2, 1500)");
  absl::StatusOr<Admitted> again;
  std::atomic<bool> admitted{false};
  std::thread admit([&] {
    again = store_->Admit({Row("p", "r2")});
    admitted = true;
  });
  {
    // Until the admission waits for the other request's transaction.
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    while (!admitted && tx.exec1("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                 "current_database() AND wait_event_type = 'Lock' AND "
                                 "query LIKE 'INSERT INTO mm_tickets%'")[0]
                                .as<int>() == 0) {
    }
  }
  queueing.commit();
  admit.join();
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->outcomes.size(), 1u);
  EXPECT_EQ(again->outcomes[0].ticket_id, "p-r1");
  EXPECT_TRUE(again->outcomes[0].resumed);
  EXPECT_FALSE(again->outcomes[0].assigned.has_value());
  EXPECT_EQ(Held("p"), std::make_pair(1, 0));
}

TEST_F(TicketStoreTest, TheSweepDeletesWhatEndedLongAgoAndKeepsTheRest) {
  // Tickets: (player, status, minutes since the last change).
  const std::vector<std::tuple<std::string, std::string, int>> tickets = {
      {"p1", "matched", 120},    {"p2", "cancelled", 120}, {"p3", "superseded", 10},
      {"p4", "waiting", 120},    {"p5", "placing", 120},   {"p6", "superseded", 120}};
  for (const auto& [player, status, minutes] : tickets) {
    Exec(absl::StrCat("INSERT INTO mm_tickets (ticket_id, request_id, player_id, pool, "
                      "team, format, rating, status, changed) VALUES ('t-", player,
                      "', 'r', '", player, "', 'complex-partner/0', 2, 2, 1500, '", status,
                      "', now() - interval '", minutes, " minutes')"));
  }
  // Assignments: (table, finished, minutes since made).
  const std::vector<std::tuple<std::string, bool, int>> seats = {
      {"a1", true, 120}, {"a2", false, 120}, {"a3", false, 49 * 60}, {"a4", true, 10}};
  for (const auto& [table, finished, minutes] : seats) {
    Exec(absl::StrCat("INSERT INTO mm_assignments (table_id, seat, player_id, address, "
                      "seat_token, team, format, possible, matched, finished) VALUES ('",
                      table, "', 0, 'x', 'table:1', 'tok', 2, 2, now(), now() - interval '",
                      minutes, " minutes', ", finished ? "true" : "false", ")"));
  }
  Exec("INSERT INTO mm_parties (party_id, code, members, expires) VALUES "
       "('old', 'c1', '{x}', now() - interval '2 hours'), "
       "('new', 'c2', '{y}', now() + interval '5 minutes')");

  // At most one of each kind per call: three ended tickets take three calls.
  absl::StatusOr<int64_t> first = store_->SweepEnded(absl::Hours(1), 1);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, 3);  // a ticket, an assignment, a party
  int64_t swept = *first;
  for (int i = 0; i < 3; ++i) swept += store_->SweepEnded(absl::Hours(1), 1).value();
  EXPECT_EQ(swept, 6);  // p1, p2, p6; a1, a3; the old party

  pqxx::connection c(db_->url());
  pqxx::nontransaction tx(c);
  auto column = [&](const std::string& sql) {
    std::vector<std::string> values;
    for (const pqxx::row& row : tx.exec(sql)) values.push_back(row[0].as<std::string>());
    return values;
  };
  EXPECT_EQ(column("SELECT player_id FROM mm_tickets ORDER BY 1"),
            (std::vector<std::string>{"p3", "p4", "p5"}));
  EXPECT_EQ(column("SELECT table_id FROM mm_assignments ORDER BY 1"),
            (std::vector<std::string>{"a2", "a4"}));
  EXPECT_EQ(column("SELECT party_id FROM mm_parties"), (std::vector<std::string>{"new"}));
}

}  // namespace
}  // namespace trix::matchmaking
