// Writes a hosted table's new log entries through the store's log writer (which
// group-commits them), reads a table back from its log, and judges what a
// refused append means. The table's strand waits meanwhile (TableHost::Commit);
// the committer holds no table and knows nothing of strands or streams.
//
// It also remembers whether the stored logs are in doubt: after the database was
// away or refused an append, a failover may have lost commits of tables that
// append nothing more, so the host compares every hosted table's stored log with
// what it acknowledged (TableHost::CheckStoredLogs).
#ifndef TRIX_SERVICES_TABLE_COMMITTER_H_
#define TRIX_SERVICES_TABLE_COMMITTER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/table/host_metrics.h"
#include "services/table/table.h"
#include "services/table/table_store.h"

namespace trix::table {

class Committer {
 public:
  // What a refused append leaves to do, beyond dropping the table from memory (it
  // ran ahead of the log; the next command reloads it).
  enum class Refusal {
    kRetry,      // the action may be retried with the same request_id
    kLeaseLost,  // ABORTED: the lease is no longer this instance's
    kRewound,    // DATA_LOSS: the log lost entries it had acknowledged
    kMovedOn,    // FAILED_PRECONDITION: the log moved on without this instance
  };
  // Runs on the store's writer thread once it answered an append; `here`: that
  // thread may do the table's work itself (few appends wait behind it).
  using Written = std::function<void(const absl::Status& status, bool here)>;

  // `store` and `metrics` must outlive the committer.
  Committer(TableStore* store, HostMetrics& metrics);

  // Sends `step`'s entries (and its clock and end) to the log of `table_id`.
  void Append(const std::string& table_id, Step step, Written written);
  // Counts and logs a refused append, puts the stored logs in doubt, and says
  // what it means for the table.
  Refusal Refused(const std::string& table_id, const absl::Status& status);
  // The table as its log holds it: a blocking read. A log that does not replay
  // is DATA_LOSS.
  absl::StatusOr<std::unique_ptr<Table>> Load(const std::string& table_id);
  // A load found `stored` entries where the table had `acknowledged` more: counts
  // and logs the entries lost.
  void CountRewind(const std::string& table_id, int64_t acknowledged, int64_t stored);

  // The database was away or refused an append.
  void DoubtLogs() { logs_in_doubt_.store(true); }
  // Whether the logs were in doubt; no longer, until DoubtLogs.
  bool TakeDoubt() { return logs_in_doubt_.exchange(false); }
  // The stored length of each of `table_ids`' logs.
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> StoredLengths(
      const std::vector<std::string>& table_ids);

 private:
  TableStore* const store_;
  HostMetrics& metrics_;
  // Appends sent to the store and not yet answered.
  std::atomic<int> appends_in_flight_{0};
  std::atomic<bool> logs_in_doubt_{false};
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_COMMITTER_H_
