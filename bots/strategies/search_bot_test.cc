#include "bots/strategies/search_bot.h"

#include <string>

#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/heuristic_bot.h"
#include "bots/strategies/random_bot.h"
#include "bots/strategies/strategy.h"
#include "bots/strategies/strategy_testing.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

using engine::Contract;

SearchOptions Quick() {
  SearchOptions o;
  o.samples = 12;
  o.min_samples = 4;
  o.contract_samples = 40;
  o.double_samples = 20;
  o.trix_nodes = 500;
  return o;
}

// Counts the decisions of a bot and checks each is one of the options offered.
class Referee : public Bot {
 public:
  explicit Referee(Bot* inner) : inner_(inner) {}
  void Restart(const SeatState& s) override { inner_->Restart(s); }
  void Observe(const v1::Event& e, const SeatState& s) override { inner_->Observe(e, s); }
  Decision Decide(const SeatState& s) override {
    const Decision d = inner_->Decide(s);
    EXPECT_TRUE(IsAllowed(d, s.options))
        << DescribeState(s) << ": " << DescribeDecision(d);
    ++decisions;
    return d;
  }
  int decisions = 0;

 private:
  Bot* inner_;
};

class SearchGameTest : public testing::TestWithParam<std::string> {};

TEST_P(SearchGameTest, EveryDecisionOfWholeGamesIsLegal) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    // The third game without doubling.
    LocalTable table(LocalTableOptions{
        .mode = GetParam(), .seed = seed, .kingdoms = 1, .doubling = seed != 3});
    SearchBot s0(seed, Quick()), s2(seed + 1, Quick());
    HeuristicBot h1;
    RandomBot r3(seed);
    Referee b0(&s0), b1(&h1), b2(&s2), b3(&r3);
    ASSERT_TRUE(table.PlayToEnd({&b0, &b1, &b2, &b3}).ok());
    EXPECT_GT(b0.decisions, 20);
    EXPECT_FALSE(s0.timings().trick_card.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, SearchGameTest, testing::ValuesIn(kModes),
                         ModeTestName());

TEST(SearchBotTest, JoinedMidDealStillPlaysALegalCard) {
  // A state made by hand has no history of the deal: the heuristic's card.
  SearchBot bot(1, Quick());
  SeatState s =
      PlayState(Contract::kKingOfHearts, "KH 2C 3D", 2).Trick(1, {"AS"}).Build();
  s.played |= Cards("2S 3S 4S 5S");
  bot.Restart(s);
  const Decision d = bot.Decide(s);
  ASSERT_TRUE(IsAllowed(d, s.options));
  EXPECT_EQ(d.card, C("KH"));
}

TEST(SearchBotTest, IsAStrategyOfTrixBot) {
  absl::StatusOr<std::unique_ptr<Bot>> bot = MakeStrategy("search", 3);
  ASSERT_TRUE(bot.ok());
  EXPECT_NE(dynamic_cast<SearchBot*>(bot->get()), nullptr);
}

}  // namespace
}  // namespace trix::bots
