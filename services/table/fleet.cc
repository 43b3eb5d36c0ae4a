#include "services/table/fleet.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "services/common/logging.h"
#include "services/table/refusals.h"

namespace trix::table {

using service::LogWarn;

namespace {

// Monotonic: a wall-clock jump neither hides a pause nor invents one.
int64_t MonotonicMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Fleet::Fleet(FleetOptions options, TableStore* store)
    : options_(std::move(options)), store_(store) {}

// --- Leases -------------------------------------------------------------------------

bool Fleet::LeasesFresh() const {
  // Renewed at t, a lease lasts until at least t + ttl; half of it is the margin
  // for clocks that run at slightly different rates.
  return MonotonicMicros() - renewed_at_us_.load() <
         absl::ToInt64Microseconds(options_.lease_ttl) / 2;
}

absl::Status Fleet::Renew(Hosted& hosted) {
  absl::MutexLock lock(&renew_mu_);
  return RenewLocked(hosted);
}

bool Fleet::Refresh(Hosted& hosted) {
  {
    // While the database is away, one attempt per half second answers every
    // waiting call, rather than one attempt per call.
    absl::MutexLock lock(&renew_mu_);
    const int64_t now = MonotonicMicros();
    if (!LeasesFresh() && now - renew_failed_at_us_ > 500000 &&
        !RenewLocked(hosted).ok()) {
      renew_failed_at_us_ = now;
    }
  }
  return LeasesFresh();
}

absl::Status Fleet::RenewLocked(Hosted& hosted) {
  const std::vector<std::string> ids = hosted.List();
  const int64_t started = MonotonicMicros();
  absl::StatusOr<std::vector<std::string>> renewed =
      store_->RenewHosted(options_.lease_ttl, ids);
  if (!renewed.ok()) return renewed.status();
  hosted.DropLost(absl::flat_hash_set<std::string>(renewed->begin(), renewed->end()));
  // Fresh only now: a call that sees it fresh queues behind the drops above.
  renewed_at_us_.store(started);
  return absl::OkStatus();
}

// --- Claims -------------------------------------------------------------------------

std::vector<std::string> Fleet::ClaimRound(int room) {
  std::vector<std::string> claimed = ClaimOrphans(ClaimLimit(room));
  claimed_last_round_.store(!claimed.empty());
  return claimed;
}

int Fleet::ClaimLimit(int room) const {
  // A round after one that claimed nothing is the first since an instance died
  // (or no table lapsed): it takes its share of the room; the rounds that follow
  // take the rest in claim_batch steps, as do the other instances'.
  int limit = options_.claim_batch;
  if (!claimed_last_round_.load()) {
    limit = std::max(limit, static_cast<int>(room * options_.claim_room_share));
  }
  return std::min(limit, room);
}

std::vector<std::string> Fleet::ClaimOrphans(int limit) {
  absl::StatusOr<std::vector<std::string>> claimed =
      store_->ClaimOrphans(options_.lease_ttl, limit);
  if (!claimed.ok()) {
    LogWarn("claiming orphaned tables failed", {{"error", claimed.status().ToString()}});
    return {};
  }
  return *std::move(claimed);
}

std::vector<std::string> Fleet::ClaimPreviousRuns() {
  if (options_.instance_name.empty()) return {};
  absl::StatusOr<std::vector<std::string>> mine =
      store_->ClaimPreviousRuns(options_.instance_name, options_.lease_ttl);
  if (!mine.ok()) {
    LogWarn("cannot take back tables", {{"error", mine.status().ToString()}});
    return {};
  }
  return *std::move(mine);
}

absl::StatusOr<bool> Fleet::Claim(const std::string& table_id) {
  return store_->ClaimTable(table_id, options_.lease_ttl);
}

// --- Releases -----------------------------------------------------------------------

void Fleet::ReleaseClaim(const std::string& table_id) {
  const absl::Status released = store_->ReleaseLease(table_id);
  // NOT_FOUND, FAILED_PRECONDITION: no such table, or the lease is not ours.
  if (released.ok() || absl::IsNotFound(released) ||
      absl::IsFailedPrecondition(released)) {
    return;
  }
  LogWarn("cannot release a claim; maintenance retries",
          {{"table", table_id}, {"error", released.ToString()}});
  OweReleases({table_id});
}

void Fleet::OweReleases(const std::vector<std::string>& table_ids) {
  absl::MutexLock lock(&mu_);
  owed_.insert(table_ids.begin(), table_ids.end());
}

void Fleet::ReleaseOwed(const std::function<bool(const std::string&)>& hosted_here) {
  // A table this instance no longer hosts stays its own until released, since the
  // instance's lease keeps every table it owns (migrations/0034): a release the
  // database refused is repeated each round until it is done, or the table is
  // hosted here again, or it is no longer ours.
  std::vector<std::string> ids;
  {
    absl::MutexLock lock(&mu_);
    ids.assign(owed_.begin(), owed_.end());
  }
  for (const std::string& id : ids) {
    if (!hosted_here(id)) {
      const absl::Status released = store_->ReleaseLease(id);
      if (!released.ok() && !absl::IsNotFound(released) &&
          !absl::IsFailedPrecondition(released)) {
        continue;  // the next round tries again
      }
    }
    absl::MutexLock lock(&mu_);
    owed_.erase(id);
  }
}

absl::Status Fleet::ReleaseLeases(const std::vector<std::string>& table_ids) {
  if (table_ids.empty()) return absl::OkStatus();
  absl::Status released = store_->ReleaseLeases(table_ids);
  if (!released.ok()) OweReleases(table_ids);
  return released;
}

void Fleet::Release(const std::string& table_id) {
  store_->ReleaseLease(table_id).IgnoreError();
}

// --- Where tables live --------------------------------------------------------------

absl::StatusOr<TableHome> Fleet::Home(const std::string& table_id) {
  return store_->Locate(table_id);
}

absl::Status Fleet::Locate(const std::string& table_id, absl::string_view why) {
  absl::StatusOr<table::TableHome> home = Home(table_id);
  if (!home.ok()) return home.status();
  if (!home->broken.empty()) return QuarantinedError(home->broken);
  return MovedError(LocationOf(table_id, *home), why);
}

void Fleet::Heartbeat(const std::string& address, int live_tables, bool draining) {
  table::InstanceState state;
  state.address = address;
  state.capacity = options_.max_tables;
  state.live_tables = live_tables;
  state.draining = draining;
  store_->Heartbeat(state).IgnoreError();  // renewal failures are the ones logged
}

}  // namespace trix::table
