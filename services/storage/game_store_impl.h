// GameStore's private state, shared by the files that implement it: game_store.cc
// (games, the log, migrations) and game_store_leases.cc (leases and listings).
#ifndef TRIX_SERVICES_STORAGE_GAME_STORE_IMPL_H_
#define TRIX_SERVICES_STORAGE_GAME_STORE_IMPL_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/storage/connection_pool.h"
#include "services/storage/game_store.h"
#include "services/storage/log_writer.h"

namespace trix::storage {

struct GameStore::Impl {
  explicit Impl(const StoreOptions& options)
      : options(options),
        pool(options.url, options.connections,
             absl::StrCat("mamlaka pool ", options.instance_id)),
        writer(options.url, options.instance_id, options.max_batch,
               options.max_queued_appends) {}

  const StoreOptions options;
  ConnectionPool pool;
  LogWriter writer;

  std::mutex mu;
  std::optional<std::vector<int64_t>> migrated;  // versions of the last Migrate()
};

}  // namespace trix::storage

#endif  // TRIX_SERVICES_STORAGE_GAME_STORE_IMPL_H_
