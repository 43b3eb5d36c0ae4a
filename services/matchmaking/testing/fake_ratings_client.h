// A ratings service in memory (clients/ratings_client.h), for the lobby's and
// the hold releases' tests: ratings by player, balances and stake holds as the
// ledger keeps them (HoldStake idempotent by request id and refused beyond the
// balance, replaces_hold_id, KeepHold, AttachHold, ReleaseHold naming the table
// of an attached hold), and a switch that makes every call UNAVAILABLE.
// Client() gives each user a RatingsClient of its own over the one ledger.
//
//   FakeRatings ratings;
//   ratings.SetBalance("p", 100);
//   Lobby lobby(options, &tickets, ratings.Client(), nullptr, &releases, ...);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_FAKE_RATINGS_CLIENT_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_FAKE_RATINGS_CLIENT_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/clients/ratings_client.h"

namespace trix::matchmaking {

class FakeRatings : public RatingsClient {
 public:
  void SetRating(const std::string& player, int display, bool provisional = false) {
    std::lock_guard<std::mutex> lock(mu_);
    ratings_[player] = {display, provisional};
  }
  void SetBalance(const std::string& player, int64_t balance) {
    std::lock_guard<std::mutex> lock(mu_);
    balances_[player] = balance;
  }
  void SetAway(bool away) {
    std::lock_guard<std::mutex> lock(mu_);
    away_ = away;
  }
  std::optional<v1::Hold> HoldOf(const std::string& hold_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = holds_.find(hold_id);
    if (it == holds_.end()) return std::nullopt;
    return it->second;
  }
  int holds_made() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(holds_.size());
  }
  // The hold is given back as the ledger would past its TTL.
  void Expire(const std::string& hold_id) {
    std::lock_guard<std::mutex> lock(mu_);
    holds_[hold_id].set_state(v1::HOLD_STATE_RELEASED);
  }
  // A RatingsClient over this ledger, for one user (the lobby, the releases).
  std::unique_ptr<RatingsClient> Client();

  absl::StatusOr<v1::GetRatingsResponse> GetRatings(
      const v1::GetRatingsRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (away_) return absl::UnavailableError("ratings away");
    v1::GetRatingsResponse response;
    for (const std::string& player : request.player_ids()) {
      v1::Rating* r = response.add_ratings();
      r->set_player_id(player);
      auto it = ratings_.find(player);
      r->set_display(it == ratings_.end() ? 1500 : it->second.first);
      r->set_provisional(it == ratings_.end() || it->second.second);
    }
    return response;
  }

  absl::StatusOr<v1::Hold> HoldStake(const v1::HoldStakeRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (away_) return absl::UnavailableError("ratings away");
    if (auto it = by_request_.find(request.request_id()); it != by_request_.end()) {
      return holds_[it->second];  // the same request: the same hold, as it stands
    }
    if (auto it = holds_.find(request.replaces_hold_id());
        it != holds_.end() && it->second.state() == v1::HOLD_STATE_HELD) {
      it->second.set_state(v1::HOLD_STATE_RELEASED);
    }
    if (Available(request.player_id()) < request.amount()) {
      return absl::FailedPreconditionError("the balance is too low");
    }
    v1::Hold hold;
    hold.set_hold_id(absl::StrCat("hold-", holds_.size() + 1));
    hold.set_player_id(request.player_id());
    hold.set_amount(request.amount());
    hold.set_state(v1::HOLD_STATE_HELD);
    holds_[hold.hold_id()] = hold;
    by_request_[request.request_id()] = hold.hold_id();
    return hold;
  }

  absl::StatusOr<v1::Hold> KeepHold(const std::string& hold_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (away_) return absl::UnavailableError("ratings away");
    auto it = holds_.find(hold_id);
    if (it == holds_.end()) return absl::NotFoundError("no such hold");
    if (it->second.state() == v1::HOLD_STATE_RELEASED) {
      return absl::FailedPreconditionError("the hold was released");
    }
    return it->second;
  }

  absl::Status AttachHold(const std::string& hold_id, const std::string& table_id,
                          int seat) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (away_) return absl::UnavailableError("ratings away");
    auto it = holds_.find(hold_id);
    if (it == holds_.end()) return absl::NotFoundError("no such hold");
    it->second.set_state(v1::HOLD_STATE_ATTACHED);
    it->second.set_table_id(table_id);
    it->second.set_seat(seat);
    return absl::OkStatus();
  }

  absl::Status ReleaseHold(const std::string& hold_id, const std::string& table_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (away_) return absl::UnavailableError("ratings away");
    auto it = holds_.find(hold_id);
    if (it == holds_.end()) return absl::NotFoundError("no such hold");
    v1::Hold& hold = it->second;
    if (hold.state() == v1::HOLD_STATE_ATTACHED && hold.table_id() != table_id) {
      return absl::FailedPreconditionError("the hold is attached to a table");
    }
    hold.set_state(v1::HOLD_STATE_RELEASED);
    return absl::OkStatus();
  }

 private:
  // The balance less the stakes held or attached.
  int64_t Available(const std::string& player) const {
    auto it = balances_.find(player);
    int64_t available = it == balances_.end() ? 0 : it->second;
    for (const auto& [id, h] : holds_) {
      if (h.player_id() == player && (h.state() == v1::HOLD_STATE_HELD ||
                                      h.state() == v1::HOLD_STATE_ATTACHED)) {
        available -= h.amount();
      }
    }
    return available;
  }

  mutable std::mutex mu_;
  bool away_ = false;
  std::map<std::string, std::pair<int, bool>> ratings_;  // display, provisional
  std::map<std::string, int64_t> balances_;
  std::map<std::string, v1::Hold> holds_;           // by hold id
  std::map<std::string, std::string> by_request_;  // request id -> hold id
};

// Forwards every call to the one FakeRatings.
class FakeRatingsClient : public RatingsClient {
 public:
  explicit FakeRatingsClient(FakeRatings* ledger) : ledger_(ledger) {}
  absl::StatusOr<v1::GetRatingsResponse> GetRatings(
      const v1::GetRatingsRequest& request) override {
    return ledger_->GetRatings(request);
  }
  absl::StatusOr<v1::Hold> HoldStake(const v1::HoldStakeRequest& request) override {
    return ledger_->HoldStake(request);
  }
  absl::StatusOr<v1::Hold> KeepHold(const std::string& hold_id) override {
    return ledger_->KeepHold(hold_id);
  }
  absl::Status AttachHold(const std::string& hold_id, const std::string& table_id,
                          int seat) override {
    return ledger_->AttachHold(hold_id, table_id, seat);
  }
  absl::Status ReleaseHold(const std::string& hold_id, const std::string& table_id) override {
    return ledger_->ReleaseHold(hold_id, table_id);
  }

 private:
  FakeRatings* const ledger_;
};

inline std::unique_ptr<RatingsClient> FakeRatings::Client() {
  return std::make_unique<FakeRatingsClient>(this);
}

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_FAKE_RATINGS_CLIENT_H_
