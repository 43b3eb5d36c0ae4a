// GameStore's private state, shared by the files that implement it: game_store.cc
// (games, the log, migrations) and game_store_leases.cc (leases and listings).
#ifndef TRIX_SERVICES_TABLE_STORE_GAME_STORE_IMPL_H_
#define TRIX_SERVICES_TABLE_STORE_GAME_STORE_IMPL_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "services/pg/connection_pool.h"
#include "services/table/store/game_store.h"
#include "services/table/store/log_writer.h"

namespace trix::table {

// A game waiting in CreateGame's queue, and its answer once written.
struct Creation {
  const table::NewGame* game = nullptr;
  absl::Status status;
  std::string existing_game_id;  // with ALREADY_EXISTS for a request id seen before
  bool done = false;
};

struct GameStore::Impl {
  explicit Impl(const StoreOptions& options)
      : options(options),
        pool(options.url, options.connections,
             absl::StrCat("mamlaka pool ", options.instance_id)),
        writer(options.url, options.instance_id, options.max_batch,
               options.max_queued_appends) {}

  const StoreOptions options;
  pg::ConnectionPool pool;
  LogWriter writer;

  // Renews this instance's lease (table_instances.lease_until, migrations/0034);
  // true when it was held throughout, so nobody can have claimed its games since
  // the last renewal (game_store_leases.cc).
  absl::StatusOr<bool> RenewLease(absl::Duration ttl);

  std::mutex mu;
  std::optional<std::vector<int64_t>> migrated;  // versions of the last Migrate()

  // CreateGame's batches: the callers queue their games; one of them at a time
  // writes everything queued in one statement, the others wait for its answer.
  // WriteCreations (game_store.cc) writes a batch and sets each one's answer.
  void WriteCreations(const std::vector<Creation*>& batch);
  absl::Mutex creations_mu;
  std::vector<Creation*> creations ABSL_GUARDED_BY(creations_mu);
  bool creating ABSL_GUARDED_BY(creations_mu) = false;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_GAME_STORE_IMPL_H_
