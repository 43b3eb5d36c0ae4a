// MatchStore's contract (match_store.h), checked against PostgreSQL and against
// the in-memory fake the matcher's tests use (testing/memory_match_store.h), so
// that the fake is known to behave as the real store does: leases, reads of the
// pools, claims whole or not at all, the commit of an outcome, and a new holder's
// takeover of what the last one left.
#include "services/matchmaking/store/match_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/store/postgres_match_store.h"
#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/matchmaking/testing/memory_match_store.h"
#include "services/pg/testing/test_database.h"

namespace trix::matchmaking {
namespace {

constexpr char kPool[] = "complex-partner/0";
constexpr char kOtherPool[] = "complex-partner/100";

// A store to check, with what a test needs beside it: tickets queued and
// cancelled as the ticket store does, and what the store holds.
class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;
  virtual MatchStore& store() = 0;
  // Queues `row` and returns it as stored (numbered).
  virtual TicketRow Queue(TicketRow row) = 0;
  virtual void Cancel(const std::string& ticket_id) = 0;
  virtual std::string Status(const std::string& ticket_id) = 0;
  virtual std::vector<std::string> Placements() = 0;
  virtual std::vector<std::string> Voids() = 0;
  // Seats committed for the ticket.
  virtual int Seats(const std::string& ticket_id) = 0;
};

class MemoryUnderTest : public StoreUnderTest {
 public:
  MatchStore& store() override { return store_; }
  TicketRow Queue(TicketRow row) override { return store_.Queue(std::move(row)); }
  void Cancel(const std::string& ticket_id) override { store_.Cancel(ticket_id); }
  std::string Status(const std::string& ticket_id) override {
    return store_.Status(ticket_id);
  }
  std::vector<std::string> Placements() override { return store_.Placements(); }
  std::vector<std::string> Voids() override { return store_.Voids(); }
  int Seats(const std::string& ticket_id) override {
    int n = 0;
    for (const AssignmentRow& a : store_.Assignments()) n += a.ticket_id == ticket_id;
    return n;
  }

 private:
  MemoryMatchStore store_;
};

class PostgresUnderTest : public StoreUnderTest {
 public:
  explicit PostgresUnderTest(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)),
        tickets_(db_->url(), 2, SeatTokens("contract seat key")),
        store_(db_->url(), &tickets_.pool()) {}

  MatchStore& store() override { return store_; }
  TicketRow Queue(TicketRow row) override {
    absl::StatusOr<Admitted> admitted = tickets_.Admit({row});
    EXPECT_TRUE(admitted.ok()) << admitted.status();
    absl::StatusOr<std::vector<TicketRow>> stored = tickets_.Tickets({row.ticket_id});
    EXPECT_TRUE(stored.ok() && stored->size() == 1u);
    return stored.ok() && !stored->empty() ? stored->front() : row;
  }
  void Cancel(const std::string& ticket_id) override {
    EXPECT_TRUE(tickets_.Cancel({ticket_id}).ok());
  }
  std::string Status(const std::string& ticket_id) override {
    const pqxx::result r =
        Sql("SELECT status FROM mm_tickets WHERE ticket_id = $1", ticket_id);
    return r.empty() ? "" : r[0][0].as<std::string>();
  }
  std::vector<std::string> Placements() override {
    return Column(Sql("SELECT request_id FROM mm_placements ORDER BY request_id", ""));
  }
  std::vector<std::string> Voids() override {
    return Column(Sql("SELECT request_id FROM mm_table_voids ORDER BY request_id", ""));
  }
  int Seats(const std::string& ticket_id) override {
    return Sql("SELECT count(*) FROM mm_assignments WHERE ticket_id = $1", ticket_id)[0][0]
        .as<int>();
  }

 private:
  // `query` with $1 bound to `arg` when it names one.
  pqxx::result Sql(const std::string& query, const std::string& arg) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    pqxx::result r = query.find("$1") == std::string::npos ? tx.exec(query)
                                                            : tx.exec_params(query, arg);
    tx.commit();
    return r;
  }
  static std::vector<std::string> Column(const pqxx::result& r) {
    std::vector<std::string> values;
    for (const pqxx::row& row : r) values.push_back(row[0].as<std::string>());
    return values;
  }

  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  PostgresTicketStore tickets_;
  PostgresMatchStore store_;
};

// Made for each test: "Memory" or "Postgres" (a fresh, migrated database).
std::unique_ptr<StoreUnderTest> Make(const std::string& kind);

class MatchStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    under_ = Make(GetParam());
    ASSERT_NE(under_, nullptr);
  }

  MatchStore& store() { return under_->store(); }

  // Queues the ticket "<id>" of player "p-<id>" in `pool`.
  TicketRow Queue(const std::string& id, const std::string& pool = kPool) {
    return under_->Queue({.ticket_id = id,
                          .request_id = "r-" + id,
                          .player_id = "p-" + id,
                          .display_name = "Player " + id,
                          .pool = pool,
                          .team = 2,
                          .format = 2,
                          .rating = 1500});
  }

  // A table of `tickets` (one seat each), the other seats bots'.
  static PlannedTable Table(const std::string& id, const std::vector<std::string>& tickets) {
    PlannedTable table{.pool = kPool, .tickets = tickets,
                       .possible = absl::FromUnixSeconds(1800000000)};
    table.request.set_request_id(id);
    table.request.mutable_mode()->set_team(v1::TEAM_PARTNER);
    table.request.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
    for (int s = 0; s < 4; ++s) {
      const bool bot = s >= static_cast<int>(tickets.size());
      v1::SeatAssignment* seat = table.request.add_seats();
      seat->set_player_id(bot ? absl::StrCat("bot-", s) : "p-" + tickets[s]);
      seat->set_bot(bot);
      table.seats.push_back({.seat = s,
                             .player_id = seat->player_id(),
                             .ticket_id = bot ? "" : tickets[s],
                             .bot = bot,
                             .team = 2,
                             .format = 2,
                             .possible = table.possible});
      table.bots += bot;
    }
    return table;
  }

  // The outcome of a table made: its seats at "table-<id>".
  static void Created(const PlannedTable& table, PlacementOutcome& out) {
    out.created.push_back(table.request.request_id());
    out.created_tickets.insert(out.created_tickets.end(), table.tickets.begin(),
                               table.tickets.end());
    for (AssignmentRow seat : table.seats) {
      seat.table_id = "table-" + table.request.request_id();
      seat.address = "table:1";
      seat.seat_token = "token";
      out.rows.push_back(seat);
      out.row_requests.push_back(table.request.request_id());
    }
  }

  // Leases `pool` once the session that held it is gone: a closed connection's
  // locks go when PostgreSQL's backend has noticed (soon, not at once).
  static bool LeaseSoon(PoolSession& session, const std::string& pool) {
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (!session.TryLease(pool)) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return true;
  }

  static std::vector<std::string> Ids(const std::vector<TicketRow>& rows) {
    std::vector<std::string> ids;
    for (const TicketRow& r : rows) ids.push_back(r.ticket_id);
    return ids;
  }

  std::unique_ptr<StoreUnderTest> under_;
};

TEST_P(MatchStoreContractTest, APoolIsLeasedByOneSessionUntilItEnds) {
  std::unique_ptr<PoolSession> first = store().OpenSession();
  std::unique_ptr<PoolSession> second = store().OpenSession();
  EXPECT_TRUE(first->TryLease(kPool));
  EXPECT_FALSE(second->TryLease(kPool));
  EXPECT_TRUE(second->TryLease(kOtherPool));
  first.reset();
  EXPECT_TRUE(LeaseSoon(*second, kPool));
}

TEST_P(MatchStoreContractTest, AReadGivesThePoolsWaitingTicketsInOrderAfterANumber) {
  const TicketRow a1 = Queue("a1");
  const TicketRow a2 = Queue("a2");
  Queue("b1", kOtherPool);
  const TicketRow a3 = Queue("a3");
  under_->Cancel("a3");
  std::unique_ptr<PoolSession> session = store().OpenSession();
  const PoolRead whole = session->ReadWaiting({kPool}, 0);
  EXPECT_EQ(Ids(whole.tickets), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_GE(whole.numbered, a3.seq);
  EXPECT_LT(a1.seq, a2.seq);
  ASSERT_EQ(whole.tickets.size(), 2u);
  EXPECT_EQ(whole.tickets[0].player_id, "p-a1");
  EXPECT_EQ(whole.tickets[0].status, "waiting");
  EXPECT_EQ(whole.tickets[0].rating, 1500);
  EXPECT_EQ(Ids(session->ReadWaiting({kPool}, a1.seq).tickets),
            std::vector<std::string>{"a2"});
  EXPECT_EQ(Ids(session->ReadWaiting({kPool, kOtherPool}, a1.seq).tickets),
            (std::vector<std::string>{"a2", "b1"}));
  EXPECT_TRUE(session->ReadWaiting({kPool}, whole.numbered).tickets.empty());
}

TEST_P(MatchStoreContractTest, AClaimTakesEveryTicketOrNone) {
  for (const char* id : {"t1", "t2", "t3", "t4"}) Queue(id);
  under_->Cancel("t4");
  std::unique_ptr<PoolSession> session = store().OpenSession();
  const PlannedTable broken = Table("g1", {"t1", "t2", "t3", "t4"});
  EXPECT_FALSE(session->ClaimWhole({&broken}));
  EXPECT_EQ(under_->Status("t1"), "waiting");
  EXPECT_TRUE(under_->Placements().empty());

  Queue("t5");
  const PlannedTable whole = Table("g2", {"t1", "t2", "t3", "t5"});
  const PlannedTable bots = Table("g3", {});
  EXPECT_TRUE(session->ClaimWhole({&whole, &bots}));
  for (const char* id : {"t1", "t2", "t3", "t5"}) EXPECT_EQ(under_->Status(id), "placing");
  EXPECT_EQ(under_->Placements(), (std::vector<std::string>{"g2", "g3"}));
  EXPECT_TRUE(session->ReadWaiting({kPool}, 0).tickets.empty());
}

TEST_P(MatchStoreContractTest, ClaimingEachRecordsWhatThePlanKeepsAndPutsTheRestBack) {
  for (const char* id : {"t1", "t2", "t3"}) Queue(id);
  under_->Cancel("t3");
  std::unique_ptr<PoolSession> session = store().OpenSession();
  std::set<std::string> seen;
  const PlannedTable table = Table("g1", {"t1"});
  session->ClaimEach({"t1", "t2", "t3"}, [&](const std::set<std::string>& claimed) {
    seen = claimed;
    return ClaimPlan{.tables = {&table}, .back = {"t2"}};
  });
  EXPECT_EQ(seen, (std::set<std::string>{"t1", "t2"}));
  EXPECT_EQ(under_->Status("t1"), "placing");
  EXPECT_EQ(under_->Status("t2"), "waiting");
  EXPECT_EQ(under_->Status("t3"), "cancelled");
  EXPECT_EQ(under_->Placements(), std::vector<std::string>{"g1"});
}

TEST_P(MatchStoreContractTest, ACommitSeatsTheCreatedAndRequeuesTheFailed) {
  for (const char* id : {"a1", "a2", "b1", "b2", "c1"}) Queue(id);
  std::unique_ptr<PoolSession> session = store().OpenSession();
  const PlannedTable made = Table("ga", {"a1", "a2"});
  const PlannedTable lost = Table("gb", {"b1", "b2"});
  const PlannedTable refused = Table("gc", {"c1"});
  ASSERT_TRUE(session->ClaimWhole({&made, &lost, &refused}));
  PlacementOutcome outcome{.failed = {"gb", "gc"},
                           .failed_tickets = {"b1", "b2", "c1"},
                           .given_up = {"gb"}};
  Created(made, outcome);
  absl::StatusOr<std::set<std::string>> mine = store().CommitPlacements(outcome);
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ(*mine, std::set<std::string>{"ga"});
  EXPECT_EQ(under_->Status("a1"), "matched");
  EXPECT_EQ(under_->Seats("a1"), 1);
  EXPECT_EQ(under_->Status("b1"), "waiting");
  EXPECT_EQ(under_->Status("c1"), "waiting");
  EXPECT_EQ(under_->Seats("b1"), 0);
  EXPECT_TRUE(under_->Placements().empty());
  EXPECT_EQ(under_->Voids(), std::vector<std::string>{"gb"});
  // Finished already (as by another matcher): nothing more.
  mine = store().CommitPlacements(outcome);
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_TRUE(mine->empty());
  EXPECT_EQ(under_->Seats("a1"), 1);
  EXPECT_EQ(under_->Voids(), std::vector<std::string>{"gb"});
}

TEST_P(MatchStoreContractTest, ANewHolderTakesOverPlacementsAndRequeuesClaimsWithout) {
  for (const char* id : {"t1", "t2", "t3", "o1"}) Queue(id);
  std::unique_ptr<PoolSession> first = store().OpenSession();
  ASSERT_TRUE(first->TryLease(kPool));
  const PlannedTable table = Table("g1", {"t1", "t2", "t3"});
  ASSERT_TRUE(first->ClaimWhole({&table}));
  // A claim whose placement was never recorded (the holder died before it).
  first->ClaimEach({"o1"}, [](const std::set<std::string>&) { return ClaimPlan{}; });
  EXPECT_EQ(under_->Status("o1"), "placing");
  first.reset();

  std::unique_ptr<PoolSession> next = store().OpenSession();
  ASSERT_TRUE(LeaseSoon(*next, kPool));
  const PoolTakeover takeover = next->TakeOver(kPool);
  EXPECT_EQ(takeover.requeued, 1);
  EXPECT_EQ(under_->Status("o1"), "waiting");
  EXPECT_EQ(under_->Status("t1"), "placing");
  ASSERT_EQ(takeover.placements.size(), 1u);
  const PlannedTable& left = takeover.placements[0];
  EXPECT_EQ(left.request.request_id(), "g1");
  EXPECT_EQ(left.pool, kPool);
  EXPECT_EQ(left.possible, table.possible);
  EXPECT_EQ(left.tickets, (std::vector<std::string>{"t1", "t2", "t3"}));
  EXPECT_EQ(left.bots, 1);
  ASSERT_EQ(left.seats.size(), 4u);
  EXPECT_EQ(left.seats[0].player_id, "p-t1");
  EXPECT_TRUE(left.seats[3].bot);
  EXPECT_EQ(left.seats[3].ticket_id, "");
  EXPECT_TRUE(next->TakeOver(kOtherPool).placements.empty());
}

std::unique_ptr<StoreUnderTest> Make(const std::string& kind) {
  if (kind == "Memory") return std::make_unique<MemoryUnderTest>();
  absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db = pg::TestDatabase::Create();
  EXPECT_TRUE(db.ok()) << db.status();
  if (!db.ok()) return nullptr;
  return std::make_unique<PostgresUnderTest>(*std::move(db));
}

INSTANTIATE_TEST_SUITE_P(Stores, MatchStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
