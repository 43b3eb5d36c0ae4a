#include "bots/strategies/random_bot.h"

#include <map>

#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/strategy.h"
#include "bots/strategies/strategy_testing.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

TEST(RandomBotTest, PicksEveryLegalCardAboutEquallyOften) {
  const SeatState s =
      PlayState(engine::Contract::kTricks, "2S 9S KS AS 3C").Trick(3, {"TS"}).Build();
  RandomBot bot(7);
  std::map<engine::Card, int> count;
  for (int i = 0; i < 4000; ++i) {
    const Decision d = bot.Decide(s);
    ASSERT_TRUE(IsAllowed(d, s.options)) << DescribeDecision(d);
    ++count[d.card];
  }
  ASSERT_EQ(count.size(), 4u);  // the four spades, never the club
  for (const auto& [card, n] : count) {
    EXPECT_NEAR(n, 1000, 150) << engine::CardName(card);
  }
}

TEST(RandomBotTest, ContractsAndDoublesComeFromTheOptions) {
  SeatState s;
  s.options.pending = true;
  s.options.phase = engine::Phase::kChoosingContract;
  s.options.contracts = 1u << 1 | 1u << 4;
  RandomBot bot(3);
  std::map<engine::Contract, int> picked;
  for (int i = 0; i < 200; ++i) {
    const Decision d = bot.Decide(s);
    ASSERT_TRUE(IsAllowed(d, s.options));
    ++picked[d.contract];
  }
  EXPECT_EQ(picked.size(), 2u);

  s.options.phase = engine::Phase::kDoubling;
  s.options.doublable = Cards("KH QS");
  for (int i = 0; i < 100; ++i) {
    const Decision d = bot.Decide(s);
    ASSERT_TRUE(IsAllowed(d, s.options));
    EXPECT_TRUE(d.ready);
  }
}

TEST(RandomBotTest, AnEmptyPromptGetsTheFallbackNotACrash) {
  SeatState s;
  s.options.pending = true;
  s.options.phase = engine::Phase::kPlaying;
  RandomBot bot(1);
  EXPECT_EQ(bot.Decide(s).card, engine::kNoCard);
}

TEST(RandomBotTest, PlaysWholeGamesWithoutARefusal) {
  for (const char* mode :
       {"classic-solo", "classic-partner", "complex-solo", "complex-partner"}) {
    LocalTable table({.mode = mode, .seed = 5, .kingdoms = 2, .doubling = true});
    RandomBot b0(1), b1(2), b2(3), b3(4);
    const absl::Status played = table.PlayToEnd({&b0, &b1, &b2, &b3});
    EXPECT_TRUE(played.ok()) << mode << ": " << played;
  }
}

TEST(StrategyTest, ByName) {
  EXPECT_TRUE(MakeStrategy("random", 1).ok());
  EXPECT_TRUE(MakeStrategy("heuristic", 1).ok());
  EXPECT_EQ(MakeStrategy("minimax", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trix::bots
