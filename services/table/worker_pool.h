// A fixed set of threads running posted closures in FIFO order. The table host has
// two: one for table work (short, CPU-only steps: never a blocking call) and one
// for blocking database reads (loading a game, listings), so that a slow query
// never delays a card being played at another table.
//
// Work a client can cause goes through TryPost, which refuses it past the pool's
// bound; the host's own continuations use Post (their number is bounded by the
// tables hosted: a table has at most one posted at a time).
//
//   WorkerPool pool("table", 2, /*max_queued=*/1024);
//   pool.Post([] { ... });
//   if (!pool.TryPost([] { ... })) { /* answer UNAVAILABLE: retry later */ }
//   pool.Stop();  // runs what is queued, then joins
#ifndef TRIX_SERVICES_TABLE_WORKER_POOL_H_
#define TRIX_SERVICES_TABLE_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace trix::table {

class WorkerPool {
 public:
  WorkerPool(std::string name, int threads, size_t max_queued = 1024);
  ~WorkerPool();  // Stop()

  // Runs `work` on a pool thread. After Stop() the work is dropped.
  void Post(std::function<void()> work);
  // Post, unless max_queued closures already wait: then false, and nothing runs.
  bool TryPost(std::function<void()> work);
  // Runs everything already queued (and what it posts), then joins the threads.
  void Stop();

 private:
  void Run();

  const std::string name_;
  const size_t max_queued_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_WORKER_POOL_H_
