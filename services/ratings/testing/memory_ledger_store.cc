#include "services/ratings/testing/memory_ledger_store.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/auth.h"

namespace trix::ratings {
namespace {

bool Open(const MemoryHold& h) {
  return h.hold.state == HoldState::kHeld || h.hold.state == HoldState::kAttached;
}

// An open hold past its TTL.
bool PastTtl(const MemoryHold& h, const HoldTtls& ttls, absl::Time now) {
  return (h.hold.state == HoldState::kHeld && h.updated < now - ttls.held) ||
         (h.hold.state == HoldState::kAttached && h.updated < now - ttls.attached);
}

// An open hold the sweep may release: past its TTL, and not attached to a table
// whose settlement is set aside.
bool Sweepable(const MemoryLedgerData& data, const MemoryHold& h, const HoldTtls& ttls,
               absl::Time now) {
  return PastTtl(h, ttls, now) &&
         (h.hold.state == HoldState::kHeld || !data.set_aside.count(h.hold.table_id));
}

// The schema's CHECKs on an account row, as each statement meets them.
void CheckAccount(const std::string& account_id, const MemoryAccount& a) {
  if ((a.kind != "world" && a.balance < 0) || a.held < 0 ||
      (a.kind == "player" && a.held > a.balance)) {
    throw std::runtime_error(absl::StrCat("account ", account_id, " breaks its check: balance ",
                                          a.balance, ", held ", a.held));
  }
}

BalanceInfo BalanceOf(const std::string& player_id, const MemoryAccount& a) {
  return {player_id, a.balance, a.held};
}

class MemoryLedgerTransaction : public LedgerTransaction {
 public:
  explicit MemoryLedgerTransaction(MemoryLedgerData& data) : data_(data) {}

  // Transactions run one at a time: nothing to wait for.
  void LockKey(const std::string&) override {}
  void OpenAccount(const std::string& account_id, const std::string& kind) override {
    data_.accounts.try_emplace(account_id, MemoryAccount{kind});
  }
  std::optional<BalanceInfo> LockBalance(const std::string& player_id) override {
    const auto a = data_.accounts.find(PlayerAccount(player_id));
    if (a == data_.accounts.end()) return std::nullopt;
    return BalanceOf(player_id, a->second);
  }
  void AddHeld(const std::string& player_id, int64_t amount) override;
  std::optional<PostedTransfer> FindTransfer(const std::string& request_id,
                                             const std::string& account_id) override;
  int64_t PostEntry(EntryKind kind, const std::string& request_id, const std::string& game_id,
                    const std::string& reason, const LedgerLines& lines) override;
  std::optional<HoldInfo> FindHoldByRequest(const std::string& request_id) override;
  std::optional<HoldInfo> LockHold(const std::string& hold_id) override {
    const auto h = data_.holds.find(hold_id);
    if (h == data_.holds.end()) return std::nullopt;
    return h->second.hold;
  }
  std::vector<HoldInfo> LockTableHolds(const std::string& table_id) override;
  HoldInfo AddHold(const std::string& request_id, const std::string& player_id,
                   int64_t amount) override;
  bool SeatTaken(const std::string& table_id, int seat) override;
  void ReleaseHold(const HoldInfo& hold) override {
    AddHeld(hold.player_id, -hold.amount);
    Change(hold.hold_id).hold.state = HoldState::kReleased;
  }
  void AttachHold(const std::string& hold_id, const std::string& table_id,
                  int seat) override {
    HoldInfo& h = Change(hold_id).hold;
    h.state = HoldState::kAttached;
    h.table_id = table_id;
    h.seat = seat;
  }
  void KeepHold(const std::string& hold_id) override { Change(hold_id); }
  void SettleHold(const std::string& hold_id, int64_t entry_id) override {
    MemoryHold& h = Change(hold_id);
    h.hold.state = HoldState::kSettled;
    h.entry_id = entry_id;
  }
  bool Sweepable(const std::string& hold_id, const HoldTtls& ttls) override {
    const auto h = data_.holds.find(hold_id);
    return h != data_.holds.end() && ratings::Sweepable(data_, h->second, ttls, now_);
  }

 private:
  // The hold, its last change now.
  MemoryHold& Change(const std::string& hold_id) {
    MemoryHold& h = data_.holds.at(hold_id);
    h.updated = now_;
    return h;
  }

  MemoryLedgerData& data_;
  const absl::Time now_ = absl::Now();
};

void MemoryLedgerTransaction::AddHeld(const std::string& player_id, int64_t amount) {
  const auto a = data_.accounts.find(PlayerAccount(player_id));
  if (a == data_.accounts.end()) return;  // as an UPDATE of no row
  a->second.held += amount;
  CheckAccount(a->first, a->second);
}

std::optional<PostedTransfer> MemoryLedgerTransaction::FindTransfer(
    const std::string& request_id, const std::string& account_id) {
  for (size_t i = 0; i < data_.entries.size(); ++i) {
    const MemoryEntry& e = data_.entries[i];
    if (e.request_id.empty() || e.request_id != request_id) continue;
    PostedTransfer out{static_cast<int64_t>(i + 1), e.kind, e.reason, std::nullopt};
    const auto line = e.lines.find(account_id);
    if (line != e.lines.end()) out.amount = line->second.amount;
    return out;
  }
  return std::nullopt;
}

int64_t MemoryLedgerTransaction::PostEntry(EntryKind kind, const std::string& request_id,
                                           const std::string& game_id,
                                           const std::string& reason,
                                           const LedgerLines& lines) {
  MemoryEntry e{kind, request_id, game_id, reason, now_, {}};
  for (const auto& [account_id, amount] : lines) {
    const auto a = data_.accounts.find(account_id);
    if (amount == 0 || a == data_.accounts.end()) continue;  // no row: no line
    a->second.balance += amount;
    CheckAccount(a->first, a->second);
    e.lines[account_id] = {amount, a->second.balance};
  }
  data_.entries.push_back(std::move(e));
  return static_cast<int64_t>(data_.entries.size());
}

std::optional<HoldInfo> MemoryLedgerTransaction::FindHoldByRequest(
    const std::string& request_id) {
  for (const auto& [id, h] : data_.holds) {
    if (h.request_id == request_id) return h.hold;
  }
  return std::nullopt;
}

std::vector<HoldInfo> MemoryLedgerTransaction::LockTableHolds(const std::string& table_id) {
  std::vector<HoldInfo> holds;
  for (const auto& [id, h] : data_.holds) {
    if (h.hold.state == HoldState::kAttached && h.hold.table_id == table_id) {
      holds.push_back(h.hold);
    }
  }
  std::sort(holds.begin(), holds.end(),
            [](const HoldInfo& a, const HoldInfo& b) { return a.seat < b.seat; });
  return holds;
}

HoldInfo MemoryLedgerTransaction::AddHold(const std::string& request_id,
                                          const std::string& player_id, int64_t amount) {
  MemoryHold h;
  h.hold.hold_id = service::NewUuid();
  h.hold.player_id = player_id;
  h.hold.amount = amount;
  h.request_id = request_id;
  h.created = h.updated = now_;
  data_.holds[h.hold.hold_id] = h;
  return h.hold;
}

bool MemoryLedgerTransaction::SeatTaken(const std::string& table_id, int seat) {
  for (const auto& [id, h] : data_.holds) {
    if (h.hold.state == HoldState::kAttached && h.hold.table_id == table_id &&
        h.hold.seat == seat) {
      return true;
    }
  }
  return false;
}

// Each entry from `first` on sums to zero (the journal's check at commit).
absl::Status CheckEntries(const MemoryLedgerData& data, size_t first) {
  for (size_t i = first; i < data.entries.size(); ++i) {
    int64_t sum = 0;
    for (const auto& [account_id, line] : data.entries[i].lines) sum += line.amount;
    if (sum != 0) {
      return absl::InternalError(absl::StrCat("journal entry ", i + 1, " does not sum to zero"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

MemoryLedgerStore::MemoryLedgerStore() {
  data_.accounts["world"] = {"world"};
  for (int n = 0; n < 16; ++n) data_.accounts[absl::StrCat("world:", n)] = {"world"};
}

MemoryLedgerStore::OpenTransaction::OpenTransaction(MemoryLedgerStore& store)
    : store_(store), lock_(store.mu_), data_(store.data_) {}

absl::Status MemoryLedgerStore::OpenTransaction::Run(
    absl::string_view context, absl::FunctionRef<absl::Status(LedgerTransaction&)> work) {
  MemoryLedgerData copy = data_;
  MemoryLedgerTransaction tx(copy);
  absl::Status s;
  try {
    s = work(tx);
  } catch (const std::runtime_error& e) {
    return absl::InternalError(absl::StrCat(context, ": ", e.what()));
  }
  if (s.ok()) s = CheckEntries(copy, data_.entries.size());
  if (s.ok()) data_ = std::move(copy);
  return s;
}

void MemoryLedgerStore::OpenTransaction::SetAside(const std::string& table_id,
                                                  bool set_aside) {
  if (set_aside) {
    data_.set_aside.insert(table_id);
  } else {
    data_.set_aside.erase(table_id);
  }
}

void MemoryLedgerStore::OpenTransaction::Commit() { store_.data_ = data_; }

absl::Status MemoryLedgerStore::Transact(
    absl::string_view context, absl::FunctionRef<absl::Status(LedgerTransaction&)> work) {
  OpenTransaction tx(*this);
  const absl::Status s = tx.Run(context, work);
  if (s.ok()) tx.Commit();
  return s;
}

absl::StatusOr<std::optional<BalanceInfo>> MemoryLedgerStore::ReadBalance(
    const std::string& player_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto a = data_.accounts.find(PlayerAccount(player_id));
  if (a == data_.accounts.end()) return std::nullopt;
  return BalanceOf(player_id, a->second);
}

absl::StatusOr<std::optional<std::vector<StatementEntry>>> MemoryLedgerStore::ReadStatement(
    const std::string& player_id, int64_t before, int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string account_id = PlayerAccount(player_id);
  if (!data_.accounts.count(account_id)) return std::nullopt;
  std::vector<StatementEntry> lines;
  const int64_t newest = std::min<int64_t>(before - 1, data_.entries.size());
  for (int64_t id = newest; id >= 1 && static_cast<int>(lines.size()) < limit; --id) {
    const MemoryEntry& e = data_.entries[id - 1];
    const auto line = e.lines.find(account_id);
    if (line == e.lines.end()) continue;
    lines.push_back({id, e.kind, line->second.amount, line->second.balance_after, e.game_id,
                     e.reason, e.created});
  }
  return lines;
}

absl::StatusOr<std::vector<std::string>> MemoryLedgerStore::FindSweepable(const HoldTtls& ttls,
                                                                          int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const MemoryHold*> due;
  for (const auto& [id, h] : data_.holds) {
    if (Sweepable(data_, h, ttls, absl::Now())) due.push_back(&h);
  }
  std::sort(due.begin(), due.end(),
            [](const MemoryHold* a, const MemoryHold* b) { return a->updated < b->updated; });
  std::vector<std::string> out;
  for (size_t i = 0; i < due.size() && static_cast<int>(i) < limit; ++i) {
    out.push_back(due[i]->hold.hold_id);
  }
  return out;
}

absl::StatusOr<OpenHolds> MemoryLedgerStore::ReadOpenHolds(const HoldTtls& ttls) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  OpenHolds out;
  for (const auto& [id, h] : data_.holds) {
    if (!Open(h)) continue;
    out.oldest_seconds = std::max(out.oldest_seconds, absl::ToDoubleSeconds(now - h.created));
    out.past_ttl += PastTtl(h, ttls, now);
  }
  return out;
}

void MemoryLedgerStore::SetAside(const std::string& table_id, bool set_aside) {
  OpenTransaction tx(*this);
  tx.SetAside(table_id, set_aside);
  tx.Commit();
}

void MemoryLedgerStore::Age(const std::string& hold_id, absl::Duration age) {
  std::lock_guard<std::mutex> lock(mu_);
  MemoryHold& h = data_.holds.at(hold_id);
  h.created -= age;
  h.updated -= age;
}

MemoryLedgerData MemoryLedgerStore::Data() {
  std::lock_guard<std::mutex> lock(mu_);
  return data_;
}

}  // namespace trix::ratings
