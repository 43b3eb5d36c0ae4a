#include "services/table/strand.h"

#include <utility>

#include "engine/check.h"

namespace trix::table {

Strand::Placed Strand::Post(Command& command, size_t bound, bool may_hold) {
  absl::MutexLock lock(&mu_);
  if (queue_.size() + held_.size() >= bound) return Placed::kFull;
  if (holding_) {
    // The table is coming (a claim round is reading it): the command waits for
    // it, on no thread.
    if (!may_hold) return Placed::kRefused;
    const bool first = held_.empty();
    held_.push_back({absl::Now(), std::move(command)});
    return first ? Placed::kFirstHeld : Placed::kHeld;
  }
  queue_.push_back(std::move(command));
  if (running_) return Placed::kQueued;
  running_ = true;
  return Placed::kStart;
}

void Strand::Drain(Owner& owner) {
  for (;;) {
    // One of the two: a continuation, or a command with its status.
    std::function<void()> work;
    Command command;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      TRIX_CHECK(running_) << "table " << table_id_ << " drained while idle";
      if (waiting_) {
        // Either the work just run suspended the strand (the first arrival: the
        // completion will continue), or the completion arrived first and posted us.
        if (arrivals_ < 2 && ++arrivals_ < 2) return;
        waiting_ = false;
        work = std::move(continuation_);
        TRIX_CHECK(work) << "table " << table_id_ << " resumed with no continuation";
      } else if (queue_.empty()) {
        running_ = false;
        return;
      } else if (const bool loaded = owner.Loaded();
                 !loaded && owner.MayLoad() && failed_budget_ == 0) {
        // The table must be loaded first; the strand waits.
        waiting_ = true;
        arrivals_ = 1;
        continuation_ = nullptr;
        owner.Load();
        return;
      } else {
        if (!loaded) {
          if (failed_budget_ > 0) --failed_budget_;
          status = owner.NotLoaded();
        }
        command = std::move(queue_.front());
        queue_.pop_front();
      }
    }
    if (work) {
      work();
    } else {
      command(status);
    }
  }
}

void Strand::Suspend() {
  absl::MutexLock lock(&mu_);
  // Only the strand's own work suspends it, and only once per piece of work.
  TRIX_CHECK(running_ && !waiting_) << "table " << table_id_;
  waiting_ = true;
  arrivals_ = 0;
  continuation_ = nullptr;
}

bool Strand::Complete(std::function<void()> continuation) {
  absl::MutexLock lock(&mu_);
  // One completion per suspension: a second would run the strand twice.
  TRIX_CHECK(waiting_ && arrivals_ < 2) << "table " << table_id_;
  continuation_ = std::move(continuation);
  return ++arrivals_ == 2;
}

void Strand::FailQueued() {
  absl::MutexLock lock(&mu_);
  failed_budget_ = static_cast<int>(queue_.size());
}

void Strand::HoldForLoad() {
  absl::MutexLock lock(&mu_);
  holding_ = true;
}

bool Strand::StopHolding(const std::function<void()>& first) {
  absl::MutexLock lock(&mu_);
  if (!holding_) return false;
  first();
  holding_ = false;
  for (Held& held : held_) queue_.push_back(std::move(held.command));
  held_.clear();
  return true;
}

absl::optional<absl::Time> Strand::TakeHeld(absl::Time before,
                                            std::vector<Command>* taken) {
  absl::MutexLock lock(&mu_);
  while (!held_.empty() && held_.front().since <= before) {
    taken->push_back(std::move(held_.front().command));
    held_.pop_front();
  }
  if (held_.empty()) return absl::nullopt;
  return held_.front().since;
}

}  // namespace trix::table
