// Trick contracts: following suit, who wins a trick, who leads, when a deal ends,
// and each contract's scoring (RULES.md "Trick contracts").
#include "engine/deal.h"

#include <vector>

#include "absl/status/status.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::HasSubstr;

const Rules kClassic = MakeRules(Team::kSolo, Format::kClassic);
const Rules kComplex = MakeRules(Team::kSolo, Format::kComplex);

Rules PlayAllTricks(Rules rules) {
  rules.options.end_early = false;
  return rules;
}

TEST(DealTest, OwnerLeadsTheFirstTrick) {
  for (int owner = 0; owner < kNumSeats; ++owner) {
    Deal deal(kClassic, Contract::kQueens, owner, StripedHands(), {});
    EXPECT_EQ(deal.to_play(), owner);
    EXPECT_EQ(deal.leader(), owner);
    EXPECT_EQ(deal.LegalCards(), StripedHands()[owner]);
  }
}

TEST(DealTest, MustFollowTheLedSuit) {
  Deal deal(kClassic, Contract::kQueens, 0, StripedHands(), {});
  ASSERT_OK(PlayCards(deal, "2C"));
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.LegalCards(), Cards("3C 7C JC"));
  absl::Status status = deal.CheckPlay(CardOf("2D"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 1 must follow suit (C)"));
}

TEST(DealTest, VoidSeatMayPlayAnyCard) {
  Deal deal(kClassic, Contract::kTricks, 0, SuitHands(), {});
  ASSERT_OK(PlayCards(deal, "2C"));
  EXPECT_EQ(deal.LegalCards(), SuitCards(kDiamonds));
}

TEST(DealTest, HighestCardOfTheLedSuitWins) {
  // Higher cards of other suits never win: no trumps.
  Deal deal(kClassic, Contract::kTricks, 0, SuitHands(), {});
  ASSERT_OK(PlayCards(deal, "2C AD AH AS"));
  EXPECT_EQ(deal.last_trick_winner(), 0);
  EXPECT_EQ(deal.last_trick(), Cards("2C AD AH AS"));
  EXPECT_EQ(deal.scores(), (Scores{-15, 0, 0, 0}));
}

TEST(DealTest, WinnerLeadsTheNextTrick) {
  Deal deal(kClassic, Contract::kQueens, 0, StripedHands(), {});
  ASSERT_OK(PlayCards(deal, "2C JC 4C KC"));
  EXPECT_EQ(deal.tricks_played(), 1);
  EXPECT_EQ(deal.last_trick_winner(), 3);
  EXPECT_EQ(deal.leader(), 3);
  EXPECT_EQ(deal.to_play(), 3);
  EXPECT_EQ(deal.taken(3), Cards("2C JC 4C KC"));
  EXPECT_EQ(deal.tricks_won(3), 1);
  EXPECT_EQ(deal.trick_size(), 0);
  EXPECT_EQ(deal.LegalCards(), StripedHands()[3] & ~Cards("KC"));
  // Seat 3 leads; seat 2 takes the queen of spades with the king.
  ASSERT_OK(PlayCards(deal, "2S 3S QS KS"));
  EXPECT_EQ(deal.last_trick_winner(), 2);
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -25, 0}));
  EXPECT_EQ(deal.to_play(), 2);
}

TEST(DealTest, CardNotHeldIsRejected) {
  Deal deal(kClassic, Contract::kQueens, 0, StripedHands(), {});
  absl::Status status = deal.CheckPlay(kKingOfHearts);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 0 does not hold KH"));
}

TEST(DealTest, InvalidCardIndexIsInvalidArgument) {
  Deal deal(kClassic, Contract::kQueens, 0, StripedHands(), {});
  for (int card : {13, 14, 15, 63, 200, 255}) {
    absl::Status status = deal.TryPlay(static_cast<Card>(card));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << card;
    EXPECT_THAT(std::string(status.message()), HasSubstr("is not a card"));
  }
  EXPECT_EQ(deal.cards_played(), 0);
}

TEST(DealTest, RejectedPlayChangesNothing) {
  Deal deal(kClassic, Contract::kQueens, 0, StripedHands(), {});
  ASSERT_OK(PlayCards(deal, "2C"));
  EXPECT_FALSE(deal.TryPlay(CardOf("2D")).ok());
  EXPECT_EQ(deal.cards_played(), 1);
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.hands()[1], StripedHands()[1]);
}

TEST(DealTest, KingOfHeartsEndsWithTheTrickThatTakesIt) {
  Deal deal(kClassic, Contract::kKingOfHearts, 0, StripedHands(), {});
  ASSERT_OK(PlayCards(deal, "4H KH AH 3H"));
  EXPECT_TRUE(deal.over());
  EXPECT_EQ(deal.tricks_played(), 1);
  EXPECT_EQ(deal.cards_played(), 4);
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -75, 0}));
  EXPECT_EQ(deal.LegalCards(), 0u);
  absl::Status status = deal.CheckPlay(CardOf("2C"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("deal already over"));
}

TEST(DealTest, KingOfHeartsWithoutEarlyEndPlaysThirteenTricks) {
  Deal deal(PlayAllTricks(kClassic), Contract::kKingOfHearts, 0, StripedHands(), {});
  ASSERT_OK(PlayCards(deal, "4H KH AH 3H"));
  EXPECT_FALSE(deal.over());
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(deal.tricks_played(), 13);
  EXPECT_EQ(deal.cards_played(), 52);
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -75, 0}));
}

// Plays random deals with early ends, then the same cards without them and on to
// the 13th trick: the deal ended exactly when its penalty cards were all taken,
// and the extra tricks change no score.
void ExpectEarlyEndKeepsScores(Contract contract, CardSet penalty_cards) {
  Rng rng(static_cast<uint64_t>(contract) * 7919 + 1);
  for (int i = 0; i < 150; ++i) {
    const Hands hands = ShuffledHands(rng.Next(), 0);
    const int owner = static_cast<int>(rng.Below(kNumSeats));
    Deal early(kClassic, contract, owner, hands, {});
    const std::vector<Card> plays = PlayOutRandomly(early, rng);
    CardSet taken = 0;
    for (int s = 0; s < kNumSeats; ++s) taken |= early.taken(s);
    ASSERT_EQ(taken & penalty_cards, penalty_cards);
    ASSERT_NE(early.last_trick() & penalty_cards, 0u) << "ended after the last penalty";
    ASSERT_EQ(early.cards_played(), 4 * early.tricks_played());

    Deal full(PlayAllTricks(kClassic), contract, owner, hands, {});
    for (Card card : plays) ASSERT_OK(full.TryPlay(card));
    ASSERT_EQ(full.over(), early.tricks_played() == 13);
    PlayOutRandomly(full, rng);
    EXPECT_EQ(full.tricks_played(), 13);
    EXPECT_EQ(full.cards_played(), 52);
    EXPECT_EQ(full.scores(), early.scores()) << ContractName(contract) << " deal " << i;
  }
}

TEST(DealTest, EarlyEndsMatchPlayingAllTricks) {
  ExpectEarlyEndKeepsScores(Contract::kKingOfHearts, Bit(kKingOfHearts));
  ExpectEarlyEndKeepsScores(Contract::kQueens, kQueens);
  ExpectEarlyEndKeepsScores(Contract::kDiamonds, kDiamondsCards);
}

TEST(DealTest, TricksAndComplexAlwaysPlayThirteenTricks) {
  Rng rng(5);
  for (Contract contract : {Contract::kTricks, Contract::kComplex}) {
    for (int i = 0; i < 50; ++i) {
      Deal deal(contract == Contract::kTricks ? kClassic : kComplex, contract, i % 4,
                ShuffledHands(rng.Next(), 0), {});
      PlayOutRandomly(deal, rng);
      EXPECT_EQ(deal.tricks_played(), 13);
      EXPECT_EQ(deal.cards_played(), 52);
    }
  }
}

// What seat s scores from the cards it took, undoubled, per RULES.md.
int32_t ExpectedScore(Contract contract, const Deal& deal, int s) {
  const CardSet t = deal.taken(s);
  const int32_t kh = (t & Bit(kKingOfHearts)) ? -75 : 0;
  const int32_t queens = -25 * Count(t & kQueens);
  const int32_t diamonds = -10 * Count(t & kDiamondsCards);
  const int32_t tricks = -15 * deal.tricks_won(s);
  switch (contract) {
    case Contract::kKingOfHearts:
      return kh;
    case Contract::kQueens:
      return queens;
    case Contract::kDiamonds:
      return diamonds;
    case Contract::kTricks:
      return tricks;
    case Contract::kComplex:
      return kh + queens + diamonds + tricks;
    default:
      return 0;
  }
}

TEST(DealTest, EachContractScoresItsPenaltiesAndFixedTotal) {
  Rng rng(11);
  for (Contract contract : {Contract::kKingOfHearts, Contract::kQueens,
                            Contract::kDiamonds, Contract::kTricks, Contract::kComplex}) {
    const Rules& rules = contract == Contract::kComplex ? kComplex : kClassic;
    for (int i = 0; i < 100; ++i) {
      Deal deal(rules, contract, i % 4, ShuffledHands(rng.Next(), 0), {});
      PlayOutRandomly(deal, rng);
      for (int s = 0; s < kNumSeats; ++s) {
        EXPECT_EQ(deal.scores()[s], ExpectedScore(contract, deal, s))
            << ContractName(contract) << " seat " << s;
      }
      EXPECT_EQ(Sum(deal.scores()), FixedTotal(contract)) << ContractName(contract);
    }
  }
}

TEST(DealTest, TricksCostFifteenEach) {
  // Seat 0 holds every club and leads them all: it takes all 13 tricks.
  Deal deal(kClassic, Contract::kTricks, 0, SuitHands(), {});
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(deal.tricks_won(0), 13);
  EXPECT_EQ(deal.scores(), (Scores{-195, 0, 0, 0}));
}

TEST(DealTest, ComplexQueenOfDiamondsCostsThirtyFive) {
  Deal deal(kComplex, Contract::kComplex, 1, QueenOfDiamondsHands(), {});
  ASSERT_OK(PlayCards(deal, "2C AC AS QD"));
  EXPECT_EQ(deal.last_trick_winner(), 2);
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -15 - 35, 0}));
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(Sum(deal.scores()), -500);
}

TEST(DealTest, ComplexTrickAddsEveryPenalty) {
  // Seat 3 leads KH; seat 0 sheds QD, seat 1 a club; seat 2 takes with AH.
  Deal deal(kComplex, Contract::kComplex, 3, QueenOfDiamondsHands(), {});
  ASSERT_OK(PlayCards(deal, "KH QD 2C AH"));
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -15 - 75 - 35, 0}));
}

TEST(DealTest, ValidateHandsNamesTheProblem) {
  EXPECT_OK(ValidateHands(StripedHands()));
  Hands short_hand = StripedHands();
  short_hand[1] &= ~Bit(kKingOfHearts);
  absl::Status status = ValidateHands(short_hand);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 1 holds 12 cards, not 13"));

  Hands shared = StripedHands();
  shared[0] = (shared[0] & ~Bit(CardOf("2C"))) | Bit(kKingOfHearts);
  status = ValidateHands(shared);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("KH dealt to another seat too"));

  Hands non_card = StripedHands();
  non_card[3] |= CardSet{1} << 13;
  status = ValidateHands(non_card);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 3's hand has a non-card"));
}

}  // namespace
}  // namespace trix::engine
