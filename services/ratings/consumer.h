// The outbox consumer: turns every finished game in game_results into rating
// changes, history rows and ledger movements, exactly once, in the order games
// finished (outbox id order).
//
// A batch is one transaction of the store (store/ratings_store.h): it claims the
// consumer's lock (so of several replicas exactly one consumes at a time and order
// is kept), reads up to batch_size pending rows in id order and the ratings of
// their players, plans the batch without the database (consumer_plan.h: the games
// already recorded in ratings.applied_games, a replayed outbox or a batch whose
// commit outcome was lost, are skipped; the rest rated in id order), settles each
// staked or voided game as planned, writes everything with a handful of set-based
// statements, marks the rows consumed and commits. The
// ratings it wrote stay in memory while no other replica applies a batch
// (ratings.consumer_state), so a batch reads only players it has not seen. A kill -9
// anywhere rolls the whole batch back; the next run redoes it. applied_games' primary
// key on the game id is the final word on "already applied".
//
// Order: ids are handed out when a row is inserted, but transactions commit in
// their own order, so a row can become visible after a later-numbered one. The
// consumer applies rows only up to the first hole after the highest id it has
// applied, and waits up to order_grace for the hole to fill before treating it as a
// rolled-back id. A row that still commits later (beyond the grace) is applied when
// it appears: nothing is missed.
//
// One game never stops the others: each staked or voided game is settled behind a
// savepoint, and a settlement the database refuses (a constraint, a failed
// statement) is rolled back alone and set aside (ratings.set_aside_settlements,
// settlement "set_aside" in applied_games) while the game is rated and the batch
// goes on. The set-aside games are counted (trix_ratings_settlements_set_aside_total
// and the open ones in trix_ratings_set_aside_settlements), logged, and tried again
// every set_aside_retry until they settle; their holds stay attached meanwhile.
//
// Wake-up: LISTEN trix_game_results (a trigger on game_results notifies), with
// polling every poll_interval as the fallback.
//
//   OutboxConsumer consumer(options, &metrics);
//   consumer.Start();  ...  consumer.Stop();
#ifndef TRIX_SERVICES_RATINGS_CONSUMER_H_
#define TRIX_SERVICES_RATINGS_CONSUMER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <pqxx/connection>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/consumer_plan.h"
#include "services/ratings/openskill.h"
#include "services/ratings/ratings_metrics.h"
#include "services/ratings/store/ratings_store.h"

namespace trix::ratings {

struct ConsumerOptions {
  std::string database_url;
  std::string application_name = "ratings-service consumer";
  int batch_size = 2000;
  size_t max_cached_ratings = 4000000;  // about 100 bytes each
  absl::Duration poll_interval = absl::Milliseconds(500);
  absl::Duration order_grace = absl::Milliseconds(250);
  absl::Duration set_aside_retry = absl::Seconds(30);  // between tries of a set-aside settlement
  RateOptions model;  // OpenSkill defaults
};

struct BatchResult {
  int rows = 0;        // outbox rows marked consumed
  int applied = 0;     // games newly applied
  bool more = false;   // more rows may be waiting (a full batch, or a hole)
};

class OutboxConsumer {
 public:
  OutboxConsumer(ConsumerOptions options, RatingsMetrics* metrics);
  ~OutboxConsumer();

  // Runs the consumer on its own thread until Stop().
  void Start();
  void Stop();

  // One batch on `store`. include_late: also look below the highest applied id
  // (rows that committed after a hole was passed, or a replayed outbox); the
  // running consumer does so when idle and every few seconds. Throws what the
  // store throws; a batch that throws changed nothing.
  BatchResult ApplyBatch(RatingsStore& store, bool include_late = true);
  // The same on PostgreSQL through `connection` (libpqxx's exceptions).
  BatchResult ApplyBatch(pqxx::connection& connection, bool include_late = true);

  // Tries again the set-aside settlements last tried at least `after` ago, each in
  // a batch of its own; returns how many settled. Throws what the store throws.
  int RetrySetAside(RatingsStore& store, absl::Duration after);
  int RetrySetAside(pqxx::connection& connection, absl::Duration after);

  int64_t games_applied() const { return games_applied_.load(); }

 private:
  void Loop();
  void UpdateLag(RatingsStore& store);
  // ApplyBatch's steps, in order. Claim: false when another replica holds the
  // consumer lock; else `claim` says the batch's number and the last applied id.
  bool Claim(ConsumerBatch& batch, ConsumerClaim& claim);
  // The rows up to the first hole after `last_applied` that may still fill.
  std::vector<OutboxRow> ReadPending(ConsumerBatch& batch, bool include_late,
                                     int64_t last_applied, BatchResult& out);
  // From the cache, or else the store.
  std::map<PlayerKey, StoredRating> ReadRatings(ConsumerBatch& batch,
                                                const std::set<PlayerKey>& players);
  void Write(ConsumerBatch& batch, const BatchPlan& plan,
             const std::vector<Settlement>& settled);
  void Commit(ConsumerBatch& batch, int64_t number, const BatchPlan& plan);
  void Count(const BatchPlan& plan, absl::Duration took);
  bool RetryOne(RatingsStore& store, const std::string& game_id);

  const ConsumerOptions options_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::atomic<int64_t> games_applied_{0};
  // The ratings this consumer last wrote, valid while ratings.consumer_state says
  // the last batch was its own (see migrations/0011): the batch then reads only
  // the players it has not seen.
  struct Cached {
    Skill skill;
    int games = 0;
    bool bot = false;
  };
  const std::string instance_;
  int64_t my_batch_ = -1;
  std::map<std::pair<std::string, std::string>, Cached> cache_;
  // The hole the consumer is waiting at (its first missing id) and since when.
  int64_t hole_ = 0;
  absl::Time hole_seen_;

  RatingsMetrics* const metrics_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_CONSUMER_H_
