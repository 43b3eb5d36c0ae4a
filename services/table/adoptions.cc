#include "services/table/adoptions.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace trix::table {

Adoptions::Adoptions(AdoptionOptions options, HostMetrics& metrics)
    : options_(std::move(options)), metrics_(metrics) {}

Adoptions::Turn Adoptions::Admit(const std::string& table_id, bool may_wait,
                                 absl::Time now, absl::Status* refused) {
  absl::MutexLock lock(&mu_);
  if (auto u = unknown_.find(table_id); u != unknown_.end()) {
    if (now < u->second.expires) {
      if (refused) *refused = u->second.status;
      return Turn::kRefused;
    }
    unknown_.erase(u);
  }
  // Claims (start, maintenance) are bounded by their batches; calls by this.
  if (loading_ < options_.max_adoptions) {
    ShowLoading(loading_ + 1);
    return Turn::kStart;
  }
  if (!may_wait || waiting_.size() >= options_.max_waiting_adoptions) {
    if (refused) *refused = Busy();
    return Turn::kRefused;
  }
  waiting_.push_back(table_id);
  return Turn::kWait;
}

void Adoptions::Ended(const std::string& table_id, bool for_call,
                      const absl::Status& outcome, absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (for_call) ShowLoading(loading_ - 1);
  if (!absl::IsNotFound(outcome) || options_.unknown_table_memory <= absl::ZeroDuration()) {
    return;
  }
  if (unknown_.size() >= options_.max_unknown_tables) {
    EraseExpired(now);
    if (unknown_.size() >= options_.max_unknown_tables) return;  // full of fresh ones
  }
  unknown_[table_id] = {outcome, now + options_.unknown_table_memory};
}

absl::optional<std::string> Adoptions::StartWaiting(
    const std::function<bool(const std::string&)>& still_waits) {
  absl::MutexLock lock(&mu_);
  while (loading_ < options_.max_adoptions && !waiting_.empty()) {
    std::string table_id = std::move(waiting_.front());
    waiting_.pop_front();
    if (!still_waits(table_id)) continue;
    ShowLoading(loading_ + 1);
    return table_id;
  }
  return absl::nullopt;
}

void Adoptions::NotStarted() {
  absl::MutexLock lock(&mu_);
  ShowLoading(loading_ - 1);
}

void Adoptions::ForgetUnknown(const std::string& table_id) {
  absl::MutexLock lock(&mu_);
  unknown_.erase(table_id);
}

void Adoptions::DropExpired(absl::Time now) {
  absl::MutexLock lock(&mu_);
  EraseExpired(now);
}

void Adoptions::EraseExpired(absl::Time now) {
  absl::erase_if(unknown_, [&](const auto& entry) { return entry.second.expires <= now; });
}

size_t Adoptions::loading() const {
  absl::MutexLock lock(&mu_);
  return loading_;
}

size_t Adoptions::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

size_t Adoptions::unknown() const {
  absl::MutexLock lock(&mu_);
  return unknown_.size();
}

void Adoptions::ShowLoading(size_t loading) {
  loading_ = loading;
  metrics_.adoptions.Set(static_cast<double>(loading_));
}

absl::Status Adoptions::Busy() const {
  metrics_.refused_busy.Increment();
  return absl::UnavailableError(
      absl::StrCat("this instance is loading ", options_.max_adoptions,
                   " tables it does not host; retry in a second"));
}

}  // namespace trix::table
