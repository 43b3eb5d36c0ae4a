#include "services/matchmaking/table_voids.h"

#include <pqxx/pqxx>

#include "services/common/logging.h"

namespace trix::matchmaking {

TableVoids::TableVoids(storage::ConnectionPool* db, Placement* placement,
                       const SeatTokens* seat_tokens, HoldReleases* releases,
                       prometheus::Registry* registry, absl::Duration every)
    : db_(db),
      placement_(placement),
      seat_tokens_(seat_tokens),
      releases_(releases),
      every_(every),
      table_(db, "mm_table_voids", "request_id") {
  pending_ = &prometheus::BuildGauge()
                  .Name("trix_matchmaking_table_voids_pending")
                  .Help("tables matchmaking made for nobody and has yet to void")
                  .Register(*registry)
                  .Add({});
  oldest_ = &prometheus::BuildGauge()
                 .Name("trix_matchmaking_table_void_oldest_seconds")
                 .Help("age of the oldest table matchmaking has yet to void")
                 .Register(*registry)
                 .Add({});
}

TableVoids::~TableVoids() { Stop(); }

void TableVoids::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void TableVoids::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

bool TableVoids::VoidOne(const std::string& request_id, const std::string& request,
                         std::string table_id, std::string address,
                         const std::string& reason) {
  const service::LogFields fields = {{"request", request_id}, {"table", table_id}};
  if (table_id.empty()) {
    v1::CreateTableRequest create;
    create.ParseFromString(request);
    seat_tokens_->Restore(&create);  // the same request as the placement's, tokens and all
    Placed placed = std::move(placement_->CreateTables({create}).front());
    if (!placed.status.ok()) {
      service::LogWarn("cannot find the table to void; asking again",
                       {{"request", request_id}, {"error", placed.status.ToString()}});
      return false;
    }
    table_id = placed.response.table_id();
    address = placed.address;
    absl::Status s = db_->Run("recording the table to void", [&](pqxx::connection& c) {
      pqxx::work tx(c);
      tx.exec_params0(
          "UPDATE mm_table_voids SET table_id = $2, address = $3 WHERE request_id = $1",
          request_id, table_id, address);
      tx.commit();
      return absl::OkStatus();
    });
    if (!s.ok()) return false;
  }
  absl::Status s = placement_->VoidTable(address, table_id, reason);
  // Voided (now or before), gone, or its game already over (its result stands).
  const char* end = s.ok() ? kReleaseVoided
                    : s.code() == absl::StatusCode::kNotFound         ? kReleaseGone
                    : s.code() == absl::StatusCode::kFailedPrecondition ? kReleaseGameOver
                                                                         : nullptr;
  if (end == nullptr) {
    service::LogWarn("cannot void a table; trying again",
                     {{"table", table_id}, {"error", s.ToString()}});
    return false;
  }
  if (!releases_->EndTable(table_id, end).ok()) return false;
  service::LogInfo("table voided", {{"table", table_id}, {"reason", reason}, {"end", end}});
  return true;
}

int TableVoids::VoidDue() {
  absl::StatusOr<pqxx::result> due =
      table_.Lease("request, table_id, address, reason", 20);
  if (!due.ok()) return 0;
  int finished = 0;
  for (const pqxx::row& r : *due) {
    const std::string id = r[0].as<std::string>();
    const bool done = VoidOne(id, pqxx::binarystring(r[2]).str(), r[3].as<std::string>(),
                              r[4].as<std::string>(), r[5].as<std::string>());
    if (!done) {
      (void)table_.Later(id, r[1].as<int>());
    } else if (table_.Done(id).ok()) {
      ++finished;
    }
  }
  return finished;
}

void TableVoids::Loop() {
  absl::Time measured = absl::InfinitePast();
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped), every_);
      if (stop_) return;
    }
    VoidDue();
    if (absl::Now() - measured >= absl::Seconds(5)) {
      measured = absl::Now();
      if (absl::StatusOr<RetryTable::Backlog> b = table_.Pending(); b.ok()) {
        pending_->Set(static_cast<double>(b->pending));
        oldest_->Set(absl::ToDoubleSeconds(b->oldest));
      }
    }
  }
}

}  // namespace trix::matchmaking
