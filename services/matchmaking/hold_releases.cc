#include "services/matchmaking/hold_releases.h"

#include <chrono>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/matchmaking/ticket_store.h"

namespace trix::matchmaking {

std::string HoldRequestId(const std::string& player_id, const std::string& request_id,
                          const std::string& again) {
  std::string key = absl::StrCat(player_id.size(), ":", player_id, request_id.size(), ":",
                                 request_id);
  if (!again.empty()) absl::StrAppend(&key, again.size(), ":", again);
  return absl::StrCat("mm-", service::TokenHash(key).substr(0, 32));
}

namespace {

// Whether the ratings service's answer finishes a release: released, no such
// hold, or one it refuses to give back (settled, or attached to a table the
// release did not name: settlement or the table's void decides it).
bool Finished(const grpc::Status& s) {
  return s.ok() || s.error_code() == grpc::StatusCode::NOT_FOUND ||
         s.error_code() == grpc::StatusCode::FAILED_PRECONDITION;
}

std::string OutcomeOf(const grpc::Status& s) {
  if (s.ok()) return "released";
  if (s.error_code() == grpc::StatusCode::NOT_FOUND) return "no_hold";
  return "refused";
}

}  // namespace

HoldReleases::HoldReleases(storage::ConnectionPool* db,
                           v1::RatingsService::StubInterface* ratings,
                           HoldReleasesOptions options, prometheus::Registry* registry)
    : db_(db),
      ratings_(ratings),
      options_(std::move(options)),
      table_(db, "mm_hold_releases", "hold_id") {
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

absl::Status HoldReleases::Record(const std::vector<std::string>& hold_ids,
                                  const std::string& reason, absl::Duration delay) {
  if (hold_ids.empty()) return absl::OkStatus();
  // A release already recorded is made due at once by a later reason (not by an
  // admission's).
  return db_->Run("recording hold releases", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_hold_releases (hold_id, reason, due) "
        "SELECT unnest($1::text[]), $2, now() + make_interval(secs => $3) "
        "ON CONFLICT (hold_id) DO UPDATE SET reason = EXCLUDED.reason, due = EXCLUDED.due "
        "WHERE mm_hold_releases.done IS NULL AND EXCLUDED.reason <> 'admission'",
        TextArray(hold_ids).Finish(), reason, absl::ToDoubleSeconds(delay));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status HoldReleases::Expect(const std::vector<std::string>& hold_ids) {
  return Record(hold_ids, kReleaseAdmission, options_.admission_grace);
}

absl::Status HoldReleases::Release(const std::vector<std::string>& hold_ids) {
  absl::Status s = Record(hold_ids, kReleaseNotQueued, absl::ZeroDuration());
  Kick();
  return s;
}

absl::Status HoldReleases::EndTable(const std::string& table_id, const std::string& reason) {
  const std::string named = reason == kReleaseGameOver ? "" : table_id;
  absl::Status s = db_->Run("ending a table's seats", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "WITH seats AS (UPDATE mm_assignments SET finished = true WHERE table_id = $1 "
        "RETURNING ticket_id, stake) "
        "INSERT INTO mm_hold_releases (hold_id, table_id, reason) "
        "SELECT t.hold_id, $2, $3 FROM seats AS s JOIN mm_tickets AS t USING (ticket_id) "
        "WHERE s.stake > 0 AND t.hold_id IS NOT NULL ON CONFLICT (hold_id) DO UPDATE "
        "SET table_id = EXCLUDED.table_id, reason = EXCLUDED.reason, due = now() "
        "WHERE mm_hold_releases.done IS NULL",
        table_id, named, reason);
    tx.commit();
    return absl::OkStatus();
  });
  Kick();
  return s;
}

absl::StatusOr<std::set<std::string>> HoldReleases::Spent(
    const std::vector<std::string>& hold_ids) {
  std::set<std::string> spent;
  absl::Status s = db_->Run("reading spent holds", [&](pqxx::connection& c) {
    spent.clear();
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             "SELECT DISTINCT hold_id FROM mm_tickets WHERE hold_id = ANY($1::text[]) "
             "AND status NOT IN ('waiting', 'placing')",
             TextArray(hold_ids).Finish())) {
      spent.insert(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return spent;
}

absl::Status HoldReleases::Reconcile() {
  absl::Status s = db_->Run("reconciling ended tickets' holds", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_hold_releases (hold_id, reason) "
        "SELECT hold_id, 'ticket ' || status FROM mm_tickets WHERE hold_id IS NOT NULL "
        "AND status IN ('cancelled', 'superseded') "
        "AND changed > now() - make_interval(secs => $1) ON CONFLICT (hold_id) DO NOTHING",
        absl::ToDoubleSeconds(options_.keep));
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return table_.Sweep(options_.keep);
}

grpc::Status HoldReleases::Call(const std::string& hold_id, const std::string& table_id) {
  v1::ReleaseHoldRequest request;
  request.set_hold_id(hold_id);
  request.set_table_id(table_id);
  v1::Hold hold;
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + options_.ratings_token);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return ratings_->ReleaseHold(&context, request, &hold);
}

int HoldReleases::ReleaseDue() {
  absl::StatusOr<pqxx::result> due = table_.Lease(
      "table_id, reason, EXISTS (SELECT 1 FROM mm_tickets AS t "
      "WHERE t.hold_id = mm_hold_releases.hold_id "
      "AND t.status IN ('waiting', 'placing', 'matched'))",
      200);
  if (!due.ok()) return 0;
  int finished = 0;
  bool failing = false;  // the ratings service is away: the rest wait too
  for (const pqxx::row& r : *due) {
    const std::string hold = r[0].as<std::string>();
    const int tries = r[1].as<int>();
    const std::string table = r[2].as<std::string>();
    const bool in_use = r[4].as<bool>() && table.empty() &&
                        r[3].as<std::string>() != kReleaseGameOver;
    grpc::Status s;
    if (!in_use && !failing) {
      service::Failpoint("holds.before_release");
      s = Call(hold, table);
    }
    if (failing || !Finished(s)) {
      if (!failing) {
        service::LogWarn("cannot release a stake hold; trying again",
                         {{"hold", hold}, {"tries", tries}, {"error", s.error_message()}});
      }
      failing = true;
      (void)table_.Later(hold, tries);
      continue;
    }
    if (table_.Done(hold).ok()) {
      ++finished;
      outcomes_->Add({{"outcome", in_use ? "in_use" : OutcomeOf(s)}}).Increment();
    }
  }
  return finished;
}

void HoldReleases::Measure() {
  absl::StatusOr<RetryTable::Backlog> b = table_.Pending();
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
