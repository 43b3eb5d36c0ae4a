#include "services/matchmaking/hold_releases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"

namespace trix::matchmaking {

std::string HoldRequestId(const std::string& player_id, const std::string& request_id,
                          const std::string& again) {
  std::string key = absl::StrCat(player_id.size(), ":", player_id, request_id.size(), ":",
                                 request_id);
  if (!again.empty()) absl::StrAppend(&key, again.size(), ":", again);
  return absl::StrCat("mm-", service::TokenHash(key).substr(0, 32));
}

absl::Status CheckStake(int64_t stake, const std::vector<int64_t>& levels, bool ratings) {
  if (stake < 0) return absl::InvalidArgumentError("stake must not be negative");
  if (stake == 0) return absl::OkStatus();
  bool level = false;
  for (int64_t s : levels) level |= s == stake;
  if (!level) {
    return absl::InvalidArgumentError(
        absl::StrCat("stake ", stake, " is not a configured stake level"));
  }
  if (!ratings) return absl::FailedPreconditionError("staking needs the ratings service");
  return absl::OkStatus();
}

absl::StatusOr<v1::Hold> HoldStake(RatingsClient& ratings,
                                   const v1::HoldStakeRequest& request) {
  absl::StatusOr<v1::Hold> hold = ratings.HoldStake(request);
  if (hold.ok()) return hold;
  // An account the ledger does not know has no balance either.
  const absl::Status& s = hold.status();
  const bool broke = absl::IsNotFound(s) || absl::IsFailedPrecondition(s);
  return broke ? absl::FailedPreconditionError(
                     absl::StrCat("the balance cannot cover the stake: ", s.message()))
               : s;
}

namespace {

// Whether the ratings service's answer finishes a release: released, no such
// hold, or one it refuses to give back (settled, or attached to a table the
// release did not name: settlement or the table's void decides it).
bool Finished(const absl::Status& s) {
  return s.ok() || absl::IsNotFound(s) || absl::IsFailedPrecondition(s);
}

std::string OutcomeOf(const absl::Status& s) {
  if (s.ok()) return "released";
  if (absl::IsNotFound(s)) return "no_hold";
  return "refused";
}

}  // namespace

HoldReleases::HoldReleases(std::unique_ptr<HoldReleaseStore> store,
                           std::unique_ptr<RatingsClient> ratings,
                           HoldReleasesOptions options, prometheus::Registry* registry)
    : store_(std::move(store)), ratings_(std::move(ratings)), options_(std::move(options)) {
  pending_ = &prometheus::BuildGauge()
                  .Name("trix_matchmaking_hold_releases_pending")
                  .Help("stake holds matchmaking has yet to give back")
                  .Register(*registry)
                  .Add({});
  oldest_ = &prometheus::BuildGauge()
                 .Name("trix_matchmaking_hold_release_oldest_seconds")
                 .Help("age of the oldest stake hold matchmaking has yet to give back")
                 .Register(*registry)
                 .Add({});
  outcomes_ = &prometheus::BuildCounter()
                   .Name("trix_matchmaking_hold_releases_total")
                   .Help("stake hold releases finished, by outcome (released, no_hold, "
                         "refused: settled or attached elsewhere, in_use: a live "
                         "ticket carries it)")
                   .Register(*registry);
}

HoldReleases::~HoldReleases() { Stop(); }

void HoldReleases::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void HoldReleases::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void HoldReleases::Kick() {
  absl::MutexLock lock(&mu_);
  kicked_ = true;
}

absl::Status HoldReleases::Expect(const std::vector<HoldIntent>& holds) {
  return store_->Expect(holds, options_.admission_grace);
}

absl::Status HoldReleases::Queued(const std::vector<std::string>& request_ids) {
  return store_->Queued(request_ids);
}

absl::Status HoldReleases::NotQueued(const std::vector<std::string>& request_ids) {
  if (request_ids.empty()) return absl::OkStatus();
  absl::Status s = store_->DueNow(request_ids);
  Kick();
  return s;
}

absl::Status HoldReleases::EndTable(const std::string& table_id, const std::string& reason) {
  const std::string named = reason == kReleaseGameOver ? "" : table_id;
  absl::Status s = store_->EndTable(table_id, named, reason);
  Kick();
  return s;
}

absl::StatusOr<std::set<std::string>> HoldReleases::Spent(
    const std::vector<std::string>& hold_ids) {
  return store_->Spent(hold_ids);
}

absl::Status HoldReleases::Reconcile() {
  if (absl::Status s = store_->RecordEnded(options_.keep); !s.ok()) return s;
  return store_->Sweep(options_.keep);
}

absl::Status HoldReleases::ReleaseExpected(const HoldIntent& intent, bool* in_use) {
  v1::HoldStakeRequest request;
  request.set_request_id(intent.request_id);
  request.set_player_id(intent.player_id);
  request.set_amount(intent.amount);
  // Not held (no balance, no account): nothing was held under this request either.
  absl::StatusOr<v1::Hold> hold = ratings_->HoldStake(request);
  if (!hold.ok() || hold->state() != v1::HOLD_STATE_HELD) return hold.status();
  absl::StatusOr<bool> carried = store_->Carried(hold->hold_id());
  if (!carried.ok()) return absl::UnavailableError("database away");
  *in_use = *carried;
  return *carried ? absl::OkStatus() : ratings_->ReleaseHold(hold->hold_id(), "");
}

absl::Status HoldReleases::Release(const DueRelease& due, bool* in_use) {
  service::Failpoint("holds.before_release");
  return due.reason == kReleaseAdmission
             ? ReleaseExpected({due.hold_id, due.player_id, due.amount}, in_use)
             : ratings_->ReleaseHold(due.hold_id, due.table_id);
}

int HoldReleases::ReleaseDue() {
  absl::StatusOr<std::vector<DueRelease>> due = store_->Lease(200);
  if (!due.ok()) return 0;
  int finished = 0;
  bool failing = false;  // the ratings service is away: the rest wait too
  for (const DueRelease& r : *due) {
    // A release without a table leaves alone a hold that a live ticket carries
    // (a retry of its request resumed it), unless its game is over.
    bool in_use = r.carried && r.table_id.empty() && r.reason != kReleaseGameOver;
    absl::Status s;
    if (!in_use && !failing) s = Release(r, &in_use);
    if (failing || !Finished(s)) {
      if (!failing) {
        service::LogWarn("cannot release a stake hold; trying again",
                         {{"hold", r.hold_id}, {"tries", r.tries},
                          {"error", std::string(s.message())}});
      }
      failing = true;
      (void)store_->Later(r.hold_id, r.tries);
      continue;
    }
    if (store_->Done(r.hold_id).ok()) {
      ++finished;
      outcomes_->Add({{"outcome", in_use ? "in_use" : OutcomeOf(s)}}).Increment();
    }
  }
  return finished;
}

void HoldReleases::Measure() {
  absl::StatusOr<RetryTable::Backlog> b = store_->Pending();
  if (!b.ok()) return;
  pending_->Set(static_cast<double>(b->pending));
  oldest_->Set(absl::ToDoubleSeconds(b->oldest));
}

void HoldReleases::Loop() {
  absl::Time measured = absl::InfinitePast();
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || kicked_; };
      mu_.AwaitWithTimeout(absl::Condition(&ready), options_.every);
      if (stop_) return;
      kicked_ = false;
    }
    if (ratings_ != nullptr) ReleaseDue();
    if (absl::Now() - measured >= absl::Seconds(5)) {
      measured = absl::Now();
      Measure();
    }
  }
}

}  // namespace trix::matchmaking
