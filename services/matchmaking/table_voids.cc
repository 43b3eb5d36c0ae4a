#include "services/matchmaking/table_voids.h"

#include "services/common/logging.h"

namespace trix::matchmaking {

TableVoids::TableVoids(TableVoidStore* store, TableClient* tables,
                       const SeatTokens* seat_tokens, TableEnds* releases,
                       prometheus::Registry* registry, absl::Duration every)
    : store_(store),
      tables_(tables),
      seat_tokens_(seat_tokens),
      releases_(releases),
      every_(every) {
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

bool TableVoids::FindTable(DueVoid& due) {
  v1::CreateTableRequest create;
  create.ParseFromString(due.request);
  seat_tokens_->Restore(&create);  // the same request as the placement's, tokens and all
  Placed placed = std::move(tables_->CreateTables({create}).front());
  if (!placed.status.ok()) {
    service::LogWarn("cannot find the table to void; asking again",
                     {{"request", due.request_id}, {"error", placed.status.ToString()}});
    return false;
  }
  due.table_id = placed.response.table_id();
  due.address = placed.address;
  return store_->RecordTable(due.request_id, due.table_id, due.address).ok();
}

bool TableVoids::VoidOne(DueVoid due) {
  if (due.table_id.empty() && !FindTable(due)) return false;
  const std::string& table_id = due.table_id;
  const std::string& reason = due.reason;
  absl::Status s = tables_->VoidTable(due.address, table_id, reason);
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
  absl::StatusOr<std::vector<DueVoid>> due = store_->Lease(20);
  if (!due.ok()) return 0;
  int finished = 0;
  for (DueVoid& v : *due) {
    const std::string id = v.request_id;
    const int tries = v.tries;
    if (!VoidOne(std::move(v))) {
      (void)store_->Later(id, tries);
    } else if (store_->Done(id).ok()) {
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
      if (absl::StatusOr<RetryTable::Backlog> b = store_->Pending(); b.ok()) {
        pending_->Set(static_cast<double>(b->pending));
        oldest_->Set(absl::ToDoubleSeconds(b->oldest));
      }
    }
  }
}

}  // namespace trix::matchmaking
