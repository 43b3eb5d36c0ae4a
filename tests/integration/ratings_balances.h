// Money for the integration tests that play staked games: a ratings service
// process (build/bin/ratings-service, started by the fixture) and the calls that
// credit a player and read a balance through it, failing the test when the
// service refuses. A fixture mixes it in beside its own base:
//
//   class StakedRoomsTest : public MatchmakingTest, protected RatingsBalances { ... };
//   Credit("alice", 500);
//   EXPECT_TRUE(HeldBecomes("alice", 0, absl::Seconds(30)));
#ifndef TRIX_TESTS_INTEGRATION_RATINGS_BALANCES_H_
#define TRIX_TESTS_INTEGRATION_RATINGS_BALANCES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/ratings/ratings_process.h"
#include "trix/v1/ratings.pb.h"

namespace trix::matchmaking {

class RatingsBalances {
 protected:
  void Credit(const std::string& player, int64_t amount) {
    grpc::Status s = ratings_->Credit("credit-" + player, player, amount);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  v1::Balance Balance(const std::string& player) {
    v1::Balance balance;
    grpc::Status s = ratings_->GetBalance(player, &balance);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return balance;
  }
  // Waits up to `timeout` for the player's held amount to become `held`.
  bool HeldBecomes(const std::string& player, int64_t held, absl::Duration timeout) {
    for (absl::Time until = absl::Now() + timeout; absl::Now() < until;) {
      if (Balance(player).held() == held) return true;
      absl::SleepFor(absl::Milliseconds(100));
    }
    return Balance(player).held() == held;
  }

  std::unique_ptr<ratings::RatingsProcess> ratings_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_INTEGRATION_RATINGS_BALANCES_H_
