// RatingsStore's contract (ratings_store.h), checked against PostgreSQL and against
// the in-memory fake (testing/memory_ratings_store.h): the consumer's claims
// counted and one replica at a time, pending rows in id order until consumed,
// ratings, history and applied games written by a committed batch only, a
// vanished rating refusing the write, settlements against the holds attached, and
// a refused settlement set aside and resolved.
#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/ratings/store/postgres_ratings_store.h"
#include "services/ratings/store/ratings_store.h"
#include "services/ratings/testing/memory_ratings_store.h"
#include "services/ratings/testing/outbox_games.h"
#include "services/pg/connection_pool.h"
#include "services/ratings/testing/stores_under_test.h"
#include "services/pg/testing/test_database.h"

namespace trix::ratings {
namespace {

// The store to check, with ways to set up what other services write (outbox rows,
// attached holds) and to make the storage refuse a game's settlement.
class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;
  virtual RatingsStore& store() = 0;
  virtual std::unique_ptr<RatingsStore> Replica() = 0;
  virtual void Add(const std::vector<OutboxGame>& games) = 0;
  // The ledger the store settles in.
  virtual Ledger& ledger() = 0;
  virtual void Refuse(const std::string& game_id, bool refuse) = 0;
  virtual void DropRating(const PlayerKey& player) = 0;

  // Each seat's stake of `game` held by its player (credited 1000 first) and
  // attached to its seat.
  void HoldStakes(const OutboxGame& game) {
    const absl::Status s = ratings::HoldStakes(ledger(), game);
    ASSERT_TRUE(s.ok()) << s;
  }
};

class MemoryUnderTest : public StoreUnderTest {
 public:
  RatingsStore& store() override { return store_; }
  std::unique_ptr<RatingsStore> Replica() override { return store_.Replica(); }
  void Add(const std::vector<OutboxGame>& games) override {
    for (const OutboxGame& g : games)
      store_.AddOutboxRow({++last_id_, g.game_id, g.Payload()});
  }
  Ledger& ledger() override { return ledger_; }
  void Refuse(const std::string& game_id, bool refuse) override {
    store_.RefuseSettlementsOf(game_id, refuse);
  }
  void DropRating(const PlayerKey& player) override { store_.DropRating(player); }

 private:
  MemoryRatingsStore store_;
  Ledger ledger_{&store_.ledger()};
  int64_t last_id_ = 0;
};

// A store on a connection of its own.
class ConnectedStore : public RatingsStore {
 public:
  explicit ConnectedStore(const std::string& url)
      : connection_(url), store_(connection_) {}
  std::unique_ptr<ConsumerBatch> BeginBatch() override { return store_.BeginBatch(); }
  std::vector<std::string> DueSetAside(absl::Duration after, int limit) override {
    return store_.DueSetAside(after, limit);
  }
  ConsumerLag ReadLag() override { return store_.ReadLag(); }

 private:
  pqxx::connection connection_;
  PostgresRatingsStore store_;
};

class PostgresUnderTest : public StoreUnderTest {
 public:
  explicit PostgresUnderTest(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)),
        pool_(db_->url(), 2, "ratings store test"),
        ledger_store_(&pool_),
        ledger_(&ledger_store_),
        store_(db_->url()) {}

  RatingsStore& store() override { return store_; }
  std::unique_ptr<RatingsStore> Replica() override {
    return std::make_unique<ConnectedStore>(db_->url());
  }
  void Add(const std::vector<OutboxGame>& games) override {
    pqxx::connection c(db_->url());
    WriteOutboxGames(c, games);
  }
  Ledger& ledger() override { return ledger_; }
  void Refuse(const std::string& game_id, bool refuse) override {
    if (refuse) {
      Exec(
          "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
          "$$ BEGIN RAISE EXCEPTION 'the journal refuses it'; END $$");
      Exec(absl::StrCat(
          "CREATE TRIGGER refuse BEFORE INSERT ON ratings.entries FOR EACH ROW "
          "WHEN (NEW.game_id = '",
          game_id, "') EXECUTE FUNCTION refuse()"));
    } else {
      Exec("DROP TRIGGER refuse ON ratings.entries");
      Exec("DROP FUNCTION refuse()");
    }
  }
  void DropRating(const PlayerKey& player) override {
    Exec(absl::StrCat("DELETE FROM ratings.player_ratings WHERE mode = '", player.first,
                      "' AND player_id = '", player.second, "'"));
  }

 private:
  void Exec(const std::string& sql) { ExecSql(db_->url(), sql); }

  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  pg::ConnectionPool pool_;
  PostgresLedgerStore ledger_store_;
  Ledger ledger_;
  ConnectedStore store_;
};

class RatingsStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        (MakeUnderTest<MemoryUnderTest, PostgresUnderTest>(GetParam(), under_)));
  }

  RatingsStore& store() { return under_->store(); }
  // The player's balance in the ledger the store settles in (zero: none).
  BalanceInfo BalanceOf(const std::string& player) {
    return under_->ledger().GetBalance(player).value_or(BalanceInfo{});
  }

  // A claimed batch (the test fails when it cannot claim).
  std::unique_ptr<ConsumerBatch> Claimed(ConsumerClaim& claim,
                                         const std::string& who = "one") {
    std::unique_ptr<ConsumerBatch> batch = store().BeginBatch();
    EXPECT_TRUE(batch->Claim(who, claim));
    return batch;
  }

  // Plans the pending rows above the last applied (up to `limit`), settles each
  // game as planned and writes the plan; the batch is left to commit or drop.
  BatchPlan PlanAndWrite(ConsumerBatch& batch, const ConsumerClaim& claim,
                         int limit = 100) {
    const std::vector<OutboxRow> rows =
        batch.ReadPending(false, claim.last_applied, limit);
    std::vector<PendingGame> games = ParsePending(rows, batch.AppliedAmong(rows));
    const auto ratings = batch.ReadRatings(PlayersOf(games));
    BatchPlan plan = PlanBatch(rows, std::move(games), ratings, RateOptions{});
    settled_.clear();
    for (const GamePlan& g : plan.games) {
      settled_.push_back(g.game.ok() ? batch.Settle(g.row, *g.game, g.settlement)
                                     : g.settlement.settlement);
    }
    EXPECT_TRUE(batch.Write(plan, settled_));
    return plan;
  }

  std::unique_ptr<StoreUnderTest> under_;
  std::vector<Settlement> settled_;  // of the last PlanAndWrite
};

TEST_P(RatingsStoreContractTest, ClaimsAreCountedAndNameTheOwnerBefore) {
  ConsumerClaim first, second, dropped, after;
  Claimed(first, "one")->Commit();
  EXPECT_EQ(first.previous_owner, "");
  EXPECT_EQ(first.previous_batch, 0);
  EXPECT_EQ(first.number, 1);
  EXPECT_EQ(first.last_applied, 0);
  Claimed(second, "two")->Commit();
  EXPECT_EQ(second.previous_owner, "one");
  EXPECT_EQ(second.previous_batch, 1);
  EXPECT_EQ(second.number, 2);
  Claimed(dropped, "three");  // dropped uncommitted: not counted
  Claimed(after, "four");
  EXPECT_EQ(after.previous_owner, "two");
  EXPECT_EQ(after.number, 3);
}

TEST_P(RatingsStoreContractTest, OneReplicaClaimsAtATime) {
  std::unique_ptr<RatingsStore> replica = under_->Replica();
  ConsumerClaim claim, other;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  EXPECT_FALSE(replica->BeginBatch()->Claim("other", other));
  batch.reset();
  EXPECT_TRUE(replica->BeginBatch()->Claim("other", other));
}

TEST_P(RatingsStoreContractTest, PendingRowsComeInIdOrderUntilConsumed) {
  under_->Add({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4}),
               OutboxGame::Partner("g2", {"a", "b", "c", "d"}, 0),
               OutboxGame::Solo("g3", {"a", "b", "e", "f"}, {4, 3, 2, 1})});
  ConsumerClaim claim;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  const std::vector<OutboxRow> all = batch->ReadPending(false, 0, 10);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].game_id, "g1");
  EXPECT_LT(all[0].id, all[1].id);
  EXPECT_LT(all[1].id, all[2].id);
  EXPECT_TRUE(ParseFinishedGame(all[2].id, all[2].payload).ok());
  EXPECT_EQ(batch->ReadPending(true, 0, 2).size(), 2u);
  PlanAndWrite(*batch, claim, 2);
  batch->Commit();

  batch = Claimed(claim);
  EXPECT_EQ(claim.last_applied, all[1].id);
  EXPECT_EQ(batch->AppliedAmong(all), (std::set<std::string>{"g1", "g2"}));
  const std::vector<OutboxRow> left = batch->ReadPending(true, claim.last_applied, 10);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].game_id, "g3");
}

TEST_P(RatingsStoreContractTest, RatingsAreWrittenByACommittedBatchOnly) {
  under_->Add({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4}),
               OutboxGame::Solo("g2", {"a", "b", "e", "f"}, {2, 1, 3, 4})});
  ConsumerClaim claim;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  PlanAndWrite(*batch, claim, 1);
  batch.reset();  // dropped: nothing changed
  batch = Claimed(claim);
  EXPECT_EQ(claim.last_applied, 0);
  EXPECT_TRUE(batch->ReadRatings({{"complex-solo", "a"}}).empty());
  const BatchPlan first = PlanAndWrite(*batch, claim, 1);
  batch->Commit();

  batch = Claimed(claim);
  const std::map<PlayerKey, StoredRating> stored =
      batch->ReadRatings({{"complex-solo", "a"}, {"complex-solo", "e"}});
  ASSERT_EQ(stored.size(), 1u);
  const StoredRating& a = stored.at({"complex-solo", "a"});
  EXPECT_EQ(a.games, 1);
  EXPECT_EQ(a.skill.mu, first.players.at({"complex-solo", "a"}).skill.mu);  // bit for bit
  EXPECT_EQ(a.skill.sigma, first.players.at({"complex-solo", "a"}).skill.sigma);
  const BatchPlan second = PlanAndWrite(*batch, claim);  // a and b updated, e and f new
  batch->Commit();
  batch = Claimed(claim);
  const auto now = batch->ReadRatings({{"complex-solo", "a"}, {"complex-solo", "f"}});
  EXPECT_EQ(now.at({"complex-solo", "a"}).games, 2);
  EXPECT_EQ(now.at({"complex-solo", "a"}).skill.mu,
            second.players.at({"complex-solo", "a"}).skill.mu);
  EXPECT_EQ(now.at({"complex-solo", "f"}).games, 1);
}

TEST_P(RatingsStoreContractTest, AWriteOverAVanishedRatingIsRefused) {
  under_->Add({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4}),
               OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  ConsumerClaim claim;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  PlanAndWrite(*batch, claim, 1);
  batch->Commit();
  batch = Claimed(claim);
  const std::vector<OutboxRow> rows = batch->ReadPending(false, claim.last_applied, 10);
  std::vector<PendingGame> games = ParsePending(rows, {});
  const auto ratings = batch->ReadRatings(PlayersOf(games));
  under_->DropRating({"complex-solo", "a"});
  const BatchPlan plan = PlanBatch(rows, std::move(games), ratings, RateOptions{});
  EXPECT_FALSE(batch->Write(plan, {{"unstaked", ""}}));
}

TEST_P(RatingsStoreContractTest, SettlementsFollowTheHoldsAttached) {
  const OutboxGame settled = OutboxGame::StakedSolo("g1");
  OutboxGame voided = OutboxGame::StakedSolo("g2");
  voided.void_reason = "dealer misconfigured";
  OutboxGame unheld = OutboxGame::StakedSolo("g3");
  under_->HoldStakes(settled);
  under_->HoldStakes(voided);
  OutboxGame three_held = unheld;
  three_held.seats[3].stake = 0;
  under_->HoldStakes(three_held);  // seat 3 staked without a hold
  under_->Add({settled, voided, unheld});
  ConsumerClaim claim;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  PlanAndWrite(*batch, claim);
  batch->Commit();
  ASSERT_EQ(settled_.size(), 3u);
  EXPECT_EQ(settled_[0].outcome, "settled");
  EXPECT_TRUE(settled_[0].moved);
  EXPECT_EQ(settled_[0].released_holds, 0);
  EXPECT_EQ(settled_[1].outcome, "voided");
  EXPECT_EQ(settled_[1].note, "dealer misconfigured");
  EXPECT_EQ(settled_[1].released_holds, 4);
  EXPECT_FALSE(settled_[1].moved);
  EXPECT_EQ(settled_[2].outcome, "unheld");
  EXPECT_EQ(settled_[2].unheld_seats, 1);
  EXPECT_TRUE(settled_[2].moved);
}

TEST_P(RatingsStoreContractTest, ARefusedSettlementIsSetAsideThenResolved) {
  const OutboxGame g1 = OutboxGame::StakedSolo("g1");
  under_->HoldStakes(g1);
  under_->Add({g1, OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  under_->Refuse("g1", true);
  ConsumerClaim claim;
  std::unique_ptr<ConsumerBatch> batch = Claimed(claim);
  PlanAndWrite(*batch, claim);
  batch->Commit();
  ASSERT_EQ(settled_.size(), 2u);
  EXPECT_EQ(settled_[0].outcome, "set_aside");
  EXPECT_FALSE(settled_[0].note.empty());
  EXPECT_EQ(settled_[1].outcome, "unstaked");
  EXPECT_EQ(BalanceOf("a").held, 100);  // the stake stays held while set aside
  EXPECT_EQ(store().ReadLag().open_set_aside, 1);
  EXPECT_EQ(store().ReadLag().pending, 0);
  EXPECT_TRUE(store().DueSetAside(absl::Hours(1), 100).empty());  // tried too lately
  ASSERT_EQ(store().DueSetAside(absl::ZeroDuration(), 100),
            std::vector<std::string>{"g1"});

  under_->Refuse("g1", false);
  batch = store().BeginBatch();
  const std::optional<OutboxRow> row = batch->LockSetAside("g1");
  ASSERT_TRUE(row.has_value());
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(row->id, row->payload);
  ASSERT_TRUE(game.ok()) << game.status();
  game->game_id = "g1";
  const Settlement s =
      batch->Settle(*row, *game, PlanSettlement(*game, ExpectedHolds(*game)));
  EXPECT_EQ(s.outcome, "settled");
  batch->ResolveSetAside("g1", s);
  batch->Commit();
  EXPECT_EQ(BalanceOf("a").balance, 1140);  // 1000 - 100 + 240
  EXPECT_EQ(BalanceOf("a").held, 0);
  EXPECT_EQ(BalanceOf("d").balance, 900);
  EXPECT_EQ(store().ReadLag().open_set_aside, 0);
  EXPECT_TRUE(store().DueSetAside(absl::ZeroDuration(), 100).empty());
  EXPECT_FALSE(store().BeginBatch()->LockSetAside("g1").has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, RatingsStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::ratings
