#include "services/ratings/store/postgres_ratings_store.h"

#include <pqxx/pqxx>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/ratings/display.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/pg/array.h"

namespace trix::ratings {
namespace {

using pg::PgArray;
using pg::PgType;

// The advisory lock only one consumer holds at a time (two int4 keys: "trix", 9).
constexpr char kConsumerLock[] = "SELECT pg_try_advisory_xact_lock(1953655160, 9)";

std::string Float(double x) { return absl::StrFormat("%.17g", x); }

// The changed ratings that already have a row (stored) or not yet.
size_t Changed(const std::map<PlayerKey, PlayerState>& players, bool stored) {
  size_t n = 0;
  for (const auto& [key, p] : players) n += p.changed && p.stored == stored;
  return n;
}

// Writes the changed ratings that have a row (UPDATE) or not (INSERT), in one
// statement; returns the rows written.
size_t WritePlayers(pqxx::work& tx, const std::map<PlayerKey, PlayerState>& players,
                    bool stored) {
  PgArray mode(PgType::kText), player(PgType::kText), bot(PgType::kBool),
      mu(PgType::kText), sigma(PgType::kText), display(PgType::kInt4),
      count(PgType::kInt4);
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
      "unnest($1::text[], $2::text[], $3::bool[], $4::text[]::float8[], "
      "$5::text[]::float8[], "
      "$6::int4[], $7::int4[]) AS n(mode, player_id, bot, mu, sigma, display, games)";
  const std::string sql =
      stored ? absl::StrCat(
                   "UPDATE ratings.player_ratings p SET mu = n.mu, sigma = n.sigma, "
                   "display = n.display, games = n.games FROM ",
                   kRows, " WHERE p.mode = n.mode AND p.player_id = n.player_id")
             : absl::StrCat("INSERT INTO ratings.player_ratings SELECT * FROM ", kRows);
  return tx
      .exec_params0(sql, mode.Finish(), player.Finish(), bot.Finish(), mu.Finish(),
                    sigma.Finish(), display.Finish(), count.Finish())
      .affected_rows();
}

void WriteHistory(pqxx::work& tx, const std::vector<HistoryRow>& history) {
  PgArray player{PgType::kText}, mode{PgType::kText}, outbox{PgType::kInt8},
      game{PgType::kText}, finished{PgType::kTimestampTz}, seat{PgType::kInt2},
      place{PgType::kInt2}, mu_before{PgType::kText}, sigma_before{PgType::kText},
      mu_after{PgType::kText}, sigma_after{PgType::kText}, display_before{PgType::kInt4},
      display_after{PgType::kInt4};
  for (const HistoryRow& h : history) {
    player.AddString(h.player_id);
    mode.AddString(h.mode);
    outbox.AddInt(h.outbox_id);
    game.AddString(h.game_id);
    finished.AddTime(h.finished);
    seat.AddInt(h.seat);
    place.AddInt(h.place);
    mu_before.AddString(Float(h.before.mu));
    sigma_before.AddString(Float(h.before.sigma));
    mu_after.AddString(Float(h.after.mu));
    sigma_after.AddString(Float(h.after.sigma));
    display_before.AddInt(DisplayOf(h.before));
    display_after.AddInt(DisplayOf(h.after));
  }
  tx.exec_params0(
      "INSERT INTO ratings.rating_history SELECT * FROM unnest($1::text[], $2::text[], "
      "$3::int8[], $4::text[], $5::timestamptz[], $6::int2[], $7::int2[], "
      "$8::text[]::float8[], $9::text[]::float8[], $10::text[]::float8[], "
      "$11::text[]::float8[], $12::int4[], $13::int4[])",
      player.Finish(), mode.Finish(), outbox.Finish(), game.Finish(), finished.Finish(),
      seat.Finish(), place.Finish(), mu_before.Finish(), sigma_before.Finish(),
      mu_after.Finish(), sigma_after.Finish(), display_before.Finish(),
      display_after.Finish());
}

// Each game of the plan as applied, with its settlement; a quarantined row with
// no mode and the epoch as its finish.
void WriteApplied(pqxx::work& tx, const BatchPlan& plan,
                  const std::vector<Settlement>& settled) {
  PgArray game{PgType::kText}, outbox{PgType::kInt8}, mode{PgType::kText},
      finished{PgType::kTimestampTz}, rated{PgType::kBool}, settlement{PgType::kText},
      note{PgType::kText};
  for (size_t i = 0; i < plan.games.size(); ++i) {
    const GamePlan& g = plan.games[i];
    game.AddString(g.row.game_id);
    outbox.AddInt(g.row.id);
    mode.AddString(g.game.ok() ? g.game->mode : "");
    finished.AddTime(g.game.ok() ? g.game->finished : absl::UnixEpoch());
    rated.AddBool(g.rated);
    settlement.AddString(settled[i].outcome);
    note.AddString(settled[i].note);
  }
  tx.exec_params0(
      "INSERT INTO ratings.applied_games (game_id, outbox_id, mode, finished, rated, "
      "settlement, note) SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], "
      "$4::timestamptz[], $5::bool[], $6::text[], $7::text[])",
      game.Finish(), outbox.Finish(), mode.Finish(), finished.Finish(), rated.Finish(),
      settlement.Finish(), note.Finish());
}

class PostgresBatch : public ConsumerBatch {
 public:
  explicit PostgresBatch(pqxx::connection& c) : tx_(c) {}

  bool Claim(const std::string& instance, ConsumerClaim& out) override;
  std::vector<OutboxRow> ReadPending(bool include_late, int64_t last_applied,
                                     int limit) override;
  std::set<std::string> AppliedAmong(const std::vector<OutboxRow>& rows) override;
  std::map<PlayerKey, StoredRating> ReadRatings(
      const std::set<PlayerKey>& players) override;
  Settlement Settle(const OutboxRow& row, const FinishedGame& game,
                    const SettlementPlan& plan) override;
  bool Write(const BatchPlan& plan, const std::vector<Settlement>& settled) override;
  std::optional<OutboxRow> LockSetAside(const std::string& game_id) override;
  void ResolveSetAside(const std::string& game_id, const Settlement& settlement) override;
  void Commit() override { tx_.commit(); }

 private:
  Settlement SetAside(const OutboxRow& row, const FinishedGame& game,
                      const std::string& error);

  pqxx::work tx_;
};

bool PostgresBatch::Claim(const std::string& instance, ConsumerClaim& out) {
  if (!tx_.exec1(kConsumerLock)[0].as<bool>()) return false;
  const pqxx::row state = tx_.exec_params1(
      "UPDATE ratings.consumer_state c SET owner = $1, batch = c.batch + 1 "
      "FROM (SELECT owner, batch FROM ratings.consumer_state WHERE id = 1) p "
      "WHERE c.id = 1 RETURNING p.owner, p.batch, c.batch",
      instance);
  out.previous_owner = state[0].as<std::string>();
  out.previous_batch = state[1].as<int64_t>();
  out.number = state[2].as<int64_t>();
  out.last_applied =
      tx_.exec1("SELECT COALESCE(max(outbox_id), 0) FROM ratings.applied_games")[0]
          .as<int64_t>();
  return true;
}

std::vector<OutboxRow> PostgresBatch::ReadPending(bool include_late, int64_t last_applied,
                                                  int limit) {
  // Above the last applied id the primary key leads straight to the new rows; below
  // it the pending index is full of consumed rows until vacuum, so late rows and
  // replays are looked for only when asked.
  const pqxx::result pending =
      include_late ? tx_.exec_params(
                         "SELECT id, game_id, payload::text FROM game_results "
                         "WHERE consumed_at IS NULL ORDER BY id LIMIT $1",
                         limit)
                   : tx_.exec_params(
                         "SELECT id, game_id, payload::text FROM game_results "
                         "WHERE id > $2 AND consumed_at IS NULL ORDER BY id LIMIT $1",
                         limit, last_applied);
  std::vector<OutboxRow> rows;
  rows.reserve(pending.size());
  for (const pqxx::row& r : pending) {
    rows.push_back({r[0].as<int64_t>(), r[1].as<std::string>(), r[2].as<std::string>()});
  }
  return rows;
}

std::set<std::string> PostgresBatch::AppliedAmong(const std::vector<OutboxRow>& rows) {
  PgArray ids(PgType::kText);
  for (const OutboxRow& row : rows) ids.AddString(row.game_id);
  std::set<std::string> applied;
  for (const pqxx::row& r : tx_.exec_params(
           "SELECT game_id FROM ratings.applied_games WHERE game_id = ANY($1::text[])",
           ids.Finish())) {
    applied.insert(r[0].as<std::string>());
  }
  return applied;
}

std::map<PlayerKey, StoredRating> PostgresBatch::ReadRatings(
    const std::set<PlayerKey>& players) {
  std::map<PlayerKey, StoredRating> out;
  if (players.empty()) return out;
  PgArray modes(PgType::kText), ids(PgType::kText);
  for (const PlayerKey& key : players) {
    modes.AddString(key.first);
    ids.AddString(key.second);
  }
  for (const pqxx::row& r :
       tx_.exec_params("SELECT p.mode, p.player_id, p.mu, p.sigma, p.games FROM "
                       "ratings.player_ratings p "
                       "JOIN unnest($1::text[], $2::text[]) AS k(mode, player_id) "
                       "ON p.mode = k.mode AND p.player_id = k.player_id",
                       modes.Finish(), ids.Finish())) {
    out[{r[0].as<std::string>(), r[1].as<std::string>()}] = {
        {r[2].as<double>(), r[3].as<double>()}, r[4].as<int>()};
  }
  return out;
}

// A settlement the database refuses (a constraint, a failed statement) is rolled
// back alone and set aside in ratings.set_aside_settlements, to be tried again,
// so that one game never stops the games after it. What is not the game's own (a
// lost connection, an unknown commit) is thrown.
Settlement PostgresBatch::Settle(const OutboxRow& row, const FinishedGame& game,
                                 const SettlementPlan& plan) {
  std::string error;
  // Every statement of a settlement goes through exec_params: libpqxx 6's plain
  // exec closes the whole transaction on an error, savepoint or not.
  tx_.exec0("SAVEPOINT settle");
  try {
    if (service::FailpointFires("consumer.settlement_fails")) {
      tx_.exec_params("SELECT $1::int",
                      "consumer.settlement_fails");  // refused by the database
    }
    PostgresLedgerTransaction ledger(tx_);
    const Settlement s = Ledger::Settle(ledger, game, plan);
    tx_.exec0("RELEASE SAVEPOINT settle");
    return s;
  } catch (const pqxx::sql_error& e) {
    error = std::string(absl::StripTrailingAsciiWhitespace(e.what()));
  }
  tx_.exec0("ROLLBACK TO SAVEPOINT settle");
  return SetAside(row, game, error);
}

Settlement PostgresBatch::SetAside(const OutboxRow& row, const FinishedGame& game,
                                   const std::string& error) {
  service::LogError(
      "settlement refused by the database; set aside, the games after it go on",
      {{"game", game.game_id}, {"outbox_id", row.id}, {"error", error}});
  tx_.exec_params0(
      "INSERT INTO ratings.set_aside_settlements (game_id, outbox_id, error) VALUES ($1, "
      "$2, $3) "
      "ON CONFLICT (game_id) DO UPDATE SET error = EXCLUDED.error, last_tried = now(), "
      "attempts = ratings.set_aside_settlements.attempts + 1, resolved = NULL",
      game.game_id, row.id, error);
  return {"set_aside", error};
}

bool PostgresBatch::Write(const BatchPlan& plan, const std::vector<Settlement>& settled) {
  if (!plan.history.empty()) {
    WriteHistory(tx_, plan.history);
    if (WritePlayers(tx_, plan.players, /*stored=*/true) != Changed(plan.players, true)) {
      return false;
    }
    WritePlayers(tx_, plan.players, /*stored=*/false);
  }
  if (!plan.games.empty()) WriteApplied(tx_, plan, settled);
  PgArray consumed(PgType::kInt8);
  for (int64_t id : plan.consumed) consumed.AddInt(id);
  tx_.exec_params0(
      "UPDATE game_results SET consumed_at = now() WHERE id = ANY($1::int8[])",
      consumed.Finish());
  return true;
}

std::optional<OutboxRow> PostgresBatch::LockSetAside(const std::string& game_id) {
  const pqxx::result r = tx_.exec_params(
      "SELECT s.outbox_id, g.payload::text FROM ratings.set_aside_settlements s "
      "JOIN game_results g ON g.id = s.outbox_id WHERE s.game_id = $1 AND s.resolved IS "
      "NULL "
      "FOR UPDATE OF s SKIP LOCKED",
      game_id);
  if (r.empty()) return std::nullopt;
  return OutboxRow{r[0][0].as<int64_t>(), game_id, r[0][1].as<std::string>()};
}

void PostgresBatch::ResolveSetAside(const std::string& game_id,
                                    const Settlement& settlement) {
  tx_.exec_params0(
      "UPDATE ratings.applied_games SET settlement = $2, note = $3 WHERE game_id = $1",
      game_id, settlement.outcome, settlement.note);
  tx_.exec_params0(
      "UPDATE ratings.set_aside_settlements SET resolved = now(), "
      "last_tried = now(), attempts = attempts + 1 WHERE game_id = $1",
      game_id);
}

}  // namespace

std::unique_ptr<ConsumerBatch> PostgresRatingsStore::BeginBatch() {
  return std::make_unique<PostgresBatch>(connection_);
}

std::vector<std::string> PostgresRatingsStore::DueSetAside(absl::Duration after,
                                                           int limit) {
  std::vector<std::string> due;
  pqxx::read_transaction tx(connection_);
  for (const pqxx::row& r : tx.exec_params(
           "SELECT game_id FROM ratings.set_aside_settlements WHERE resolved IS NULL "
           "AND last_tried <= now() - $1 * interval '1 second' ORDER BY outbox_id LIMIT "
           "$2",
           absl::ToDoubleSeconds(after), limit)) {
    due.push_back(r[0].as<std::string>());
  }
  return due;
}

ConsumerLag PostgresRatingsStore::ReadLag() {
  // Cheap on purpose (it runs after every batch): the oldest row above the last
  // applied id, and the distance between the newest outbox id and that id.
  pqxx::read_transaction tx(connection_);
  const pqxx::result r = tx.exec(
      "WITH a AS (SELECT COALESCE(max(outbox_id), 0) AS last FROM ratings.applied_games) "
      "SELECT COALESCE((SELECT extract(epoch FROM clock_timestamp() - created)::float8 "
      "  FROM game_results, a WHERE id > a.last AND consumed_at IS NULL ORDER BY id "
      "LIMIT 1), 0), "
      "GREATEST(COALESCE((SELECT max(id) FROM game_results), 0) - (SELECT last FROM a), "
      "0), "
      "(SELECT count(*) FROM ratings.set_aside_settlements WHERE resolved IS NULL)");
  return {r[0][0].as<double>(), r[0][1].as<int64_t>(), r[0][2].as<int64_t>()};
}

}  // namespace trix::ratings
