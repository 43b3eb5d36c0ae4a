// The outbox consumer on the in-memory store (testing/memory_ratings_store.h):
// its claim -> read pending -> plan -> write runs without a database, rates each
// game once in outbox order, waits at a hole, and sets a refused settlement aside
// until it is tried again, settling it by the ledger's rules.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/logging.h"
#include "services/ratings/consumer.h"
#include "services/ratings/ledger.h"
#include "services/ratings/testing/memory_ratings_store.h"
#include "services/ratings/testing/outbox_games.h"

namespace trix::ratings {
namespace {

class ConsumerMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    service::InitLogging("ratings-test", "off");
    metrics_ = std::make_unique<RatingsMetrics>(registry_);
    ConsumerOptions options;
    options.batch_size = 50;
    options.order_grace = absl::ZeroDuration();
    consumer_ = std::make_unique<OutboxConsumer>(options, metrics_.get());
  }
  void Add(int64_t id, const OutboxGame& g) {
    store_.AddOutboxRow({id, g.game_id, g.Payload()});
  }

  BalanceInfo Balance(const std::string& player) {
    absl::StatusOr<BalanceInfo> b = ledger_.GetBalance(player);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.value_or(BalanceInfo{});
  }

  MemoryRatingsStore store_;
  Ledger ledger_{&store_.ledger()};
  prometheus::Registry registry_;
  std::unique_ptr<RatingsMetrics> metrics_;
  std::unique_ptr<OutboxConsumer> consumer_;
};

TEST_F(ConsumerMemoryTest, RatesEachGameOnceInOutboxOrder) {
  Add(1, OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {2, 1, 4, 3}));
  Add(2, OutboxGame::Partner("g2", {"a", "b", "c", "d"}, 0));
  const BatchResult r = consumer_->ApplyBatch(store_);
  EXPECT_EQ(r.rows, 2);
  EXPECT_EQ(r.applied, 2);
  const MemoryRatingsData data = store_.Data();
  EXPECT_NEAR(data.ratings.at({"complex-solo", "a"}).skill.mu, 26.55291815138952, 1e-9);
  EXPECT_EQ(data.ratings.at({"complex-partner", "a"}).games, 1);
  EXPECT_EQ(data.history.size(), 8u);
  EXPECT_EQ(data.consumed.size(), 2u);
  EXPECT_EQ(metrics_->games_rated.Value(), 2);
  EXPECT_EQ(consumer_->ApplyBatch(store_).rows, 0);  // nothing pending

  // A replayed row is consumed but not applied again.
  store_.AddOutboxRow(
      {3, "g1", OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {2, 1, 4, 3}).Payload()});
  const BatchResult replay = consumer_->ApplyBatch(store_);
  EXPECT_EQ(replay.rows, 1);
  EXPECT_EQ(replay.applied, 0);
  EXPECT_EQ(store_.Data().history.size(), 8u);
}

TEST_F(ConsumerMemoryTest, WaitsAtAHoleWithinTheGrace) {
  ConsumerOptions options;
  options.order_grace = absl::Hours(1);
  OutboxConsumer patient(options, metrics_.get());
  Add(1, OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4}));
  Add(3, OutboxGame::Solo("g3", {"a", "b", "c", "d"}, {1, 2, 3, 4}));
  const BatchResult r = patient.ApplyBatch(store_);
  EXPECT_EQ(r.applied, 1);
  EXPECT_TRUE(r.more);
  Add(2, OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4}));
  EXPECT_EQ(patient.ApplyBatch(store_).applied, 2);
}

// The settlement goes through the ledger's rules: the stakes stay held while it
// is set aside, past their TTL too, and the payouts are paid once it settles.
TEST_F(ConsumerMemoryTest, ARefusedSettlementIsSetAsideAndTriedAgain) {
  const OutboxGame g = OutboxGame::StakedSolo("g1");
  ASSERT_TRUE(HoldStakes(ledger_, g).ok());
  Add(1, g);
  store_.RefuseSettlementsOf("g1");
  EXPECT_EQ(consumer_->ApplyBatch(store_).applied, 1);
  EXPECT_EQ(store_.Data().applied.at("g1").settlement, "set_aside");
  EXPECT_TRUE(store_.Data().applied.at("g1").rated);
  EXPECT_EQ(metrics_->settlements_set_aside.Value(), 1);
  EXPECT_EQ(Balance("a").balance, 1000);
  EXPECT_EQ(Balance("a").held, 100);  // its hold is still attached
  // Past their TTL, the holds of a set-aside table wait for it.
  for (const auto& [id, hold] : store_.ledger().Data().holds) {
    store_.ledger().Age(id, absl::Hours(2));
  }
  Ledger swept(&store_.ledger(), {.attached_ttl = absl::Hours(1)});
  EXPECT_EQ(swept.ReleaseExpiredHolds(10).value_or(-1), 0);
  EXPECT_EQ(consumer_->RetrySetAside(store_, absl::ZeroDuration()), 0);  // still refused
  EXPECT_EQ(store_.Data().set_aside.at("g1").attempts, 2);
  store_.RefuseSettlementsOf("g1", false);
  EXPECT_EQ(consumer_->RetrySetAside(store_, absl::ZeroDuration()), 1);
  EXPECT_EQ(store_.Data().applied.at("g1").settlement, "settled");
  EXPECT_EQ(Balance("a").balance, 1140);
  EXPECT_EQ(Balance("a").held, 0);
  EXPECT_EQ(Balance("d").balance, 900);
  EXPECT_EQ(metrics_->games_settled.Value(), 1);
}

}  // namespace
}  // namespace trix::ratings
