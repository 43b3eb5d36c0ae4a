// The autopilot (autopilot.h): always legal, always the same for the same game.
#include "engine/autopilot.h"

#include <vector>

#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

// A seat that may act now, chosen at random while doubling.
int SeatToAct(const Game& game, Rng& rng) {
  if (game.ToAct() >= 0) return game.ToAct();
  int seat = static_cast<int>(rng.Below(kNumSeats));
  while (!game.CanAct(seat)) seat = (seat + 1) % kNumSeats;
  return seat;
}

bool SameAction(const Action& a, const Action& b) {
  return a.type == b.type && a.seat == b.seat && a.contract == b.contract &&
         a.card == b.card && a.cards == b.cards && a.autopilot == b.autopilot;
}

TEST(AutopilotTest, AlwaysLegalThroughWholeGames) {
  int autopilot_actions = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed);
    Game game(RandomRules(rng));
    while (game.phase() != Phase::kGameOver) {
      if (game.phase() == Phase::kDealing || rng.Below(4) == 0) {
        ASSERT_OK(game.Apply(RandomLegalAction(game, seed, rng)));
        continue;
      }
      const int seat = SeatToAct(game, rng);
      const Action action = AutopilotAction(game, seat);
      EXPECT_TRUE(action.autopilot);
      EXPECT_EQ(action.seat, seat);
      if (action.type == ActionType::kPlayCard) {
        EXPECT_NE(game.LegalCards(seat) & Bit(action.card), 0u);
      }
      if (action.type == ActionType::kChooseContract) {
        EXPECT_NE(game.AvailableContracts() & (1u << static_cast<int>(action.contract)),
                  0u);
      }
      ASSERT_OK(game.Apply(action));
      ++autopilot_actions;
    }
    ExpectScoresAddUp(game);
  }
  EXPECT_GT(autopilot_actions, 10000);
}

TEST(AutopilotTest, AutopilotActionsAreMarkedAutomatic) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(game, StripedHands(), Contract::kTricks));
  ASSERT_OK(game.Apply(AutopilotAction(game, game.ToAct())));
  const Event& played = game.events().back();
  EXPECT_EQ(played.type, EventType::kCardPlayed);
  EXPECT_TRUE(played.automatic);
  ASSERT_OK(game.Apply(Action::PlayCard(game.ToAct(), Lowest(game.LegalCards(0)))));
  EXPECT_FALSE(game.events().back().automatic);
}

TEST(AutopilotTest, DoublingAutopilotCommitsTheCurrentSelection) {
  Game game(MakeRules(Team::kSolo, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, StripedHands(), Contract::kComplex));
  ASSERT_OK(game.Apply(Action::SelectDoubles(1, Cards("QS"))));
  const Action action = AutopilotAction(game, 1);
  EXPECT_EQ(action.type, ActionType::kReady);
  ASSERT_OK(game.Apply(action));
  ASSERT_OK(AllReady(game));
  EXPECT_EQ(game.deal().doubled_by()[1], Cards("QS"));
}

TEST(AutopilotTest, SameGameSameAction) {
  for (uint64_t seed = 100; seed < 110; ++seed) {
    Rng rng(seed);
    const Rules rules = RandomRules(rng);
    Game a(rules);
    Game b(rules);
    std::vector<Action> actions;
    while (a.phase() != Phase::kGameOver) {
      if (a.phase() == Phase::kDealing) {
        const Action deal = RandomLegalAction(a, seed, rng);
        ASSERT_OK(a.Apply(deal));
        ASSERT_OK(b.Apply(deal));
        continue;
      }
      const int seat = a.ToAct() >= 0 ? a.ToAct() : 0;
      ASSERT_TRUE(a.CanAct(seat));
      const Action first = AutopilotAction(a, seat);
      EXPECT_TRUE(SameAction(first, AutopilotAction(a, seat)));
      const Action other = AutopilotAction(b, seat);
      ASSERT_TRUE(SameAction(first, other));
      ASSERT_OK(a.Apply(first));
      ASSERT_OK(b.Apply(other));
      // While doubling, seat 0 is ready now; let the others follow.
      if (a.phase() == Phase::kDoubling) {
        ASSERT_OK(AllReady(a));
        ASSERT_OK(AllReady(b));
      }
    }
    EXPECT_EQ(a.totals(), b.totals());
    ExpectSameGame(a, b);
  }
}

TEST(AutopilotTest, ContractIsAlwaysOneOfTheAvailable) {
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    const CardSet hand = ShuffledHands(rng.Next(), 0)[0];
    for (uint32_t available = 1; available < 64; ++available) {
      const Contract c = AutopilotContract(hand, available);
      ASSERT_NE(c, kNoContract);
      EXPECT_NE(available & (1u << static_cast<int>(c)), 0u) << available;
    }
  }
}

TEST(AutopilotTest, CardIsLegalInEveryDealState) {
  Rng rng(8);
  for (int i = 0; i < 200; ++i) {
    const Contract contract = static_cast<Contract>(rng.Below(kNumContracts));
    const Rules rules = MakeRules(
        Team::kSolo, contract == Contract::kComplex ? Format::kComplex : Format::kClassic,
        RandomOptions(rng));
    const Hands hands = ShuffledHands(rng.Next(), i);
    Deal deal(rules, contract, i % 4, hands,
              RandomDoubles(hands, contract, rules.options, rng));
    while (!deal.over()) {
      const Card card = AutopilotCard(deal);
      ASSERT_NE(deal.LegalCards() & Bit(card), 0u) << ContractName(contract);
      deal.Play(card);
    }
  }
}

}  // namespace
}  // namespace trix::engine
