// The game state machine (RULES.md "A game"): who owns each kingdom, contract
// choice, phases, rejected actions, and replaying the log.
#include "engine/game.h"

#include <vector>

#include "absl/status/status.h"
#include "engine/autopilot.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::HasSubstr;

constexpr absl::StatusCode kIllegal = absl::StatusCode::kFailedPrecondition;
constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;

// Striped hands with 7H moved to `seat`.
Hands SevenOfHeartsAt(int seat) {
  const Hands striped = StripedHands();
  if (seat == 3) return striped;
  return Swapped(striped, kSevenOfHearts, seat, Lowest(striped[seat]));
}

std::vector<Event> EventsOf(const Game& game, EventType type) {
  std::vector<Event> out;
  for (const Event& e : game.events()) {
    if (e.type == type) out.push_back(e);
  }
  return out;
}

Rules Kingdoms(Team team, Format format, int kingdoms) {
  Options options;
  options.kingdoms = kingdoms;
  return MakeRules(team, format, options);
}

TEST(GameTest, FirstOwnerHoldsTheSevenOfHearts) {
  for (int seat = 0; seat < kNumSeats; ++seat) {
    Game game(MakeRules(Team::kSolo, Format::kClassic));
    EXPECT_EQ(game.phase(), Phase::kDealing);
    EXPECT_EQ(game.ToAct(), -1);
    ASSERT_OK(game.Apply(Action::Deal(SevenOfHeartsAt(seat))));
    EXPECT_EQ(game.owner(), seat);
    EXPECT_EQ(game.kingdom(), 0);
    EXPECT_EQ(game.phase(), Phase::kChoosingContract);
    EXPECT_EQ(game.ToAct(), seat);
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(game.CanAct(s), s == seat);
    const Event& started = game.events()[0];
    EXPECT_EQ(started.type, EventType::kDealStarted);
    EXPECT_EQ(started.seat, seat);
    EXPECT_EQ(started.deal, 0);
  }
}

TEST(GameTest, EachKingdomBelongsToTheNextSeat) {
  Game game(Kingdoms(Team::kSolo, Format::kComplex, 4));
  std::vector<int> owners;
  for (int deal = 0; deal < 8; ++deal) {
    // After the first deal, where 7H lies no longer matters.
    ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(deal == 0 ? 1 : deal % 4),
                            deal % 2 ? Contract::kTrix : Contract::kComplex));
    EXPECT_EQ(game.kingdom(), deal / 2);
    owners.push_back(game.owner());
    ASSERT_OK(FinishDealByAutopilot(game));
  }
  EXPECT_EQ(owners, (std::vector<int>{1, 1, 2, 2, 3, 3, 0, 0}));
  EXPECT_EQ(game.phase(), Phase::kGameOver);
  ASSERT_EQ(game.deal_scores().size(), 8u);
  const Event& last = game.events().back();
  EXPECT_EQ(last.type, EventType::kGameEnded);
  EXPECT_EQ(last.values, game.totals());
}

TEST(GameTest, OnlyTheOwnerChoosesTheContract) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(game.Apply(Action::Deal(SevenOfHeartsAt(2))));
  ExpectRejected(game, Action::ChooseContract(1, Contract::kQueens), kIllegal,
                 "seat 1 does not own this kingdom; seat 2 picks its contracts");
  EXPECT_OK(game.Apply(Action::ChooseContract(2, Contract::kQueens)));
  EXPECT_EQ(game.contract(), Contract::kQueens);
}

TEST(GameTest, AContractAlreadyPlayedInTheKingdomIsRejected) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(0), Contract::kDiamonds));
  ASSERT_OK(FinishDealByAutopilot(game));
  ASSERT_OK(game.Apply(Action::Deal(ShuffledHands(3, 1))));
  EXPECT_EQ(game.AvailableContracts(), 0b11011u);  // KH, Queens, Tricks, Trix
  ExpectRejected(game, Action::ChooseContract(0, Contract::kDiamonds), kIllegal,
                 "diamonds was already played in this kingdom");
}

TEST(GameTest, AContractOutsideTheFormatIsRejected) {
  Game game(MakeRules(Team::kPartner, Format::kComplex));
  ASSERT_OK(game.Apply(Action::Deal(SevenOfHeartsAt(0))));
  EXPECT_EQ(game.AvailableContracts(), 0b110000u);
  ExpectRejected(game, Action::ChooseContract(0, Contract::kQueens), kIllegal,
                 "queens is not played in complex games");
  ExpectRejected(game, Action::ChooseContract(0, kNoContract), kIllegal,
                 "none is not played");
  ExpectRejected(game, Action::ChooseContract(0, static_cast<Contract>(9)), kIllegal,
                 "is not played");
}

TEST(GameTest, TheLastContractIsPickedAutomatically) {
  Game game(Kingdoms(Team::kSolo, Format::kClassic, 1));
  for (Contract c : {Contract::kTricks, Contract::kKingOfHearts, Contract::kQueens,
                     Contract::kDiamonds}) {
    ASSERT_OK(DealAndChoose(game, ShuffledHands(9, game.deals_started()), c));
    EXPECT_FALSE(EventsOf(game, EventType::kContractChosen).back().automatic);
    ASSERT_OK(FinishDealByAutopilot(game));
  }
  ASSERT_OK(game.Apply(Action::Deal(ShuffledHands(9, 4))));
  const Event chosen = EventsOf(game, EventType::kContractChosen).back();
  EXPECT_TRUE(chosen.automatic);
  EXPECT_EQ(chosen.contract, Contract::kTrix);
  EXPECT_EQ(chosen.deal, 4);
  EXPECT_EQ(game.contract(), Contract::kTrix);
  EXPECT_EQ(game.phase(), Phase::kPlaying);
  EXPECT_EQ(game.AvailableContracts(), 0u);
}

TEST(GameTest, ComplexKingdomPicksTheSecondContractAutomatically) {
  Game game(MakeRules(Team::kPartner, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(3), Contract::kTrix));
  ASSERT_OK(FinishDealByAutopilot(game));
  ASSERT_OK(game.Apply(Action::Deal(ShuffledHands(4, 1))));
  EXPECT_EQ(game.contract(), Contract::kComplex);
  EXPECT_TRUE(EventsOf(game, EventType::kContractChosen).back().automatic);
  EXPECT_EQ(game.phase(), Phase::kDoubling);
}

TEST(GameTest, OtherHandsAreShownOnlyOnceTheContractIsAnnounced) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  const Hands hands = SevenOfHeartsAt(1);
  ASSERT_OK(game.Apply(Action::Deal(hands)));
  std::vector<Event> shown = EventsOf(game, EventType::kHandShown);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].seat, 1);
  EXPECT_EQ(shown[0].cards, hands[1]);

  ASSERT_OK(game.Apply(Action::ChooseContract(1, Contract::kTricks)));
  const std::vector<Event>& events = game.events();
  size_t chosen = 0;
  while (events[chosen].type != EventType::kContractChosen) ++chosen;
  ASSERT_LE(chosen + 3, events.size());
  for (int i = 1; i <= 3; ++i) {
    const Event& e = events[chosen + i];
    EXPECT_EQ(e.type, EventType::kHandShown);
    EXPECT_EQ(e.seat, (1 + i) % 4);
    EXPECT_EQ(e.cards, hands[(1 + i) % 4]);
  }
}

TEST(GameTest, ActionsInTheWrongPhaseAreRejected) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ExpectRejected(game, Action::ChooseContract(0, Contract::kTrix), kIllegal,
                 "no contract is being chosen during dealing");
  ExpectRejected(game, Action::SelectDoubles(0, 0), kIllegal,
                 "doubling is not open during dealing");
  ExpectRejected(game, Action::Ready(0), kIllegal, "doubling is not open during dealing");
  ExpectRejected(game, Action::PlayCard(0, CardOf("2C")), kIllegal,
                 "no card may be played during dealing");

  ASSERT_OK(game.Apply(Action::Deal(SevenOfHeartsAt(0))));
  ExpectRejected(game, Action::Deal(SevenOfHeartsAt(0)), kIllegal,
                 "cannot deal during contract choice");
  ExpectRejected(game, Action::Ready(0), kIllegal,
                 "doubling is not open during contract choice");
  ExpectRejected(game, Action::PlayCard(0, Lowest(game.dealt()[0])), kIllegal,
                 "no card may be played during contract choice");

  ASSERT_OK(game.Apply(Action::ChooseContract(0, Contract::kQueens)));
  ASSERT_EQ(game.phase(), Phase::kDoubling);
  ExpectRejected(game, Action::Deal(SevenOfHeartsAt(0)), kIllegal,
                 "cannot deal during doubling");
  ExpectRejected(game, Action::ChooseContract(0, Contract::kTrix), kIllegal,
                 "no contract is being chosen during doubling");
  ExpectRejected(game, Action::PlayCard(0, Lowest(game.dealt()[0])), kIllegal,
                 "no card may be played during doubling");

  ASSERT_OK(AllReady(game));
  ASSERT_EQ(game.phase(), Phase::kPlaying);
  ExpectRejected(game, Action::Ready(1), kIllegal, "doubling is not open during play");
  ExpectRejected(game, Action::SelectDoubles(1, 0), kIllegal,
                 "doubling is not open during play");
  ExpectRejected(game, Action::ChooseContract(0, Contract::kTrix), kIllegal,
                 "no contract is being chosen during play");
  ExpectRejected(game, Action::Deal(SevenOfHeartsAt(0)), kIllegal,
                 "cannot deal during play");
}

TEST(GameTest, ActionsByTheWrongSeatAreRejected) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(0), Contract::kTricks));
  ASSERT_EQ(game.ToAct(), 0);
  ExpectRejected(game, Action::PlayCard(1, Lowest(game.dealt()[1])), kIllegal,
                 "it is seat 0's turn, not seat 1's");
  for (int seat : {-1, 4, 100, -128}) {
    ExpectRejected(game, Action::PlayCard(seat, Lowest(game.dealt()[0])), kInvalid,
                   "is not 0-3");
  }
  ExpectRejected(game, Action::PlayCard(0, CardOf("KH")), kIllegal,
                 "seat 0 does not hold KH");
  ExpectRejected(game, Action::PlayCard(0, 14), kInvalid, "card 14 is not a card");
  EXPECT_EQ(game.LegalCards(1), 0u);
  EXPECT_EQ(game.LegalCards(0), game.dealt()[0]);
}

TEST(GameTest, BadHandsAreRejected) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  Hands hands = StripedHands();
  hands[0] &= ~Bit(Lowest(hands[0]));
  ExpectRejected(game, Action::Deal(hands), kInvalid, "seat 0 holds 12 cards, not 13");
  hands[0] |= CardSet{1} << 15;
  ExpectRejected(game, Action::Deal(hands), kInvalid, "seat 0's hand has a non-card");
  ExpectRejected(game, Action::Deal(Hands{}), kInvalid, "holds 0 cards");
}

TEST(GameTest, NothingIsAcceptedOnceTheGameIsOver) {
  Game game(Kingdoms(Team::kSolo, Format::kComplex, 1));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(0), Contract::kComplex));
  ASSERT_OK(FinishDealByAutopilot(game));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(2), Contract::kTrix));
  ASSERT_OK(FinishDealByAutopilot(game));
  ASSERT_EQ(game.phase(), Phase::kGameOver);
  EXPECT_EQ(game.ToAct(), -1);
  for (int s = 0; s < kNumSeats; ++s) EXPECT_FALSE(game.CanAct(s));
  ExpectRejected(game, Action::Deal(StripedHands()), kIllegal, "the game is over");
  ExpectRejected(game, Action::PlayCard(0, 0), kIllegal, "the game is over");
  ExpectRejected(game, Action::Ready(7), kIllegal, "the game is over");
}

TEST(GameTest, WithoutDoublingPlayStartsRightAfterTheContract) {
  Options options;
  options.doubling = false;
  Game game(MakeRules(Team::kSolo, Format::kComplex, options));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(0), Contract::kComplex));
  EXPECT_EQ(game.phase(), Phase::kPlaying);
  EXPECT_EQ(game.DoublableFor(0), 0u);
  EXPECT_EQ(DoublableCards(Contract::kComplex, options), 0u);
  ExpectRejected(game, Action::SelectDoubles(3, Bit(kKingOfHearts)), kIllegal,
                 "doubling is not open during play");
  ASSERT_OK(FinishDealByAutopilot(game));
  EXPECT_TRUE(EventsOf(game, EventType::kDoublesSelected).empty());
  EXPECT_TRUE(EventsOf(game, EventType::kDoublesRevealed).empty());
  EXPECT_EQ(game.deal().doubled(), 0u);
  EXPECT_EQ(Sum(game.deal_scores()[0]), -500);
}

TEST(GameTest, ReplayOfTheLogRebuildsTheSameGame) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Rng rng(seed);
    Game game(RandomRules(rng));
    while (game.phase() != Phase::kGameOver) {
      Action action = RandomLegalAction(game, seed, rng);
      if (game.phase() == Phase::kPlaying && rng.Below(3) == 0) {
        action = AutopilotAction(game, game.ToAct());
      }
      ASSERT_OK(game.Apply(action));
      if (game.log().size() == 200) {
        absl::StatusOr<Game> midway = Game::Replay(game.rules(), game.log());
        ASSERT_TRUE(midway.ok()) << midway.status();
        ExpectSameGame(game, *midway);
      }
    }
    absl::StatusOr<Game> replayed = Game::Replay(game.rules(), game.log());
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    ExpectSameGame(game, *replayed);
  }
}

// A game that forgets its past events as each deal starts plays on exactly as one
// that keeps them: the events it still holds, its state and its log are the same.
TEST(GameTest, ForgettingPastEventsChangesNothingElse) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Rng rng(seed);
    const Rules rules = RandomRules(rng);
    Game whole(rules), forgetful(rules);
    while (whole.phase() != Phase::kGameOver) {
      const Action action = RandomLegalAction(whole, seed, rng);
      if (action.type == ActionType::kDeal) {
        forgetful.ForgetEventsBefore(forgetful.event_count());
      }
      ASSERT_OK(whole.Apply(action));
      ASSERT_OK(forgetful.Apply(action));
      ASSERT_EQ(whole.event_count(), forgetful.event_count());
      for (size_t i = forgetful.events_forgotten(); i < whole.event_count(); ++i) {
        ASSERT_EQ(DescribeEvent(whole.event(i)), DescribeEvent(forgetful.event(i)))
            << "event " << i;
      }
    }
    EXPECT_GT(forgetful.events_forgotten(), 0u);
    EXPECT_EQ(whole.totals(), forgetful.totals());
    EXPECT_EQ(whole.deal_scores(), forgetful.deal_scores());
    absl::StatusOr<Game> replayed = Game::Replay(rules, forgetful.log());
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    ExpectSameGame(whole, *replayed);
  }
}

TEST(GameTest, ReplayNamesTheFirstActionThatDoesNotApply) {
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(game, SevenOfHeartsAt(0), Contract::kTricks));
  std::vector<Action> log = game.log();
  log.push_back(Action::PlayCard(1, Lowest(game.dealt()[1])));
  absl::StatusOr<Game> replayed = Game::Replay(game.rules(), log);
  EXPECT_EQ(replayed.status().code(), kIllegal);
  EXPECT_THAT(std::string(replayed.status().message()),
              HasSubstr("action 2: it is seat 0's turn"));
}

}  // namespace
}  // namespace trix::engine
