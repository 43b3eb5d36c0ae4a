#include "services/table/testing/memory_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trix::table {

MemoryStore::MemoryStore(std::shared_ptr<MemoryDatabase> db, std::string instance_id,
                         absl::Duration lease_ttl)
    : db_(std::move(db)),
      instance_id_(std::move(instance_id)),
      lease_ttl_(lease_ttl),
      writer_([this] { Writer(); }) {}

MemoryStore::~MemoryStore() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    hold_ = false;
  }
  writer_.join();
}

void MemoryStore::FailNextAppends(int count, absl::Status status) {
  absl::MutexLock lock(&mu_);
  fail_count_ = count;
  fail_status_ = std::move(status);
}

void MemoryStore::FailNextCalls(const std::string& method, int count,
                                absl::Status status) {
  absl::MutexLock lock(&mu_);
  failing_[method] = {count, std::move(status)};
}

void MemoryStore::HoldCalls(const std::string& method, bool hold) {
  absl::MutexLock lock(&mu_);
  held_[method] = hold;
}

int64_t MemoryStore::calls(const std::string& method) const {
  absl::MutexLock lock(&mu_);
  auto it = calls_.find(method);
  return it == calls_.end() ? 0 : it->second;
}

absl::Status MemoryStore::Injected(const std::string& method) {
  absl::MutexLock lock(&mu_);
  ++calls_[method];
  auto released = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !held_[method]; };
  mu_.Await(absl::Condition(&released));
  auto it = failing_.find(method);
  if (it == failing_.end() || it->second.first == 0) return absl::OkStatus();
  --it->second.first;
  return it->second.second;
}

void MemoryStore::HoldAppends(bool hold) {
  absl::MutexLock lock(&mu_);
  hold_ = hold;
}

size_t MemoryStore::held_appends() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

void MemoryStore::SetUnavailable(bool unavailable) {
  absl::MutexLock lock(&mu_);
  unavailable_ = unavailable;
}

int64_t MemoryStore::appends() const {
  absl::MutexLock lock(&mu_);
  return appends_;
}

absl::Status MemoryStore::CheckReady() {
  absl::MutexLock lock(&mu_);
  return unavailable_ ? absl::UnavailableError("memory store is down") : absl::OkStatus();
}

absl::Status MemoryStore::CreateGame(const NewGame& game,
                                     std::string* existing_game_id) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  if (!game.request_id.empty()) {
    auto it = db_->request_ids.find(game.request_id);
    if (it != db_->request_ids.end()) {
      if (existing_game_id) *existing_game_id = it->second;
      return absl::AlreadyExistsError("request id seen before");
    }
    db_->request_ids[game.request_id] = game.game_id;
  }
  MemoryDatabase::Game& g = db_->games[game.game_id];
  g.stored.game = game;
  g.stored.game.entries.clear();  // the log's, as PostgreSQL keeps them
  g.stored.game.deadline.reset();
  g.stored.created = absl::FromUnixMicros(absl::ToUnixMicros(absl::Now()));
  for (const LogEntry& e : game.entries) {
    LogEntry copy = e;
    copy.time = absl::FromUnixMicros(absl::ToUnixMicros(e.time));
    g.stored.entries.push_back(std::move(copy));
  }
  g.stored.deadline = game.deadline;
  g.lease_owner = instance_id_;
  g.lease_until = absl::Now() + lease_ttl_;
  return absl::OkStatus();
}

void MemoryStore::SetInlineAppends(bool inline_appends) {
  absl::MutexLock lock(&mu_);
  inline_ = inline_appends;
}

void MemoryStore::Append(AppendRequest request,
                         std::function<void(absl::Status)> done) {
  {
    absl::MutexLock lock(&mu_);
    if (!inline_) {
      queue_.push_back({std::move(request), std::move(done)});
      return;
    }
    ++appends_;
  }
  done(Write(request));
}

void MemoryStore::Writer() {
  for (;;) {
    Pending next;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || (!hold_ && !queue_.empty());
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;
      next = std::move(queue_.front());
      queue_.pop_front();
      ++appends_;
      if (unavailable_) {
        status = absl::UnavailableError("memory store is down");
      } else if (fail_count_ > 0) {
        --fail_count_;
        status = fail_status_;
      }
    }
    if (status.ok()) status = Write(next.request);
    next.done(status);
  }
}

absl::Status MemoryStore::Write(const AppendRequest& request) {
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(request.game_id);
  if (it == db_->games.end()) return absl::NotFoundError("no such game");
  MemoryDatabase::Game& g = it->second;
  // As log_append (migrations/0034): the owner's, and not released.
  if (g.lease_owner != instance_id_ || g.lease_until == absl::InfinitePast()) {
    return absl::AbortedError("lease lost");
  }
  if (g.stored.finished) return absl::FailedPreconditionError("game has ended");
  for (size_t i = 0; i < request.entries.size(); ++i) {
    const LogEntry& e = request.entries[i];
    if (e.index != static_cast<int64_t>(g.stored.entries.size() + i)) {
      return absl::FailedPreconditionError("entry index does not continue the log");
    }
    if (!e.request_id.empty()) {
      for (const LogEntry& old : g.stored.entries) {
        if (old.seat == e.seat && old.request_id == e.request_id) {
          return absl::AlreadyExistsError("duplicate request id");
        }
      }
    }
  }
  for (const LogEntry& e : request.entries) {
    LogEntry copy = e;
    copy.time = absl::FromUnixMicros(absl::ToUnixMicros(e.time));
    g.stored.entries.push_back(std::move(copy));
  }
  g.stored.deadline = request.deadline;
  if (request.end) {
    g.stored.finished = true;
    g.stored.result = request.end->result;
    g.outbox.push_back(request.end->outbox_payload);
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredGame> MemoryStore::LoadGame(const std::string& game_id) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = Injected("LoadGame"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  return Stored(game_id);
}

absl::StatusOr<StoredGame> MemoryStore::Stored(const std::string& game_id) const {
  auto it = db_->games.find(game_id);
  if (it == db_->games.end()) {
    return absl::NotFoundError(absl::StrCat("game ", game_id, " not found"));
  }
  return it->second.stored;
}

absl::StatusOr<std::vector<absl::StatusOr<StoredGame>>> MemoryStore::LoadGames(
    const std::vector<std::string>& game_ids) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = Injected("LoadGames"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  std::vector<absl::StatusOr<StoredGame>> out;
  for (const std::string& id : game_ids) out.push_back(Stored(id));
  return out;
}

absl::StatusOr<std::vector<std::string>> MemoryStore::RenewHosted(
    absl::Duration ttl, const std::vector<std::string>& hosted) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  // As the instance lease does (migrations/0034): every game this instance owns,
  // hosted or not, stays its own until released or claimed.
  const absl::Time now = absl::Now();
  for (auto& [id, g] : db_->games) {
    if (g.lease_owner == instance_id_ && !g.stored.finished &&
        g.lease_until != absl::InfinitePast()) {
      g.lease_until = std::max(g.lease_until, now + ttl);
    }
  }
  std::vector<std::string> renewed;
  for (const std::string& id : hosted) {
    auto it = db_->games.find(id);
    if (it == db_->games.end()) continue;
    const MemoryDatabase::Game& g = it->second;
    if (g.lease_owner == instance_id_ && !g.stored.finished) renewed.push_back(id);
  }
  return renewed;
}

absl::StatusOr<bool> MemoryStore::ClaimTable(const std::string& game_id,
                                             absl::Duration ttl) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = Injected("ClaimTable"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(game_id);
  if (it == db_->games.end()) return false;
  MemoryDatabase::Game& g = it->second;
  const absl::Time now = absl::Now();
  if (g.stored.finished || !g.broken.empty() ||
      (g.lease_until >= now && g.lease_owner != instance_id_)) {
    return false;
  }
  g.lease_owner = instance_id_;
  g.lease_until = now + ttl;
  return true;
}

absl::StatusOr<std::vector<std::string>> MemoryStore::ClaimPreviousRuns(
    const std::string& name, absl::Duration ttl) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  std::vector<std::string> claimed;
  const std::string prefix = name + "#";
  for (auto& [id, g] : db_->games) {
    if (g.stored.finished || !g.broken.empty() || g.lease_owner == instance_id_ ||
        g.lease_owner.compare(0, prefix.size(), prefix) != 0) {
      continue;
    }
    g.lease_owner = instance_id_;
    g.lease_until = absl::Now() + ttl;
    claimed.push_back(id);
  }
  return claimed;
}

absl::Status MemoryStore::VoidQuarantined(const AppendRequest& request) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(request.game_id);
  if (it == db_->games.end()) return absl::NotFoundError("no such game");
  MemoryDatabase::Game& g = it->second;
  if (g.broken.empty() || g.stored.finished || request.entries.size() != 1 ||
      request.entries[0].index != static_cast<int64_t>(g.stored.entries.size())) {
    return absl::FailedPreconditionError("not a quarantined running game of that length");
  }
  LogEntry entry = request.entries[0];
  entry.time = absl::FromUnixMicros(absl::ToUnixMicros(entry.time));
  g.stored.entries.push_back(std::move(entry));
  g.stored.deadline.reset();
  g.stored.finished = true;
  g.stored.result = request.end->result;
  g.outbox.push_back(request.end->outbox_payload);
  return absl::OkStatus();
}

absl::Status MemoryStore::MarkBroken(const std::string& game_id,
                                     const std::string& reason) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = Injected("MarkBroken"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(game_id);
  if (it == db_->games.end()) return absl::NotFoundError("no such game");
  it->second.broken = reason;
  it->second.lease_until = absl::InfinitePast();
  return absl::OkStatus();
}

absl::Status MemoryStore::Heartbeat(const table::InstanceState& state) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  db_->instances[instance_id_] = state;
  return absl::OkStatus();
}

absl::StatusOr<table::TableHome> MemoryStore::Locate(const std::string& game_id) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  if (absl::Status s = Injected("Locate"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(game_id);
  if (it == db_->games.end()) return absl::NotFoundError("no such table");
  const MemoryDatabase::Game& g = it->second;
  table::TableHome home;
  home.owner = g.lease_owner;
  auto instance = db_->instances.find(g.lease_owner);
  if (instance != db_->instances.end()) home.address = instance->second.address;
  home.leased = g.lease_until > absl::Now();
  home.finished = g.stored.finished;
  home.broken = g.broken;
  return home;
}

absl::StatusOr<std::vector<std::string>> MemoryStore::ClaimOrphans(absl::Duration ttl,
                                                                   int limit) {
  if (absl::Status s = CheckReady(); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  std::vector<std::string> claimed;
  const absl::Time now = absl::Now();
  for (auto& [id, g] : db_->games) {
    if (static_cast<int>(claimed.size()) >= limit) break;
    if (g.stored.finished || !g.broken.empty() || g.lease_until >= now) continue;
    g.lease_owner = instance_id_;
    g.lease_until = now + ttl;
    claimed.push_back(id);
  }
  return claimed;
}

absl::Status MemoryStore::ReleaseLease(const std::string& game_id) {
  if (absl::Status s = Injected("ReleaseLease"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  auto it = db_->games.find(game_id);
  if (it == db_->games.end()) return absl::NotFoundError("no such game");
  if (it->second.lease_owner != instance_id_) {
    return absl::FailedPreconditionError("not ours");
  }
  it->second.lease_until = absl::InfinitePast();
  return absl::OkStatus();
}

absl::Status MemoryStore::ReleaseLeases(const std::vector<std::string>& game_ids) {
  if (absl::Status s = Injected("ReleaseLeases"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  for (const std::string& id : game_ids) {
    auto it = db_->games.find(id);
    if (it != db_->games.end() && it->second.lease_owner == instance_id_ &&
        !it->second.stored.finished) {
      it->second.lease_until = absl::InfinitePast();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> MemoryStore::LogLengths(
    const std::vector<std::string>& game_ids) {
  if (absl::Status s = Injected("LogLengths"); !s.ok()) return s;
  absl::MutexLock lock(&db_->mu);
  absl::flat_hash_map<std::string, int64_t> lengths;
  for (const std::string& id : game_ids) {
    auto it = db_->games.find(id);
    if (it != db_->games.end()) {
      lengths[id] = static_cast<int64_t>(it->second.stored.entries.size());
    }
  }
  return lengths;
}

absl::StatusOr<std::vector<GameListing>> MemoryStore::ListActive(
    const std::string& player_id) {
  absl::MutexLock lock(&db_->mu);
  std::vector<GameListing> out;
  for (const auto& [id, g] : db_->games) {
    if (g.stored.finished) continue;
    for (int s = 0; s < 4; ++s) {
      if (g.stored.game.seats[s].player_id != player_id) continue;
      GameListing listing;
      listing.game_id = id;
      listing.mode = g.stored.game.mode;
      listing.seat = s;
      listing.created = g.stored.created;
      out.push_back(listing);
    }
  }
  return out;
}

absl::StatusOr<std::vector<GameListing>> MemoryStore::ListFinished(
    const std::string& player_id, int limit, const std::string& before) {
  absl::MutexLock lock(&db_->mu);
  std::vector<GameListing> all;
  for (const auto& [id, g] : db_->games) {
    if (!g.stored.finished) continue;
    for (int s = 0; s < 4; ++s) {
      if (g.stored.game.seats[s].player_id != player_id) continue;
      GameListing listing;
      listing.game_id = id;
      listing.mode = g.stored.game.mode;
      listing.seat = s;
      listing.result = g.stored.result;
      listing.created = g.stored.created;
      listing.finished = g.stored.entries.back().time;
      listing.cursor = id;
      all.push_back(listing);
    }
  }
  // Newest first; the cursor is the game id (ties broken by id).
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::tie(*b.finished, b.game_id) < std::tie(*a.finished, a.game_id);
  });
  std::vector<GameListing> out;
  bool after_cursor = before.empty();
  for (const auto& listing : all) {
    if (!after_cursor) {
      after_cursor = listing.cursor == before;
      continue;
    }
    if (static_cast<int>(out.size()) >= limit) break;
    out.push_back(listing);
  }
  return out;
}

}  // namespace trix::table
