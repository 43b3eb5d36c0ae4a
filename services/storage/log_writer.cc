#include "services/storage/log_writer.h"

#include <pqxx/nontransaction>
#include <pqxx/result>
#include <pqxx/transaction>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/storage/connection_pool.h"
#include "services/storage/pg_array.h"
#include "services/storage/pg_status.h"

namespace trix::storage {
namespace {

struct Statement {
  const char* name;
  const char* sql;
};

// Prepared on the writer's connection; every batch-sized argument is a binary
// array (pg_array.h), so each statement is one round trip whatever the batch size.
// A join with unnest rather than `id = ANY($1)`, which tests every row against
// the whole array and costs a few ms for a full batch.
constexpr Statement kLockGames = {"log_lock_games", R"sql(
SELECT g.id, g.lease_owner = $2 AND g.lease_until > now(), g.finished IS NOT NULL,
       g.log_length
FROM unnest($1::text[]) AS u (id) JOIN games AS g ON g.id = u.id
ORDER BY g.id FOR NO KEY UPDATE OF g)sql"};

constexpr Statement kInsertEntries = {"log_insert_entries", R"sql(
INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
SELECT * FROM unnest($1::text[], $2::int8[], $3::int2[], $4::text[], $5::bytea[],
                     $6::bytea[], $7::timestamptz[]))sql"};

// One row per game: the deadline after its last request, its new log length, and
// its result when the game ended in this batch.
constexpr Statement kUpdateGames = {"log_update_games", R"sql(
UPDATE games AS g
SET deadline = u.deadline,
    log_length = u.log_length,
    finished = CASE WHEN u.result IS NULL THEN g.finished ELSE now() END,
    result = coalesce(u.result::jsonb, g.result)
FROM unnest($1::text[], $2::timestamptz[], $3::int8[], $4::text[])
     AS u (id, deadline, log_length, result)
WHERE g.id = u.id)sql"};

constexpr Statement kEndSeats = {"log_end_seats", R"sql(
UPDATE game_seats AS s SET total = u.total, place = u.place
FROM unnest($1::text[], $2::int2[], $3::int4[], $4::int4[])
     AS u (game_id, seat, total, place)
WHERE s.game_id = u.game_id AND s.seat = u.seat)sql"};

constexpr Statement kInsertOutbox = {"log_insert_outbox", R"sql(
INSERT INTO game_results (game_id, payload)
SELECT u.game_id, u.payload::jsonb
FROM unnest($1::text[], $2::text[]) AS u (game_id, payload))sql"};

constexpr Statement kProbe = {"log_probe",
                              "SELECT payload = $3 FROM game_log "
                              "WHERE game_id = $1 AND idx = $2"};

constexpr Statement kStatements[] = {kLockGames, kInsertEntries, kUpdateGames,
                                     kEndSeats,  kInsertOutbox,  kProbe};

// A game of the batch as the lock query found it, updated as requests are accepted.
struct GameState {
  bool found = false;
  bool ours = false;  // this instance holds an unexpired lease
  bool ended = false;
  int64_t length = 0;  // the next entry's index
};

// Whether `request` may be written to `game`; on success advances `game` past it.
absl::Status Check(const AppendRequest& request, GameState& game) {
  const std::string& id = request.game_id;
  if (id.empty()) return absl::InvalidArgumentError("an append needs a game id");
  if (!game.found) return absl::NotFoundError(absl::StrCat("game ", id, " not found"));
  if (!game.ours) {
    return absl::AbortedError(
        absl::StrCat("lease lost: game ", id,
                     " is not leased to this instance (or the lease lapsed)"));
  }
  if (game.ended)
    return absl::FailedPreconditionError(absl::StrCat("game ", id, " has ended"));
  for (size_t i = 0; i < request.entries.size(); ++i) {
    const LogEntry& entry = request.entries[i];
    const int64_t expected = game.length + static_cast<int64_t>(i);
    if (i == 0 && entry.index < expected) {
      return absl::AlreadyExistsError(absl::StrCat("entry ", entry.index, " of game ", id,
                                                   " is already written (the log has ",
                                                   game.length, " entries)"));
    }
    if (i == 0 && entry.index > expected) {
      return absl::FailedPreconditionError(
          absl::StrCat("entry ", entry.index, " of game ", id,
                       " would leave a gap: the log has ", game.length, " entries"));
    }
    if (entry.index != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the entries of an append to game ", id, " must have consecutive indexes"));
    }
    if (entry.seat < -1 || entry.seat > 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry ", entry.index, " of game ", id, " has seat ", entry.seat));
    }
  }
  game.length += static_cast<int64_t>(request.entries.size());
  if (request.end.has_value()) game.ended = true;
  return absl::OkStatus();
}

}  // namespace

LogWriter::LogWriter(std::string url, std::string instance_id, int max_batch)
    : url_(std::move(url)),
      instance_id_(std::move(instance_id)),
      max_batch_(max_batch),
      thread_([this] { Run(); }) {}

LogWriter::~LogWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void LogWriter::Append(AppendRequest request, std::function<void(absl::Status)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push_back(Pending{std::move(request), std::move(done), absl::OkStatus()});
      queued_.notify_one();
      return;
    }
  }
  done(absl::UnavailableError("the game store is closing"));
}

AppendStats LogWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void LogWriter::Run() {
  std::vector<Pending> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      queued_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, and everything queued is written
      while (!queue_.empty() && static_cast<int>(batch.size()) < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    Write(batch);
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.requests += static_cast<int64_t>(batch.size());
      for (const Pending& pending : batch) stats_.failed += pending.status.ok() ? 0 : 1;
    }
    for (Pending& pending : batch) pending.done(pending.status);
    batch.clear();
  }
}

void LogWriter::Write(std::vector<Pending>& batch) {
  std::vector<Pending*> group;
  group.reserve(batch.size());
  for (Pending& pending : batch) group.push_back(&pending);
  const absl::Status status = WriteGroup(group);
  if (status.ok()) return;
  // A lost database fails every request alike: writing them one by one would
  // only fail them one by one.
  if (group.size() == 1 || absl::IsUnavailable(status)) {
    for (Pending* pending : group) pending->status = status;
    return;
  }
  // Something in the batch is bad. Write each request alone, in queue order, so
  // only the bad one fails (and a later request of its game fails its gap check).
  absl::Status lost;
  for (Pending* pending : group) {
    if (!lost.ok()) {
      pending->status = lost;
      continue;
    }
    const absl::Status alone = WriteGroup({pending});
    if (!alone.ok()) pending->status = alone;
    if (absl::IsUnavailable(alone)) lost = alone;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.retried_alone += static_cast<int64_t>(group.size());
}

absl::Status LogWriter::WriteGroup(const std::vector<Pending*>& group) {
  Attempt attempt;
  bool unresolved = false;  // a commit broke and we could not see whether it landed
  // A second attempt only after a broken connection (now reopened) or a deadlock
  // or serialization victim: in both cases nothing of the first was written, or,
  // after an unresolved commit, the retry's index checks refuse a double write.
  for (int tries = 0; tries < 2; ++tries) {
    attempt = WriteOnce(group);
    if (attempt.in_doubt) {
      if (Landed(attempt)) {
        int64_t entries = 0;
        for (Pending* pending : attempt.accepted) {
          pending->status = absl::OkStatus();
          entries += static_cast<int64_t>(pending->request.entries.size());
        }
        std::lock_guard<std::mutex> lock(mu_);
        stats_.commits += 1;
        stats_.entries += entries;
        return absl::OkStatus();
      }
      unresolved = true;
    }
    if (!absl::IsUnavailable(attempt.status) && !absl::IsAborted(attempt.status)) break;
  }
  if (unresolved && absl::IsUnavailable(attempt.status)) {
    return absl::UnavailableError(absl::StrCat(
        attempt.status.message(), " (an earlier commit's outcome is unknown)"));
  }
  return attempt.status;
}

LogWriter::Attempt LogWriter::WriteOnce(const std::vector<Pending*>& group) {
  Attempt attempt;
  bool committing = false;
  try {
    pqxx::connection& connection = Connection();
    pqxx::work tx(connection);

    // 1. Lock the games and read their state.
    absl::flat_hash_map<std::string, GameState> games;
    PgArray ids(PgType::kText);
    for (const Pending* pending : group) {
      if (games.try_emplace(pending->request.game_id).second) {
        ids.AddString(pending->request.game_id);
      }
    }
    for (const pqxx::row& row :
         tx.exec_prepared(kLockGames.name, ids.Finish(), instance_id_)) {
      GameState& game = games[row[0].as<std::string>()];
      game.found = true;
      game.ours = row[1].as<bool>();
      game.ended = row[2].as<bool>();
      game.length = row[3].as<int64_t>();
    }

    // 2. Check each request in order; keep per game the last accepted request.
    struct GameUpdate {
      const AppendRequest* last = nullptr;
      const GameEnd* end = nullptr;
    };
    std::vector<std::pair<std::string, GameUpdate>> updates;  // first-seen order
    absl::flat_hash_map<std::string, size_t> update_of;
    for (Pending* pending : group) {
      const AppendRequest& request = pending->request;
      pending->status = Check(request, games[request.game_id]);
      if (!pending->status.ok()) continue;
      attempt.accepted.push_back(pending);
      auto [it, added] = update_of.try_emplace(request.game_id, updates.size());
      if (added) updates.emplace_back(request.game_id, GameUpdate{});
      GameUpdate& update = updates[it->second].second;
      update.last = &request;
      if (request.end.has_value()) update.end = &*request.end;
    }
    if (attempt.accepted.empty()) return attempt;  // nothing to write; rolls back

    // 3. Entries, games, and the ends.
    PgArray entry_games(PgType::kText), indexes(PgType::kInt8), seats(PgType::kInt2),
        request_ids(PgType::kText), payloads(PgType::kBytea), responses(PgType::kBytea),
        times(PgType::kTimestampTz);
    for (const Pending* pending : attempt.accepted) {
      for (const LogEntry& entry : pending->request.entries) {
        entry_games.AddString(pending->request.game_id);
        indexes.AddInt(entry.index);
        seats.AddInt(entry.seat);
        request_ids.AddString(entry.request_id);
        payloads.AddString(entry.payload);
        responses.AddString(entry.response);
        times.AddTime(entry.time);
      }
    }
    if (entry_games.size() > 0) {
      tx.exec_prepared0(kInsertEntries.name, entry_games.Finish(), indexes.Finish(),
                        seats.Finish(), request_ids.Finish(), payloads.Finish(),
                        responses.Finish(), times.Finish());
    }

    PgArray game_ids(PgType::kText), deadlines(PgType::kTimestampTz),
        lengths(PgType::kInt8), results(PgType::kText);
    PgArray end_games(PgType::kText), end_seats(PgType::kInt2), totals(PgType::kInt4),
        places(PgType::kInt4);
    PgArray outbox_games(PgType::kText), outbox_payloads(PgType::kText);
    for (const auto& [game_id, update] : updates) {
      game_ids.AddString(game_id);
      if (update.last->deadline.has_value()) {
        deadlines.AddTime(*update.last->deadline);
      } else {
        deadlines.AddNull();
      }
      lengths.AddInt(games[game_id].length);
      if (update.end == nullptr) {
        results.AddNull();
        continue;
      }
      results.AddString(update.end->result);
      for (int seat = 0; seat < 4; ++seat) {
        end_games.AddString(game_id);
        end_seats.AddInt(seat);
        totals.AddInt(update.end->totals[seat]);
        places.AddInt(update.end->places[seat]);
      }
      outbox_games.AddString(game_id);
      outbox_payloads.AddString(update.end->outbox_payload);
    }
    tx.exec_prepared0(kUpdateGames.name, game_ids.Finish(), deadlines.Finish(),
                      lengths.Finish(), results.Finish());
    if (outbox_games.size() > 0) {
      tx.exec_prepared0(kEndSeats.name, end_games.Finish(), end_seats.Finish(),
                        totals.Finish(), places.Finish());
      tx.exec_prepared0(kInsertOutbox.name, outbox_games.Finish(),
                        outbox_payloads.Finish());
    }

    // 4. Commit.
    committing = true;
    tx.commit();
    for (Pending* pending : attempt.accepted) pending->status = absl::OkStatus();
    std::lock_guard<std::mutex> lock(mu_);
    stats_.commits += 1;
    stats_.entries += entry_games.size();
  } catch (...) {
    attempt.status = StatusFromException("appending to the game log");
    attempt.in_doubt = committing && absl::IsUnavailable(attempt.status);
    if (IsConnectionLost(attempt.status) ||
        (connection_ != nullptr && !connection_->is_open())) {
      connection_.reset();
    }
  }
  return attempt;
}

bool LogWriter::Landed(const Attempt& attempt) {
  // The batch was one transaction: one of its entries present means all are.
  for (const Pending* pending : attempt.accepted) {
    if (pending->request.entries.empty()) continue;
    const LogEntry& entry = pending->request.entries.front();
    try {
      pqxx::nontransaction tx(Connection());
      const pqxx::result r =
          tx.exec_prepared(kProbe.name, pending->request.game_id, entry.index,
                           pqxx::binarystring(entry.payload));
      return !r.empty() && r[0][0].as<bool>();
    } catch (...) {
      if (IsConnectionLost(StatusFromException("probing"))) connection_.reset();
      return false;  // unknown: the retry then fails its index check, not silently
    }
  }
  return false;  // no entries to look for; the retry is harmless
}

pqxx::connection& LogWriter::Connection() {
  if (connection_ == nullptr) {
    std::unique_ptr<pqxx::connection> connection =
        Connect(url_, absl::StrCat("mamlaka writer ", instance_id_));
    for (const Statement& statement : kStatements) {
      connection->prepare(statement.name, statement.sql);
    }
    connection_ = std::move(connection);
  }
  return *connection_;
}

}  // namespace trix::storage
