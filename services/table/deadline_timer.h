// One thread that calls back when tables' clocks run out. A process hosts
// thousands of tables, each with a clock that restarts at every card, so a timer
// per table (or a thread per table) would not scale; instead every deadline goes
// into one ordered set and the thread sleeps until the earliest.
//
// A key has at most one deadline: scheduling it again replaces the one it had, so
// memory is bounded by the number of tables, not by actions/s × clock length. The
// callback still checks the table's current deadline (a clock stopped by a move
// fires for nothing, since there is no Cancel on the hot path).
//
//   DeadlineTimer timer([&](const std::string& table_id) { host.OnClock(table_id); });
//   timer.Schedule(table_id, deadline);
#ifndef TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_
#define TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_

#include <functional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trix::table {

class DeadlineTimer {
 public:
  // `fire` runs on the timer's thread and must not block.
  explicit DeadlineTimer(std::function<void(const std::string&)> fire);
  ~DeadlineTimer();  // Stop()

  // Sets `key`'s deadline to `when`, replacing the one it had. Nothing after Stop.
  void Schedule(const std::string& key, absl::Time when);
  // Fires nothing more (a callback running now finishes), drops every deadline
  // and joins the thread.
  void Stop();
  // Keys with a deadline: at most one each.
  size_t pending() const;

 private:
  // Deadlines in time order (then key), found by a key's view as well, so that
  // moving a deadline copies no key.
  using Entry = std::pair<absl::Time, std::string>;
  using Probe = std::pair<absl::Time, absl::string_view>;
  struct Earlier {
    using is_transparent = void;
    static Probe View(const Entry& e) { return {e.first, e.second}; }
    static const Probe& View(const Probe& p) { return p; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return View(a) < View(b);
    }
  };

  void Run();

  const std::function<void(const std::string&)> fire_;
  mutable absl::Mutex mu_;
  std::set<Entry, Earlier> queue_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::Time> deadline_of_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_DEADLINE_TIMER_H_
