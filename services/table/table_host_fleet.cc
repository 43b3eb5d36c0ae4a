// TableHost in a fleet of instances: adopting a table a call asks for (the
// adoptions' bound, their turns and the ids found unknown are Adoptions':
// adoptions.h), claim rounds' tables, the hosted tables' side of lease renewal
// (the lease itself, claims, owed releases, where a table lives and the registry
// are the Fleet's: fleet.h), and quarantine.
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "proto/wire/wire.h"
#include "services/common/logging.h"
#include "services/table/refusals.h"
#include "services/table/slot.h"
#include "services/table/table_host.h"

namespace trix::table {

using service::LogError;
using service::LogInfo;
using service::LogWarn;

// --- Adopting on a call -------------------------------------------------------------

std::shared_ptr<Slot> TableHost::SlotFor(const std::string& table_id,
                                                    bool for_call, absl::Status* refused) {
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(table_id);
  if (it != slots_.end()) return it->second;
  if (!for_call) return NewPlaceholder(table_id, /*for_call=*/false);
  switch (adoptions_.Admit(table_id, MayHold(), absl::Now(), refused)) {
    case Adoptions::Turn::kStart:
      return NewPlaceholder(table_id, /*for_call=*/true);
    case Adoptions::Turn::kWait:
      // Held like a claim round's placeholder, until StartWaitingAdoption (or a
      // claim round) lets it load.
      return NewPlaceholder(table_id, /*for_call=*/false, /*awaiting_claim=*/true);
    case Adoptions::Turn::kRefused:
      break;
  }
  return nullptr;
}

void TableHost::StartWaitingAdoption() {
  for (;;) {
    std::shared_ptr<Slot> slot;
    {
      absl::MutexLock lock(&mu_);
      // Skipped: a waiting table whose placeholder is gone (a claim round took it).
      auto placeholder = [&](const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        auto it = slots_.find(id);
        if (it != slots_.end()) slot = it->second;
        return slot != nullptr;
      };
      if (!adoptions_.StartWaiting(placeholder)) return;
    }
    // A placeholder a claim round delivered to holds nothing any more: it loads
    // what the round read.
    if (slot->strand.StopHolding([&] { slot->for_call = true; })) {
      Touch(slot, nullptr);  // whether or not its calls still wait
      return;
    }
    adoptions_.NotStarted();
  }
}

std::shared_ptr<Slot> TableHost::ClaimedSlot(
    const std::string& table_id, absl::StatusOr<StoredGame> claimed) {
  std::shared_ptr<Slot> slot;
  {
    absl::MutexLock lock(&mu_);
    auto it = slots_.find(table_id);
    if (it == slots_.end()) {
      slot = NewPlaceholder(table_id, /*for_call=*/false);
      slot->claimed = std::make_unique<absl::StatusOr<StoredGame>>(std::move(claimed));
      return slot;
    }
    slot = it->second;
  }
  // The round's own placeholder gets the table as read; one that awaits nothing
  // is hosted already, or a call's placeholder, which claims it for itself.
  DeliverClaimed(*slot, claimed);
  return slot;
}

std::shared_ptr<Slot> TableHost::NewPlaceholder(const std::string& table_id,
                                                           bool for_call,
                                                           bool awaiting_claim) {
  auto slot = std::make_shared<Slot>(table_id);
  slot->adopting = true;  // Drain loads it through AdoptOnCall
  slot->for_call = for_call;
  if (awaiting_claim) slot->strand.HoldForLoad();  // not yet published
  slots_.emplace(table_id, slot);
  return slot;
}

void TableHost::AwaitClaimed(const std::vector<std::string>& table_ids) {
  absl::MutexLock lock(&mu_);
  for (const std::string& id : table_ids) {
    if (!slots_.contains(id)) NewPlaceholder(id, /*for_call=*/false, /*awaiting_claim=*/true);
  }
  metrics_.tables.Set(static_cast<double>(slots_.size()));
}

bool TableHost::DeliverClaimed(Slot& slot, absl::StatusOr<StoredGame>& claimed) {
  // No command ran on the strand while it held them, so the load that follows is
  // the first to take `claimed`.
  return slot.strand.StopHolding([&] {
    slot.claimed = std::make_unique<absl::StatusOr<StoredGame>>(std::move(claimed));
  });
}

absl::Status TableHost::LoadWaitOver(const std::string& table_id) const {
  metrics_.refused_busy.Increment();
  return absl::UnavailableError(absl::StrCat(
      "table ", table_id, " is being looked up or taken over by this instance and "
      "was not ready within ", absl::FormatDuration(options_.load_wait),
      "; retry in a second"));
}

absl::optional<absl::Time> TableHost::RefuseHeld(Slot& slot, absl::Time before,
                                                 const absl::Status& status) {
  std::vector<Strand::Command> refused;
  const absl::optional<absl::Time> oldest_left = slot.strand.TakeHeld(before, &refused);
  // Off the strand, as Post's refusals: a command with an error only answers.
  for (Strand::Command& command : refused) command(status);
  return oldest_left;
}

void TableHost::OnLoadWaitOver(const std::string& table_id) {
  std::shared_ptr<Slot> slot = FindSlot(table_id);
  if (!slot) return;
  const absl::optional<absl::Time> oldest_left = RefuseHeld(
      *slot, absl::Now() - options_.load_wait, LoadWaitOver(table_id));
  if (oldest_left) load_waits_.Schedule(table_id, *oldest_left + options_.load_wait);
}

void TableHost::Touch(const std::shared_ptr<Slot>& slot, std::function<void()> loaded) {
  Post(
      slot,
      [loaded = std::move(loaded)](Slot&, const absl::Status&) {
        if (loaded) loaded();
      },
      /*bounded=*/false);
}

void TableHost::AdoptOnCall(const std::shared_ptr<Slot>& slot) {
  // On the io pool, the strand suspended. A table a claim round read is restored
  // as read; any other is located and claimed first.
  std::unique_ptr<absl::StatusOr<StoredGame>> claimed = std::move(slot->claimed);
  FinishAdoption(slot,
                 claimed ? RestoreClaimed(slot->id, std::move(*claimed)) : ClaimAndLoad(slot->id),
                 /*here=*/false);
}

void TableHost::AdoptRead(const std::shared_ptr<Slot>& slot) {
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Restore(**slot->claimed);
  slot->claimed.reset();
  if (table.ok()) return FinishAdoption(slot, std::move(table), /*here=*/true);
  // Quarantining or releasing it writes to the store: on the io pool.
  io_.Post([this, slot, failure = table.status()] {
    FinishAdoption(slot, NotRestored(slot->id, failure), /*here=*/false);
  });
}

void TableHost::FinishAdoption(const std::shared_ptr<Slot>& slot,
                               absl::StatusOr<std::unique_ptr<Table>> adopted, bool here) {
  auto table = std::make_shared<absl::StatusOr<std::unique_ptr<Table>>>(std::move(adopted));
  const bool for_call = slot->for_call;
  // A table the database does not know is remembered as unknown for a while.
  adoptions_.Ended(slot->id, for_call, table->status(), absl::Now());
  if (for_call) StartWaitingAdoption();
  Complete(
      slot,
      [this, slot, table] {
        if (table->ok()) return Adopted(slot, std::move(**table));
        Forget(*slot, table->status());
      },
      here);
}

absl::StatusOr<std::unique_ptr<Table>> TableHost::ClaimAndLoad(const std::string& id) {
  absl::StatusOr<table::TableHome> home = fleet_.Home(id);
  if (!home.ok()) {
    // Maintenance may have claimed this table for us (an orphan) before the
    // database failed: give it back rather than hold it, unhosted, until it lapses.
    if (!absl::IsNotFound(home.status())) fleet_.ReleaseClaim(id);
    return home.status();
  }
  if (!home->broken.empty()) return QuarantinedError(home->broken);
  if (home->finished) {
    // Served read-only from its log: no lease needed.
    absl::StatusOr<StoredGame> stored = store_->LoadGame(id);
    if (!stored.ok()) return stored.status();
    return Table::Restore(*stored);
  }
  absl::StatusOr<bool> claimed = fleet_.Claim(id);
  if (!claimed.ok()) {
    fleet_.ReleaseClaim(id);  // the claim may have been written before the error
    return claimed.status();
  }
  if (!*claimed) return fleet_.Locate(id, "another instance hosts it");
  absl::StatusOr<std::unique_ptr<Table>> table = LoadClaimed(id);
  if (table.ok()) ClaimRoundNow();  // its neighbours are likely free too
  return table;
}

absl::StatusOr<std::unique_ptr<Table>> TableHost::LoadClaimed(const std::string& id) {
  return RestoreClaimed(id, store_->LoadGame(id));
}

absl::StatusOr<std::unique_ptr<Table>> TableHost::RestoreClaimed(
    const std::string& id, absl::StatusOr<StoredGame> stored) {
  absl::StatusOr<std::unique_ptr<Table>> table =
      stored.ok() ? Table::Restore(*stored) : stored.status();
  if (table.ok()) return table;
  return NotRestored(id, table.status());
}

absl::Status TableHost::NotRestored(const std::string& id, const absl::Status& failure) {
  if (failure.code() == absl::StatusCode::kDataLoss) {
    const std::string reason(failure.message());
    MarkBroken(id, reason);
    CountQuarantine(id, reason);
    return QuarantinedError(reason);
  }
  // A claim whose adoption failed is released at once, for whoever can load it.
  fleet_.ReleaseClaim(id);
  LogWarn("cannot adopt table", {{"table", id}, {"error", failure.ToString()}});
  return absl::UnavailableError(absl::StrCat("table ", id, " cannot be loaded now (",
                                             failure.message(), "); retry"));
}

void TableHost::Adopted(const std::shared_ptr<Slot>& slot, std::unique_ptr<Table> table) {
  slot->adopting = false;
  // Events already in the log were streamed by whoever wrote them; clients resume
  // with after_seq.
  slot->streamed = table->event_count();
  slot->acknowledged = table->log_length();
  if (!slot->seats_known.load(std::memory_order_acquire)) {
    for (int s = 0; s < engine::kNumSeats; ++s) {
      slot->token_hashes[s] = table->seats()[s].token_hash;
      slot->player_ids[s] = table->seats()[s].player_id;
    }
    slot->seats_known.store(true, std::memory_order_release);
  }
  const bool live = !table->ended();
  slot->table = std::move(table);
  slot->hosted.store(live);
  UpdateListing(*slot);
  if (!live) return;  // a finished or voided table: read-only until it lingers out
  metrics_.recovered.Increment();
  LogInfo("table adopted", {{"table", slot->id}, {"entries", slot->table->log_length()}});
  PlayDueMoves(slot, /*restart_clock=*/true);  // and plays what is due
}

void TableHost::LocateTable(const v1::LocateTableRequest& request,
                            Reply<v1::TableLocation> reply) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckTableId(request.table_id()); !s.ok()) return reply(s);
  PostRead(
      [this, id = request.table_id(), reply] {
        absl::StatusOr<table::TableHome> home = fleet_.Home(id);
        if (!home.ok()) return reply(home.status());
        reply(LocationOf(id, *home));
      },
      [reply](const absl::Status& s) { reply(s); });
}

// --- Leases -------------------------------------------------------------------------

namespace {

// The tables a renewal keeps: the live ones hosted here when it runs. Each one
// the renewal did not keep is let go with its location (TableHost::LostLease).
class HostedLeases : public Fleet::Hosted {
 public:
  using Slots = std::vector<std::shared_ptr<Slot>>;
  HostedLeases(std::function<Slots()> live,
               std::function<void(const std::shared_ptr<Slot>&)> lost)
      : live_(std::move(live)), lost_(std::move(lost)) {}

  std::vector<std::string> List() override {
    slots_ = live_();
    std::vector<std::string> ids;
    ids.reserve(slots_.size());
    for (const std::shared_ptr<Slot>& slot : slots_) ids.push_back(slot->id);
    return ids;
  }
  void DropLost(const absl::flat_hash_set<std::string>& kept) override {
    for (const std::shared_ptr<Slot>& slot : slots_) {
      if (!kept.contains(slot->id)) lost_(slot);
    }
  }

 private:
  const std::function<Slots()> live_;
  const std::function<void(const std::shared_ptr<Slot>&)> lost_;
  Slots slots_;
};

}  // namespace

void TableHost::WhenFresh(std::function<void(const absl::Status&)> then) {
  if (fleet_.LeasesFresh()) return then(absl::OkStatus());
  io_.Post([this, then = std::move(then)] {
    if (RenewHosted(/*refresh=*/true).ok()) return then(absl::OkStatus());
    then(absl::UnavailableError(
        "this instance cannot confirm its table leases (the database does not "
        "answer); retry, or ask LocateTable where the table is"));
  });
}

absl::Status TableHost::RenewHosted(bool refresh) {
  HostedLeases hosted([this] { return LiveHosted(); },
                      [this](const std::shared_ptr<Slot>& slot) { LostLease(slot); });
  if (!refresh) return fleet_.Renew(hosted);
  return fleet_.Refresh(hosted) ? absl::OkStatus()
                                : absl::UnavailableError("the leases are not fresh");
}

std::vector<std::shared_ptr<Slot>> TableHost::LiveHosted() const {
  std::vector<std::shared_ptr<Slot>> live;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, slot] : slots_) {
    if (slot->hosted.load() && !slot->finished.load()) live.push_back(slot);
  }
  return live;
}

void TableHost::LostLease(const std::shared_ptr<Slot>& slot) {
  // Where it went, found here (off the strand), then the strand lets it go.
  absl::Status moved = fleet_.Locate(slot->id, "lease lost: another instance took it over");
  slot->hosted.store(false);
  Post(
      slot,
      [this, moved](Slot& s, const absl::Status&) {
        if (s.finished.load() || s.evicted) return;  // it ended meanwhile
        metrics_.leases_lost.Increment();
        LogWarn("lease lost", {{"table", s.id}, {"now", moved.ToString()}});
        Forget(s, moved);
      },
      /*bounded=*/false);
}

void TableHost::LoseLease(const std::shared_ptr<Slot>& slot, const absl::Status& why,
                          std::function<void(const absl::Status&)> after) {
  // On the strand, after an append was refused "lease lost".
  metrics_.leases_lost.Increment();
  slot->hosted.store(false);
  slot->strand.Suspend();
  io_.Post([this, slot, why, after = std::move(after)] {
    absl::Status moved = fleet_.Locate(slot->id, why.message());
    Complete(slot, [this, slot, moved, after] {
      Forget(*slot, moved);
      after(moved);
    });
  });
}

void TableHost::Heartbeat() {
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    address = advertise_address_;
  }
  fleet_.Heartbeat(address, static_cast<int>(table_count()), draining_.load());
}

void TableHost::AdoptClaimed(const std::vector<std::string>& table_ids,
                             std::function<void()> loaded) {
  AwaitClaimed(table_ids);
  for (size_t first = 0; first < table_ids.size(); first += kLoadBatch) {
    std::vector<std::string> batch(
        table_ids.begin() + first,
        table_ids.begin() + std::min(first + kLoadBatch, table_ids.size()));
    io_.Post([this, batch = std::move(batch), loaded] {
      absl::StatusOr<std::vector<absl::StatusOr<StoredGame>>> games =
          store_->LoadGames(batch);
      for (size_t i = 0; i < batch.size(); ++i) {
        absl::StatusOr<StoredGame> game =
            games.ok() ? std::move((*games)[i]) : games.status();
        Touch(ClaimedSlot(batch[i], std::move(game)), loaded);
      }
    });
  }
}

void TableHost::AdoptAtStart() {
  std::vector<std::string> ids = fleet_.ClaimPreviousRuns();
  for (std::string& id : fleet_.ClaimOrphans(options_.claim_batch)) {
    ids.push_back(std::move(id));
  }
  struct Countdown {
    absl::Mutex mu;
    size_t left ABSL_GUARDED_BY(mu) = 0;
  };
  auto countdown = std::make_shared<Countdown>();
  {
    absl::MutexLock lock(&countdown->mu);
    countdown->left = ids.size();
  }
  AdoptClaimed(ids, [countdown] {
    absl::MutexLock lock(&countdown->mu);
    --countdown->left;
  });
  absl::MutexLock lock(&countdown->mu);
  auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(countdown->mu) {
    return countdown->left == 0;
  };
  if (!countdown->mu.AwaitWithTimeout(absl::Condition(&done), options_.adopt_timeout)) {
    LogWarn("start: tables still loading", {{"tables", countdown->left}});
  }
}

// --- Quarantine ---------------------------------------------------------------------

void TableHost::Quarantine(Slot& slot, const std::string& reason) {
  Forget(slot, QuarantinedError(reason));
  CountQuarantine(slot.id, reason);
  io_.Post([this, id = slot.id, reason] { MarkBroken(id, reason); });
}

void TableHost::MarkBroken(const std::string& table_id, const std::string& reason) {
  const absl::Status marked = store_->MarkBroken(table_id, reason);
  if (marked.ok()) return;  // and released
  LogError("cannot quarantine table", {{"table", table_id}, {"error", marked.ToString()}});
  // Not hosted, yet this instance's lease keeps it: released, the next instance
  // to load it quarantines it.
  fleet_.ReleaseClaim(table_id);
}

void TableHost::CountQuarantine(const std::string& table_id, const std::string& reason) {
  metrics_.quarantined.Increment();
  LogError("table quarantined",
           {{"table", table_id},
            {"reason", reason},
            {"clear_with", absl::StrCat("UPDATE games SET broken = NULL WHERE id = '",
                                        table_id, "'")}});
}

void TableHost::BreakTableForTesting(const std::string& table_id,
                                     const std::string& reason) {
  if (std::shared_ptr<Slot> slot = FindSlot(table_id)) {
    Post(slot, [reason](Slot& s, const absl::Status& status) {
      if (status.ok()) s.table->BreakForTesting(reason);
    });
  }
}

}  // namespace trix::table
