#include "tests/load/pacer.h"

#include <utility>

namespace trix::load {

TurnPacing::TurnPacing(absl::Duration interval, uint64_t seed)
    : interval_(absl::ToChronoNanoseconds(interval)), rng_(seed) {}

Clock::time_point TurnPacing::Next(Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  // 0.5 to 1.5 intervals; the first one from now, with a random phase.
  const auto jittered = [&] {
    const double f = 0.5 + static_cast<double>(rng_.Below(1 << 20)) / (1 << 20);
    return std::chrono::duration_cast<Clock::duration>(interval_ * f);
  };
  if (!started_) {
    started_ = true;
    next_ = now + jittered();
  }
  const Clock::time_point slot = std::max(now, next_);
  next_ = slot + jittered();
  return slot;
}

Pacer::Pacer() : thread_([this] { Run(); }) {}

Pacer::~Pacer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_one();
  thread_.join();
}

void Pacer::At(Clock::time_point due, std::function<void()> fn) {
  bool earliest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    earliest = items_.empty() || due < items_.top().due;
    items_.push(Item{due, order_++, std::move(fn)});
  }
  if (earliest) changed_.notify_one();
}

void Pacer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stopping_) return;
    if (items_.empty()) {
      changed_.wait(lock);
      continue;
    }
    if (items_.top().due > Clock::now()) {
      changed_.wait_until(lock, items_.top().due);
      continue;
    }
    std::function<void()> fn = std::move(const_cast<Item&>(items_.top()).fn);
    items_.pop();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace trix::load
