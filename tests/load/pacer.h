// Paced play for the load tool: with --rate set, the tables act like players who
// think before they move, so the run offers the service a steady load instead of
// saturating it. Latency targets are only meaningful at a given load: a table
// acting the instant it is prompted keeps one action in flight per table, and
// with every table doing so the latency is just tables ÷ throughput.
//
// TurnPacing hands out a table's action times: one every `interval` on average
// (uniform jitter of ±50%, so that a thousand tables do not act in lockstep),
// counted from the previous slot, not from when the prompt arrived; a table that
// fell behind acts at once. Pacer runs callbacks at their times on one thread.
//
//   Pacer pacer;
//   TurnPacing pacing(absl::Milliseconds(100), seed);
//   pacer.At(pacing.Next(Clock::now()), [] { SendAct(); });
#ifndef TRIX_TESTS_LOAD_PACER_H_
#define TRIX_TESTS_LOAD_PACER_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/random.h"
#include "tests/load/load_context.h"

namespace trix::load {

class TurnPacing {
 public:
  TurnPacing(absl::Duration interval, uint64_t seed);
  // The time for the table's next action; `now` when the table is behind.
  Clock::time_point Next(Clock::time_point now);

 private:
  absl::Mutex mu_;
  const Clock::duration interval_;
  engine::Rng rng_ ABSL_GUARDED_BY(mu_);
  Clock::time_point next_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
};

class Pacer {
 public:
  Pacer();
  // Drops what has not run yet.
  ~Pacer();
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;

  // Runs `fn` on the pacer's thread at `due` (at once when due has passed). `fn`
  // must not block.
  void At(Clock::time_point due, std::function<void()> fn);

 private:
  struct Item {
    Clock::time_point due;
    uint64_t order;  // FIFO among equal times
    std::function<void()> fn;
    bool operator>(const Item& o) const {
      return due != o.due ? due > o.due : order > o.order;
    }
  };
  void Run();

  std::mutex mu_;
  std::condition_variable changed_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> items_;
  uint64_t order_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_PACER_H_
