#include "services/table/testing/table_client.h"

#include <string>
#include <utility>

namespace trix::table {

v1::ActRequest RandomAction(const v1::Prompt& prompt, engine::Rng& rng) {
  v1::ActRequest act;
  if (prompt.contribute_seed()) {
    std::string* seed = act.mutable_contribute_seed()->mutable_seed();
    while (seed->size() < 32) seed->push_back(static_cast<char>(rng.Below(256)));
    return act;
  }
  switch (prompt.phase()) {
    case v1::PHASE_CHOOSING_CONTRACT: {
      const int n = prompt.available_contracts_size();
      act.mutable_choose_contract()->set_contract(
          static_cast<v1::Contract>(prompt.available_contracts(rng.Below(n))));
      break;
    }
    case v1::PHASE_DOUBLING: {
      v1::SelectDoubles* select = act.mutable_select_doubles();
      for (const std::string& card : prompt.doublable()) {
        if (rng.Below(2)) select->add_cards(card);
      }
      select->set_ready(true);
      break;
    }
    default: {
      const int n = prompt.legal_cards_size();
      act.mutable_play_card()->set_card(n ? prompt.legal_cards(rng.Below(n)) : "");
      break;
    }
  }
  return act;
}

bool RecordingSink::Send(v1::TableUpdate update, bool catch_up) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  if (overflow_ || (capacity_ > 0 && !catch_up && updates_.size() >= capacity_)) {
    closed_ = true;
    status_ = absl::ResourceExhaustedError("stream fell too far behind");
    return false;
  }
  updates_.push_back(std::move(update));
  return true;
}

void RecordingSink::Close(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  // A status of its own, not a share of the host's: the host's copy goes away on
  // the host's threads while the test reads this one.
  status_ = absl::Status(status.code(), status.message());
}

std::vector<v1::TableUpdate> RecordingSink::updates() const {
  absl::MutexLock lock(&mu_);
  return updates_;
}

std::vector<v1::Event> RecordingSink::events() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::Event> out;
  for (const v1::TableUpdate& u : updates_) {
    out.insert(out.end(), u.events().begin(), u.events().end());
  }
  return out;
}

std::optional<v1::Prompt> RecordingSink::last_prompt() const {
  absl::MutexLock lock(&mu_);
  for (auto it = updates_.rbegin(); it != updates_.rend(); ++it) {
    if (it->has_prompt()) return it->prompt();
  }
  return std::nullopt;
}

uint64_t RecordingSink::last_seq_locked() const {
  for (auto it = updates_.rbegin(); it != updates_.rend(); ++it) {
    if (it->events_size() > 0) return it->events(it->events_size() - 1).seq();
    if (it->has_snapshot()) return it->snapshot().seq();
  }
  return 0;
}

bool RecordingSink::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

absl::Status RecordingSink::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

bool RecordingSink::WaitUntil(std::function<bool(const RecordingSink&)> ready,
                              absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() { return ready(*this); };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

void RecordingSink::Overflow() {
  absl::MutexLock lock(&mu_);
  overflow_ = true;
}

}  // namespace trix::table
