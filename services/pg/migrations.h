// Versioned schema changes: the numbered SQL files of migrations/, applied in order
// and recorded in the database.
//
// A file is named NNNN_name.sql; its number is its version. Each file runs in its
// own transaction together with the row that records it in schema_migrations
// (version, name, checksum, applied_at), so a migration is either applied and
// recorded or neither. Every such transaction first takes one transaction-level
// advisory lock, so table-service instances starting at once queue up instead of
// racing: the first applies a migration, the others then find it recorded and skip
// it. A recorded migration whose file has changed since (its md5 differs) stops the
// run with FAILED_PRECONDITION: an applied migration is history, and a fix is a new
// file. Versions recorded but not on disk are ignored, so an older binary can run
// against a newer schema during a rolling upgrade.
//
// Files may hold several statements but no transaction control (BEGIN, COMMIT) and
// nothing that cannot run in a transaction (CREATE INDEX CONCURRENTLY).
#ifndef TRIX_SERVICES_PG_MIGRATIONS_H_
#define TRIX_SERVICES_PG_MIGRATIONS_H_

#include <cstdint>
#include <pqxx/connection>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trix::service {
class StopSignals;
}

namespace trix::pg {

class ConnectionPool;

struct Migration {
  int64_t version = 0;
  std::string name;  // "games" for 0001_games.sql
  std::string sql;
};

// The migrations in `dir`, by version. Files not ending in .sql are ignored; a
// .sql file without a version, or two files with one version, is INVALID_ARGUMENT;
// a missing or empty folder NOT_FOUND.
absl::StatusOr<std::vector<Migration>> ReadMigrations(const std::string& dir);

// Applies the migrations not yet recorded, in order. Throws what libpqxx throws;
// returns FAILED_PRECONDITION for a changed migration.
absl::Status ApplyMigrations(pqxx::connection& connection,
                             const std::vector<Migration>& migrations);

// Reads the migrations in `dir` and applies those not yet recorded, on one of
// `pool`'s connections: ReadMigrations' errors, ApplyMigrations', or the pool's
// status mapping of what libpqxx threw.
absl::Status Migrate(ConnectionPool& pool, const std::string& dir);

// Whether a failed Migrate may succeed when tried again: not after a bad or missing
// folder (INVALID_ARGUMENT, NOT_FOUND) or a changed migration (FAILED_PRECONDITION),
// which fail the same at every attempt.
bool MayRetryMigration(const absl::Status& failure);

// Migrate as every service runs it at start-up, on a connection of its own to `url`
// (closed when done): tried again every 2 s while the database cannot be reached
// (service::StopSignals::RetryUntilReady). Returns OK, the error that retrying
// cannot mend, or CANCELLED when a stop signal came first.
absl::Status MigrateWithRetry(const std::string& url, const std::string& dir,
                              const std::string& application_name,
                              const service::StopSignals& signals);

// The versions recorded in the database, ascending. Throws what libpqxx throws
// (undefined_table when nothing was ever migrated).
std::vector<int64_t> AppliedVersions(pqxx::connection& connection);

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_MIGRATIONS_H_
