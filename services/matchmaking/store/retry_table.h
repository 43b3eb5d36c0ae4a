// A table of chores that are retried until done, by any replica (the pending hold
// releases and table voids of migration 0030): rows with `due`, `tries` and
// `done` columns. A replica leases the due rows (their `due` moves a lease ahead,
// so that a replica that dies mid-chore leaves them to the others after the
// lease), does each, and marks it done or due again after a backoff.
//
// It is the PostgreSQL side of the stores of such chores, and only they use it:
// PostgresHoldReleaseStore (store/hold_release_store.h) and
// PostgresTableVoidStore (store/table_void_store.h). Their in-memory fakes keep
// the same contract (RetryBackoff, Backlog).
//
//   RetryTable voids(&db, "mm_table_voids", "request_id");
//   for (const pqxx::row& r : *voids.Lease("table_id, reason", 50)) ...
//   voids.Done(key);  or  voids.Later(key, tries);
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_RETRY_TABLE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_RETRY_TABLE_H_

#include <pqxx/result>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/pg/connection_pool.h"

namespace trix::matchmaking {

// A wait before try `retries` + 1: doubling from 100 ms to 5 s, each drawn from
// its upper half so that chores failing together do not come back together.
absl::Duration RetryBackoff(int retries);

class RetryTable {
 public:
  RetryTable(pg::ConnectionPool* db, std::string table, std::string key,
             absl::Duration lease = absl::Seconds(30));

  // Leases up to `limit` due rows, oldest due first: each row is the key, the
  // tries so far (this one counted), then `columns`.
  absl::StatusOr<pqxx::result> Lease(const std::string& columns, int limit);
  absl::Status Done(const std::string& key);
  absl::Status Later(const std::string& key, int tries);
  // Rows not done, and the age of the oldest (zero when none).
  struct Backlog {
    int64_t pending = 0;
    absl::Duration oldest;
  };
  absl::StatusOr<Backlog> Pending();
  // Deletes rows done more than `keep` ago.
  absl::Status Sweep(absl::Duration keep);

 private:
  pg::ConnectionPool* const db_;
  const std::string table_, key_;
  const absl::Duration lease_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_RETRY_TABLE_H_
