// A hosted table's strand: its commands (an action, a clock that ran out, a new
// subscriber) run strictly one after another, never two at once, on whichever
// thread drains it.
//
// A strand runs one piece of work at a time: a queued command, or the
// continuation of an append or a load. Work that starts such an operation
// suspends the strand (Suspend); the operation's completion hands its
// continuation back (Complete). The two can finish in either order on different
// threads, so both "arrive" at the suspension, and the second to arrive runs the
// continuation and drains on: never two threads at once, and no work of the
// table in between. The flags that say so are checked (TRIX_CHECK): a strand that
// lost count would run a table on two threads, or never again.
//
// Before each command the strand asks its Owner whether the table is loaded; a
// table that is not is loaded first (the strand suspended meanwhile), and after a
// failed load the commands then waiting get the owner's error (FailQueued).
// While a claim round is reading the table (HoldForLoad) commands are held, in
// order, until the read arrives (StopHolding) or they waited too long (TakeHeld).
//
// The mutex guards only the queue and the flags; the table itself belongs to the
// strand's work. Strand knows nothing of the host: the owner drains it.
#ifndef TRIX_SERVICES_TABLE_STRAND_H_
#define TRIX_SERVICES_TABLE_STRAND_H_

#include <deque>
#include <functional>
#include <list>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"

namespace trix::table {

class Strand {
 public:
  // A strand command. `status` is OK when the table is loaded, else why not.
  using Command = std::function<void(const absl::Status& status)>;

  // What Drain asks of the table's owner, on the strand.
  class Owner {
   public:
    virtual ~Owner() = default;
    // Whether the table is loaded.
    virtual bool Loaded() const = 0;
    // Why it is not (what its commands get meanwhile).
    virtual absl::Status NotLoaded() const = 0;
    // Whether a table that is not loaded may be loaded (not once it left).
    virtual bool MayLoad() const = 0;
    // Starts loading the table; its completion calls Complete.
    virtual void Load() = 0;
  };

  // How Post placed a command.
  enum class Placed {
    kStart,      // queued on an idle strand: the caller drains it
    kQueued,     // queued behind work that is running
    kFull,       // `bound` commands wait: not queued
    kHeld,       // held until the table's read arrives
    kFirstHeld,  // held, the first: the caller starts the wait's clock
    kRefused,    // the strand holds commands and this one may not wait: not queued
  };

  // `table_id` names the table in the checks' messages; it outlives the strand.
  explicit Strand(const std::string& table_id) : table_id_(table_id) {}
  Strand(const Strand&) = delete;
  Strand& operator=(const Strand&) = delete;

  // Queues `command` (moved from unless kFull or kRefused) when fewer than `bound`
  // commands wait. While the strand holds commands, it is held if `may_hold`.
  Placed Post(Command& command, size_t bound, bool may_hold);
  // Runs the queued commands and continuations until the strand is idle or
  // suspended. Called by whoever got kStart from Post or true from Complete.
  void Drain(Owner& owner);
  // Work on the strand that starts an append or a load suspends the strand.
  void Suspend();
  // The operation's completion: true when the caller is to Drain (the work that
  // suspended the strand has already returned).
  bool Complete(std::function<void()> continuation);
  // After a failed load: the commands waiting now get the owner's error; the
  // next one tries to load again.
  void FailQueued();

  // Holds the commands posted from now on (before the strand is shared).
  void HoldForLoad();
  // Runs `first` and queues the held commands, in order, under the strand's lock;
  // false (and nothing run) when the strand holds nothing.
  bool StopHolding(const std::function<void()>& first);
  // Takes the commands held since `before` or earlier into `taken`; answers when
  // the oldest left came.
  absl::optional<absl::Time> TakeHeld(absl::Time before, std::vector<Command>* taken);

 private:
  struct Held {
    absl::Time since;
    Command command;
  };

  const std::string& table_id_;
  absl::Mutex mu_;
  std::list<Command> queue_ ABSL_GUARDED_BY(mu_);  // holds nothing while empty
  bool running_ ABSL_GUARDED_BY(mu_) = false;      // a Drain is scheduled or running
  bool waiting_ ABSL_GUARDED_BY(mu_) = false;      // an append or load is in flight
  // Who of the suspending work and the completion has arrived (0..2); the second
  // runs `continuation_`.
  int arrivals_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<void()> continuation_ ABSL_GUARDED_BY(mu_);
  // After a failed load, this many queued commands get the owner's error; then
  // the next command tries to load again.
  int failed_budget_ ABSL_GUARDED_BY(mu_) = 0;
  // Whether commands are held for a table being read (HoldForLoad).
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Held> held_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STRAND_H_
