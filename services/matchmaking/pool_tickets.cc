#include "services/matchmaking/pool_tickets.h"

#include <algorithm>
#include <set>

namespace trix::matchmaking {

PoolTickets::PoolTickets(const PoolOptions& options)
    : pool_(std::make_unique<Pool>(options)) {}

void PoolTickets::Add(const TicketRow& row) {
  if (owner_.count(row.ticket_id)) return;
  std::vector<TicketRow> members;
  std::string key = row.ticket_id;
  if (!row.party_id.empty()) {
    key = row.party_id;
    auto half = halves_.find(row.party_id);
    if (half == halves_.end()) {
      // A party is queued once both members have asked.
      halves_.emplace(row.party_id, row);
      owner_[row.ticket_id] = row.party_id;
      return;
    }
    members.push_back(half->second);
    halves_.erase(half);
  }
  members.push_back(row);
  Ticket t{.ticket_id = key};
  for (const TicketRow& r : members) {
    t.members.push_back({r.player_id, r.display_name, r.rating});
    t.provisional |= r.provisional;
    t.queued = std::max(t.queued, r.queued);
    t.seq = std::max<uint64_t>(t.seq, r.seq);
    owner_[r.ticket_id] = key;
  }
  pool_->Add(std::move(t));
  rows_[key] = std::move(members);
}

void PoolTickets::Forget(const std::string& pool_ticket) {
  auto it = rows_.find(pool_ticket);
  if (it == rows_.end()) return;
  for (const TicketRow& r : it->second) owner_.erase(r.ticket_id);
  rows_.erase(it);
}

void PoolTickets::Remove(const std::string& ticket_id) {
  auto o = owner_.find(ticket_id);
  if (o == owner_.end()) return;
  const std::string key = o->second;
  auto half = halves_.find(key);
  if (half != halves_.end() && half->second.ticket_id == ticket_id) {
    halves_.erase(half);
    owner_.erase(o);
    return;
  }
  auto it = rows_.find(key);
  if (it == rows_.end()) {
    owner_.erase(o);
    return;
  }
  std::vector<TicketRow> members = it->second;
  pool_->Remove(key);
  Forget(key);
  // The partner of a member who left waits for them again.
  for (const TicketRow& r : members) {
    if (r.ticket_id != ticket_id) Add(r);
  }
}

void PoolTickets::Sync(const std::vector<TicketRow>& rows) {
  std::set<std::string> present;
  for (const TicketRow& r : rows) {
    present.insert(r.ticket_id);
    Add(r);
  }
  std::vector<std::string> gone;
  for (const auto& [id, key] : owner_) {
    if (!present.count(id)) gone.push_back(id);
  }
  for (const std::string& id : gone) Remove(id);
}

}  // namespace trix::matchmaking
