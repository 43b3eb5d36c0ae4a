#include "services/ratings/testing/memory_ratings_store.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trix::ratings {
namespace {

// One batch: a copy of the data, put in place by Commit. It holds the consumer's
// lock from a successful Claim until it is dropped.
class MemoryBatch : public ConsumerBatch {
 public:
  explicit MemoryBatch(std::shared_ptr<MemoryRatingsStore::Shared> shared)
      : shared_(std::move(shared)) {
    std::lock_guard<std::mutex> lock(shared_->mu);
    data_ = shared_->data;
  }
  ~MemoryBatch() override {
    if (!claimed_) return;
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->locked = false;
  }

  bool Claim(const std::string& instance, ConsumerClaim& out) override;
  std::vector<OutboxRow> ReadPending(bool include_late, int64_t last_applied,
                                     int limit) override;
  std::set<std::string> AppliedAmong(const std::vector<OutboxRow>& rows) override;
  std::map<PlayerKey, StoredRating> ReadRatings(
      const std::set<PlayerKey>& players) override;
  Settlement Settle(const OutboxRow& row, const FinishedGame& game,
                    const SettlementPlan& plan) override;
  bool Write(const BatchPlan& plan, const std::vector<Settlement>& settled) override;
  std::optional<OutboxRow> LockSetAside(const std::string& game_id) override;
  void ResolveSetAside(const std::string& game_id, const Settlement& settlement) override;
  void Commit() override;

 private:
  Settlement SetAside(const OutboxRow& row, const std::string& game_id,
                      const std::string& error);
  bool WriteRatings(const BatchPlan& plan);
  // The ledger's transaction, begun by the first call.
  MemoryLedgerStore::OpenTransaction& OpenLedger() {
    if (!ledger_) ledger_.emplace(shared_->ledger);
    return *ledger_;
  }

  std::shared_ptr<MemoryRatingsStore::Shared> shared_;
  MemoryRatingsData data_;
  bool claimed_ = false;
  // The ledger's transaction, from the first settlement to the batch's end.
  std::optional<MemoryLedgerStore::OpenTransaction> ledger_;
};

bool MemoryBatch::Claim(const std::string& instance, ConsumerClaim& out) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  if (shared_->locked) return false;
  shared_->locked = claimed_ = true;
  data_ = shared_->data;  // what committed before the lock was taken
  out.previous_owner = data_.owner;
  out.previous_batch = data_.batch;
  data_.owner = instance;
  out.number = ++data_.batch;
  out.last_applied = 0;
  for (const auto& [game_id, a] : data_.applied)
    out.last_applied = std::max(out.last_applied, a.outbox_id);
  return true;
}

std::vector<OutboxRow> MemoryBatch::ReadPending(bool include_late, int64_t last_applied,
                                                int limit) {
  std::vector<OutboxRow> rows;
  for (const auto& [id, row] : data_.outbox) {
    if (static_cast<int>(rows.size()) == limit) break;
    if (data_.consumed.count(id) || (!include_late && id <= last_applied)) continue;
    rows.push_back(row);
  }
  return rows;
}

std::set<std::string> MemoryBatch::AppliedAmong(const std::vector<OutboxRow>& rows) {
  std::set<std::string> applied;
  for (const OutboxRow& row : rows) {
    if (data_.applied.count(row.game_id)) applied.insert(row.game_id);
  }
  return applied;
}

std::map<PlayerKey, StoredRating> MemoryBatch::ReadRatings(
    const std::set<PlayerKey>& players) {
  std::map<PlayerKey, StoredRating> out;
  for (const PlayerKey& key : players) {
    const auto stored = data_.ratings.find(key);
    if (stored != data_.ratings.end())
      out[key] = {stored->second.skill, stored->second.games};
  }
  return out;
}

Settlement MemoryBatch::Settle(const OutboxRow& row, const FinishedGame& game,
                               const SettlementPlan& plan) {
  if (data_.refused.count(game.game_id)) {
    return SetAside(row, game.game_id,
                    absl::StrCat("the settlement of ", game.game_id, " is refused"));
  }
  Settlement settled;
  const absl::Status s = OpenLedger().Run("settling a game", [&](LedgerTransaction& tx) {
    settled = Ledger::Settle(tx, game, plan);
    return absl::OkStatus();
  });
  if (!s.ok()) return SetAside(row, game.game_id, std::string(s.message()));
  return settled;
}

Settlement MemoryBatch::SetAside(const OutboxRow& row, const std::string& game_id,
                                 const std::string& error) {
  auto [it, added] = data_.set_aside.try_emplace(game_id);
  SetAsideSettlement& s = it->second;
  if (added) s.outbox_id = row.id;
  s.attempts += added ? 0 : 1;
  s.error = error;
  s.resolved = false;
  s.last_tried = absl::Now();
  OpenLedger().SetAside(game_id, true);  // its holds wait for it
  return {"set_aside", error};
}

bool MemoryBatch::WriteRatings(const BatchPlan& plan) {
  {
    // As an UPDATE does, look at what is committed now: a rating deleted since the
    // batch read it is gone.
    std::lock_guard<std::mutex> lock(shared_->mu);
    for (const auto& [key, p] : plan.players) {
      if (p.changed && p.stored && !shared_->data.ratings.count(key)) return false;
    }
  }
  for (const auto& [key, p] : plan.players) {
    if (!p.changed) continue;
    PlayerState& stored = data_.ratings[key];
    const bool bot = p.stored ? stored.bot : p.bot;  // an UPDATE keeps the row's bot
    stored = {p.skill, p.games, bot, false, true};
  }
  data_.history.insert(data_.history.end(), plan.history.begin(), plan.history.end());
  return true;
}

bool MemoryBatch::Write(const BatchPlan& plan, const std::vector<Settlement>& settled) {
  if (!plan.history.empty() && !WriteRatings(plan)) return false;
  for (size_t i = 0; i < plan.games.size(); ++i) {
    const GamePlan& g = plan.games[i];
    const AppliedGame a{g.row.id, g.game.ok() ? g.game->mode : "", g.rated,
                        settled[i].outcome, settled[i].note};
    if (!data_.applied.emplace(g.row.game_id, a).second) {
      throw std::runtime_error(
          absl::StrCat("game ", g.row.game_id, " is applied already"));
    }
  }
  data_.consumed.insert(plan.consumed.begin(), plan.consumed.end());
  return true;
}

std::optional<OutboxRow> MemoryBatch::LockSetAside(const std::string& game_id) {
  const auto s = data_.set_aside.find(game_id);
  if (s == data_.set_aside.end() || s->second.resolved) return std::nullopt;
  const auto row = data_.outbox.find(s->second.outbox_id);
  if (row == data_.outbox.end()) return std::nullopt;
  return row->second;
}

void MemoryBatch::ResolveSetAside(const std::string& game_id,
                                  const Settlement& settlement) {
  const auto applied = data_.applied.find(game_id);
  if (applied != data_.applied.end()) {
    applied->second.settlement = settlement.outcome;
    applied->second.note = settlement.note;
  }
  SetAsideSettlement& s = data_.set_aside[game_id];
  OpenLedger().SetAside(game_id, false);
  s.resolved = true;
  s.last_tried = absl::Now();
  ++s.attempts;
}

void MemoryBatch::Commit() {
  if (ledger_) {
    ledger_->Commit();
    ledger_.reset();
  }
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->data = data_;
  if (claimed_) shared_->locked = claimed_ = false;  // the lock ends with its transaction
}

}  // namespace

MemoryRatingsStore::MemoryRatingsStore() : shared_(std::make_shared<Shared>()) {}

std::unique_ptr<ConsumerBatch> MemoryRatingsStore::BeginBatch() {
  return std::make_unique<MemoryBatch>(shared_);
}

std::vector<std::string> MemoryRatingsStore::DueSetAside(absl::Duration after,
                                                         int limit) {
  const MemoryRatingsData data = Data();
  std::map<int64_t, std::string> due;  // by outbox id
  for (const auto& [game_id, s] : data.set_aside) {
    if (!s.resolved && s.last_tried <= absl::Now() - after) due[s.outbox_id] = game_id;
  }
  std::vector<std::string> out;
  for (const auto& [id, game_id] : due) {
    if (static_cast<int>(out.size()) == limit) break;
    out.push_back(game_id);
  }
  return out;
}

ConsumerLag MemoryRatingsStore::ReadLag() {
  const MemoryRatingsData data = Data();
  int64_t last = 0;
  for (const auto& [game_id, a] : data.applied) last = std::max(last, a.outbox_id);
  ConsumerLag lag;
  const int64_t newest = data.outbox.empty() ? 0 : data.outbox.rbegin()->first;
  lag.pending = std::max<int64_t>(newest - last, 0);
  for (const auto& [game_id, s] : data.set_aside) lag.open_set_aside += !s.resolved;
  return lag;
}

std::unique_ptr<MemoryRatingsStore> MemoryRatingsStore::Replica() {
  return std::unique_ptr<MemoryRatingsStore>(new MemoryRatingsStore(shared_));
}

void MemoryRatingsStore::AddOutboxRow(const OutboxRow& row) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->data.outbox[row.id] = row;
}

void MemoryRatingsStore::RefuseSettlementsOf(const std::string& game_id, bool refuse) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  if (refuse) {
    shared_->data.refused.insert(game_id);
  } else {
    shared_->data.refused.erase(game_id);
  }
}

void MemoryRatingsStore::DropRating(const PlayerKey& player) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->data.ratings.erase(player);
}

MemoryRatingsData MemoryRatingsStore::Data() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->data;
}

}  // namespace trix::ratings
