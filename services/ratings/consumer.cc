#include "services/ratings/consumer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <pqxx/notification>
#include <pqxx/pqxx>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/ratings/store/postgres_ratings_store.h"
#include "services/pg/connection_pool.h"
#include "services/pg/dedicated_connection.h"
#include "services/pg/status.h"

namespace trix::ratings {
namespace {

constexpr char kChannel[] = "trix_game_results";

// LISTEN is a wake-up only: the payload is not read.
class WakeUp : public pqxx::notification_receiver {
 public:
  WakeUp(pqxx::connection_base& c) : pqxx::notification_receiver(c, kChannel) {}
  void operator()(const std::string&, int) override {}
};

// What a batch did to money, counted for the metrics.
struct MoneyCounts {
  int settled = 0, unsettled = 0, voided = 0, unheld_stakes = 0, entries = 0, set_aside = 0;
};

// Counts a settlement the store wrote and logs what went amiss.
void CountSettlement(const FinishedGame& game, const Settlement& s, MoneyCounts& counts) {
  if (game.voided) {
    ++counts.voided;
    service::LogInfo("voided table applied; nothing rated or settled",
                     {{"game", game.game_id}, {"reason", game.void_reason},
                      {"holds_released", s.released_holds}});
    return;
  }
  counts.settled += s.outcome == "settled";
  counts.unheld_stakes += s.unheld_seats;
  counts.entries += s.moved ? 1 : 0;
  if (s.outcome == "unsettled") {
    ++counts.unsettled;
    service::LogError("staked game left unsettled; nothing moved",
                      {{"game", game.game_id}, {"reason", s.note}});
  }
  if (s.unheld_seats > 0) {
    service::LogError("staked seats without their hold settled nothing",
                      {{"game", game.game_id}, {"seats", s.note}});
  }
}

void CountMoney(RatingsMetrics& m, const MoneyCounts& money) {
  m.games_settled.Increment(money.settled);
  m.games_unsettled.Increment(money.unsettled);
  m.games_voided.Increment(money.voided);
  m.unheld_stakes.Increment(money.unheld_stakes);
  m.settlements_set_aside.Increment(money.set_aside);
  if (money.entries > 0) {
    m.ledger_entries.Add({{"kind", "stake"}}).Increment(money.entries);
    m.ledger_entries.Add({{"kind", "payout"}}).Increment(money.entries);
  }
}

// Settles a finished staked game, or releases a voided table's holds, as planned
// (ConsumerBatch::Settle: a settlement refused is set aside alone, so that one game
// never stops the rating and settlement of the games after it).
Settlement SettleGame(ConsumerBatch& batch, const OutboxRow& row,
                      const FinishedGame& game, const SettlementPlan& plan,
                      MoneyCounts& money) {
  if (!game.voided && !game.staked()) return {"unstaked", ""};
  const Settlement s = batch.Settle(row, game, plan);
  if (s.outcome == "set_aside") {
    ++money.set_aside;
  } else {
    CountSettlement(game, s, money);
  }
  return s;
}

// Logs why a game of the plan is recorded unrated.
void LogUnrated(const GamePlan& g) {
  if (!g.game.ok()) {
    service::LogError("outbox row is not a finished game; recorded as unrated",
                      {{"game", g.row.game_id},
                       {"outbox_id", g.row.id},
                       {"error", g.game.status().ToString()}});
  } else if (g.unrated_why == kPlayerInTwoSeats) {
    service::LogWarn("a player sat in two seats; the game is not rated",
                     {{"game", g.row.game_id}});
  } else if (!g.unrated_why.empty()) {
    service::LogError("game could not be rated",
                      {{"game", g.row.game_id}, {"error", g.unrated_why}});
  }
}

// Each game's settlement, in outbox order: a quarantined row's as planned.
std::vector<Settlement> SettleGames(ConsumerBatch& batch, const BatchPlan& plan,
                                    MoneyCounts& money) {
  std::vector<Settlement> settled;
  settled.reserve(plan.games.size());
  for (const GamePlan& g : plan.games) {
    LogUnrated(g);
    settled.push_back(g.game.ok() ? SettleGame(batch, g.row, *g.game, g.settlement, money)
                                  : g.settlement.settlement);
  }
  return settled;
}

}  // namespace

OutboxConsumer::OutboxConsumer(ConsumerOptions options, RatingsMetrics* metrics)
    : options_(std::move(options)), instance_(service::NewUuid()), metrics_(metrics) {}

OutboxConsumer::~OutboxConsumer() { Stop(); }

void OutboxConsumer::Start() {
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void OutboxConsumer::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void OutboxConsumer::Loop() {
  pg::DedicatedConnection connection(options_.database_url, options_.application_name);
  std::unique_ptr<WakeUp> wake_up;  // LISTENs on `connection`; dropped before it
  const long poll_us = static_cast<long>(absl::ToInt64Microseconds(options_.poll_interval));
  absl::Time last_sweep = absl::InfinitePast();
  absl::Time last_retry = absl::Now();
  bool idle = true;
  while (!stop_.load()) {
    try {
      if (wake_up == nullptr) {
        pqxx::connection& c = connection.Get();
        // LISTEN is a statement too: a server that froze since the connect would
        // hold it, and the consumer, forever.
        const pg::StallLimit limit(c, pg::kStallLimit);
        wake_up = std::make_unique<WakeUp>(c);
      }
      const bool sweep = idle || absl::Now() - last_sweep > absl::Seconds(5);
      if (sweep) last_sweep = absl::Now();
      BatchResult r;
      {
        // A frozen primary never answers: give up on it, reconnect, find the new one.
        const pg::StallLimit limit(connection.Get(), pg::kStallLimit);
        PostgresRatingsStore store(connection.Get());
        r = ApplyBatch(store, sweep);
        if (absl::Now() - last_retry >= options_.set_aside_retry) {
          last_retry = absl::Now();
          RetrySetAside(store, options_.set_aside_retry);
        }
        UpdateLag(store);
      }
      if (r.more) {
        if (r.rows == 0) absl::SleepFor(absl::Milliseconds(10));  // waiting at a hole
        idle = false;
        continue;
      }
      idle = connection.Get().await_notification(poll_us / 1000000, poll_us % 1000000) == 0;
    } catch (...) {
      const absl::Status s = pg::StatusFromException("applying the outbox");
      metrics_->batch_errors.Increment();
      service::LogWarn("outbox batch failed", {{"error", s.ToString()}});
      if (connection.Lost(s)) {
        wake_up.reset();
        connection.Drop();
      }
      for (int i = 0; i < 10 && !stop_.load(); ++i) absl::SleepFor(absl::Milliseconds(50));
    }
  }
}

void OutboxConsumer::UpdateLag(RatingsStore& store) {
  const ConsumerLag lag = store.ReadLag();
  metrics_->lag_seconds.Set(std::max(0.0, lag.oldest_pending_seconds));
  metrics_->pending_games.Set(static_cast<double>(lag.pending));
  metrics_->open_set_aside.Set(static_cast<double>(lag.open_set_aside));
}

BatchResult OutboxConsumer::ApplyBatch(pqxx::connection& c, bool include_late) {
  PostgresRatingsStore store(c);
  return ApplyBatch(store, include_late);
}

BatchResult OutboxConsumer::ApplyBatch(RatingsStore& store, bool include_late) {
  const absl::Time start = absl::Now();
  BatchResult out;
  const std::unique_ptr<ConsumerBatch> batch = store.BeginBatch();
  ConsumerClaim claim;
  if (!Claim(*batch, claim)) return out;  // another replica is at it
  const std::vector<OutboxRow> rows =
      ReadPending(*batch, include_late, claim.last_applied, out);
  if (rows.empty()) return out;
  std::vector<PendingGame> games = ParsePending(rows, batch->AppliedAmong(rows));
  const std::map<PlayerKey, StoredRating> ratings = ReadRatings(*batch, PlayersOf(games));
  const BatchPlan plan = PlanBatch(rows, std::move(games), ratings, options_.model);
  MoneyCounts money;
  const std::vector<Settlement> settled = SettleGames(*batch, plan, money);
  Write(*batch, plan, settled);
  Commit(*batch, claim.number, plan);
  out.rows = static_cast<int>(rows.size());
  out.applied = static_cast<int>(plan.games.size());
  games_applied_ += out.applied;
  CountMoney(*metrics_, money);
  Count(plan, absl::Now() - start);
  return out;
}

bool OutboxConsumer::Claim(ConsumerBatch& batch, ConsumerClaim& claim) {
  if (!batch.Claim(instance_, claim)) return false;
  if (claim.previous_owner != instance_ || claim.previous_batch != my_batch_) {
    cache_.clear();  // someone else wrote since: reread everyone
  }
  return true;
}

std::vector<OutboxRow> OutboxConsumer::ReadPending(ConsumerBatch& batch,
                                                   bool include_late,
                                                   int64_t last_applied,
                                                   BatchResult& out) {
  std::vector<OutboxRow> rows =
      batch.ReadPending(include_late, last_applied, options_.batch_size);
  if (static_cast<int>(rows.size()) == options_.batch_size) out.more = true;
  int64_t expected = last_applied + 1;
  const absl::Time now = absl::Now();
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t id = rows[i].id;
    if (id <= last_applied) continue;
    if (id > expected) {
      if (hole_ != expected) {
        hole_ = expected;
        hole_seen_ = now;
      }
      if (now - hole_seen_ < options_.order_grace) {
        out.more = true;
        rows.resize(i);
        break;
      }
      service::LogInfo("outbox ids skipped", {{"from", expected}, {"to", id - 1}});
    }
    expected = id + 1;
  }
  return rows;
}

std::map<PlayerKey, StoredRating> OutboxConsumer::ReadRatings(
    ConsumerBatch& batch, const std::set<PlayerKey>& players) {
  std::map<PlayerKey, StoredRating> ratings;
  std::set<PlayerKey> unknown;
  for (const PlayerKey& key : players) {
    const auto cached = cache_.find(key);
    if (cached == cache_.end()) {
      unknown.insert(key);
    } else {
      ratings[key] = {cached->second.skill, cached->second.games};
    }
  }
  if (!unknown.empty()) ratings.merge(batch.ReadRatings(unknown));
  return ratings;
}

void OutboxConsumer::Write(ConsumerBatch& batch, const BatchPlan& plan,
                           const std::vector<Settlement>& settled) {
  if (!batch.Write(plan, settled)) {
    cache_.clear();
    my_batch_ = -1;
    throw std::runtime_error("a rating row vanished under the consumer; rereading");
  }
}

void OutboxConsumer::Commit(ConsumerBatch& batch, int64_t number, const BatchPlan& plan) {
  service::Failpoint("consumer.before_commit");  // read, not applied
  // The cache follows only what committed; an unknown outcome forgets it.
  try {
    batch.Commit();
  } catch (...) {
    cache_.clear();
    my_batch_ = -1;
    throw;
  }
  my_batch_ = number;
  service::Failpoint("consumer.after_commit");  // applied, unreported
  if (cache_.size() + plan.players.size() > options_.max_cached_ratings) cache_.clear();
  for (const auto& [key, p] : plan.players) {
    if (p.changed || p.stored) cache_[key] = {p.skill, p.games, p.bot};
  }
}

int OutboxConsumer::RetrySetAside(pqxx::connection& c, absl::Duration after) {
  PostgresRatingsStore store(c);
  return RetrySetAside(store, after);
}

int OutboxConsumer::RetrySetAside(RatingsStore& store, absl::Duration after) {
  int settled = 0;
  for (const std::string& game_id : store.DueSetAside(after, 100)) {
    settled += RetryOne(store, game_id);
  }
  return settled;
}

bool OutboxConsumer::RetryOne(RatingsStore& store, const std::string& game_id) {
  const std::unique_ptr<ConsumerBatch> batch = store.BeginBatch();
  const std::optional<OutboxRow> row = batch->LockSetAside(game_id);
  if (!row) return false;  // settled meanwhile, or being tried by another replica
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(row->id, row->payload);
  if (!game.ok()) return false;  // it was read once: the row cannot have changed
  game->game_id = game_id;
  MoneyCounts money;
  const Settlement s =
      SettleGame(*batch, *row, *game, PlanSettlement(*game, ExpectedHolds(*game)), money);
  if (s.outcome != "set_aside") batch->ResolveSetAside(game_id, s);
  batch->Commit();
  if (s.outcome == "set_aside") return false;
  service::LogInfo("set-aside settlement applied", {{"game", game_id}, {"settlement", s.outcome}});
  CountMoney(*metrics_, money);
  return true;
}

void OutboxConsumer::Count(const BatchPlan& plan, absl::Duration took) {
  metrics_->games_rated.Increment(plan.rated);
  metrics_->games_quarantined.Increment(plan.quarantined);
  metrics_->batch_seconds.Observe(absl::ToDoubleSeconds(took));
}

}  // namespace trix::ratings
