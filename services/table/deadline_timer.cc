#include "services/table/deadline_timer.h"

#include <utility>

#include "absl/time/clock.h"
#include "engine/check.h"

namespace trix::table {

DeadlineTimer::DeadlineTimer(std::function<void(const std::string&)> fire)
    : fire_(std::move(fire)), thread_([this] { Run(); }) {}

DeadlineTimer::~DeadlineTimer() { Stop(); }

void DeadlineTimer::Schedule(const std::string& key, absl::Time when) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  auto [it, added] = deadline_of_.try_emplace(key, when);
  if (added) {
    queue_.emplace(when, key);
    return;
  }
  if (it->second == when) return;
  // A table's clock restarts at every action: its entry moves to the new time
  // without a copy of the key or an allocation.
  auto old = queue_.find(Probe(it->second, key));
  TRIX_CHECK(old != queue_.end()) << "deadline of " << key << " not queued";
  auto node = queue_.extract(old);
  node.value().first = when;
  it->second = when;
  queue_.insert(std::move(node));
}

void DeadlineTimer::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    queue_.clear();
    deadline_of_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

size_t DeadlineTimer::pending() const {
  absl::MutexLock lock(&mu_);
  return deadline_of_.size();
}

void DeadlineTimer::Run() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (queue_.empty()) {
      // Wakes on Schedule (the queue changes) or Stop.
      mu_.AwaitWithTimeout(absl::Condition(
                               +[](DeadlineTimer* t) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                 return t->stopping_ || !t->queue_.empty();
                               },
                               this),
                           absl::Seconds(1));
      continue;
    }
    const absl::Time next = queue_.begin()->first;
    const absl::Time now = absl::Now();
    if (next > now) {
      // Wakes early when an earlier deadline is scheduled or on Stop.
      struct Args {
        DeadlineTimer* timer;
        absl::Time next;
      } args{this, next};
      mu_.AwaitWithDeadline(absl::Condition(
                                +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                  return a->timer->stopping_ ||
                                         a->timer->queue_.empty() ||
                                         a->timer->queue_.begin()->first < a->next;
                                },
                                &args),
                            next);
      continue;
    }
    std::string key = queue_.begin()->second;
    queue_.erase(queue_.begin());
    deadline_of_.erase(key);
    mu_.Unlock();
    fire_(key);
    mu_.Lock();
  }
}

}  // namespace trix::table
