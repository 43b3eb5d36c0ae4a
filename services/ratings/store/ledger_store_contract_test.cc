// LedgerStore's contract (ledger_store.h), checked through the ledger against
// PostgreSQL and against the in-memory fake (testing/memory_ledger_store.h):
// credits and debits idempotent by request id, statements newest first in pages,
// holds reserving money until released, replaced, attached or settled, the
// settlement of a table from the holds attached to it, the sweep of holds past
// their TTL, and a transaction that fails or breaks a check changing nothing.
#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"
#include "services/ratings/ledger.h"
#include "services/ratings/store/ledger_store.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/ratings/testing/memory_ledger_store.h"
#include "services/ratings/testing/outbox_games.h"
#include "services/pg/connection_pool.h"
#include "services/ratings/testing/stores_under_test.h"
#include "services/pg/testing/test_database.h"

namespace trix::ratings {
namespace {

using absl::StatusCode;

// The store to check, with ways to age a hold and to set a table's settlement
// aside (what the consumer does).
class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;
  virtual LedgerStore& store() = 0;
  virtual void Age(const std::string& hold_id, absl::Duration age) = 0;
  virtual void SetAside(const std::string& table_id, bool set_aside) = 0;
};

class MemoryUnderTest : public StoreUnderTest {
 public:
  LedgerStore& store() override { return store_; }
  void Age(const std::string& hold_id, absl::Duration age) override {
    store_.Age(hold_id, age);
  }
  void SetAside(const std::string& table_id, bool set_aside) override {
    store_.SetAside(table_id, set_aside);
  }

 private:
  MemoryLedgerStore store_;
};

class PostgresUnderTest : public StoreUnderTest {
 public:
  explicit PostgresUnderTest(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)), pool_(db_->url(), 4, "ledger store test"), store_(&pool_) {}

  LedgerStore& store() override { return store_; }
  void Age(const std::string& hold_id, absl::Duration age) override {
    Exec(absl::StrCat("UPDATE ratings.holds SET created = created - interval '",
                      absl::ToInt64Seconds(age), " seconds', updated = updated - interval '",
                      absl::ToInt64Seconds(age), " seconds' WHERE hold_id = '", hold_id, "'"));
  }
  void SetAside(const std::string& table_id, bool set_aside) override {
    Exec(set_aside ? absl::StrCat("INSERT INTO ratings.set_aside_settlements (game_id, "
                                  "outbox_id, error) VALUES ('", table_id, "', 1, 'refused')")
                   : absl::StrCat("UPDATE ratings.set_aside_settlements SET resolved = now() "
                                  "WHERE game_id = '", table_id, "'"));
  }

 private:
  void Exec(const std::string& sql) { ExecSql(db_->url(), sql); }

  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  pg::ConnectionPool pool_;
  PostgresLedgerStore store_;
};

class LedgerStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        (MakeUnderTest<MemoryUnderTest, PostgresUnderTest>(GetParam(), under_)));
    ledger_ = std::make_unique<Ledger>(&under_->store(), kTtls);
  }

  void Credit(const std::string& player, int64_t amount) {
    ASSERT_TRUE(ledger_->Move(EntryKind::kCredit, absl::StrCat("credit-", ++credits_), player,
                              amount, "")
                    .ok());
  }
  int64_t Balance(const std::string& player) { return ledger_->GetBalance(player)->balance; }
  int64_t Available(const std::string& player) {
    return ledger_->GetBalance(player)->available();
  }
  HoldInfo Attached(const std::string& player, int64_t amount, const std::string& table,
                    int seat) {
    absl::StatusOr<HoldInfo> h = ledger_->HoldStake(absl::StrCat("hold-", ++holds_), player,
                                                    amount);
    EXPECT_TRUE(h.ok()) << h.status();
    absl::StatusOr<HoldInfo> a = ledger_->AttachHold(h->hold_id, table, seat);
    EXPECT_TRUE(a.ok()) << a.status();
    return *a;
  }
  // The game as the consumer reads it from the outbox.
  static FinishedGame Finished(const OutboxGame& g) {
    absl::StatusOr<FinishedGame> game = ParseFinishedGame(1, g.Payload());
    EXPECT_TRUE(game.ok()) << game.status();
    game->game_id = g.game_id;
    return *game;
  }
  Settlement Settle(const FinishedGame& game) {
    Settlement out;
    const absl::Status s = under_->store().Transact("settling", [&](LedgerTransaction& tx) {
      out = Ledger::Settle(tx, game, PlanSettlement(game, ExpectedHolds(game)));
      return absl::OkStatus();
    });
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }

  static constexpr LedgerOptions kTtls{.held_ttl = absl::Minutes(1),
                                       .attached_ttl = absl::Hours(1)};
  std::unique_ptr<StoreUnderTest> under_;
  std::unique_ptr<Ledger> ledger_;
  int credits_ = 0, holds_ = 0;
};

TEST_P(LedgerStoreContractTest, CreditsAndDebitsAreIdempotentByRequestId) {
  absl::StatusOr<Transfer> credit = ledger_->Move(EntryKind::kCredit, "r1", "p", 500, "in");
  ASSERT_TRUE(credit.ok()) << credit.status();
  EXPECT_EQ(credit->balance.balance, 500);
  absl::StatusOr<Transfer> again = ledger_->Move(EntryKind::kCredit, "r1", "p", 500, "in");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->entry_id, credit->entry_id);
  EXPECT_EQ(again->balance.balance, 500);
  EXPECT_EQ(ledger_->Move(EntryKind::kCredit, "r1", "p", 501, "in").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "r1", "p", 500, "in").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_->Move(EntryKind::kCredit, "r1", "q", 500, "in").status().code(),
            StatusCode::kAlreadyExists);
  absl::StatusOr<Transfer> debit = ledger_->Move(EntryKind::kDebit, "r2", "p", 200, "out");
  ASSERT_TRUE(debit.ok()) << debit.status();
  EXPECT_EQ(debit->balance.balance, 300);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "r3", "p", 301, "").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "r4", "nobody", 1, "").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ledger_->GetBalance("nobody").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Balance("p"), 300);
}

TEST_P(LedgerStoreContractTest, StatementsAreNewestFirstInPages) {
  for (int64_t amount : {10, 20, 30}) Credit("p", amount);
  Credit("q", 5);
  absl::StatusOr<StatementPage> first = ledger_->GetStatement("p", 2, "");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->lines.size(), 2u);
  EXPECT_EQ(first->lines[0].amount, 30);
  EXPECT_EQ(first->lines[0].balance_after, 60);
  EXPECT_EQ(first->lines[0].kind, EntryKind::kCredit);
  EXPECT_EQ(first->lines[1].balance_after, 30);
  EXPECT_GT(first->lines[0].entry_id, first->lines[1].entry_id);
  EXPECT_LT(absl::Now() - first->lines[0].time, absl::Minutes(1));
  ASSERT_FALSE(first->next_page_token.empty());
  absl::StatusOr<StatementPage> rest = ledger_->GetStatement("p", 2, first->next_page_token);
  ASSERT_TRUE(rest.ok()) << rest.status();
  ASSERT_EQ(rest->lines.size(), 1u);
  EXPECT_EQ(rest->lines[0].amount, 10);
  EXPECT_TRUE(rest->next_page_token.empty());
  EXPECT_EQ(ledger_->GetStatement("nobody", 0, "").status().code(), StatusCode::kNotFound);
}

TEST_P(LedgerStoreContractTest, HoldsReserveMoneyUntilReleasedOrReplaced) {
  Credit("p", 1000);
  absl::StatusOr<HoldInfo> h = ledger_->HoldStake("t1", "p", 300);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->state, HoldState::kHeld);
  EXPECT_EQ(Available("p"), 700);
  EXPECT_EQ(ledger_->HoldStake("t1", "p", 300)->hold_id, h->hold_id);
  EXPECT_EQ(ledger_->HoldStake("t1", "p", 400).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_->HoldStake("t2", "p", 800).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->HoldStake("t2", "nobody", 1).status().code(), StatusCode::kNotFound);
  absl::StatusOr<HoldInfo> bigger = ledger_->HoldStake("t3", "p", 900, h->hold_id);
  ASSERT_TRUE(bigger.ok()) << bigger.status();
  EXPECT_EQ(Available("p"), 100);
  EXPECT_EQ(ledger_->ReleaseHold(h->hold_id)->state, HoldState::kReleased);
  EXPECT_EQ(ledger_->ReleaseHold(bigger->hold_id)->state, HoldState::kReleased);
  EXPECT_EQ(ledger_->ReleaseHold(bigger->hold_id)->state, HoldState::kReleased);
  EXPECT_EQ(Available("p"), 1000);
  EXPECT_EQ(Balance("p"), 1000);
  EXPECT_EQ(ledger_->ReleaseHold("no-such-hold").status().code(), StatusCode::kNotFound);
}

TEST_P(LedgerStoreContractTest, AnAttachedHoldHoldsItsSeat) {
  Credit("p", 1000);
  Credit("q", 1000);
  const HoldInfo seated = Attached("p", 100, "t1", 2);
  EXPECT_EQ(seated.state, HoldState::kAttached);
  EXPECT_EQ(seated.table_id, "t1");
  EXPECT_EQ(seated.seat, 2);
  absl::StatusOr<HoldInfo> other = ledger_->HoldStake("q-hold", "q", 100);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(ledger_->AttachHold(other->hold_id, "t1", 2).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->AttachHold(seated.hold_id, "t1", 2)->state, HoldState::kAttached);
  EXPECT_EQ(ledger_->KeepHold(seated.hold_id)->state, HoldState::kAttached);
  EXPECT_EQ(ledger_->ReleaseHold(seated.hold_id).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->ReleaseHold(seated.hold_id, "t1")->state, HoldState::kReleased);
  EXPECT_EQ(ledger_->AttachHold(other->hold_id, "t1", 2)->seat, 2);
  EXPECT_EQ(Available("p"), 1000);
  EXPECT_EQ(Available("q"), 900);
}

TEST_P(LedgerStoreContractTest, ATableSettlesFromTheHoldsAttachedToIt) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  std::vector<HoldInfo> holds;
  for (int s = 0; s < 4; ++s) holds.push_back(Attached(std::string(1, 'a' + s), 100, "g1", s));
  const Settlement s = Settle(Finished(OutboxGame::StakedSolo("g1")));
  EXPECT_EQ(s.outcome, "settled");
  EXPECT_TRUE(s.moved);
  EXPECT_EQ(s.released_holds, 0);
  EXPECT_EQ(Balance("a"), 1140);
  EXPECT_EQ(Balance("b"), 1020);
  EXPECT_EQ(Balance("c"), 940);
  EXPECT_EQ(Balance("d"), 900);
  EXPECT_EQ(Available("d"), 900);
  EXPECT_EQ(ledger_->ReleaseHold(holds[0].hold_id, "g1").status().code(),
            StatusCode::kFailedPrecondition);
  absl::StatusOr<StatementPage> a = ledger_->GetStatement("a", 0, "");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->lines.size(), 3u);
  EXPECT_EQ(a->lines[0].kind, EntryKind::kPayout);
  EXPECT_EQ(a->lines[0].amount, 240);
  EXPECT_EQ(a->lines[0].game_id, "g1");
  EXPECT_EQ(a->lines[1].kind, EntryKind::kStake);
  EXPECT_EQ(a->lines[1].amount, -100);
  EXPECT_EQ(a->lines[1].balance_after, 900);
}

// The hold leaves `held` before the stake leaves the balance: a whole balance
// staked keeps held <= balance throughout.
TEST_P(LedgerStoreContractTest, AStakeOfAWholeBalanceSettles) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  for (int s = 0; s < 4; ++s) Attached(std::string(1, 'a' + s), 100, "g1", s);
  EXPECT_EQ(Settle(Finished(OutboxGame::StakedSolo("g1"))).outcome, "settled");
  EXPECT_EQ(Balance("a"), 240);
  EXPECT_EQ(Balance("d"), 0);
}

TEST_P(LedgerStoreContractTest, UnheldSeatsSettleNothingAndOtherHoldsAreReleased) {
  for (const char* p : {"a", "b", "c", "d", "e"}) Credit(p, 1000);
  for (int s = 0; s < 3; ++s) Attached(std::string(1, 'a' + s), 100, "g1", s);
  Attached("e", 50, "g1", 3);  // another player's hold on d's seat
  const Settlement s = Settle(Finished(OutboxGame::StakedSolo("g1")));
  EXPECT_EQ(s.outcome, "unheld");
  EXPECT_EQ(s.unheld_seats, 1);
  EXPECT_EQ(s.released_holds, 1);
  EXPECT_TRUE(s.moved);
  EXPECT_EQ(Balance("d"), 1000);
  EXPECT_EQ(Available("e"), 1000);
  EXPECT_EQ(Balance("a") + Balance("b") + Balance("c"), 3000);
}

TEST_P(LedgerStoreContractTest, AVoidedTableReleasesItsHoldsAndMovesNothing) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  for (int s = 0; s < 4; ++s) Attached(std::string(1, 'a' + s), 100, "g1", s);
  OutboxGame voided = OutboxGame::StakedSolo("g1");
  voided.void_reason = "dealer misconfigured";
  const Settlement s = Settle(Finished(voided));
  EXPECT_EQ(s.outcome, "voided");
  EXPECT_EQ(s.released_holds, 4);
  EXPECT_FALSE(s.moved);
  for (const char* p : {"a", "b", "c", "d"}) EXPECT_EQ(Available(p), 1000);
}

TEST_P(LedgerStoreContractTest, HoldsPastTheirTtlAreSweptUnlessTheirTableIsSetAside) {
  for (const char* p : {"a", "b", "c"}) Credit(p, 1000);
  const std::string queued = ledger_->HoldStake("t-a", "a", 100)->hold_id;
  const std::string fresh = ledger_->HoldStake("t-b", "b", 100)->hold_id;
  const HoldInfo seated = Attached("c", 100, "g1", 0);
  under_->Age(queued, absl::Minutes(2));
  under_->Age(seated.hold_id, absl::Hours(2));
  under_->SetAside("g1", true);
  absl::StatusOr<OpenHolds> open = ledger_->GetOpenHolds();
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->past_ttl, 2);
  EXPECT_GE(open->oldest_seconds, 7200);
  EXPECT_EQ(*ledger_->ReleaseExpiredHolds(100), 1);
  EXPECT_EQ(*ledger_->ReleaseExpiredHolds(100), 0);
  EXPECT_EQ(Available("a"), 1000);
  EXPECT_EQ(Available("c"), 900);
  under_->SetAside("g1", false);
  EXPECT_EQ(*ledger_->ReleaseExpiredHolds(100), 1);
  EXPECT_EQ(Available("c"), 1000);
  EXPECT_EQ(ledger_->KeepHold(queued).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->KeepHold(fresh)->state, HoldState::kHeld);
  EXPECT_EQ(ledger_->GetOpenHolds()->past_ttl, 0);
}

TEST_P(LedgerStoreContractTest, AFailedOrRefusedTransactionChangesNothing) {
  Credit("p", 100);
  LedgerStore& store = under_->store();
  EXPECT_EQ(store.Transact("failing", [](LedgerTransaction& tx) {
              tx.AddHeld("p", 50);
              tx.PostEntry(EntryKind::kDebit, "", "", "", {{PlayerAccount("p"), -10},
                                                          {"world:0", 10}});
              return absl::FailedPreconditionError("changed my mind");
            }).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_FALSE(store.Transact("overdrawing", [](LedgerTransaction& tx) {
                      tx.PostEntry(EntryKind::kDebit, "", "", "",
                                   {{PlayerAccount("p"), -101}, {"world:0", 101}});
                      return absl::OkStatus();
                    }).ok());
  EXPECT_FALSE(store.Transact("holding too much", [](LedgerTransaction& tx) {
                      tx.AddHeld("p", 101);
                      return absl::OkStatus();
                    }).ok());
  EXPECT_FALSE(store.Transact("unbalanced", [](LedgerTransaction& tx) {
                      tx.PostEntry(EntryKind::kCredit, "", "", "", {{PlayerAccount("p"), 5}});
                      return absl::OkStatus();
                    }).ok());
  EXPECT_EQ(Balance("p"), 100);
  EXPECT_EQ(Available("p"), 100);
  EXPECT_EQ(ledger_->GetStatement("p", 0, "")->lines.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Stores, LedgerStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::ratings
