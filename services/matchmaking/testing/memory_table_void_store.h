// The tables to void in memory (store/table_void_store.h), for TableVoids'
// tests: rows leased (due moved a lease ahead, tries counted), done, or due
// again after RetryBackoff; Add records one as the commit that gives a
// placement up does.
//
//   MemoryTableVoidStore store;
//   store.Add("placement-1", SeatTokens::Stored(request), kVoidGivenUp);
//   TableVoids voids(&store, &tables, &tokens, &ends, &registry);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TABLE_VOID_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TABLE_VOID_STORE_H_

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/store/table_void_store.h"

namespace trix::matchmaking {

class MemoryTableVoidStore : public TableVoidStore {
 public:
  explicit MemoryTableVoidStore(absl::Duration lease = absl::Seconds(30)) : lease_(lease) {}

  absl::StatusOr<std::vector<DueVoid>> Lease(int limit) override;
  absl::Status RecordTable(const std::string& request_id, const std::string& table_id,
                           const std::string& address) override;
  absl::Status Done(const std::string& request_id) override;
  absl::Status Later(const std::string& request_id, int tries) override;
  absl::StatusOr<RetryTable::Backlog> Pending() override;

  // A table to void, due now.
  void Add(const std::string& request_id, const std::string& request,
           const std::string& reason);
  // The row as it stands (tries so far, table and address once known), or
  // nullopt.
  std::optional<DueVoid> Row(const std::string& request_id) const;
  bool done(const std::string& request_id) const;
  // Makes every row due now (the test does not wait out a backoff).
  void DueNow();

 private:
  struct Stored {
    DueVoid row;
    absl::Time created, due;
    bool done = false;
  };
  const absl::Duration lease_;
  mutable std::mutex mu_;
  std::map<std::string, Stored> rows_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TABLE_VOID_STORE_H_
