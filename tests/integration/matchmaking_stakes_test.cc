// Staked tickets against the real ratings service (build/bin/ratings-service as a
// child process on the test's database): no balance, no ticket; a queued ticket
// holds its stake and a cancelled one gives it back.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/ratings/ratings_process.h"

namespace trix::matchmaking {
namespace {

class MatchmakingStakesTest : public MatchmakingTest {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (HasFatalFailure()) return;
    // Matchmaking calls the ratings service with its own credential, which holds
    // only its scopes; the test's own calls use the legacy token (every scope).
    const std::string credentials = ::testing::TempDir() + "/mm-stakes-credentials.json";
    table::WriteCredentialsFile(credentials, {{.name = "matchmaking",
                                               .token = table::kMatchmakingToken,
                                               .scopes = table::MatchmakingScopes()}});
    auto ratings = ratings::RatingsProcess::Start(
        db_->url(), ::testing::TempDir() + "/mm-stakes-ratings.log",
        {"--service_credentials=" + credentials});
    ASSERT_TRUE(ratings.ok()) << ratings.status();
    ratings_ = *std::move(ratings);
    MatchmakingConfig config = TestConfig(db_->url());
    config.ratings_address = "127.0.0.1:" + std::to_string(ratings_->port());
    StartMatchmaking(config);
  }
  void TearDown() override {
    MatchmakingTest::TearDown();
    ratings_.reset();
  }
  void Credit(const std::string& player, int64_t amount) {
    grpc::ClientContext context;
    ratings_->Authorize(context);
    v1::TransferRequest request;
    request.set_request_id("credit-" + player);
    request.set_player_id(player);
    request.set_amount(amount);
    v1::TransferResponse response;
    grpc::Status s = ratings_->stub().Credit(&context, request, &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  v1::Balance Balance(const std::string& player) {
    grpc::ClientContext context;
    ratings_->Authorize(context);
    v1::GetBalanceRequest request;
    request.set_player_id(player);
    v1::Balance balance;
    grpc::Status s = ratings_->stub().GetBalance(&context, request, &balance);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return balance;
  }
  std::unique_ptr<ratings::RatingsProcess> ratings_;
};

TEST_F(MatchmakingStakesTest, AStakedTicketWithoutBalanceIsRefused) {
  v1::FindTableRequest r = Request("broke");
  r.set_stake(100);
  auto player = Queue(r);
  ASSERT_TRUE(player->WaitDone());
  EXPECT_EQ(player->status().error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << player->status().error_message();
}

TEST_F(MatchmakingStakesTest, ACancelledStakedTicketReleasesItsHold) {
  Credit("rich", 500);
  v1::FindTableRequest r = Request("rich");
  r.set_stake(100);
  auto player = Queue(r);
  ASSERT_TRUE(player->WaitQueued(1)) << player->status().error_message();
  EXPECT_EQ(Balance("rich").held(), 100);
  player->Cancel();
  ASSERT_TRUE(player->WaitDone());
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (Balance("rich").held() != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  v1::Balance after = Balance("rich");
  EXPECT_EQ(after.held(), 0);
  EXPECT_EQ(after.available(), 500);
}

TEST_F(MatchmakingStakesTest, FourStakedPlayersShareATableAndTheirHoldsAreAttached) {
  std::vector<std::unique_ptr<TicketClient>> players;
  for (int i = 0; i < 4; ++i) {
    std::string id = "staker" + std::to_string(i);
    Credit(id, 300);
    v1::FindTableRequest r = Request(id);
    r.set_stake(100);
    players.push_back(Queue(r));
  }
  std::string table;
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone());
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
    EXPECT_EQ(p->assignment().stake(), 100);
    if (table.empty()) table = p->assignment().table_id();
    EXPECT_EQ(p->assignment().table_id(), table);
  }
  EXPECT_EQ(Balance("staker0").held(), 100);  // attached to the table, not released
}

}  // namespace
}  // namespace trix::matchmaking
