// The closed doubling phase of a game (RULES.md "Doubling"): who may double what,
// secret selections, readiness, the reveal, and who sees which event.
#include <vector>

#include "absl/status/status.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

constexpr absl::StatusCode kIllegal = absl::StatusCode::kFailedPrecondition;

// Striped hands: seat 3 holds 7H and owns; seat 0 holds QH, seat 1 KH and QS,
// seat 2 QC, seat 3 QD.
class GameDoublingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(DealAndChoose(game_, StripedHands(), Contract::kComplex));
    ASSERT_EQ(game_.owner(), 3);
    ASSERT_EQ(game_.phase(), Phase::kDoubling);
  }

  std::vector<Event> EventsOf(EventType type) const {
    std::vector<Event> out;
    for (const Event& e : game_.events()) {
      if (e.type == type) out.push_back(e);
    }
    return out;
  }

  Game game_{MakeRules(Team::kSolo, Format::kComplex)};
};

TEST_F(GameDoublingTest, EverySeatMayActAndDoubleItsOwnCards) {
  EXPECT_EQ(game_.ToAct(), -1);
  for (int s = 0; s < kNumSeats; ++s) EXPECT_TRUE(game_.CanAct(s));
  EXPECT_EQ(game_.DoublableFor(0), Cards("QH"));
  EXPECT_EQ(game_.DoublableFor(1), Cards("KH QS"));
  EXPECT_EQ(game_.DoublableFor(2), Cards("QC"));
  EXPECT_EQ(game_.DoublableFor(3), Cards("QD"));
}

TEST_F(GameDoublingTest, OnlyTheHolderMayDouble) {
  ExpectRejected(game_, Action::SelectDoubles(0, Bit(kKingOfHearts)), kIllegal,
                 "seat 0 cannot double KH: only its holder may double a card");
}

TEST_F(GameDoublingTest, OnlyDoublableCardsMayBeDoubled) {
  ExpectRejected(game_, Action::SelectDoubles(1, Cards("QS AD")), kIllegal,
                 "cannot double AD in complex");
  ExpectRejected(game_, Action::SelectDoubles(1, Bit(kKingOfHearts) | (CardSet{1} << 13)),
                 absl::StatusCode::kInvalidArgument, "the doubles hold a non-card");
  ExpectRejected(game_, Action::SelectDoubles(1, CardSet{1} << 63),
                 absl::StatusCode::kInvalidArgument, "non-card");
}

TEST_F(GameDoublingTest, OnlyTheContractsCardsAreDoublable) {
  Game queens(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(queens, StripedHands(), Contract::kQueens));
  EXPECT_EQ(queens.DoublableFor(1), Cards("QS"));
  ExpectRejected(queens, Action::SelectDoubles(1, Bit(kKingOfHearts)), kIllegal,
                 "cannot double KH in queens");
  Game king(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(king, StripedHands(), Contract::kKingOfHearts));
  EXPECT_EQ(king.DoublableFor(1), Bit(kKingOfHearts));
  ExpectRejected(king, Action::SelectDoubles(1, Cards("QS")), kIllegal,
                 "cannot double QS in king_of_hearts");
}

TEST_F(GameDoublingTest, SelectionsAreReplacedUntilReady) {
  ASSERT_OK(game_.Apply(Action::SelectDoubles(1, Cards("KH QS"))));
  EXPECT_EQ(game_.doubles_selected(1), Cards("KH QS"));
  ASSERT_OK(game_.Apply(Action::SelectDoubles(1, Cards("QS"))));
  EXPECT_EQ(game_.doubles_selected(1), Cards("QS"));
  ASSERT_OK(game_.Apply(Action::Ready(1)));
  EXPECT_TRUE(game_.ready(1));
  EXPECT_FALSE(game_.CanAct(1));
  EXPECT_EQ(game_.DoublableFor(1), 0u);
  ExpectRejected(game_, Action::SelectDoubles(1, Cards("KH")), kIllegal,
                 "seat 1 is already ready");
  ExpectRejected(game_, Action::Ready(1), kIllegal, "seat 1 is already ready");
  ASSERT_OK(AllReady(game_));
  EXPECT_EQ(game_.deal().doubled_by()[1], Cards("QS"));
}

TEST_F(GameDoublingTest, DoublesAreRevealedOnlyWhenAllFourAreReady) {
  ASSERT_OK(game_.Apply(Action::SelectDoubles(1, Cards("KH"))));
  ASSERT_OK(game_.Apply(Action::SelectDoubles(2, Cards("QC"))));
  for (int s : {2, 0, 1}) {
    ASSERT_OK(game_.Apply(Action::Ready(s)));
    EXPECT_EQ(game_.phase(), Phase::kDoubling);
    EXPECT_TRUE(EventsOf(EventType::kDoublesRevealed).empty());
  }
  ASSERT_OK(game_.Apply(Action::Ready(3)));
  EXPECT_EQ(game_.phase(), Phase::kPlaying);
  const std::vector<Event> revealed = EventsOf(EventType::kDoublesRevealed);
  ASSERT_EQ(revealed.size(), 2u);  // seats that doubled nothing are not named
  EXPECT_EQ(revealed[0].seat, 1);
  EXPECT_EQ(revealed[0].cards, Bit(kKingOfHearts));
  EXPECT_EQ(revealed[1].seat, 2);
  EXPECT_EQ(revealed[1].cards, Cards("QC"));
  EXPECT_EQ(game_.deal().doubled(), Cards("KH QC"));
  EXPECT_EQ(game_.events().back().type, EventType::kPlayStarted);
  EXPECT_EQ(game_.ToAct(), 3);
}

TEST_F(GameDoublingTest, SelectionsAndReadinessArePrivate) {
  ASSERT_OK(game_.Apply(Action::SelectDoubles(1, Cards("KH QS"))));
  ASSERT_OK(game_.Apply(Action::Ready(1)));
  const Event selected = EventsOf(EventType::kDoublesSelected).back();
  const Event ready = EventsOf(EventType::kReady).back();
  EXPECT_EQ(selected.cards, Cards("KH QS"));
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    EXPECT_EQ(VisibleTo(selected, viewer), viewer == 1) << viewer;
    EXPECT_EQ(VisibleTo(ready, viewer), viewer == 1) << viewer;
    const Observation o = Observe(game_, viewer);
    EXPECT_EQ(o.my_doubles, viewer == 1 ? Cards("KH QS") : 0) << viewer;
    EXPECT_EQ(o.my_ready, viewer == 1) << viewer;
    EXPECT_EQ(o.to_act, -1);
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(o.doubled[s], 0u);
  }
  ExpectNoHiddenCardShown(game_, 0);
}

TEST_F(GameDoublingTest, RevealedDoublesArePublic) {
  ASSERT_OK(game_.Apply(Action::SelectDoubles(1, Cards("KH QS"))));
  ASSERT_OK(AllReady(game_));
  const Event revealed = EventsOf(EventType::kDoublesRevealed).back();
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    EXPECT_TRUE(VisibleTo(revealed, viewer));
    EXPECT_EQ(Observe(game_, viewer).doubled[1], Cards("KH QS"));
  }
  ExpectNoHiddenCardShown(game_, 0);
}

TEST(GameDoublingScoreTest, DoubledCardsScoreThroughTheGame) {
  // King of Hearts hands: seat 2 holds 7H, owns and leads; seat 1 doubles KH and
  // takes it itself, so its +75 goes to seat 2, the trick's leader.
  Game game(MakeRules(Team::kSolo, Format::kClassic));
  ASSERT_OK(DealAndChoose(game, KingOfHeartsHands(), Contract::kKingOfHearts));
  ASSERT_EQ(game.owner(), 2);
  ASSERT_OK(game.Apply(Action::SelectDoubles(1, Bit(kKingOfHearts))));
  ASSERT_OK(AllReady(game));
  ASSERT_OK(PlayCards(game, "3H 2D 2H KH"));
  EXPECT_EQ(game.phase(), Phase::kDealing);
  ASSERT_EQ(game.deal_scores().size(), 1u);
  EXPECT_EQ(game.deal_scores()[0], (Scores{0, -150, 75, 0}));
  EXPECT_EQ(game.totals(), (Scores{0, -150, 75, 0}));
}

}  // namespace
}  // namespace trix::engine
