#include "services/matchmaking/testing/memory_hold_release_store.h"

#include <algorithm>

#include "services/matchmaking/testing/memory_retry_rows.h"

namespace trix::matchmaking {

MemoryHoldReleaseStore::MemoryHoldReleaseStore(MemoryTicketStore* tickets,
                                               absl::Duration lease)
    : tickets_(tickets), lease_(lease) {
  tickets_->SetHoldEnded([this](const std::string& hold_id, const std::string& status) {
    TicketEnded(hold_id, status);
  });
}

MemoryHoldReleaseStore::~MemoryHoldReleaseStore() { tickets_->SetHoldEnded(nullptr); }

void MemoryHoldReleaseStore::TicketEnded(const std::string& hold_id,
                                         const std::string& status) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  auto [it, added] = rows_.try_emplace(hold_id, Stored{.created = now});
  Stored& s = it->second;
  if (added) s.row.hold_id = hold_id;
  if (s.done) {  // a release done before is asked again, from scratch (migration 0036)
    s.row.table_id = "";
    s.row.tries = 0;
  }
  s.row.reason = "ticket " + status;
  s.due = now;
  s.done.reset();
}

std::set<std::string> MemoryHoldReleaseStore::HoldsOf(
    const std::set<std::string>& statuses) const {
  std::set<std::string> holds;
  for (const auto& [t, changed] : tickets_->AllTickets()) {
    if (!t.hold_id.empty() && statuses.count(t.status)) holds.insert(t.hold_id);
  }
  return holds;
}

absl::Status MemoryHoldReleaseStore::Expect(const std::vector<HoldIntent>& holds,
                                            absl::Duration grace) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  for (const HoldIntent& h : holds) {
    auto [it, added] = rows_.try_emplace(h.request_id, Stored{.created = now});
    if (added) {
      it->second.row = {.hold_id = h.request_id, .reason = kReleaseAdmission,
                        .player_id = h.player_id, .amount = h.amount};
    }
    it->second.due = now + grace;
    it->second.done.reset();
  }
  return absl::OkStatus();
}

absl::Status MemoryHoldReleaseStore::Queued(const std::vector<std::string>& request_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& id : request_ids) {
    auto it = rows_.find(id);
    if (it != rows_.end() && it->second.row.reason == kReleaseAdmission && !it->second.done) {
      rows_.erase(it);
    }
  }
  return absl::OkStatus();
}

absl::Status MemoryHoldReleaseStore::DueNow(const std::vector<std::string>& hold_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& id : hold_ids) {
    auto it = rows_.find(id);
    if (it != rows_.end() && !it->second.done) it->second.due = absl::Now();
  }
  return absl::OkStatus();
}

absl::Status MemoryHoldReleaseStore::EndTable(const std::string& table_id,
                                              const std::string& named_table,
                                              const std::string& reason) {
  const std::vector<std::string> holds = tickets_->FinishSeats(table_id);
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  for (const std::string& hold : holds) {
    auto [it, added] = rows_.try_emplace(hold, Stored{.created = now});
    if (!added && it->second.done) continue;
    it->second.row.hold_id = hold;
    it->second.row.table_id = named_table;
    it->second.row.reason = reason;
    it->second.due = now;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::set<std::string>> MemoryHoldReleaseStore::Spent(
    const std::vector<std::string>& hold_ids) {
  const std::set<std::string> ended = HoldsOf({"matched", "cancelled", "superseded"});
  std::set<std::string> spent;
  for (const std::string& h : hold_ids) {
    if (ended.count(h)) spent.insert(h);
  }
  return spent;
}

absl::StatusOr<bool> MemoryHoldReleaseStore::Carried(const std::string& hold_id) {
  return HoldsOf({"waiting", "placing", "matched"}).count(hold_id) > 0;
}

absl::Status MemoryHoldReleaseStore::RecordEnded(absl::Duration within) {
  const auto tickets = tickets_->AllTickets();
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  for (const auto& [t, changed] : tickets) {
    if (t.hold_id.empty() || (t.status != "cancelled" && t.status != "superseded") ||
        changed <= now - within) {
      continue;
    }
    auto [it, added] = rows_.try_emplace(t.hold_id, Stored{.created = now, .due = now});
    if (added) it->second.row = {.hold_id = t.hold_id, .reason = "ticket " + t.status};
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DueRelease>> MemoryHoldReleaseStore::Lease(int limit) {
  const std::set<std::string> carried = HoldsOf({"waiting", "placing", "matched"});
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DueRelease> leased;
  for (Stored* s : LeaseDueRows(rows_, absl::Now(), lease_, limit)) {
    leased.push_back(s->row);
    leased.back().carried = carried.count(s->row.hold_id) > 0;
  }
  return leased;
}

absl::Status MemoryHoldReleaseStore::Done(const std::string& hold_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(hold_id);
  if (it != rows_.end()) it->second.done = absl::Now();
  return absl::OkStatus();
}

absl::Status MemoryHoldReleaseStore::Later(const std::string& hold_id, int tries) {
  std::lock_guard<std::mutex> lock(mu_);
  PutOffRow(rows_, hold_id, tries);
  return absl::OkStatus();
}

absl::StatusOr<RetryTable::Backlog> MemoryHoldReleaseStore::Pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return BacklogOf(rows_);
}

absl::Status MemoryHoldReleaseStore::Sweep(absl::Duration keep) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time before = absl::Now() - keep;
  for (auto it = rows_.begin(); it != rows_.end();) {
    it = it->second.done && *it->second.done < before ? rows_.erase(it) : std::next(it);
  }
  return absl::OkStatus();
}

std::optional<MemoryHoldReleaseStore::Stored> MemoryHoldReleaseStore::Row(
    const std::string& hold_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rows_.find(hold_id);
  if (it == rows_.end()) return std::nullopt;
  return it->second;
}

void MemoryHoldReleaseStore::DueAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, s] : rows_) {
    if (!s.done) s.due = absl::Now();
  }
}

}  // namespace trix::matchmaking
