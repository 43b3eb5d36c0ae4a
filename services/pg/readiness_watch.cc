#include "services/pg/readiness_watch.h"

#include <utility>

#include <pqxx/pqxx>

#include "services/common/logging.h"

namespace trix::pg {

ReadinessWatch::ReadinessWatch(ConnectionPool* pool, absl::Duration every,
                               std::function<void(bool ready)> on_change)
    : pool_(pool), every_(every), on_change_(std::move(on_change)) {
  thread_ = std::thread([this] { Loop(); });
}

ReadinessWatch::~ReadinessWatch() {
  stop_.Notify();
  thread_.join();
}

void ReadinessWatch::Loop() {
  bool ready = true;
  while (!stop_.WaitForNotificationWithTimeout(every_)) {
    const bool now = pool_->Run("checking the database", [](pqxx::connection& c) {
                            pqxx::nontransaction tx(c);
                            tx.exec("SELECT 1");
                            return absl::OkStatus();
                          }).ok();
    if (now == ready) continue;
    ready = now;
    service::LogWarn(ready ? "the database is back" : "the database is unreachable");
    on_change_(ready);
  }
}

}  // namespace trix::pg
