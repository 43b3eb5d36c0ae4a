#include "services/pg/migrations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <pqxx/transaction>
#include <sstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "services/common/service_main.h"
#include "services/pg/connection_pool.h"

namespace trix::pg {
namespace {

// Any constant shared by every instance would do; this one spells "Mamlaka".
// Migrations may take long and wait for each other: the connection's bounds
// (connection_pool.h) do not apply to them.
constexpr const char* kLockSql =
    "SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0; "
    "SELECT pg_advisory_xact_lock(21780695804373857)";

constexpr const char* kCreateTableSql = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    bigint PRIMARY KEY,
  name       text NOT NULL,
  checksum   text NOT NULL,  -- md5 of the file as applied
  applied_at timestamptz NOT NULL DEFAULT now()
))sql";

// "0003_game_results.sql" -> 3, "game_results".
absl::Status ParseFileName(absl::string_view file, Migration* migration) {
  absl::string_view stem = file.substr(0, file.size() - 4);  // without ".sql"
  const size_t underscore = stem.find('_');
  absl::string_view digits = stem.substr(0, underscore);
  if (underscore == absl::string_view::npos || digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(digits, &migration->version) || underscore + 1 == stem.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("migration file ", file, " is not named NNNN_name.sql"));
  }
  migration->name = std::string(stem.substr(underscore + 1));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Migration>> ReadMigrations(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("migrations folder ", dir, ": ", error.message()));
  }
  std::vector<Migration> migrations;
  // The error_code overloads throughout: a folder that changes while we read it
  // is an error status, not an exception.
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::directory_entry& entry = *it;
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file(error) || file.size() <= 4 ||
        file.compare(file.size() - 4, 4, ".sql") != 0) {
      continue;
    }
    Migration migration;
    if (absl::Status s = ParseFileName(file, &migration); !s.ok()) return s;
    std::ifstream in(entry.path(), std::ios::binary);
    if (!in.is_open()) {
      return absl::NotFoundError(absl::StrCat("cannot read ", entry.path().string()));
    }
    std::ostringstream text;
    text << in.rdbuf();
    migration.sql = text.str();
    if (absl::StripAsciiWhitespace(migration.sql).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("migration file ", file, " is empty"));
    }
    migrations.push_back(std::move(migration));
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("migrations folder ", dir, ": ", error.message()));
  }
  if (migrations.empty()) {
    return absl::NotFoundError(absl::StrCat("no NNNN_name.sql files in ", dir));
  }
  std::sort(migrations.begin(), migrations.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
  for (size_t i = 1; i < migrations.size(); ++i) {
    if (migrations[i].version == migrations[i - 1].version) {
      return absl::InvalidArgumentError(
          absl::StrCat("migrations ", migrations[i - 1].name, " and ", migrations[i].name,
                       " share version ", migrations[i].version));
    }
  }
  return migrations;
}

absl::Status ApplyMigrations(pqxx::connection& connection,
                             const std::vector<Migration>& migrations) {
  {
    // CREATE TABLE IF NOT EXISTS is not safe against itself running concurrently
    // (both may try to create the table's type), hence the lock here too.
    pqxx::work tx(connection);
    tx.exec(kLockSql);
    tx.exec(kCreateTableSql);
    tx.commit();
  }
  for (const Migration& migration : migrations) {
    pqxx::work tx(connection);
    tx.exec(kLockSql);
    const pqxx::result recorded = tx.exec_params(
        "SELECT checksum = md5($2) FROM schema_migrations WHERE version = $1",
        migration.version, migration.sql);
    if (!recorded.empty()) {
      if (!recorded[0][0].as<bool>()) {
        return absl::FailedPreconditionError(
            absl::StrCat("migration ", migration.version, "_", migration.name,
                         " changed after it was applied; add a new migration instead"));
      }
      continue;  // applied before, by us or another instance; the tx rolls back
    }
    tx.exec(migration.sql);
    tx.exec_params(
        "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, "
        "md5($3))",
        migration.version, migration.name, migration.sql);
    tx.commit();
  }
  return absl::OkStatus();
}

std::vector<int64_t> AppliedVersions(pqxx::connection& connection) {
  pqxx::nontransaction tx(connection);
  std::vector<int64_t> versions;
  for (const pqxx::row& row :
       tx.exec("SELECT version FROM schema_migrations ORDER BY 1")) {
    versions.push_back(row[0].as<int64_t>());
  }
  return versions;
}

absl::Status Migrate(ConnectionPool& pool, const std::string& dir) {
  absl::StatusOr<std::vector<Migration>> migrations = ReadMigrations(dir);
  if (!migrations.ok()) return migrations.status();
  return pool.Run("migrating",
                  [&](pqxx::connection& c) { return ApplyMigrations(c, *migrations); });
}

bool MayRetryMigration(const absl::Status& failure) {
  return failure.code() != absl::StatusCode::kInvalidArgument &&
         failure.code() != absl::StatusCode::kNotFound &&
         failure.code() != absl::StatusCode::kFailedPrecondition;
}

absl::Status MigrateWithRetry(const std::string& url, const std::string& dir,
                              const std::string& application_name,
                              const service::StopSignals& signals) {
  ConnectionPool pool(url, 1, application_name);
  return signals.RetryUntilReady([&] { return Migrate(pool, dir); }, MayRetryMigration);
}

}  // namespace trix::pg
