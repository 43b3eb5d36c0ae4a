#include "services/table/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace trix::table {

WorkerPool::WorkerPool(std::string name, int threads, size_t max_queued)
    : name_(std::move(name)), max_queued_(max_queued) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    threads_.emplace_back([this] {
      // For top, perf and /proc: which pool a thread is (at most 15 characters).
      pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
      Run();
    });
  }
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Post(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  if (stopping_ && threads_.empty()) return;
  queue_.push_back(std::move(work));
}

bool WorkerPool::TryPost(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  if (stopping_ && threads_.empty()) return true;  // dropped, as Post drops it
  if (queue_.size() >= max_queued_) return false;
  queue_.push_back(std::move(work));
  return true;
}

void WorkerPool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
  absl::MutexLock lock(&mu_);
  threads_.clear();
  queue_.clear();
}

void WorkerPool::Run() {
  for (;;) {
    std::function<void()> work;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || stopping_;
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, and nothing left to run
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
  }
}

}  // namespace trix::table
