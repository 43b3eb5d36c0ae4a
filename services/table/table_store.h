// What the table service needs from durable storage, as an interface, so that the
// host can be tested without PostgreSQL (an in-memory store with fault injection,
// testing/memory_store.h) and run in production on PostgreSQL. The contract of
// every method is GameStore's (services/table/store/game_store.h): Append's callback
// reports OK only once the entries are durable, and a rejected append wrote nothing.
//
// PostgresTableStore joins the two PostgreSQL objects the host needs, the games
// (table::GameStore) and the instance registry (table::InstanceRegistry), into
// this one interface, and keeps the rules that span them: a previous run's registry
// rows are forgotten only once its tables are claimed, and an append's callback
// continues its table's work on the writer's thread only while no other append
// waits for that thread; and the history reads may go to a standby's GameStore.
// Every other method is the storage call of the same name.
//
//   std::unique_ptr<TableStore> store =
//       PostgresTableStore(game_store.get(), registry.get());
//   store->Append(std::move(request), [](absl::Status s) { ... });
#ifndef TRIX_SERVICES_TABLE_TABLE_STORE_H_
#define TRIX_SERVICES_TABLE_TABLE_STORE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/table/store/game_store.h"
#include "services/table/store/instance_registry.h"

namespace trix::table {

class TableStore {
 public:
  virtual ~TableStore() = default;

  virtual absl::Status CheckReady() = 0;
  // ALREADY_EXISTS (with the id in `existing_game_id`) for a request_id seen before.
  virtual absl::Status CreateGame(const NewGame& game,
                                  std::string* existing_game_id) = 0;
  // `done` may run on any thread, and must not block.
  virtual void Append(AppendRequest request,
                      std::function<void(absl::Status)> done) = 0;
  // Whether a `done` may continue its table's work on its own thread when few
  // other appends are in flight (the host counts them; TableHost::Commit): true
  // for a store whose `done` runs on a thread of its own that nothing else needs
  // in the meantime but the next appends.
  virtual bool MayContinueOnAppendThread() { return false; }
  virtual absl::StatusOr<StoredGame> LoadGame(const std::string& game_id) = 0;
  virtual absl::StatusOr<std::vector<absl::StatusOr<StoredGame>>> LoadGames(
      const std::vector<std::string>& game_ids) = 0;
  virtual absl::StatusOr<std::vector<std::string>> RenewHosted(
      absl::Duration ttl, const std::vector<std::string>& hosted) = 0;
  virtual absl::StatusOr<std::vector<std::string>> ClaimOrphans(absl::Duration ttl,
                                                                int limit) = 0;
  virtual absl::StatusOr<bool> ClaimTable(const std::string& game_id,
                                          absl::Duration ttl) = 0;
  // Also forgets the earlier runs' registry rows.
  virtual absl::StatusOr<std::vector<std::string>> ClaimPreviousRuns(
      const std::string& name, absl::Duration ttl) = 0;
  virtual absl::Status ReleaseLease(const std::string& game_id) = 0;
  // Those of `game_ids` still ours; the rest are left as they are.
  virtual absl::Status ReleaseLeases(const std::vector<std::string>& game_ids) = 0;
  // Each of `game_ids`' stored log length; unknown games are left out.
  virtual absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> LogLengths(
      const std::vector<std::string>& game_ids) = 0;
  virtual absl::Status MarkBroken(const std::string& game_id,
                                  const std::string& reason) = 0;
  virtual absl::Status VoidQuarantined(const AppendRequest& request) = 0;
  // The registry (storage/instance_registry.h).
  virtual absl::Status Heartbeat(const table::InstanceState& state) = 0;
  virtual absl::StatusOr<table::TableHome> Locate(const std::string& game_id) = 0;
  virtual absl::StatusOr<std::vector<GameListing>> ListActive(
      const std::string& player_id) = 0;
  // History reads (GetGameRecord, ListPlayerGames): PostgresTableStore may serve
  // them from a standby, which lags the primary by its replay lag; nothing that
  // writes or drives a live table reads through them. LoadRecord is LoadGame
  // unless the store says otherwise.
  virtual absl::StatusOr<StoredGame> LoadRecord(const std::string& game_id) {
    return LoadGame(game_id);
  }
  virtual absl::StatusOr<std::vector<GameListing>> ListFinished(
      const std::string& player_id, int limit, const std::string& before) = 0;
};

// The host's store over `store` and `registry`, which must outlive the result.
// The history reads (LoadRecord, ListFinished) go to `history` when given (a
// GameStore on a standby, --read_database_url), to `store` otherwise.
std::unique_ptr<TableStore> PostgresTableStore(table::GameStore* store,
                                               table::InstanceRegistry* registry,
                                               table::GameStore* history = nullptr);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_TABLE_STORE_H_
