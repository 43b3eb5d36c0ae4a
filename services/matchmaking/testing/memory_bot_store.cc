#include "services/matchmaking/testing/memory_bot_store.h"

#include <algorithm>

namespace trix::matchmaking {

void MemoryBotDatabase::AddBot(const BotAccount& bot, const std::string& key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  accounts_[bot.bot_id] = Account{.bot = bot, .key_hash = key_hash};
}

void MemoryBotDatabase::Revoke(const std::string& bot_id) {
  std::lock_guard<std::mutex> lock(mu_);
  accounts_.at(bot_id).bot.revoked = true;
}

void MemoryBotDatabase::SetKey(const std::string& bot_id, const std::string& key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  accounts_.at(bot_id).key_hash = key_hash;
}

void MemoryBotDatabase::Seat(const AssignmentRow& seat) {
  std::lock_guard<std::mutex> lock(mu_);
  seats_.push_back(seat);
}

void MemoryBotDatabase::Silence(absl::Duration age) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, row] : streams_) row.heartbeat -= age;
}

absl::StatusOr<std::vector<AssignmentRow>> MemoryBotDatabase::LiveAssignmentsOfStreams(
    const std::vector<std::string>& stream_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> live;
  for (const AssignmentRow& a : seats_) {
    const bool mine = std::count(stream_ids.begin(), stream_ids.end(), a.bot_stream) > 0;
    if (mine && !finished_.count(a.table_id)) live.push_back(a);
  }
  return live;
}

absl::Status MemoryBotDatabase::MarkFinished(const std::string& table_id) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_.insert(table_id);
  return absl::OkStatus();
}

std::map<std::string, int> MemoryBotDatabase::Rooms(const std::string& replica) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, int> rooms;
  for (const auto& [id, row] : streams_) {
    if (row.replica == replica) rooms[id] = row.room;
  }
  return rooms;
}

std::set<std::string> MemoryBotDatabase::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

std::string MemoryBotDatabase::Lendable(const std::function<bool(const StreamRow&)>& fits) {
  std::map<std::string, uint64_t> given;  // by account: its streams' latest
  for (const auto& [id, row] : streams_) {
    given[row.bot_id] = std::max(given[row.bot_id], row.given);
  }
  std::string best;
  for (const auto& [id, row] : streams_) {
    if (!fits(row)) continue;
    const StreamRow* b = best.empty() ? nullptr : &streams_.at(best);
    if (b == nullptr || given[row.bot_id] < given[b->bot_id] ||
        (given[row.bot_id] == given[b->bot_id] && row.room > b->room)) {
      best = id;
    }
  }
  return best;
}

MemoryBotStreams::MemoryBotStreams(MemoryBotDatabase* db, std::string replica,
                                   absl::Duration live_for)
    : db_(db), replica_(std::move(replica)), live_for_(live_for) {}

absl::Status MemoryBotStreams::Open(const std::string& stream_id, const BotAccount& bot,
                                    const std::set<std::string>& modes, int room) {
  std::lock_guard<std::mutex> lock(db_->mu_);
  if (!db_->accounts_.count(bot.bot_id)) {
    return absl::FailedPreconditionError("no such bot account: " + bot.bot_id);
  }
  auto [it, added] = db_->streams_.emplace(
      stream_id, MemoryBotDatabase::StreamRow{.replica = replica_,
                                              .bot_id = bot.bot_id,
                                              .modes = modes,
                                              .room = room,
                                              .heartbeat = absl::Now()});
  if (!added) return absl::AlreadyExistsError("bot stream " + stream_id);
  return absl::OkStatus();
}

absl::Status MemoryBotStreams::Close(const std::string& stream_id) {
  std::lock_guard<std::mutex> lock(db_->mu_);
  db_->streams_.erase(stream_id);
  return absl::OkStatus();
}

absl::Status MemoryBotStreams::Heartbeat(
    const std::vector<std::pair<std::string, int>>& rooms) {
  std::lock_guard<std::mutex> lock(db_->mu_);
  const absl::Time now = absl::Now();
  for (const auto& [id, room] : rooms) {
    auto it = db_->streams_.find(id);
    if (it == db_->streams_.end() || it->second.replica != replica_) continue;
    it->second.room = room;
    it->second.heartbeat = now;
  }
  for (auto it = db_->streams_.begin(); it != db_->streams_.end();) {
    it = it->second.heartbeat < now - absl::Minutes(1) ? db_->streams_.erase(it)
                                                       : std::next(it);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BotSeat>> MemoryBotStreams::ReserveElsewhere(
    const std::string& mode, const std::vector<std::string>& taken, const std::string& level) {
  std::lock_guard<std::mutex> lock(db_->mu_);
  const absl::Time live_since = absl::Now() - live_for_;
  const std::string id = db_->Lendable([&](const MemoryBotDatabase::StreamRow& s) {
        return s.replica != replica_ && s.modes.count(mode) && s.room > 0 &&
               s.heartbeat > live_since &&
               std::find(taken.begin(), taken.end(), s.bot_id) == taken.end() &&
               (level.empty() || db_->accounts_.at(s.bot_id).bot.level == level);
      });
  if (id.empty()) return std::nullopt;
  MemoryBotDatabase::StreamRow* row = &db_->streams_.at(id);
  // As in PostgreSQL, a revoked account's stream is chosen but lends nothing.
  const MemoryBotDatabase::Account& account = db_->accounts_.at(row->bot_id);
  if (account.bot.revoked) return std::nullopt;
  --row->room;
  row->given = ++db_->lent_;
  return BotSeat{row->bot_id, account.bot.name, id, account.bot.level};
}

absl::StatusOr<std::map<std::string, std::string>> MemoryBotStreams::KeysInForce(
    const std::vector<std::string>& bot_ids) {
  std::lock_guard<std::mutex> lock(db_->mu_);
  std::map<std::string, std::string> keys;
  for (const std::string& id : bot_ids) {
    auto it = db_->accounts_.find(id);
    if (it != db_->accounts_.end() && !it->second.bot.revoked) {
      keys[id] = it->second.key_hash;
    }
  }
  return keys;
}

}  // namespace trix::matchmaking
