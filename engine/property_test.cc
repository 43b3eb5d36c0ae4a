// Properties of many random games in every mode with random house rules, random
// contracts, random doubles and random legal cards: the 52 cards are conserved,
// every deal hands out its fixed total, every kingdom sums to zero, the log
// replays to the same game, and nobody ever sees a card hidden in another hand.
#include <ostream>
#include <string>
#include <vector>

#include "engine/autopilot.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {

// Names the mode in test output.
void PrintTo(const Variant& variant, std::ostream* os) { *os << ModeName(variant); }

namespace {

constexpr int kGamesPerMode = 150;

class PropertyTest : public ::testing::TestWithParam<Variant> {
 protected:
  // Plays one random game, checking the invariants after every action.
  void PlayAndCheck(uint64_t seed) {
    Rng rng(seed);
    const Rules rules{GetParam(), RandomOptions(rng)};
    Game game(rules);
    while (game.phase() != Phase::kGameOver) {
      Action action = RandomLegalAction(game, seed, rng);
      if (game.ToAct() >= 0 && rng.Below(8) == 0) {
        action = AutopilotAction(game, game.ToAct());
      }
      const size_t before = game.events().size();
      ASSERT_OK(game.Apply(action));
      ++actions_;
      ExpectCardsConserved(game);
      ExpectNoHiddenCardShown(game, before);
      ExpectEventsMatchTheDeal(game, before);
      if (HasFailure()) {
        ADD_FAILURE() << "seed " << seed << " after action " << game.log().size() - 1;
        return;
      }
    }
    EXPECT_EQ(static_cast<int>(game.deal_scores().size()), DealsPerGame(rules));
    EXPECT_EQ(game.events().back().type, EventType::kGameEnded);
    ExpectScoresAddUp(game);
    absl::StatusOr<Game> replayed = Game::Replay(rules, game.log());
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    ExpectSameGame(game, *replayed);
    ++games_finished_;
    if (HasFailure()) ADD_FAILURE() << "seed " << seed;
  }

  // Hands shown are the hands dealt, and every automatic Trix pass is announced.
  void ExpectEventsMatchTheDeal(const Game& game, size_t first) {
    for (size_t i = first; i < game.events().size(); ++i) {
      const Event& e = game.events()[i];
      if (e.type == EventType::kHandShown) {
        EXPECT_EQ(e.cards, game.dealt()[e.seat]);
      }
      if (e.type == EventType::kDoublesRevealed) ++reveals_;
    }
    if (game.phase() != Phase::kPlaying && game.phase() != Phase::kDealing) return;
    if (game.deal().contract() != Contract::kTrix || game.deals_started() == 0) return;
    int announced = 0;
    for (size_t i = game.events().size(); i-- > 0;) {
      const Event& e = game.events()[i];
      if (e.type == EventType::kDealStarted) break;
      announced += e.type == EventType::kPassed;
    }
    EXPECT_EQ(announced, game.deal().passes());
  }

  int games_finished_ = 0;
  int actions_ = 0;
  int reveals_ = 0;
};

TEST_P(PropertyTest, RandomGamesKeepEveryInvariant) {
  const uint64_t base = 1000 * (1 + static_cast<uint64_t>(GetParam().team) * 2 +
                                static_cast<uint64_t>(GetParam().format));
  for (int i = 0; i < kGamesPerMode; ++i) {
    PlayAndCheck(base + i);
    if (HasFailure()) return;
  }
  EXPECT_EQ(games_finished_, kGamesPerMode);
  // At least one kingdom of 2 deals of 40+ actions per game.
  EXPECT_GT(actions_, kGamesPerMode * 80);
  RecordProperty("actions", actions_);
  EXPECT_GT(reveals_, 0) << "random doubles were never revealed";
}

INSTANTIATE_TEST_SUITE_P(AllModes, PropertyTest,
                         ::testing::Values(Variant{Team::kSolo, Format::kClassic},
                                           Variant{Team::kPartner, Format::kClassic},
                                           Variant{Team::kSolo, Format::kComplex},
                                           Variant{Team::kPartner, Format::kComplex}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           std::string name = ModeName(info.param);
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace trix::engine
