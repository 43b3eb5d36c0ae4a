#include "services/table/store/log_writer.h"

#include <algorithm>
#include <optional>
#include <pqxx/except>
#include <pqxx/nontransaction>
#include <pqxx/prepared_statement>
#include <pqxx/result>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/pg/connection_pool.h"
#include "services/pg/array.h"
#include "services/pg/status.h"
#include "services/table/store/log_entry_columns.h"

namespace trix::table {
namespace {

struct Statement {
  const char* name;
  const char* sql;
};

// Prepared on the writer's connection; every batch-sized argument is a binary
// array (pg_array.h). A batch is one call of log_append (migrations/
// 0006_log_append_function.sql), outside any explicit transaction: one round trip,
// committed by the statement's own transaction.
constexpr Statement kAppend = {"log_append", R"sql(
SELECT append_status, game_length
FROM log_append($1, $2::text[], $3::int8[], $4::int4[], $5::timestamptz[], $6::text[],
                $7::text[], $8::int4[], $9::int4[], $10::int4[], $11::int8[],
                $12::int2[], $13::text[], $14::bytea[], $15::bytea[],
                $16::timestamptz[]))sql"};

// A lone request that does not end its game, nearly every batch at the pace people
// play: log_append's checks and writes for that case (migrations/
// 0025_log_append_one_request.sql, its one-request path) as one prepared statement,
// which spares the call of the PL/pgSQL function (its argument arrays, settings and
// result set: about a fifth of the backend's CPU per append). The UPDATE's WHERE
// is the check: the game exists, p_owner holds its lease (and has not released
// it; migrations/0034 says why the instance's own lease is not read), it has not
// ended, and the first entry continues its log. No row back means refused, and
// log_append, which locks the game, then says why. The arrays are log_append's, of
// one request. EachAnswerIsTheSameAloneAndInABatch (log_writer_test.cc) holds the
// two to the same answers. The check is one CASE so that the game can only be found
// by its key: as plain conditions, lease_owner = $1 AND finished IS NULL match the
// partial index games_lease_owner, which a generic plan made before games had
// statistics (a new database) chose, reading all of the instance's running games
// at every append (58 buffers per append in a load run, against 12).
constexpr Statement kAppendOne = {"log_append_one", R"sql(
WITH game AS (
  UPDATE games AS g
  SET deadline = ($5::timestamptz[])[1], log_length = g.log_length + ($4::int4[])[1]
  WHERE g.id = ($2::text[])[1]
    AND CASE WHEN g.lease_owner = $1 AND g.lease_until > '-infinity' AND g.finished IS NULL
               AND (($4::int4[])[1] = 0 OR ($3::int8[])[1] = g.log_length)
             THEN true ELSE false END
  RETURNING g.log_length - ($4::int4[])[1] AS length),
logged AS (
  INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
  SELECT ($2::text[])[1], e.*
  FROM unnest($6::int8[], $7::int2[], $8::text[], $9::bytea[], $10::bytea[],
              $11::timestamptz[]) AS e
  WHERE EXISTS (SELECT FROM game))
SELECT 0::int2, length FROM game)sql"};

constexpr Statement kProbe = {"log_probe",
                              "SELECT payload = $3 FROM game_log "
                              "WHERE game_id = $1 AND idx = $2"};

constexpr Statement kStatements[] = {kAppend, kAppendOne, kProbe};

// The checks that need no database; the rest are log_append's.
absl::Status CheckShape(const table::AppendRequest& request) {
  const std::string& id = request.game_id;
  if (id.empty()) return absl::InvalidArgumentError("an append needs a game id");
  for (size_t i = 0; i < request.entries.size(); ++i) {
    const table::LogEntry& entry = request.entries[i];
    if (i > 0 && entry.index != request.entries[i - 1].index + 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the entries of an append to game ", id, " must have consecutive indexes"));
    }
    if (entry.seat < -1 || entry.seat > 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry ", entry.index, " of game ", id, " has seat ", entry.seat));
    }
  }
  return absl::OkStatus();
}

// log_append's verdict on `request` (its append_status and the game's length then).
absl::Status Outcome(const table::AppendRequest& request, int code, int64_t length) {
  const std::string& id = request.game_id;
  const int64_t first = request.entries.empty() ? length : request.entries[0].index;
  switch (code) {
    case 0:
      return absl::OkStatus();
    case 1:
      return absl::NotFoundError(absl::StrCat("game ", id, " not found"));
    case 2:  // ABORTED: the table's host stops hosting it (another instance holds it)
      return absl::AbortedError(
          absl::StrCat("lease lost: game ", id,
                       " is not leased to this instance (or it was released)"));
    case 3:
      return absl::FailedPreconditionError(absl::StrCat("game ", id, " has ended"));
    case 4:
      return absl::AlreadyExistsError(absl::StrCat("entry ", first, " of game ", id,
                                                   " is already written (the log has ",
                                                   length, " entries)"));
    case 5:  // DATA_LOSS: the caller holds entries as durable that the log lacks
      return absl::DataLossError(
          absl::StrCat("log is shorter than acknowledged: game ", id, " has ", length,
                       " entries, the append expected ", first));
    default:
      return absl::InternalError(
          absl::StrCat("log_append answered status ", code, " for game ", id));
  }
}

// A batch as log_append takes it: one array per column, the requests' (r_) and
// their entries' (e_), each entry naming its request by 1-based position.
class AppendColumns {
 public:
  void Add(const table::AppendRequest& request) {
    r_game.AddString(request.game_id);
    r_first.AddInt(request.entries.empty() ? 0 : request.entries[0].index);
    r_count.AddInt(static_cast<int64_t>(request.entries.size()));
    if (request.deadline.has_value()) {
      r_deadline.AddTime(*request.deadline);
    } else {
      r_deadline.AddNull();
    }
    AddEnd(request.end);
    for (const table::LogEntry& entry : request.entries) {
      e_request.AddInt(r_game.size());  // 1-based: this request's position
      e_columns.Add(entry);
    }
  }

  // For one request that does not end its game: its row (0, game_length) if it
  // was written, none if it was refused.
  pqxx::result CallOne(pqxx::nontransaction& tx, const std::string& instance_id) const {
    const LogEntryColumns::Arrays entry_arrays = e_columns.Finish();
    return tx.exec_prepared(kAppendOne.name, instance_id, r_game.Finish(),
                            r_first.Finish(), r_count.Finish(), r_deadline.Finish(),
                            pqxx::prepare::make_dynamic_params(entry_arrays));
  }

  // One row (append_status, game_length) per request, in the order added.
  pqxx::result Call(pqxx::nontransaction& tx, const std::string& instance_id) const {
    const LogEntryColumns::Arrays entry_arrays = e_columns.Finish();
    return tx.exec_prepared(
        kAppend.name, instance_id, r_game.Finish(), r_first.Finish(), r_count.Finish(),
        r_deadline.Finish(), r_result.Finish(), r_outbox.Finish(), r_totals.Finish(),
        r_places.Finish(), e_request.Finish(),
        pqxx::prepare::make_dynamic_params(entry_arrays));
  }

 private:
  // The game's end, or NULLs: result and outbox, and four totals and places.
  void AddEnd(const std::optional<table::GameEnd>& end) {
    if (end.has_value()) {
      r_result.AddString(end->result);
      r_outbox.AddString(end->outbox_payload);
    } else {
      r_result.AddNull();
      r_outbox.AddNull();
    }
    for (int seat = 0; seat < 4; ++seat) {
      if (end.has_value() && !end->voided) {
        r_totals.AddInt(end->totals[seat]);
        r_places.AddInt(end->places[seat]);
      } else {
        r_totals.AddNull();
        r_places.AddNull();
      }
    }
  }

  pg::PgArray r_game{pg::PgType::kText}, r_first{pg::PgType::kInt8}, r_count{pg::PgType::kInt4},
      r_deadline{pg::PgType::kTimestampTz}, r_result{pg::PgType::kText}, r_outbox{pg::PgType::kText},
      r_totals{pg::PgType::kInt4}, r_places{pg::PgType::kInt4};
  pg::PgArray e_request{pg::PgType::kInt4};
  LogEntryColumns e_columns;  // idx, seat, request_id, payload, response, time
};

}  // namespace

LogWriter::LogWriter(std::string url, std::string instance_id, int max_batch,
                     int max_queued)
    : instance_id_(std::move(instance_id)),
      max_batch_(max_batch),
      max_queued_(max_queued),
      connection_(std::move(url), absl::StrCat("mamlaka writer ", instance_id_),
                  [](pqxx::connection& c) {
                    for (const Statement& statement : kStatements) {
                      c.prepare(statement.name, statement.sql);
                    }
                  }),
      thread_([this] { Run(); }) {}

LogWriter::~LogWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void LogWriter::Append(table::AppendRequest request, std::function<void(absl::Status)> done) {
  bool closing = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing = stopping_;
    if (!closing && static_cast<int>(queue_.size()) < max_queued_) {
      queue_.push_back(Pending{std::move(request), std::move(done), absl::OkStatus()});
      queued_.notify_one();
      return;
    }
    if (!closing) ++stats_.refused_full;
  }
  if (closing) return done(absl::UnavailableError("the game store is closing"));
  done(absl::UnavailableError(absl::StrCat("the append queue is full (", max_queued_,
                                           " waiting); retry shortly")));
}

AppendStats LogWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AppendStats stats = stats_;
  stats.connects = connection_.attempts();
  return stats;
}

bool LogWriter::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !queue_.empty();
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
  std::vector<Pending*> todo = group;
  bool unresolved = false;  // a call broke and we could not see whether it landed
  // A second attempt only after a broken connection (now reopened) or a deadlock
  // or serialization victim: in both cases nothing of the first was written, or,
  // after an unresolved call, the retry's index checks refuse a double write.
  for (int tries = 0; tries < 2; ++tries) {
    attempt = WriteOnce(todo);
    if (attempt.in_doubt) {
      // The call was one transaction: what landed, landed whole, and the requests
      // of it that did not land were refused; the retry then tells them why.
      std::vector<Pending*> rest = Landed(attempt);
      if (rest.size() < attempt.accepted.size()) {
        if (rest.empty()) return absl::OkStatus();
        todo = std::move(rest);
        attempt = WriteOnce(todo);
        break;
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
  AppendColumns columns;
  for (Pending* pending : group) {
    pending->status = CheckShape(pending->request);
    if (!pending->status.ok()) continue;
    attempt.accepted.push_back(pending);
    columns.Add(pending->request);
  }
  if (attempt.accepted.empty()) return attempt;

  bool sent = false;
  try {
    pqxx::connection& connection = connection_.Get();
    pqxx::nontransaction tx(connection);
    // The statement commits itself: from here, a broken connection leaves its
    // outcome in doubt.
    sent = true;
    const bool lone = attempt.accepted.size() == 1 &&
                      !attempt.accepted.front()->request.end.has_value();
    const pg::StallLimit limit(connection, pg::kStallLimit);  // a frozen primary: in doubt
    pqxx::result rows;
    if (lone) rows = columns.CallOne(tx, instance_id_);
    // Not lone, or refused: log_append checks again under the game's lock and says why.
    if (rows.empty()) rows = columns.Call(tx, instance_id_);
    Answer(rows, attempt);
  } catch (...) {
    attempt.status = pg::StatusFromException("appending to the game log");
    attempt.in_doubt = sent && absl::IsUnavailable(attempt.status);
    connection_.DropIfLost(attempt.status);
  }
  return attempt;
}

void LogWriter::Answer(const pqxx::result& rows, Attempt& attempt) {
  if (rows.size() != attempt.accepted.size()) {
    throw std::runtime_error(absl::StrCat("log_append answered ", rows.size(),
                                          " rows for ", attempt.accepted.size(),
                                          " requests"));
  }
  std::vector<Pending*> written;
  int64_t entries = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    Pending* pending = attempt.accepted[i];
    pending->status =
        Outcome(pending->request, rows[i][0].as<int>(), rows[i][1].as<int64_t>());
    if (!pending->status.ok()) continue;
    written.push_back(pending);
    entries += static_cast<int64_t>(pending->request.entries.size());
  }
  attempt.accepted = std::move(written);
  std::lock_guard<std::mutex> lock(mu_);
  if (!attempt.accepted.empty()) stats_.commits += 1;
  stats_.entries += entries;
}

std::vector<LogWriter::Pending*> LogWriter::Landed(const Attempt& attempt) {
  std::vector<Pending*> rest;
  int64_t entries = 0;
  for (Pending* pending : attempt.accepted) {
    bool landed = false;
    if (!pending->request.entries.empty()) {
      const table::LogEntry& entry = pending->request.entries.front();
      try {
        pqxx::nontransaction tx(connection_.Get());
        const pg::StallLimit limit(tx.conn(), pg::kStallLimit);
        const pqxx::result r =
            tx.exec_prepared(kProbe.name, pending->request.game_id, entry.index,
                             pqxx::binarystring(entry.payload));
        landed = !r.empty() && r[0][0].as<bool>();
      } catch (...) {
        // Unknown: the retry then fails its index check, not silently.
        connection_.DropIfLost(pg::StatusFromException("probing"));
      }
    }
    if (landed) {
      pending->status = absl::OkStatus();
      entries += static_cast<int64_t>(pending->request.entries.size());
    } else {
      rest.push_back(pending);  // no entries to look for: the retry is harmless
    }
  }
  if (rest.size() < attempt.accepted.size()) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.commits += 1;
    stats_.entries += entries;
  }
  return rest;
}

}  // namespace trix::table
