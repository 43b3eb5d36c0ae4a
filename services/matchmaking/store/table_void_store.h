// The tables to void (table_voids.h) as durable storage, behind an interface so
// that TableVoids can be tested without PostgreSQL
// (testing/memory_table_void_store.h): rows retried until done, leased by one
// replica at a time (RetryTable's contract: a lease moves a row's `due` ahead,
// a row tried and failed is due again after RetryBackoff(tries)). A row is
// recorded by the commit that gives its placement up (MatchStore).
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_TABLE_VOID_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_TABLE_VOID_STORE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/matchmaking/store/retry_table.h"

namespace trix::matchmaking {

// A table to void, as leased: its placement's request (stored without seat
// tokens) and, once known, its table and address.
struct DueVoid {
  std::string request_id;
  int tries = 0;  // this one counted
  std::string request, table_id, address, reason;
};

class TableVoidStore {
 public:
  virtual ~TableVoidStore() = default;

  // Leases up to `limit` due voids, oldest due first.
  virtual absl::StatusOr<std::vector<DueVoid>> Lease(int limit) = 0;
  // The table the placement's request was answered with.
  virtual absl::Status RecordTable(const std::string& request_id, const std::string& table_id,
                                   const std::string& address) = 0;
  virtual absl::Status Done(const std::string& request_id) = 0;
  // Tried `tries` times and failed: due again after a backoff.
  virtual absl::Status Later(const std::string& request_id, int tries) = 0;
  // The voids not done, and the age of the oldest.
  virtual absl::StatusOr<RetryTable::Backlog> Pending() = 0;
};

// On PostgreSQL: mm_table_voids (migration 0030), through RetryTable.
class PostgresTableVoidStore : public TableVoidStore {
 public:
  explicit PostgresTableVoidStore(pg::ConnectionPool* db);

  absl::StatusOr<std::vector<DueVoid>> Lease(int limit) override;
  absl::Status RecordTable(const std::string& request_id, const std::string& table_id,
                           const std::string& address) override;
  absl::Status Done(const std::string& request_id) override;
  absl::Status Later(const std::string& request_id, int tries) override;
  absl::StatusOr<RetryTable::Backlog> Pending() override;

 private:
  pg::ConnectionPool* const db_;
  RetryTable table_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_TABLE_VOID_STORE_H_
