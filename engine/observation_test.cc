// What each seat and a spectator may see (observation.h).
#include "engine/observation.h"

#include "engine/game.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

const Rules kClassic = MakeRules(Team::kSolo, Format::kClassic);

Event MakeEvent(EventType type, int seat) {
  Event e;
  e.type = type;
  e.seat = static_cast<int8_t>(seat);
  return e;
}

TEST(ObservationTest, PrivateEventsGoOnlyToTheirSeat) {
  for (EventType type :
       {EventType::kHandShown, EventType::kDoublesSelected, EventType::kReady}) {
    for (int seat = 0; seat < kNumSeats; ++seat) {
      const Event e = MakeEvent(type, seat);
      for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
        EXPECT_EQ(VisibleTo(e, viewer), viewer == seat)
            << "type " << static_cast<int>(type) << " viewer " << viewer;
      }
    }
  }
}

TEST(ObservationTest, PublicEventsGoToEveryone) {
  for (EventType type :
       {EventType::kDealStarted, EventType::kContractChosen, EventType::kDoublesRevealed,
        EventType::kTwosShown, EventType::kPlayStarted, EventType::kCardPlayed,
        EventType::kPassed, EventType::kTrickTaken, EventType::kSeatOut,
        EventType::kDealEnded, EventType::kGameEnded}) {
    for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
      EXPECT_TRUE(VisibleTo(MakeEvent(type, 2), viewer)) << static_cast<int>(type);
    }
  }
}

TEST(ObservationTest, BeforeTheFirstDealNobodySeesCards) {
  Game game(kClassic);
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    const Observation o = Observe(game, viewer);
    EXPECT_EQ(o.deal, -1);
    EXPECT_EQ(o.phase, Phase::kDealing);
    EXPECT_EQ(o.hand, 0u);
  }
}

TEST(ObservationTest, OnlyTheOwnerSeesItsHandWhileChoosing) {
  Game game(kClassic);
  const Hands hands = StripedHands();  // seat 3 holds 7H
  ASSERT_OK(game.Apply(Action::Deal(hands)));
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    const Observation o = Observe(game, viewer);
    EXPECT_EQ(o.hand, viewer == 3 ? hands[3] : 0) << viewer;
    EXPECT_EQ(o.available_contracts, viewer == 3 ? 0b11111u : 0) << viewer;
    EXPECT_EQ(o.owner, 3);
    EXPECT_EQ(o.to_act, 3);
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(o.hand_sizes[s], 13);
  }
  ExpectNoHiddenCardShown(game, 0);
  ASSERT_OK(game.Apply(Action::ChooseContract(3, Contract::kDiamonds)));
  for (int viewer = 0; viewer < kNumSeats; ++viewer) {
    EXPECT_EQ(Observe(game, viewer).hand, hands[viewer]);
  }
  EXPECT_EQ(Observe(game, kSpectator).hand, 0u);
}

TEST(ObservationTest, PlayIsSeenByAllButOnlyTheSeatToPlayHasLegalCards) {
  Game game(kClassic);
  const Hands hands = StripedHands();
  ASSERT_OK(DealAndChoose(game, hands, Contract::kTricks));
  ASSERT_OK(PlayCards(game, "5C 2C"));  // seat 3 leads, seat 0 follows
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    const Observation o = Observe(game, viewer);
    EXPECT_EQ(o.trick[3], CardOf("5C"));
    EXPECT_EQ(o.trick[0], CardOf("2C"));
    EXPECT_EQ(o.trick[1], kNoCard);
    EXPECT_EQ(o.leader, 3);
    EXPECT_EQ(o.to_act, 1);
    EXPECT_EQ(o.hand_sizes[0], 12);
    EXPECT_EQ(o.hand_sizes[1], 13);
    EXPECT_EQ(o.legal, viewer == 1 ? Cards("3C 7C JC") : 0) << viewer;
  }
  EXPECT_EQ(Observe(game, 0).hand, hands[0] & ~Cards("2C"));
  ExpectNoHiddenCardShown(game, 0);
}

TEST(ObservationTest, CardsLeftAfterAnEarlyEndAreNeverShown) {
  Game game(kClassic);
  ASSERT_OK(DealAndChoose(game, KingOfHeartsHands(), Contract::kKingOfHearts));
  ASSERT_OK(AllReady(game));
  ASSERT_OK(PlayCards(game, "AH 2D 2H KH"));  // seat 2 leads and takes KH at once
  ASSERT_EQ(game.phase(), Phase::kDealing);
  EXPECT_EQ(game.deal_scores()[0], (Scores{0, 0, -75, 0}));
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    const Observation o = Observe(game, viewer);
    EXPECT_EQ(o.hand, viewer >= 0 ? game.deal().hands()[viewer] : 0);
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(o.hand_sizes[s], 12);
    EXPECT_EQ(o.taken[2], Cards("AH 2D 2H KH"));
  }
  ExpectNoHiddenCardShown(game, 0);
}

TEST(ObservationTest, PartnerTrixShowsTheTwosUntilPlayed) {
  Game game(MakeRules(Team::kPartner, Format::kComplex));
  const Hands hands = SuitHands();  // seat 2 holds 7H and starts
  ASSERT_OK(DealAndChoose(game, hands, Contract::kTrix));
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    const Observation o = Observe(game, viewer);
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(o.twos_shown[s], hands[s] & kTwos);
  }
  ExpectNoHiddenCardShown(game, 0);
}

}  // namespace
}  // namespace trix::engine
