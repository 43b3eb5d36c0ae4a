// The outbox consumer's storage (consumer.h), behind an interface so that the
// consumer can run without PostgreSQL (testing/memory_ratings_store.h): the
// consumer's lock and state, the pending outbox rows, the applied games, the
// player ratings and their history, and each game's settlement.
//
// A ConsumerBatch is one transaction: everything it writes becomes visible at
// Commit, and a batch dropped without Commit changed nothing. Its calls throw what
// the storage throws (libpqxx's exceptions on PostgreSQL); a batch that threw is
// dropped.
//
//   std::unique_ptr<ConsumerBatch> batch = store.BeginBatch();
//   ConsumerClaim claim;
//   if (batch->Claim(instance, claim)) { ... batch->Write(plan, settled);
//   batch->Commit(); }
#ifndef TRIX_SERVICES_RATINGS_STORE_RATINGS_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_RATINGS_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/ratings/consumer_plan.h"
#include "services/ratings/game_result.h"
#include "services/ratings/ledger.h"

namespace trix::ratings {

// The consumer's state as a batch claimed it (ratings.consumer_state).
struct ConsumerClaim {
  std::string previous_owner;  // the instance that claimed the batch before
  int64_t previous_batch = 0;  // and its number
  int64_t number = 0;          // this batch's number
  int64_t last_applied = 0;    // the highest outbox id applied before it (0: none)
};

class ConsumerBatch {
 public:
  virtual ~ConsumerBatch() = default;

  // Takes the consumer's lock for the batch and counts it, owned by `instance`;
  // false, with nothing changed, when another replica holds the lock.
  virtual bool Claim(const std::string& instance, ConsumerClaim& out) = 0;
  // Up to `limit` unconsumed outbox rows in id order; only those above
  // `last_applied` unless `include_late`.
  virtual std::vector<OutboxRow> ReadPending(bool include_late, int64_t last_applied,
                                             int limit) = 0;
  // The game ids of `rows` already recorded as applied.
  virtual std::set<std::string> AppliedAmong(const std::vector<OutboxRow>& rows) = 0;
  // The stored ratings of `players` (those never rated are missing).
  virtual std::map<PlayerKey, StoredRating> ReadRatings(
      const std::set<PlayerKey>& players) = 0;
  // Settles `game` as planned (Ledger::Settle) on its own: a settlement the
  // storage refuses changes nothing and is set aside to be tried again; it is
  // then returned as "set_aside" with the refusal as its note.
  virtual Settlement Settle(const OutboxRow& row, const FinishedGame& game,
                            const SettlementPlan& plan) = 0;
  // Writes the plan: the history rows, the changed ratings, each game as applied
  // with its settlement (settled[i] for plan.games[i]) and every row consumed.
  // False, with the batch to be dropped, when a rating the plan read as stored is
  // gone.
  virtual bool Write(const BatchPlan& plan, const std::vector<Settlement>& settled) = 0;

  // The outbox row of a game whose settlement is set aside and not resolved,
  // locked for this batch; nullopt when there is none or another replica holds it.
  virtual std::optional<OutboxRow> LockSetAside(const std::string& game_id) = 0;
  // Records the set-aside game as settled by `settlement` (its applied row too).
  virtual void ResolveSetAside(const std::string& game_id,
                               const Settlement& settlement) = 0;

  virtual void Commit() = 0;
};

// How far the consumer is behind (for its metrics).
struct ConsumerLag {
  double oldest_pending_seconds = 0;  // the oldest row above the last applied id
  int64_t pending = 0;                // outbox ids above the last applied one
  int64_t open_set_aside = 0;         // set-aside settlements not resolved
};

class RatingsStore {
 public:
  virtual ~RatingsStore() = default;
  virtual std::unique_ptr<ConsumerBatch> BeginBatch() = 0;
  // The set-aside settlements not resolved and last tried at least `after` ago,
  // oldest outbox id first, up to `limit`.
  virtual std::vector<std::string> DueSetAside(absl::Duration after, int limit) = 0;
  virtual ConsumerLag ReadLag() = 0;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_RATINGS_STORE_H_
