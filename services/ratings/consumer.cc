#include "services/ratings/consumer.h"

#include <map>
#include <pqxx/notification>
#include <pqxx/pqxx>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/ratings/display.h"
#include "services/ratings/game_result.h"
#include "services/ratings/ledger.h"
#include "services/storage/connection_pool.h"
#include "services/storage/pg_array.h"
#include "services/storage/pg_status.h"

namespace trix::ratings {
namespace {

using storage::PgArray;
using storage::PgType;

// The advisory lock only one consumer holds at a time (two int4 keys: "trix", 9).
constexpr char kConsumerLock[] = "SELECT pg_try_advisory_xact_lock(1953655160, 9)";
constexpr char kChannel[] = "trix_game_results";

// LISTEN is a wake-up only: the payload is not read.
class WakeUp : public pqxx::notification_receiver {
 public:
  WakeUp(pqxx::connection_base& c) : pqxx::notification_receiver(c, kChannel) {}
  void operator()(const std::string&, int) override {}
};

std::string Float(double x) { return absl::StrFormat("%.17g", x); }

using PlayerKey = std::pair<std::string, std::string>;  // mode, player id


struct PlayerState {
  Skill skill;
  int games = 0;
  bool bot = false;
  bool changed = false;
  bool stored = false;  // a row exists (UPDATE, not INSERT)
};

struct OutboxRow {
  int64_t id = 0;
  std::string game_id;
  std::string payload;
};

// The rows of one batch as the database will receive them.
struct BatchWrites {
  PgArray h_player{PgType::kText}, h_mode{PgType::kText}, h_outbox{PgType::kInt8},
      h_game{PgType::kText}, h_finished{PgType::kTimestampTz}, h_seat{PgType::kInt2},
      h_place{PgType::kInt2}, h_mu_before{PgType::kText}, h_sigma_before{PgType::kText},
      h_mu_after{PgType::kText}, h_sigma_after{PgType::kText}, h_display_before{PgType::kInt4},
      h_display_after{PgType::kInt4};
  PgArray a_game{PgType::kText}, a_outbox{PgType::kInt8}, a_mode{PgType::kText},
      a_finished{PgType::kTimestampTz}, a_rated{PgType::kBool}, a_settlement{PgType::kText},
      a_note{PgType::kText};
  PgArray consumed{PgType::kInt8};
};

void AddApplied(BatchWrites& w, const OutboxRow& row, const std::string& mode,
                absl::Time finished, bool rated, const Settlement& settlement) {
  w.a_game.AddString(row.game_id);
  w.a_outbox.AddInt(row.id);
  w.a_mode.AddString(mode);
  w.a_finished.AddTime(finished);
  w.a_rated.AddBool(rated);
  w.a_settlement.AddString(settlement.outcome);
  w.a_note.AddString(settlement.note);
}

// The rating history row of one seat of a rated game.
void AddHistory(BatchWrites& w, const FinishedGame& g, const FinishedSeat& s,
                const Skill& before, const Skill& after) {
  w.h_player.AddString(s.player_id);
  w.h_mode.AddString(g.mode);
  w.h_outbox.AddInt(g.outbox_id);
  w.h_game.AddString(g.game_id);
  w.h_finished.AddTime(g.finished);
  w.h_seat.AddInt(s.seat);
  w.h_place.AddInt(s.place);
  w.h_mu_before.AddString(Float(before.mu));
  w.h_sigma_before.AddString(Float(before.sigma));
  w.h_mu_after.AddString(Float(after.mu));
  w.h_sigma_after.AddString(Float(after.sigma));
  w.h_display_before.AddInt(DisplayOf(before));
  w.h_display_after.AddInt(DisplayOf(after));
}

// Rates a finished game's seats (OpenSkill, `model` with the game's ranks) from
// and into `players`, and adds their history rows to `w`. False, with the reason
// logged, when the game is not rated: a player in two seats, or a rating that
// failed. Touches no database.
bool RateGame(const FinishedGame& g, const RateOptions& model,
              std::map<PlayerKey, PlayerState>& players, BatchWrites& w) {
  std::set<std::string> distinct;
  for (const FinishedSeat& s : g.seats) distinct.insert(s.player_id);
  if (distinct.size() != kSeats) {
    service::LogWarn("a player sat in two seats; the game is not rated", {{"game", g.game_id}});
    return false;
  }
  const RatedGame shape = RatedGameOf(g);
  std::vector<SkillTeam> teams;
  for (const std::vector<int>& team : shape.teams) {
    SkillTeam t;
    for (int seat : team) t.push_back(players[{g.mode, g.seats[seat].player_id}].skill);
    teams.push_back(t);
  }
  RateOptions o = model;
  o.ranks = shape.ranks;
  absl::StatusOr<std::vector<SkillTeam>> after = Rate(teams, o);
  if (!after.ok()) {
    service::LogError("game could not be rated",
                      {{"game", g.game_id}, {"error", after.status().ToString()}});
    return false;
  }
  for (size_t t = 0; t < shape.teams.size(); ++t) {
    for (size_t k = 0; k < shape.teams[t].size(); ++k) {
      const FinishedSeat& s = g.seats[shape.teams[t][k]];
      PlayerState& p = players[{g.mode, s.player_id}];
      const Skill before = p.skill;
      p.skill = (*after)[t][k];
      ++p.games;
      p.changed = true;
      AddHistory(w, g, s, before, p.skill);
    }
  }
  return true;
}

// What a batch did to money, counted for the metrics.
struct MoneyCounts {
  int settled = 0, unsettled = 0, voided = 0, unheld_stakes = 0, entries = 0, set_aside = 0;
};

// Settles a finished game, or releases a voided table's holds; logs what went amiss.
Settlement SettleGame(pqxx::work& tx, const FinishedGame& game, MoneyCounts& counts) {
  if (game.voided) {
    const Settlement s = Ledger::Void(tx, game);
    ++counts.voided;
    service::LogInfo("voided table applied; nothing rated or settled",
                     {{"game", game.game_id}, {"reason", game.void_reason},
                      {"holds_released", s.released_holds}});
    return s;
  }
  const Settlement s = Ledger::Settle(tx, game);
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
  return s;
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

// Settles `g` (SettleGame) behind a savepoint. A settlement the database refuses
// (a constraint, a failed statement) is rolled back alone and set aside in
// ratings.set_aside_settlements, to be tried again (RetrySetAside), so that one
// game never stops the rating and settlement of the games after it. Returns the
// settlement, "set_aside" with the database's word as its note when refused.
// Throws what is not the game's own: a lost connection, an unknown commit.
Settlement SettleOrSetAside(pqxx::work& tx, const OutboxRow& row, const FinishedGame& g,
                            MoneyCounts& counts) {
  if (!g.voided && !g.staked()) return {"unstaked", ""};
  std::string error;
  // Every statement of a settlement goes through exec_params: libpqxx 6's plain
  // exec closes the whole transaction on an error, savepoint or not.
  tx.exec0("SAVEPOINT settle");
  try {
    if (service::FailpointFires("consumer.settlement_fails")) {
      tx.exec_params("SELECT $1::int", "consumer.settlement_fails");  // refused by the database
    }
    MoneyCounts these;
    const Settlement s = SettleGame(tx, g, these);
    tx.exec0("RELEASE SAVEPOINT settle");
    counts.settled += these.settled;
    counts.unsettled += these.unsettled;
    counts.voided += these.voided;
    counts.unheld_stakes += these.unheld_stakes;
    counts.entries += these.entries;
    return s;
  } catch (const pqxx::sql_error& e) {
    error = std::string(absl::StripTrailingAsciiWhitespace(e.what()));
  }
  tx.exec0("ROLLBACK TO SAVEPOINT settle");
  service::LogError("settlement refused by the database; set aside, the games after it go on",
                    {{"game", g.game_id}, {"outbox_id", row.id}, {"error", error}});
  tx.exec_params0(
      "INSERT INTO ratings.set_aside_settlements (game_id, outbox_id, error) VALUES ($1, $2, $3) "
      "ON CONFLICT (game_id) DO UPDATE SET error = EXCLUDED.error, last_tried = now(), "
      "attempts = ratings.set_aside_settlements.attempts + 1, resolved = NULL",
      g.game_id, row.id, error);
  return {"set_aside", error};
}

// The changed ratings that already have a row (stored) or not yet, in one statement.
size_t Changed(const std::map<PlayerKey, PlayerState>& players, bool stored) {
  size_t n = 0;
  for (const auto& [key, p] : players) n += p.changed && p.stored == stored;
  return n;
}

// Returns the rows written.
size_t WritePlayers(pqxx::work& tx, const std::map<PlayerKey, PlayerState>& players,
                    bool stored) {
  PgArray mode(PgType::kText), player(PgType::kText), bot(PgType::kBool), mu(PgType::kText),
      sigma(PgType::kText), display(PgType::kInt4), count(PgType::kInt4);
  for (const auto& [key, p] : players) {
    if (!p.changed || p.stored != stored) continue;
    mode.AddString(key.first);
    player.AddString(key.second);
    bot.AddBool(p.bot);
    mu.AddString(Float(p.skill.mu));
    sigma.AddString(Float(p.skill.sigma));
    display.AddInt(DisplayOf(p.skill));
    count.AddInt(p.games);
  }
  if (mode.size() == 0) return 0;
  constexpr char kRows[] =
      "unnest($1::text[], $2::text[], $3::bool[], $4::text[]::float8[], $5::text[]::float8[], "
      "$6::int4[], $7::int4[]) AS n(mode, player_id, bot, mu, sigma, display, games)";
  const std::string sql =
      stored ? absl::StrCat("UPDATE ratings.player_ratings p SET mu = n.mu, sigma = n.sigma, "
                            "display = n.display, games = n.games FROM ",
                            kRows, " WHERE p.mode = n.mode AND p.player_id = n.player_id")
             : absl::StrCat("INSERT INTO ratings.player_ratings SELECT * FROM ", kRows);
  return tx.exec_params0(sql, mode.Finish(), player.Finish(), bot.Finish(), mu.Finish(),
                         sigma.Finish(), display.Finish(), count.Finish())
      .affected_rows();
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
  std::unique_ptr<pqxx::connection> connection;
  std::unique_ptr<WakeUp> wake_up;
  const long poll_us = static_cast<long>(absl::ToInt64Microseconds(options_.poll_interval));
  absl::Time last_sweep = absl::InfinitePast();
  absl::Time last_retry = absl::Now();
  bool idle = true;
  while (!stop_.load()) {
    try {
      if (connection == nullptr) {
        connection = storage::Connect(options_.database_url, options_.application_name);
        // LISTEN is a statement too: a server that froze since the connect would
        // hold it, and the consumer, forever.
        const storage::StallLimit limit(*connection, storage::kStallLimit);
        wake_up = std::make_unique<WakeUp>(*connection);
      }
      const bool sweep = idle || absl::Now() - last_sweep > absl::Seconds(5);
      if (sweep) last_sweep = absl::Now();
      BatchResult r;
      {
        // A frozen primary never answers: give up on it, reconnect, find the new one.
        const storage::StallLimit limit(*connection, storage::kStallLimit);
        r = ApplyBatch(*connection, sweep);
        if (absl::Now() - last_retry >= options_.set_aside_retry) {
          last_retry = absl::Now();
          RetrySetAside(*connection, options_.set_aside_retry);
        }
        UpdateLag(*connection);
      }
      if (r.more) {
        if (r.rows == 0) absl::SleepFor(absl::Milliseconds(10));  // waiting at a hole
        idle = false;
        continue;
      }
      idle = connection->await_notification(poll_us / 1000000, poll_us % 1000000) == 0;
    } catch (...) {
      const absl::Status s = storage::StatusFromException("applying the outbox");
      metrics_->batch_errors.Increment();
      service::LogWarn("outbox batch failed", {{"error", s.ToString()}});
      if (storage::IsConnectionLost(s) || connection == nullptr || !connection->is_open()) {
        wake_up.reset();
        connection.reset();
      }
      for (int i = 0; i < 10 && !stop_.load(); ++i) absl::SleepFor(absl::Milliseconds(50));
    }
  }
}

void OutboxConsumer::UpdateLag(pqxx::connection& c) {
  // Cheap on purpose (it runs after every batch): the oldest row above the last
  // applied id, and the distance between the newest outbox id and that id.
  pqxx::read_transaction tx(c);
  const pqxx::result r = tx.exec(
      "WITH a AS (SELECT COALESCE(max(outbox_id), 0) AS last FROM ratings.applied_games) "
      "SELECT COALESCE((SELECT extract(epoch FROM clock_timestamp() - created)::float8 "
      "  FROM game_results, a WHERE id > a.last AND consumed_at IS NULL ORDER BY id LIMIT 1), 0), "
      "GREATEST(COALESCE((SELECT max(id) FROM game_results), 0) - (SELECT last FROM a), 0), "
      "(SELECT count(*) FROM ratings.set_aside_settlements WHERE resolved IS NULL)");
  metrics_->lag_seconds.Set(std::max(0.0, r[0][0].as<double>()));
  metrics_->pending_games.Set(r[0][1].as<double>());
  metrics_->open_set_aside.Set(r[0][2].as<double>());
}

// One batch on its way through ApplyBatch: read, rated and settled, written.
struct OutboxConsumer::Batch {
  int64_t number = 0;  // ratings.consumer_state.batch once this batch is claimed
  int64_t last = 0;    // the highest outbox id applied before it
  std::vector<OutboxRow> rows;  // in id order, up to the first hole that may fill
  // The rows not applied before, each parsed or with why it is not a finished game.
  std::vector<std::pair<const OutboxRow*, absl::StatusOr<FinishedGame>>> games;
  std::map<PlayerKey, PlayerState> players;  // everyone in `games`, by mode
  BatchWrites writes;
  int rated = 0, quarantined = 0;
  MoneyCounts money;
};

BatchResult OutboxConsumer::ApplyBatch(pqxx::connection& c, bool include_late) {
  const absl::Time start = absl::Now();
  BatchResult out;
  pqxx::work tx(c);
  Batch batch;
  if (!Claim(tx, batch)) return out;  // another replica is at it
  ReadPending(tx, include_late, batch, out);
  if (batch.rows.empty()) return out;
  ReadGames(tx, batch);
  ApplyGames(tx, batch);
  Write(tx, batch);
  Commit(tx, batch);
  out.rows = static_cast<int>(batch.rows.size());
  out.applied = static_cast<int>(batch.games.size());
  games_applied_ += out.applied;
  Count(batch, absl::Now() - start);
  return out;
}

bool OutboxConsumer::Claim(pqxx::work& tx, Batch& batch) {
  if (!tx.exec1(kConsumerLock)[0].as<bool>()) return false;
  const pqxx::row state = tx.exec_params1(
      "UPDATE ratings.consumer_state c SET owner = $1, batch = c.batch + 1 "
      "FROM (SELECT owner, batch FROM ratings.consumer_state WHERE id = 1) p "
      "WHERE c.id = 1 RETURNING p.owner, p.batch, c.batch",
      instance_);
  if (state[0].as<std::string>() != instance_ || state[1].as<int64_t>() != my_batch_) {
    cache_.clear();  // someone else wrote since: reread everyone
  }
  batch.number = state[2].as<int64_t>();
  batch.last =
      tx.exec1("SELECT COALESCE(max(outbox_id), 0) FROM ratings.applied_games")[0].as<int64_t>();
  return true;
}

void OutboxConsumer::ReadPending(pqxx::work& tx, bool include_late, Batch& batch,
                                 BatchResult& out) {
  // Above the last applied id the primary key leads straight to the new rows; below
  // it the pending index is full of consumed rows until vacuum, so late rows and
  // replays are looked for only when asked.
  const pqxx::result pending =
      include_late ? tx.exec_params("SELECT id, game_id, payload::text FROM game_results "
                                    "WHERE consumed_at IS NULL ORDER BY id LIMIT $1",
                                    options_.batch_size)
                   : tx.exec_params("SELECT id, game_id, payload::text FROM game_results "
                                    "WHERE id > $2 AND consumed_at IS NULL ORDER BY id LIMIT $1",
                                    options_.batch_size, batch.last);
  if (static_cast<int>(pending.size()) == options_.batch_size) out.more = true;
  int64_t expected = batch.last + 1;
  const absl::Time now = absl::Now();
  for (const pqxx::row& r : pending) {
    OutboxRow row{r[0].as<int64_t>(), r[1].as<std::string>(), r[2].as<std::string>()};
    if (row.id > batch.last) {
      if (row.id > expected) {
        if (hole_ != expected) {
          hole_ = expected;
          hole_seen_ = now;
        }
        if (now - hole_seen_ < options_.order_grace) {
          out.more = true;
          break;
        }
        service::LogInfo("outbox ids skipped", {{"from", expected}, {"to", row.id - 1}});
      }
      expected = row.id + 1;
    }
    batch.rows.push_back(std::move(row));
  }
}

void OutboxConsumer::ReadGames(pqxx::work& tx, Batch& batch) {
  PgArray ids(PgType::kText);
  for (const OutboxRow& row : batch.rows) ids.AddString(row.game_id);
  std::set<std::string> already;
  for (const pqxx::row& r : tx.exec_params(
           "SELECT game_id FROM ratings.applied_games WHERE game_id = ANY($1::text[])",
           ids.Finish())) {
    already.insert(r[0].as<std::string>());
  }
  for (const OutboxRow& row : batch.rows) {
    batch.writes.consumed.AddInt(row.id);
    if (already.count(row.game_id)) continue;
    absl::StatusOr<FinishedGame> game = ParseFinishedGame(row.id, row.payload);
    if (game.ok()) game->game_id = row.game_id;  // the outbox row's key is the game's identity
    if (game.ok() && !game->voided) {
      for (const FinishedSeat& s : game->seats) {
        PlayerState& p = batch.players[{game->mode, s.player_id}];
        p.skill = {options_.model.mu, options_.model.sigma};
        p.bot = s.bot;
      }
    }
    batch.games.emplace_back(&row, std::move(game));
  }
  ReadRatings(tx, batch);
}

void OutboxConsumer::ReadRatings(pqxx::work& tx, Batch& batch) {
  std::map<PlayerKey, PlayerState>& players = batch.players;
  PgArray modes(PgType::kText), ids(PgType::kText);
  for (auto& [key, p] : players) {
    auto cached = cache_.find(key);
    if (cached != cache_.end()) {
      p.skill = cached->second.skill;
      p.games = cached->second.games;
      p.stored = true;
      continue;
    }
    modes.AddString(key.first);
    ids.AddString(key.second);
  }
  if (modes.size() == 0) return;
  for (const pqxx::row& r : tx.exec_params(
           "SELECT p.mode, p.player_id, p.mu, p.sigma, p.games FROM ratings.player_ratings p "
           "JOIN unnest($1::text[], $2::text[]) AS k(mode, player_id) "
           "ON p.mode = k.mode AND p.player_id = k.player_id",
           modes.Finish(), ids.Finish())) {
    PlayerState& p = players[{r[0].as<std::string>(), r[1].as<std::string>()}];
    p.skill = {r[2].as<double>(), r[3].as<double>()};
    p.games = r[4].as<int>();
    p.stored = true;
  }
}

void OutboxConsumer::ApplyGames(pqxx::work& tx, Batch& batch) {
  for (const auto& [row, game] : batch.games) {
    if (!game.ok()) {
      ++batch.quarantined;
      service::LogError("outbox row is not a finished game; recorded as unrated",
                        {{"game", row->game_id}, {"outbox_id", row->id},
                         {"error", game.status().ToString()}});
      AddApplied(batch.writes, *row, "", absl::UnixEpoch(), false,
                 {"unsettled", std::string(game.status().message())});
      continue;
    }
    const FinishedGame& g = *game;
    const bool rated = !g.voided && RateGame(g, options_.model, batch.players, batch.writes);
    if (!g.voided) ++(rated ? batch.rated : batch.quarantined);
    const Settlement s = SettleOrSetAside(tx, *row, g, batch.money);
    batch.money.set_aside += s.outcome == "set_aside";
    AddApplied(batch.writes, *row, g.mode, g.finished, rated, s);
  }
}

void OutboxConsumer::Write(pqxx::work& tx, Batch& batch) {
  BatchWrites& w = batch.writes;
  if (w.h_player.size() > 0) {
    tx.exec_params0(
        "INSERT INTO ratings.rating_history SELECT * FROM unnest($1::text[], $2::text[], "
        "$3::int8[], $4::text[], $5::timestamptz[], $6::int2[], $7::int2[], "
        "$8::text[]::float8[], $9::text[]::float8[], $10::text[]::float8[], "
        "$11::text[]::float8[], $12::int4[], $13::int4[])",
        w.h_player.Finish(), w.h_mode.Finish(), w.h_outbox.Finish(), w.h_game.Finish(),
        w.h_finished.Finish(), w.h_seat.Finish(), w.h_place.Finish(), w.h_mu_before.Finish(),
        w.h_sigma_before.Finish(), w.h_mu_after.Finish(), w.h_sigma_after.Finish(),
        w.h_display_before.Finish(), w.h_display_after.Finish());
    if (WritePlayers(tx, batch.players, /*stored=*/true) != Changed(batch.players, true)) {
      cache_.clear();
      my_batch_ = -1;
      throw std::runtime_error("a rating row vanished under the consumer; rereading");
    }
    WritePlayers(tx, batch.players, /*stored=*/false);
  }
  if (w.a_game.size() > 0) {
    tx.exec_params0(
        "INSERT INTO ratings.applied_games (game_id, outbox_id, mode, finished, rated, "
        "settlement, note) SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], "
        "$4::timestamptz[], $5::bool[], $6::text[], $7::text[])",
        w.a_game.Finish(), w.a_outbox.Finish(), w.a_mode.Finish(), w.a_finished.Finish(),
        w.a_rated.Finish(), w.a_settlement.Finish(), w.a_note.Finish());
  }
  tx.exec_params0("UPDATE game_results SET consumed_at = now() WHERE id = ANY($1::int8[])",
                  w.consumed.Finish());
}

void OutboxConsumer::Commit(pqxx::work& tx, const Batch& batch) {
  service::Failpoint("consumer.before_commit");  // read, not applied
  // The cache follows only what committed; an unknown outcome forgets it.
  try {
    tx.commit();
  } catch (...) {
    cache_.clear();
    my_batch_ = -1;
    throw;
  }
  my_batch_ = batch.number;
  service::Failpoint("consumer.after_commit");  // applied, unreported
  if (cache_.size() + batch.players.size() > options_.max_cached_ratings) cache_.clear();
  for (const auto& [key, p] : batch.players) {
    if (p.changed || p.stored) cache_[key] = {p.skill, p.games, p.bot};
  }
}

int OutboxConsumer::RetrySetAside(pqxx::connection& c, absl::Duration after) {
  std::vector<std::string> due;
  {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             "SELECT game_id FROM ratings.set_aside_settlements WHERE resolved IS NULL "
             "AND last_tried <= now() - $1 * interval '1 second' ORDER BY outbox_id LIMIT 100",
             absl::ToDoubleSeconds(after))) {
      due.push_back(r[0].as<std::string>());
    }
  }
  int settled = 0;
  for (const std::string& game_id : due) settled += RetryOne(c, game_id);
  return settled;
}

bool OutboxConsumer::RetryOne(pqxx::connection& c, const std::string& game_id) {
  pqxx::work tx(c);
  const pqxx::result r = tx.exec_params(
      "SELECT s.outbox_id, g.payload::text FROM ratings.set_aside_settlements s "
      "JOIN game_results g ON g.id = s.outbox_id WHERE s.game_id = $1 AND s.resolved IS NULL "
      "FOR UPDATE OF s SKIP LOCKED",
      game_id);
  if (r.empty()) return false;  // settled meanwhile, or being tried by another replica
  const OutboxRow row{r[0][0].as<int64_t>(), game_id, r[0][1].as<std::string>()};
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(row.id, row.payload);
  if (!game.ok()) return false;  // it was read once: the row cannot have changed
  game->game_id = game_id;
  MoneyCounts money;
  const Settlement s = SettleOrSetAside(tx, row, *game, money);
  if (s.outcome != "set_aside") {
    tx.exec_params0("UPDATE ratings.applied_games SET settlement = $2, note = $3 WHERE game_id = $1",
                    game_id, s.outcome, s.note);
    tx.exec_params0("UPDATE ratings.set_aside_settlements SET resolved = now(), "
                    "last_tried = now(), attempts = attempts + 1 WHERE game_id = $1",
                    game_id);
  }
  tx.commit();
  if (s.outcome == "set_aside") return false;
  service::LogInfo("set-aside settlement applied", {{"game", game_id}, {"settlement", s.outcome}});
  CountMoney(*metrics_, money);
  return true;
}

void OutboxConsumer::Count(const Batch& batch, absl::Duration took) {
  metrics_->games_rated.Increment(batch.rated);
  metrics_->games_quarantined.Increment(batch.quarantined);
  CountMoney(*metrics_, batch.money);
  metrics_->batch_seconds.Observe(absl::ToDoubleSeconds(took));
}

}  // namespace trix::ratings
