#include "services/table/opening_deadlines.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trix::table {

OpeningDeadlines::OpeningDeadlines(absl::Duration within, size_t max_waiting)
    : within_(within),
      max_waiting_(max_waiting),
      timer_([this](const std::string& key) { Fire(key); }) {}

uint64_t OpeningDeadlines::Start(const std::shared_ptr<StreamSink>& sink) {
  uint64_t id = 0;
  {
    absl::MutexLock lock(&mu_);
    if (within_ <= absl::ZeroDuration()) return ++next_id_;
    if (max_waiting_ == 0 || waiting_.size() < max_waiting_) {
      id = ++next_id_;
      waiting_.emplace(id, sink);
    }
  }
  if (id == 0) {
    sink->Close(absl::ResourceExhaustedError(absl::StrCat(
        "this instance has ", max_waiting_,
        " Play streams waiting for their first message, the most it takes; retry in a "
        "moment")));
    return 0;
  }
  timer_.Schedule(absl::StrCat(id), absl::Now() + within_);
  return id;
}

bool OpeningDeadlines::Said(uint64_t id) {
  if (within_ <= absl::ZeroDuration()) return true;
  if (id == 0) return false;  // refused at once
  absl::MutexLock lock(&mu_);
  return waiting_.erase(id) > 0;
}

size_t OpeningDeadlines::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

void OpeningDeadlines::Fire(const std::string& key) {
  uint64_t id = 0;
  if (!absl::SimpleAtoi(key, &id)) return;
  std::shared_ptr<StreamSink> sink;
  {
    absl::MutexLock lock(&mu_);
    auto it = waiting_.find(id);
    if (it == waiting_.end()) return;  // said in time
    sink = it->second.lock();
    waiting_.erase(it);
  }
  if (sink == nullptr) return;  // the call ended on its own
  sink->Close(absl::DeadlineExceededError(absl::StrCat(
      "no subscribe within ", absl::FormatDuration(within_),
      " of opening the Play stream; its first message must be subscribe (table_id "
      "and seat_token)")));
}

}  // namespace trix::table
