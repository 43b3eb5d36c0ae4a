#include "services/matchmaking/testing/memory_match_store.h"

#include <algorithm>
#include <stdexcept>

#include "services/matchmaking/seat_tokens.h"

namespace trix::matchmaking {

class MemoryMatchStore::Session : public PoolSession {
 public:
  Session(MemoryMatchStore* store, int64_t id) : store_(store), id_(id) {}
  ~Session() override { store_->EndSession(id_); }

  bool TryLease(const std::string& pool) override { return store_->TryLease(id_, pool); }
  PoolTakeover TakeOver(const std::string& pool) override {
    return store_->TakeOver(id_, pool);
  }
  PoolRead ReadWaiting(const std::vector<std::string>& pools, int64_t after) override {
    return store_->ReadWaiting(id_, pools, after);
  }
  bool ClaimWhole(const PlannedTables& tables) override {
    return store_->ClaimWhole(id_, tables);
  }
  void ClaimEach(
      const std::vector<std::string>& ticket_ids,
      const std::function<ClaimPlan(const std::set<std::string>& claimed)>& plan) override {
    store_->ClaimEach(id_, ticket_ids, plan);
  }

 private:
  MemoryMatchStore* const store_;
  const int64_t id_;
};

std::unique_ptr<PoolSession> MemoryMatchStore::OpenSession() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return std::make_unique<Session>(this, ++sessions_);
}

void MemoryMatchStore::CheckLive(int64_t session) const {
  if (lost_.count(session)) throw std::runtime_error("the matcher's session was lost");
}

bool MemoryMatchStore::TryLease(int64_t session, const std::string& pool) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CheckLive(session);
  auto [it, added] = leases_.emplace(pool, session);
  return added || it->second == session;
}

void MemoryMatchStore::EndSession(int64_t session) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (auto it = leases_.begin(); it != leases_.end();) {
    it = it->second == session ? leases_.erase(it) : std::next(it);
  }
}

void MemoryMatchStore::LoseSessions() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (int64_t s = 1; s <= sessions_; ++s) lost_.insert(s);
  leases_.clear();
}

std::vector<PlannedTable> MemoryMatchStore::PlacementsOf(const std::string& pool) const {
  std::vector<PlannedTable> out;
  for (const auto& [id, stored] : placements_) {
    if (stored.pool != pool) continue;
    PlannedTable table{.pool = pool, .possible = stored.possible};
    table.request.ParseFromString(stored.request);
    std::vector<std::pair<int, std::string>> seats = stored.seats;
    std::sort(seats.begin(), seats.end());
    for (const auto& [seat, ticket] : seats) AddRecordedSeat(seat, ticket, table);
    out.push_back(std::move(table));
  }
  return out;
}

PoolTakeover MemoryMatchStore::TakeOver(int64_t session, const std::string& pool) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CheckLive(session);
  PoolTakeover takeover{.placements = PlacementsOf(pool)};
  for (auto& [id, t] : tickets_) {
    if (t.row.pool != pool || t.row.status != "placing" || placements_.count(t.group)) {
      continue;
    }
    t.row.status = "waiting";
    t.group.clear();
    ++takeover.requeued;
  }
  return takeover;
}

PoolRead MemoryMatchStore::ReadWaiting(int64_t session, const std::vector<std::string>& pools,
                                       int64_t after) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CheckLive(session);
  PoolRead read{.numbered = seq_};
  for (const auto& [id, t] : tickets_) {
    const bool in_pool = std::count(pools.begin(), pools.end(), t.row.pool) > 0;
    if (in_pool && t.row.status == "waiting" && t.row.seq > after) {
      read.tickets.push_back(t.row);
    }
  }
  std::sort(read.tickets.begin(), read.tickets.end(),
            [](const TicketRow& a, const TicketRow& b) { return a.seq < b.seq; });
  return read;
}

void MemoryMatchStore::Record(const PlannedTables& tables) {
  for (const PlannedTable* table : tables) {
    StoredPlacement stored{.pool = table->pool,
                           .request = SeatTokens::Stored(table->request),
                           .possible = absl::FromUnixMicros(absl::ToUnixMicros(table->possible))};
    for (const AssignmentRow& seat : table->seats) {
      stored.seats.emplace_back(seat.seat, seat.ticket_id);
    }
    placements_[table->request.request_id()] = std::move(stored);
    for (const std::string& t : table->tickets) {
      auto it = tickets_.find(t);
      if (it != tickets_.end()) it->second.group = table->request.request_id();
    }
  }
}

bool MemoryMatchStore::ClaimWhole(int64_t session, const PlannedTables& tables) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CheckLive(session);
  std::set<std::string> waiting;
  size_t n = 0;
  for (const PlannedTable* table : tables) {
    for (const std::string& t : table->tickets) {
      auto it = tickets_.find(t);
      if (it != tickets_.end() && it->second.row.status == "waiting") waiting.insert(t);
      ++n;
    }
  }
  if (waiting.size() != n) return false;
  for (const std::string& t : waiting) tickets_[t].row.status = "placing";
  Record(tables);
  return true;
}

void MemoryMatchStore::ClaimEach(
    int64_t session, const std::vector<std::string>& ticket_ids,
    const std::function<ClaimPlan(const std::set<std::string>&)>& plan) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // held: one transaction
  CheckLive(session);
  std::set<std::string> claimed;
  for (const std::string& t : ticket_ids) {
    auto it = tickets_.find(t);
    if (it != tickets_.end() && it->second.row.status == "waiting") claimed.insert(t);
  }
  const ClaimPlan p = plan(claimed);  // nothing changed should it throw
  for (const std::string& t : claimed) tickets_[t].row.status = "placing";
  Record(p.tables);
  for (const std::string& t : p.back) {
    auto it = tickets_.find(t);
    if (it != tickets_.end() && it->second.row.status == "placing") {
      it->second.row.status = "waiting";
    }
  }
}

absl::StatusOr<std::set<std::string>> MemoryMatchStore::CommitPlacements(
    const PlacementOutcome& p) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (failing_commits_ > 0) {
    --failing_commits_;
    return commit_failure_;
  }
  std::set<std::string> mine;
  for (const std::string& id : p.created) {
    if (placements_.erase(id)) mine.insert(id);
  }
  const std::set<std::string> failed(p.failed.begin(), p.failed.end());
  std::vector<std::string> all = p.created_tickets;
  all.insert(all.end(), p.failed_tickets.begin(), p.failed_tickets.end());
  for (const std::string& id : all) {
    auto it = tickets_.find(id);
    if (it == tickets_.end() || it->second.row.status != "placing") continue;
    StoredTicket& t = it->second;
    if (mine.count(t.group)) {
      t.row.status = "matched";
    } else if (failed.count(t.group)) {
      t.row.status = "waiting";
      t.group.clear();
    }
  }
  for (size_t i = 0; i < p.rows.size(); ++i) {
    if (mine.count(p.row_requests[i])) assignments_.push_back(p.rows[i]);
  }
  const std::set<std::string> given_up(p.given_up.begin(), p.given_up.end());
  for (const std::string& id : p.failed) {
    const bool dropped = placements_.erase(id) > 0;
    const bool known = std::count(voids_.begin(), voids_.end(), id) > 0;
    if (dropped && given_up.count(id) && !known) voids_.push_back(id);
  }
  return mine;
}

TicketRow MemoryMatchStore::Queue(TicketRow row) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  row.seq = ++seq_;
  row.status = "waiting";
  if (row.queued == absl::Time()) row.queued = absl::Now();
  tickets_[row.ticket_id] = StoredTicket{.row = row};
  return row;
}

void MemoryMatchStore::Cancel(const std::string& ticket_id) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  if (it != tickets_.end() && it->second.row.status == "waiting") {
    it->second.row.status = "cancelled";
  }
}

std::string MemoryMatchStore::Status(const std::string& ticket_id) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  return it == tickets_.end() ? "" : it->second.row.status;
}

std::string MemoryMatchStore::GroupOf(const std::string& ticket_id) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  return it == tickets_.end() ? "" : it->second.group;
}

std::vector<std::string> MemoryMatchStore::Placements() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, stored] : placements_) ids.push_back(id);
  return ids;
}

std::vector<AssignmentRow> MemoryMatchStore::Assignments() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return assignments_;
}

std::vector<std::string> MemoryMatchStore::Voids() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return voids_;
}

std::set<std::string> MemoryMatchStore::Leased() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::set<std::string> pools;
  for (const auto& [pool, session] : leases_) pools.insert(pool);
  return pools;
}

void MemoryMatchStore::FailCommits(int n, absl::Status status) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  failing_commits_ = n;
  commit_failure_ = std::move(status);
}

}  // namespace trix::matchmaking
