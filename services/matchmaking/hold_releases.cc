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

absl::Status HoldReleases::Expect(const std::vector<HoldIntent>& holds) {
  if (holds.empty()) return absl::OkStatus();
  storage::PgArray ids(storage::PgType::kText), players(storage::PgType::kText),
      amounts(storage::PgType::kInt8);
  for (const HoldIntent& h : holds) {
    ids.AddString(h.request_id);
    players.AddString(h.player_id);
    amounts.AddInt(h.amount);
  }
  return db_->Run("recording stakes to hold", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_hold_releases (hold_id, reason, player_id, amount, due) "
        "SELECT u.id, $4, u.player, u.amount, now() + make_interval(secs => $5) "
        "FROM unnest($1::text[], $2::text[], $3::int8[]) AS u (id, player, amount) "
        "ON CONFLICT (hold_id) DO UPDATE SET due = EXCLUDED.due, done = NULL",
        ids.Finish(), players.Finish(), amounts.Finish(), std::string(kReleaseAdmission),
        absl::ToDoubleSeconds(options_.admission_grace));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status HoldReleases::Queued(const std::vector<std::string>& request_ids) {
  if (request_ids.empty()) return absl::OkStatus();
  return db_->Run("forgetting queued stakes", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "DELETE FROM mm_hold_releases WHERE hold_id = ANY($1::text[]) AND reason = $2 "
        "AND done IS NULL",
        TextArray(request_ids).Finish(), std::string(kReleaseAdmission));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status HoldReleases::NotQueued(const std::vector<std::string>& request_ids) {
  if (request_ids.empty()) return absl::OkStatus();
  absl::Status s = db_->Run("releasing unqueued stakes", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_hold_releases SET due = now() WHERE hold_id = ANY($1::text[]) "
        "AND done IS NULL",
        TextArray(request_ids).Finish());
    tx.commit();
    return absl::OkStatus();
  });
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

absl::StatusOr<bool> HoldReleases::Carried(const std::string& hold_id) {
  bool carried = false;
  absl::Status s = db_->Run("reading a hold's ticket", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    carried = tx.exec_params1(
                    "SELECT EXISTS (SELECT 1 FROM mm_tickets WHERE hold_id = $1 "
                    "AND status IN ('waiting', 'placing', 'matched'))",
                    hold_id)[0]
                  .as<bool>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return carried;
}

grpc::Status HoldReleases::ReleaseExpected(const HoldIntent& intent, bool* in_use) {
  v1::HoldStakeRequest request;
  request.set_request_id(intent.request_id);
  request.set_player_id(intent.player_id);
  request.set_amount(intent.amount);
  v1::Hold hold;
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + options_.ratings_token);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  // Not held (no balance, no account): nothing was held under this request either.
  grpc::Status s = ratings_->HoldStake(&context, request, &hold);
  if (!s.ok() || hold.state() != v1::HOLD_STATE_HELD) return s;
  absl::StatusOr<bool> carried = Carried(hold.hold_id());
  if (!carried.ok()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "database away");
  *in_use = *carried;
  return *carried ? grpc::Status::OK : Call(hold.hold_id(), "");
}

int HoldReleases::ReleaseDue() {
  absl::StatusOr<pqxx::result> due = table_.Lease(
      "table_id, reason, player_id, amount, EXISTS (SELECT 1 FROM mm_tickets AS t "
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
    const std::string reason = r[3].as<std::string>();
    // A release without a table leaves alone a hold that a live ticket carries
    // (a retry of its request resumed it), unless its game is over.
    bool in_use = r[6].as<bool>() && table.empty() && reason != kReleaseGameOver;
    grpc::Status s;
    if (!in_use && !failing) {
      service::Failpoint("holds.before_release");
      s = reason == kReleaseAdmission
              ? ReleaseExpected({hold, r[4].as<std::string>(), r[5].as<int64_t>()}, &in_use)
              : Call(hold, table);
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
