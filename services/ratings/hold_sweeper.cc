#include "services/ratings/hold_sweeper.h"

#include <chrono>

#include "services/common/logging.h"

namespace trix::ratings {
namespace {

constexpr int kRound = 500;

}  // namespace

void HoldSweeper::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void HoldSweeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int HoldSweeper::SweepOnce() {
  int released = 0;
  for (;;) {
    absl::StatusOr<int> n = ledger_->ReleaseExpiredHolds(kRound);
    if (!n.ok()) {
      service::LogWarn("hold sweep failed", {{"error", n.status().ToString()}});
      break;
    }
    released += *n;
    metrics_->holds_expired.Increment(*n);
    if (*n < kRound) break;
  }
  absl::StatusOr<OpenHolds> open = ledger_->GetOpenHolds();
  if (open.ok()) {
    metrics_->oldest_open_hold_seconds.Set(open->oldest_seconds);
    metrics_->holds_past_ttl.Set(static_cast<double>(open->past_ttl));
  } else {
    service::LogWarn("measuring open holds failed", {{"error", open.status().ToString()}});
  }
  return released;
}

void HoldSweeper::Loop() {
  const auto interval = std::chrono::microseconds(absl::ToInt64Microseconds(interval_));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    SweepOnce();
    lock.lock();
    wake_.wait_for(lock, interval, [this] { return stop_; });
  }
}

}  // namespace trix::ratings
