#include "services/matchmaking/testing/memory_table_void_store.h"

#include <algorithm>

#include "services/matchmaking/testing/memory_retry_rows.h"

namespace trix::matchmaking {

absl::StatusOr<std::vector<DueVoid>> MemoryTableVoidStore::Lease(int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DueVoid> leased;
  for (Stored* s : LeaseDueRows(rows_, absl::Now(), lease_, limit)) leased.push_back(s->row);
  return leased;
}

absl::Status MemoryTableVoidStore::RecordTable(const std::string& request_id,
                                               const std::string& table_id,
                                               const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(request_id);
  if (it != rows_.end()) {
    it->second.row.table_id = table_id;
    it->second.row.address = address;
  }
  return absl::OkStatus();
}

absl::Status MemoryTableVoidStore::Done(const std::string& request_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(request_id);
  if (it != rows_.end()) it->second.done = true;
  return absl::OkStatus();
}

absl::Status MemoryTableVoidStore::Later(const std::string& request_id, int tries) {
  std::lock_guard<std::mutex> lock(mu_);
  PutOffRow(rows_, request_id, tries);
  return absl::OkStatus();
}

absl::StatusOr<RetryTable::Backlog> MemoryTableVoidStore::Pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return BacklogOf(rows_);
}

void MemoryTableVoidStore::Add(const std::string& request_id, const std::string& request,
                               const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  rows_.emplace(request_id,
                Stored{.row = {.request_id = request_id, .request = request, .reason = reason},
                       .created = now,
                       .due = now});
}

std::optional<DueVoid> MemoryTableVoidStore::Row(const std::string& request_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(request_id);
  if (it == rows_.end()) return std::nullopt;
  return it->second.row;
}

bool MemoryTableVoidStore::done(const std::string& request_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(request_id);
  return it != rows_.end() && it->second.done;
}

void MemoryTableVoidStore::DueNow() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, s] : rows_) s.due = absl::Now();
}

}  // namespace trix::matchmaking
