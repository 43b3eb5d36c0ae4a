// RatingsStore in memory, for tests of the outbox consumer without PostgreSQL; the
// contract test (store/ratings_store_contract_test.cc) runs the same cases on it
// and on PostgresRatingsStore. The stores made with Replica() share its data, as
// replicas share a database: one batch at a time holds the consumer's lock. A
// batch works on a copy of the data that Commit puts in place.
//
// The money is an in-memory ledger (ledger()), shared by the replicas: a batch
// settles a game with Ledger::Settle in a ledger transaction that commits with
// the batch, each settlement a savepoint of it. A settlement the ledger refuses,
// or of a game named by RefuseSettlementsOf (as the database refuses one), is set
// aside, and the sweep leaves its table's holds alone until it is resolved.
//
//   MemoryRatingsStore store;
//   Ledger ledger(&store.ledger());  // credits, holds attached to the game's table
//   store.AddOutboxRow({1, "g1", payload});
//   consumer.ApplyBatch(store);
#ifndef TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATINGS_STORE_H_
#define TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATINGS_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "services/ratings/store/ratings_store.h"
#include "services/ratings/testing/memory_ledger_store.h"

namespace trix::ratings {

// A row of ratings.applied_games.
struct AppliedGame {
  int64_t outbox_id = 0;
  std::string mode;
  bool rated = false;
  std::string settlement, note;
};

// A row of ratings.set_aside_settlements.
struct SetAsideSettlement {
  int64_t outbox_id = 0;
  std::string error;
  int attempts = 1;
  bool resolved = false;
  absl::Time last_tried;
};

struct MemoryRatingsData {
  std::string owner;
  int64_t batch = 0;
  std::map<int64_t, OutboxRow> outbox;
  std::set<int64_t> consumed;
  std::map<std::string, AppliedGame> applied;  // by game id
  std::map<PlayerKey, PlayerState> ratings;    // stored: skill, games, bot
  std::vector<HistoryRow> history;
  std::map<std::string, SetAsideSettlement> set_aside;  // by game id
  std::set<std::string> refused;  // games whose settlement is refused
};

class MemoryRatingsStore : public RatingsStore {
 public:
  MemoryRatingsStore();

  std::unique_ptr<ConsumerBatch> BeginBatch() override;
  std::vector<std::string> DueSetAside(absl::Duration after, int limit) override;
  ConsumerLag ReadLag() override;

  // Another store on the same data (a second replica).
  std::unique_ptr<MemoryRatingsStore> Replica();

  // Set-up and inspection, outside any batch.
  void AddOutboxRow(const OutboxRow& row);
  void RefuseSettlementsOf(const std::string& game_id, bool refuse = true);
  void DropRating(const PlayerKey& player);
  MemoryRatingsData Data();
  // The ledger the batches settle in; a batch that settled holds it until it ends.
  MemoryLedgerStore& ledger() { return shared_->ledger; }

  // The shared data and the consumer's lock (for the batches).
  struct Shared {
    std::mutex mu;
    MemoryRatingsData data;
    bool locked = false;
    MemoryLedgerStore ledger;
  };

 private:
  explicit MemoryRatingsStore(std::shared_ptr<Shared> shared)
      : shared_(std::move(shared)) {}
  std::shared_ptr<Shared> shared_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATINGS_STORE_H_
