// One thread that calls back when tables' clocks run out. A process hosts
// thousands of tables, each with a clock that restarts at every card, so a timer
// per table (or a thread per table) would not scale; instead every deadline goes
// into one priority queue and the thread sleeps until the earliest.
//
// Deadlines are never cancelled: a table's clock that was stopped by a move simply
// fires for nothing, and the callback checks the table's current deadline. That
// keeps Schedule() O(log n) and free of bookkeeping.
//
//   DeadlineTimer timer([&](const std::string& table_id) { host.OnClock(table_id); });
//   timer.Schedule(table_id, deadline);
#ifndef TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_
#define TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_

#include <functional>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trix::table {

class DeadlineTimer {
 public:
  // `fire` runs on the timer's thread and must not block.
  explicit DeadlineTimer(std::function<void(const std::string&)> fire);
  ~DeadlineTimer();  // Stop()

  void Schedule(const std::string& key, absl::Time when);
  // Fires nothing more; joins the thread.
  void Stop();
  size_t pending() const;

 private:
  struct Entry {
    absl::Time when;
    std::string key;
    bool operator>(const Entry& other) const { return when > other.when; }
  };
  void Run();

  const std::function<void(const std::string&)> fire_;
  mutable absl::Mutex mu_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_
      ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_
