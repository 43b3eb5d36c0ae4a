// For the contract tests of the lobby's stores (ticket_store_contract_test.cc,
// hold_release_store_contract_test.cc): a TicketStore and a HoldReleaseStore
// over the same rows, on PostgreSQL or in memory, with what the matcher does to
// those rows (a ticket claimed, a seat committed) done the same way on both.
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_LOBBY_STORES_UNDER_TEST_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_LOBBY_STORES_UNDER_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <utility>

#include "services/matchmaking/store/hold_release_store.h"
#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/matchmaking/store/ticket_store.h"
#include "services/matchmaking/testing/memory_hold_release_store.h"
#include "services/matchmaking/testing/memory_ticket_store.h"
#include "services/pg/testing/test_database.h"

namespace trix::matchmaking {

class LobbyStoresUnderTest {
 public:
  virtual ~LobbyStoresUnderTest() = default;
  virtual TicketStore& tickets() = 0;
  virtual HoldReleaseStore& releases() = 0;
  // The matcher's claim: the waiting ticket is being placed.
  virtual void Claim(const std::string& ticket_id) = 0;
  // The matcher's commit of a seat (its ticket, if any, matched); the seat's
  // token is kept as given (no placement to derive it from).
  virtual void Seat(const AssignmentRow& seat) = 0;
};

class MemoryLobbyStores : public LobbyStoresUnderTest {
 public:
  TicketStore& tickets() override { return tickets_; }
  HoldReleaseStore& releases() override { return releases_; }
  void Claim(const std::string& ticket_id) override { tickets_.Claim(ticket_id); }
  void Seat(const AssignmentRow& seat) override { tickets_.Seat(seat); }

 private:
  MemoryTicketStore tickets_;
  MemoryHoldReleaseStore releases_{&tickets_};
};

class PostgresLobbyStores : public LobbyStoresUnderTest {
 public:
  explicit PostgresLobbyStores(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)),
        tickets_(db_->url(), 2, SeatTokens("contract seat key")),
        releases_(&tickets_.pool()) {}

  TicketStore& tickets() override { return tickets_; }
  HoldReleaseStore& releases() override { return releases_; }
  void Claim(const std::string& ticket_id) override {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_tickets SET status = 'placing' WHERE ticket_id = $1 AND status = 'waiting'",
        ticket_id);
    tx.commit();
  }
  void Seat(const AssignmentRow& a) override {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_assignments (table_id, seat, player_id, ticket_id, bot, address, "
        "seat_token, team, format, stake, possible, matched, bot_stream) VALUES ($1, $2, $3, "
        "nullif($4, ''), $5, $6, $7, $8, $9, $10, to_timestamp($11), to_timestamp($12), "
        "nullif($13, ''))",
        a.table_id, a.seat, a.player_id, a.ticket_id, a.bot, a.address, a.seat_token, a.team,
        a.format, a.stake, absl::ToUnixMicros(a.possible) / 1e6,
        absl::ToUnixMicros(a.matched) / 1e6, a.bot_stream);
    tx.exec_params0("UPDATE mm_tickets SET status = 'matched', changed = now() "
                    "WHERE ticket_id = $1",
                    a.ticket_id);
    tx.commit();
  }

 private:
  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  PostgresTicketStore tickets_;
  PostgresHoldReleaseStore releases_;
};

// The stores named by a test's parameter: "Memory" or "Postgres".
class LobbyStoresTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "Memory") {
      stores_ = std::make_unique<MemoryLobbyStores>();
      return;
    }
    absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db = pg::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    stores_ = std::make_unique<PostgresLobbyStores>(*std::move(db));
  }

  TicketStore& tickets() { return stores_->tickets(); }
  HoldReleaseStore& releases() { return stores_->releases(); }

  // A ticket of `player` for `request` (its id "<player>-<request>").
  static TicketRow Row(const std::string& player, const std::string& request,
                       int64_t stake = 0, const std::string& hold = "") {
    return {.ticket_id = player + "-" + request,
            .request_id = request,
            .player_id = player,
            .display_name = "name of " + player,
            .pool = stake > 0 ? "complex-partner/100" : "complex-partner/0",
            .team = 2,
            .format = 2,
            .stake = stake,
            .rating = 1500,
            .hold_id = hold};
  }
  // A person's seat at `table` for `ticket_id`.
  static AssignmentRow SeatOf(const std::string& table, const std::string& player,
                              const std::string& ticket_id, int64_t stake = 0,
                              absl::Time matched = absl::Now()) {
    return {.table_id = table,
            .player_id = player,
            .ticket_id = ticket_id,
            .address = "table:1",
            .seat_token = "token",
            .team = 2,
            .format = 2,
            .stake = stake,
            .possible = absl::FromUnixSeconds(absl::ToUnixSeconds(matched)),
            .matched = absl::FromUnixSeconds(absl::ToUnixSeconds(matched))};
  }
  void Admit(const std::vector<TicketRow>& rows) {
    absl::StatusOr<Admitted> admitted = tickets().Admit(rows);
    ASSERT_TRUE(admitted.ok()) << admitted.status();
  }
  std::string StatusOf(const std::string& ticket_id) {
    absl::StatusOr<std::vector<TicketRow>> rows = tickets().Tickets({ticket_id});
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() && rows->size() == 1 ? (*rows)[0].status : "";
  }

  std::unique_ptr<LobbyStoresUnderTest> stores_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_LOBBY_STORES_UNDER_TEST_H_
