#include "services/table/committer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"

namespace trix::table {

using service::LogError;
using service::LogWarn;

Committer::Committer(TableStore* store, HostMetrics& metrics)
    : store_(store), metrics_(metrics) {}

void Committer::Append(const std::string& table_id, Step step, Written written) {
  for (const LogEntry& e : step.entries) {
    if (e.seat >= 0 && e.request_id.empty()) metrics_.autopilot.Increment();
  }
  AppendRequest request;
  request.game_id = table_id;
  request.entries = std::move(step.entries);
  request.deadline = step.deadline;
  request.end = std::move(step.end);
  appends_in_flight_.fetch_add(1, std::memory_order_relaxed);
  store_->Append(std::move(request), [this,
                                      written = std::move(written)](absl::Status status) {
    // At a player's pace an append rarely has company: its table's
    // work (the answer, a few stream writes, well under a
    // millisecond) runs right here, which saves waking a worker, and
    // delays at most kMaxAppendsBehind others. Under load it goes to
    // the workers so that the writer gets back to committing.
    constexpr int kMaxAppendsBehind = 2;
    const int others = appends_in_flight_.fetch_sub(1, std::memory_order_relaxed) - 1;
    const bool here = others <= kMaxAppendsBehind && store_->MayContinueOnAppendThread();
    written(status, here);
  });
}

Committer::Refusal Committer::Refused(const std::string& table_id,
                                      const absl::Status& status) {
  metrics_.append_failures.Increment();
  DoubtLogs();
  // An unreachable database fails every table's appends alike; the
  // maintenance thread logs that once per change of state.
  if (!absl::IsUnavailable(status)) {
    LogWarn("append failed", {{"table", table_id}, {"error", status.ToString()}});
  }
  switch (status.code()) {
    case absl::StatusCode::kAborted:
      return Refusal::kLeaseLost;
    case absl::StatusCode::kDataLoss:
      return Refusal::kRewound;
    case absl::StatusCode::kFailedPrecondition:
      return Refusal::kMovedOn;
    default:
      return Refusal::kRetry;
  }
}

absl::StatusOr<std::unique_ptr<Table>> Committer::Load(const std::string& table_id) {
  absl::StatusOr<StoredGame> stored = store_->LoadGame(table_id);
  if (!stored.ok()) return stored.status();
  return Table::Restore(*stored);
}

void Committer::CountRewind(const std::string& table_id, int64_t acknowledged,
                            int64_t stored) {
  metrics_.log_rewinds.Increment();
  metrics_.entries_lost.Increment(static_cast<double>(acknowledged - stored));
  LogError("log is shorter than acknowledged; table rebuilt from the stored log",
           {{"table", table_id},
            {"acknowledged", absl::StrCat(acknowledged)},
            {"stored", absl::StrCat(stored)}});
}

absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> Committer::StoredLengths(
    const std::vector<std::string>& table_ids) {
  return store_->LogLengths(table_ids);
}

}  // namespace trix::table
