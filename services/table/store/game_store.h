// Durable storage of games in PostgreSQL: each game's configuration and seats, its
// append-only action log, the lease that says which table-service instance owns
// it, its decision deadline, and, once it ends, its result row and an outbox
// record for the ratings service.
//
// The table service appends every accepted action here before it acknowledges or
// broadcasts it. Appends from all games are group-committed: one writer takes
// every append waiting at that moment and commits them in one transaction, so many
// tables share one flush; if that batch fails, each append is retried in its own
// transaction, so one game's bad write never fails another's. An append that the
// callback reports OK is durable.
//
// The payloads are opaque bytes: the table service owns their format.
//
//   auto store = GameStore::Open({.url = url, .instance_id = "table-1"});
//   (*store)->Migrate();
//   (*store)->CreateGame(game);
//   (*store)->Append({game_id, {entry}}, [](absl::Status s) { ... });
//
// Errors: absl::Status; libpqxx exceptions never leave this layer. A database that
// cannot be reached is UNAVAILABLE; a unique-key clash (a duplicate request id) is
// ALREADY_EXISTS; an unknown game NOT_FOUND.
#ifndef TRIX_SERVICES_TABLE_STORE_GAME_STORE_H_
#define TRIX_SERVICES_TABLE_STORE_GAME_STORE_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/table/records.h"

namespace trix::service {
class StopSignals;
}

namespace trix::table {

struct StoreOptions {
  std::string url;              // postgresql://user@host:port/db
  std::string instance_id;      // this process, for leases
  int connections = 4;          // pool size (the group-commit writer has its own)
  int max_batch = 512;          // appends per group commit at most
  // Appends waiting for the writer at most; one more is answered UNAVAILABLE at
  // once. A table has one append in flight, so this only bites past that many
  // tables or when a caller misbehaves.
  int max_queued_appends = 50000;
  absl::Duration lease_ttl = absl::Seconds(15);  // the lease CreateGame takes
};

// Counters of the group-commit writer, for metrics and tests.
struct AppendStats {
  int64_t requests = 0;       // appends answered, OK or not
  int64_t failed = 0;         // of which answered with an error
  int64_t entries = 0;        // log entries written
  int64_t commits = 0;        // transactions committed that wrote appends
  int64_t retried_alone = 0;  // appends retried in their own transaction
  int64_t refused_full = 0;   // appends refused because the queue was full
  int64_t connects = 0;       // connection attempts of the writer (backed off)
};

class GameStore {
 public:
  // Checks the options (INVALID_ARGUMENT) but does not connect: connections open on
  // first use, so a service can start before its database and report readiness
  // through CheckReady(). The destructor writes every queued append first.
  static absl::StatusOr<std::unique_ptr<GameStore>> Open(const StoreOptions& options);
  ~GameStore();

  // Applies the numbered SQL files of migrations/ not yet recorded, in order, under
  // an advisory lock (safe when several instances start at once): pg::Migrate,
  // once, or pg::MigrateWithRetry, as the service starts.
  absl::Status Migrate(const std::string& migrations_dir);
  absl::Status MigrateWithRetry(const std::string& migrations_dir,
                                const service::StopSignals& signals);
  // OK when the database answers and every migration is applied.
  absl::Status CheckReady();

  // Creates a game, with its log's first entries if it has any, and takes its lease
  // for this instance. A request_id seen before returns ALREADY_EXISTS with the
  // existing game id in `existing_game_id`. Creations that arrive together share
  // one statement and one commit.
  absl::Status CreateGame(const table::NewGame& game, std::string* existing_game_id = nullptr);

  // Queues entries for the next group commit; `done` runs on the writer thread once
  // they are durable (OK) or rejected (nothing of this request was written).
  //
  // Rejections: NOT_FOUND (no such game), ABORTED with "lease lost" (the game is
  // not this instance's, or it released it: the table now belongs elsewhere; its
  // own status, so the caller stops hosting it), FAILED_PRECONDITION (the game has ended),
  // DATA_LOSS with "log is shorter than acknowledged" (the first index is past the
  // log's end: entries the caller was told were durable are gone, as after a
  // failover to a replica that had not received them; the caller rebuilds the game
  // from LoadGame()), ALREADY_EXISTS (the first index, or a seat's request id,
  // is already in the log), INVALID_ARGUMENT (indexes not consecutive, a seat
  // outside -1..3, a result or outbox payload that is not JSON), UNAVAILABLE (no
  // database; the writer reconnects by itself). One exception to "nothing was
  // written": if the connection broke during COMMIT and the writer could not look
  // afterwards, the answer is UNAVAILABLE with "outcome is unknown" in the message;
  // LoadGame() tells. Appends to one game are written in the order they were
  // queued. `done` must not throw, and should not block: every game waits on it.
  void Append(table::AppendRequest request, std::function<void(absl::Status)> done);
  absl::Status AppendSync(table::AppendRequest request);
  AppendStats append_stats() const;
  // True when appends are queued for the next group commit. A `done` callback
  // (which runs on the writer's thread) may do its follow-up work right there when
  // this is false, and should hand it to another thread when it is true, so that
  // the next batch does not wait.
  bool appends_queued() const;

  absl::StatusOr<table::StoredGame> LoadGame(const std::string& game_id);
  // The games of `game_ids` (distinct), each in its place: read in one snapshot with
  // one statement for the games, one for their seats and one for their logs, so
  // that an instance adopting a dead one's tables reads them a batch at a time.
  // A game may be NOT_FOUND or DATA_LOSS on its own; the whole call fails only
  // when the database does (UNAVAILABLE, ...).
  absl::StatusOr<std::vector<absl::StatusOr<table::StoredGame>>> LoadGames(
      const std::vector<std::string>& game_ids);

  // Leases (migrations/0034): a game belongs to its lease owner while the game's
  // own lease (taken by CreateGame and the claims, never renewed) or the owner's
  // instance lease (table_instances.lease_until) runs, unless it was released;
  // only the owner may append to it. RenewLeases renews this instance's lease, one
  // row whatever the number of its games; it keeps every game the instance owns,
  // hosted or not, so a game it stops hosting must be released (ReleaseLease).
  // ClaimOrphans takes up to `limit` unfinished games whose lease lapsed (a dead
  // instance's, or released) and returns them.
  absl::Status RenewLeases(absl::Duration ttl);
  absl::StatusOr<std::vector<std::string>> ClaimOrphans(absl::Duration ttl, int limit);
  // RenewLeases, then the ids of `hosted` (the tables this instance hosts) still
  // this instance's: all of them when its lease was held throughout; after a lapse
  // (a pause, a database away), those nobody claimed meanwhile (nobody else can
  // have written to them), read a transaction per 100 games. A hosted id missing
  // from the answer is lost (or finished): stop serving it.
  absl::StatusOr<std::vector<std::string>> RenewHosted(
      absl::Duration ttl, const std::vector<std::string>& hosted);
  // Claims one game whose lease lapsed (or that is already ours): true when it is
  // now ours, false when it is finished, quarantined, or another instance holds it.
  absl::StatusOr<bool> ClaimTable(const std::string& game_id, absl::Duration ttl);
  // Claims the games that earlier runs of instance `name` hold (their owners are
  // "<name>#..."): a restarted instance takes its own tables back at once.
  absl::StatusOr<std::vector<std::string>> ClaimPreviousRuns(const std::string& name,
                                                             absl::Duration ttl);
  // Quarantines a game: games.broken = reason; no instance claims it until an
  // operator clears it (UPDATE games SET broken = NULL WHERE id = ...).
  absl::Status MarkBroken(const std::string& game_id, const std::string& reason);
  // Ends a quarantined game voided (VoidTable of a table no instance may host):
  // `request` holds the one void entry, at the log's end, and the end (its outbox
  // row); written together. FAILED_PRECONDITION when the game is not quarantined,
  // has ended, or its log is not as long as the entry's index says.
  absl::Status VoidQuarantined(const table::AppendRequest& request);
  // Makes a game this instance holds claimable at once (graceful shutdown);
  // FAILED_PRECONDITION when another instance holds it, NOT_FOUND when unknown.
  absl::Status ReleaseLease(const std::string& game_id);
  // Releases the leases of those of `game_ids` that this instance holds and that
  // are running, a transaction per 100 (a draining instance's whole fleet, or the
  // finished tables leaving its memory); the others are left.
  absl::Status ReleaseLeases(const std::vector<std::string>& game_ids);

  // Each of `game_ids`' stored log length (unknown games left out): what a host
  // compares with what it acknowledged after a failover of the database.
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> LogLengths(
      const std::vector<std::string>& game_ids);

  // Unfinished games the player sits in (once per seat), newest first.
  absl::StatusOr<std::vector<table::GameListing>> ListActive(const std::string& player_id);
  // Finished games, newest first; `before` is the page cursor from the last page
  // (table::GameListing::cursor of its last listing), "" for the first. A page holds
  // min(limit, 500) listings; a shorter page is the last.
  absl::StatusOr<std::vector<table::GameListing>> ListFinished(const std::string& player_id,
                                                        int limit,
                                                        const std::string& before);

 private:
  struct Impl;
  explicit GameStore(std::unique_ptr<Impl> impl);
  // Records the versions of `migrations_dir` before applying them: after a failed
  // run, CheckReady() must say so.
  void ExpectMigrations(const std::string& migrations_dir);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_GAME_STORE_H_
