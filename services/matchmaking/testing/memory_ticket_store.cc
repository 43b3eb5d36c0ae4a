#include "services/matchmaking/testing/memory_ticket_store.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace trix::matchmaking {
namespace {

bool Live(const std::string& status) { return status == "waiting" || status == "placing"; }

bool Contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

void MemoryTicketStore::SetStatus(StoredTicket& t, const std::string& status) {
  const bool ends = Live(t.row.status) && (status == "cancelled" || status == "superseded");
  t.row.status = status;
  t.changed = absl::Now();
  if (ends && !t.row.hold_id.empty() && hold_ended_) hold_ended_(t.row.hold_id, status);
}

bool MemoryTicketStore::LiveTicket(const std::string& player_id, std::string* ticket_id) const {
  for (const auto& [id, t] : tickets_) {
    if (t.row.player_id == player_id && Live(t.row.status)) {
      *ticket_id = id;
      return true;
    }
  }
  return false;
}

const AssignmentRow* MemoryTicketStore::NewestSeat(const std::string& player_id) const {
  const AssignmentRow* newest = nullptr;
  for (const StoredSeat& s : seats_) {
    if (s.finished || s.row.player_id != player_id) continue;
    if (newest == nullptr || s.row.matched >= newest->matched) newest = &s.row;
  }
  return newest;
}

absl::StatusOr<Admitted> MemoryTicketStore::Admit(const std::vector<TicketRow>& rows) {
  std::lock_guard<std::mutex> lock(mu_);
  Admitted admitted;
  std::map<std::string, size_t> last;  // the last row of each player wins
  for (size_t i = 0; i < rows.size(); ++i) last[rows[i].player_id] = i;
  for (const auto& [player, i] : last) {
    const TicketRow& n = rows[i];
    std::string live;
    if (LiveTicket(player, &live)) {
      StoredTicket& old = tickets_[live];
      if (old.row.status != "waiting" || old.row.request_id == n.request_id) continue;
      SetStatus(old, "superseded");
      admitted.superseded.push_back(old.row);
    }
    if (NewestSeat(player) != nullptr) continue;
    StoredTicket t{.row = n, .changed = absl::Now()};
    t.row.status = "waiting";
    t.row.queued = absl::Now();
    t.row.seq = ++seq_;
    tickets_[n.ticket_id] = t;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const TicketRow& t = rows[i];
    AdmitOutcome o{.ticket_id = t.ticket_id};
    std::string live;
    const AssignmentRow* seat = NewestSeat(t.player_id);
    if (last[t.player_id] == i && LiveTicket(t.player_id, &live)) {
      o.ticket_id = live;
      o.resumed = live != t.ticket_id;
    } else if (last[t.player_id] == i && seat != nullptr) {
      o.assigned = *seat;
    } else {
      TicketRow lost = t;
      lost.status = "superseded";
      admitted.superseded.push_back(lost);
    }
    admitted.outcomes.push_back(o);
  }
  return admitted;
}

absl::StatusOr<std::vector<TicketRow>> MemoryTicketStore::Cancel(
    const std::vector<std::string>& ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TicketRow> cancelled;
  for (const std::string& id : ids) {
    auto it = tickets_.find(id);
    if (it == tickets_.end() || it->second.row.status != "waiting") continue;
    SetStatus(it->second, "cancelled");
    cancelled.push_back(it->second.row);
  }
  return cancelled;
}

absl::StatusOr<std::vector<TicketRow>> MemoryTicketStore::Tickets(
    const std::vector<std::string>& ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TicketRow> rows;
  for (const std::string& id : std::set<std::string>(ids.begin(), ids.end())) {
    auto it = tickets_.find(id);
    if (it != tickets_.end()) rows.push_back(it->second.row);
  }
  return rows;
}

absl::StatusOr<bool> MemoryTicketStore::CarryHold(const std::string& ticket_id,
                                                  const std::string& hold_id, int64_t stake) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  if (it == tickets_.end() || it->second.row.status != "waiting" ||
      it->second.row.stake != stake) {
    return false;
  }
  it->second.row.hold_id = hold_id;
  return true;
}

absl::StatusOr<bool> MemoryTicketStore::SupersedeWaiting(const std::string& ticket_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  if (it == tickets_.end() || it->second.row.status != "waiting") return false;
  SetStatus(it->second, "superseded");
  return true;
}

absl::StatusOr<std::vector<TicketRow>> MemoryTicketStore::HeldTicketsOf(
    const std::vector<std::string>& player_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TicketRow> rows;
  for (const auto& [id, t] : tickets_) {
    if (Live(t.row.status) && !t.row.hold_id.empty() && Contains(player_ids, t.row.player_id)) {
      rows.push_back(t.row);
    }
  }
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryTicketStore::LiveAssignments(
    const std::string& player_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const StoredSeat& s : seats_) {
    if (!s.finished && s.row.player_id == player_id) rows.push_back(s.row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AssignmentRow& a, const AssignmentRow& b) {
    return a.matched > b.matched;
  });
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryTicketStore::LiveAssignmentsOf(
    const std::vector<std::string>& player_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const StoredSeat& s : seats_) {
    if (!s.finished && Contains(player_ids, s.row.player_id)) rows.push_back(s.row);
  }
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryTicketStore::LiveAssignmentsOfStreams(
    const std::vector<std::string>& stream_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const StoredSeat& s : seats_) {
    if (!s.finished && Contains(stream_ids, s.row.bot_stream)) rows.push_back(s.row);
  }
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryTicketStore::LiveStakedAssignments() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const StoredSeat& s : seats_) {
    if (!s.finished && s.row.stake > 0 && !s.row.ticket_id.empty()) rows.push_back(s.row);
  }
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryTicketStore::AssignmentsOfTickets(
    const std::vector<std::string>& ticket_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const StoredSeat& s : seats_) {
    if (!s.row.ticket_id.empty() && Contains(ticket_ids, s.row.ticket_id)) rows.push_back(s.row);
  }
  return rows;
}

absl::Status MemoryTicketStore::MarkFinished(const std::string& table_id) {
  FinishSeats(table_id);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> MemoryTicketStore::SweepEnded(absl::Duration keep, int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time before = absl::Now() - keep;
  int64_t swept = 0;
  int n = 0;
  for (auto it = tickets_.begin(); it != tickets_.end() && n < limit;) {
    const StoredTicket& t = it->second;
    const bool ended = !Live(t.row.status);
    it = ended && t.changed < before ? (++n, tickets_.erase(it)) : std::next(it);
  }
  swept += n;
  n = 0;
  for (auto it = seats_.begin(); it != seats_.end() && n < limit;) {
    const bool old = it->row.matched < before &&
                     (it->finished || it->row.matched < absl::Now() - absl::Hours(24));
    it = old ? (++n, seats_.erase(it)) : std::next(it);
  }
  swept += n;
  n = 0;
  for (auto it = parties_.begin(); it != parties_.end() && n < limit;) {
    it = it->second.expires < before ? (++n, parties_.erase(it)) : std::next(it);
  }
  return swept + n;
}

std::string MemoryTicketStore::PartyOf(const std::string& player_id,
                                       const std::string& except) const {
  for (const auto& [id, p] : parties_) {
    if (id != except && p.expires > absl::Now() && Contains(p.members, player_id)) return id;
  }
  return "";
}

absl::Status MemoryTicketStore::CreateParty(const PartyRow& party) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::string in = PartyOf(party.members.front(), ""); !in.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the player is in party ", in, " already; leave it first (LeaveParty)"));
  }
  parties_[party.party_id] = party;
  return absl::OkStatus();
}

absl::StatusOr<PartyRow> MemoryTicketStore::JoinParty(const std::string& code,
                                                      const std::string& player_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(parties_.begin(), parties_.end(),
                         [&](const auto& p) { return p.second.code == code; });
  if (it == parties_.end()) return absl::NotFoundError("no party has this code");
  PartyRow& party = it->second;
  if (party.expires < absl::Now()) return absl::FailedPreconditionError("the party expired");
  if (Contains(party.members, player_id)) return party;  // joined already
  if (party.members.size() >= 2) return absl::FailedPreconditionError("the party is full");
  if (std::string in = PartyOf(player_id, party.party_id); !in.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the player is in party ", in, " already; leave it first (LeaveParty)"));
  }
  party.members.push_back(player_id);
  return party;
}

absl::StatusOr<PartyRow> MemoryTicketStore::Party(const std::string& party_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parties_.find(party_id);
  if (it == parties_.end()) return absl::NotFoundError("no such party");
  if (it->second.expires < absl::Now()) {
    return absl::FailedPreconditionError("the party expired");
  }
  return it->second;
}

absl::Status MemoryTicketStore::LeaveParty(const std::string& party_id,
                                           const std::string& player_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = parties_.find(party_id);
  if (it == parties_.end()) return absl::NotFoundError("no such party");
  std::vector<std::string>& members = it->second.members;
  if (!Contains(members, player_id)) {
    return absl::PermissionDeniedError("the player is not a member of this party");
  }
  members.erase(std::remove(members.begin(), members.end(), player_id), members.end());
  if (members.empty()) parties_.erase(it);
  return absl::OkStatus();
}

absl::Status MemoryTicketStore::RegisterBot(const BotAccount& bot, const std::string& key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, b] : bots_) {
    if (b.bot.name == bot.name) return absl::AlreadyExistsError("a bot of this name exists");
  }
  bots_[bot.bot_id] = {.bot = bot, .key_hash = key_hash};
  return absl::OkStatus();
}

absl::StatusOr<BotAccount> MemoryTicketStore::SetBotKey(const std::string& bot_id,
                                                        const std::string& key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bots_.find(bot_id);
  if (it == bots_.end() || it->second.bot.revoked) return absl::NotFoundError("no such bot");
  it->second.key_hash = key_hash;
  return it->second.bot;
}

absl::Status MemoryTicketStore::RevokeBot(const std::string& bot_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bots_.find(bot_id);
  if (it == bots_.end()) return absl::NotFoundError("no such bot");
  it->second.bot.revoked = true;
  return absl::OkStatus();
}

absl::StatusOr<BotAccount> MemoryTicketStore::BotByKeyHash(const std::string& key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, b] : bots_) {
    if (b.key_hash == key_hash && !b.bot.revoked) return b.bot;
  }
  return absl::NotFoundError("unknown bot key");
}

void MemoryTicketStore::Claim(const std::string& ticket_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tickets_.find(ticket_id);
  if (it != tickets_.end() && it->second.row.status == "waiting") {
    SetStatus(it->second, "placing");
  }
}

void MemoryTicketStore::Seat(const AssignmentRow& seat) {
  std::lock_guard<std::mutex> lock(mu_);
  seats_.push_back({.row = seat});
  auto it = tickets_.find(seat.ticket_id);
  if (it != tickets_.end()) SetStatus(it->second, "matched");
}

void MemoryTicketStore::SetHoldEnded(
    std::function<void(const std::string& hold_id, const std::string& status)> hold_ended) {
  std::lock_guard<std::mutex> lock(mu_);
  hold_ended_ = std::move(hold_ended);
}

std::vector<std::pair<TicketRow, absl::Time>> MemoryTicketStore::AllTickets() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<TicketRow, absl::Time>> all;
  for (const auto& [id, t] : tickets_) all.emplace_back(t.row, t.changed);
  return all;
}

std::vector<std::string> MemoryTicketStore::FinishSeats(const std::string& table_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> holds;
  for (StoredSeat& s : seats_) {
    if (s.row.table_id != table_id) continue;
    s.finished = true;
    auto it = tickets_.find(s.row.ticket_id);
    if (s.row.stake > 0 && it != tickets_.end() && !it->second.row.hold_id.empty()) {
      holds.push_back(it->second.row.hold_id);
    }
  }
  return holds;
}

}  // namespace trix::matchmaking
