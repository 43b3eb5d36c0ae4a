#include "bots/strategies/level.h"

#include <memory>
#include <set>

#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/heuristic_bot.h"
#include "bots/strategies/search_bot.h"
#include "bots/strategies/strategy_testing.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

TEST(BotLevelTest, EveryLevelParsesFromItsNameAndBuildsItsStrategy) {
  for (const LevelConfig& config : BotLevels()) {
    absl::StatusOr<BotLevel> level = ParseBotLevel(config.name);
    ASSERT_TRUE(level.ok()) << config.name;
    EXPECT_EQ(*level, config.level);
    EXPECT_STREQ(BotLevelName(*level), config.name);
    std::unique_ptr<Bot> bot = MakeLevelBot(*level, 7);
    ASSERT_NE(bot, nullptr) << config.name;
  }
}

TEST(BotLevelTest, EachLevelIsTheConfigurationItsTableNames) {
  EXPECT_NE(dynamic_cast<NoisyBot*>(MakeLevelBot(BotLevel::kBeginner, 1).get()), nullptr);
  EXPECT_NE(dynamic_cast<NoisyBot*>(MakeLevelBot(BotLevel::kCasual, 1).get()), nullptr);
  EXPECT_GT(LevelConfigOf(BotLevel::kBeginner).noise, LevelConfigOf(BotLevel::kCasual).noise);
  EXPECT_NE(dynamic_cast<SearchBot*>(MakeLevelBot(BotLevel::kStrong, 1).get()), nullptr);
  EXPECT_NE(dynamic_cast<SearchBot*>(MakeLevelBot(BotLevel::kExpert, 1).get()), nullptr);
  EXPECT_LT(LevelConfigOf(BotLevel::kStrong).search.budget,
            LevelConfigOf(BotLevel::kExpert).search.budget);
  EXPECT_LT(LevelConfigOf(BotLevel::kStrong).search.samples,
            LevelConfigOf(BotLevel::kExpert).search.samples);
}

TEST(BotLevelTest, ALevelsNameOrAStrategysNameMakesItsBot) {
  EXPECT_NE(dynamic_cast<NoisyBot*>(MakeBotNamed("casual", 1, SearchOptions()).value().get()),
            nullptr);
  EXPECT_NE(dynamic_cast<HeuristicBot*>(MakeBotNamed("heuristic", 1, SearchOptions()).value().get()),
            nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(MakeBotNamed("grandmaster", 1, SearchOptions()).status()));
}

TEST(BotLevelTest, AnUnknownLevelIsAClearError) {
  absl::StatusOr<BotLevel> level = ParseBotLevel("grandmaster");
  ASSERT_FALSE(level.ok());
  EXPECT_EQ(level.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(level.status().message(),
            "unknown level \"grandmaster\" (one of: beginner, casual, strong, expert)");
}

TEST(BotLevelTest, TheBeginnersNoiseAnswersFromTheOptions) {
  const SeatState s =
      PlayState(engine::Contract::kTricks, "2S 9S KS AS 3C").Trick(3, {"TS"}).Build();
  std::unique_ptr<Bot> beginner = MakeLevelBot(BotLevel::kBeginner, 11);
  HeuristicBot heuristic;
  const engine::Card usual = heuristic.Decide(s).card;
  std::set<engine::Card> played;
  for (int i = 0; i < 400; ++i) {
    const Decision d = beginner->Decide(s);
    ASSERT_TRUE(IsAllowed(d, s.options)) << DescribeDecision(d);
    played.insert(d.card);
  }
  EXPECT_TRUE(played.count(usual));
  EXPECT_GT(played.size(), 1u);  // now and then a random legal card
}

}  // namespace
}  // namespace trix::bots
