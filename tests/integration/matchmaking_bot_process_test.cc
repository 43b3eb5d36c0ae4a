// Bot fill with a real bot process: build/bin/trix-bot serves a bot account
// (ServeBot) and is given the empty seat of a lone player's table after the wait.
#include <fstream>
#include <sstream>

#include "bots/common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/matchmaking_fixture.h"

namespace trix::matchmaking {
namespace {

class MatchmakingBotProcessTest : public MatchmakingTest {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (!HasFatalFailure()) StartMatchmaking();
  }
};

TEST_F(MatchmakingBotProcessTest, ARealBotProcessFillsTheEmptySeat) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", kServiceBearer);
  v1::RegisterBotRequest request;
  request.set_name("trix-bot-filler");
  v1::RegisterBotResponse bot;
  ASSERT_TRUE(stub_->RegisterBot(&context, request, &bot).ok());
  const std::string log = ::testing::TempDir() + "/mm-trix-bot.log";
  std::remove(log.c_str());
  auto process = bots::ChildProcess::Start(
      {.argv = {BuildPath("bin/trix-bot"), "--matchmaking=" + matchmaking_->address(),
                "--capacity=2", "--strategy=random", "--metrics_port=-1"},
       .env = {{"TRIX_BOT_BOT_KEY", bot.key()}},
       .output_path = log});
  ASSERT_TRUE(process.ok()) << process.status();
  absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (matchmaking_->bots().connected() == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(matchmaking_->bots().connected(), 1);
  auto player = Queue("alone");
  ASSERT_TRUE(player->WaitDone());
  ASSERT_TRUE(player->status().ok()) << player->status().error_message();
  v1::TableView view = Table(player->assignment());
  int of_the_bot = 0;
  for (const v1::SeatView& s : view.seats()) of_the_bot += s.player_id() == bot.bot_id();
  EXPECT_EQ(of_the_bot, 1);
  // The bot plays its seat: its process keeps running without errors.
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_FALSE((*process)->Poll().has_value());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), ::testing::Not(::testing::HasSubstr("\"level\":\"error\"")));
}

}  // namespace
}  // namespace trix::matchmaking
