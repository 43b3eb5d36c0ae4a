// Scoring of doubled cards in a deal (RULES.md "Doubling"): who pays and who is
// paid, and that doubling never changes a deal's total.
#include <vector>

#include "engine/deal.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

const Rules kClassic = MakeRules(Team::kSolo, Format::kClassic);
const Rules kComplex = MakeRules(Team::kSolo, Format::kComplex);

Hands DoubledBy(int seat, absl::string_view cards) {
  Hands doubled_by{};
  doubled_by[seat] = Cards(cards);
  return doubled_by;
}

TEST(DoublingTest, UndoubledKingOfHearts) {
  Deal deal(kClassic, Contract::kKingOfHearts, 0, KingOfHeartsHands(), {});
  ASSERT_OK(PlayCards(deal, "2H KH AH 2D"));
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -75, 0}));
}

TEST(DoublingTest, DoubledCardTakenByAnotherSeat) {
  Deal deal(kClassic, Contract::kKingOfHearts, 0, KingOfHeartsHands(),
            DoubledBy(1, "KH"));
  ASSERT_OK(PlayCards(deal, "2H KH AH 2D"));
  EXPECT_TRUE(deal.over());
  EXPECT_EQ(deal.scores(), (Scores{0, 75, -150, 0}));
}

TEST(DoublingTest, SelfTakeBonusGoesToTheTricksLeader) {
  Deal deal(kClassic, Contract::kKingOfHearts, 0, KingOfHeartsHands(),
            DoubledBy(1, "KH"));
  ASSERT_OK(PlayCards(deal, "2H KH 3H 2D"));
  EXPECT_EQ(deal.last_trick_winner(), 1);
  EXPECT_EQ(deal.scores(), (Scores{75, -150, 0, 0}));
}

TEST(DoublingTest, SelfLedSelfTakenCostsTheValueOnce) {
  Deal deal(kClassic, Contract::kKingOfHearts, 1, KingOfHeartsHands(),
            DoubledBy(1, "KH"));
  ASSERT_OK(PlayCards(deal, "KH 3H 2D 2H"));
  EXPECT_EQ(deal.scores(), (Scores{0, -75, 0, 0}));
}

TEST(DoublingTest, ComplexDoubledQueenOfDiamonds) {
  // -60 for the doubled QD (-50 queen, -10 diamond) and -15 for the trick.
  Deal deal(kComplex, Contract::kComplex, 1, QueenOfDiamondsHands(), DoubledBy(0, "QD"));
  ASSERT_OK(PlayCards(deal, "2C AC AS QD"));
  EXPECT_EQ(deal.last_trick_winner(), 2);
  EXPECT_EQ(deal.scores(), (Scores{25, 0, -75, 0}));
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(Sum(deal.scores()), -500);
}

TEST(DoublingTest, ComplexDoubledKingOfHeartsTakenByAnother) {
  Deal deal(kComplex, Contract::kComplex, 3, QueenOfDiamondsHands(), DoubledBy(3, "KH"));
  ASSERT_OK(PlayCards(deal, "KH QD 2C AH"));
  EXPECT_EQ(deal.scores(), (Scores{0, 0, -15 - 150 - 35, 75}));
}

TEST(DoublingTest, OneSeatDoublingSeveralQueens) {
  const Hands hands = MakeHands(
      "QC QS 2D 3D 4D 5D 6D 7D 8D 9D TD JD KD", "AC AS 2C 3C 4C 5C 6C 7C 8C 9C TC JC KC",
      "QD AD QH 2S 3S 4S 5S 6S 7S 8S 9S TS JS", "KS 2H 3H 4H 5H 6H 7H 8H 9H TH JH KH AH");
  Deal deal(kClassic, Contract::kQueens, 1, hands, DoubledBy(0, "QC QS"));
  ASSERT_OK(PlayCards(deal, "AC QD 2H QC"));
  EXPECT_EQ(deal.scores(), (Scores{25, -75, 0, 0}));
  ASSERT_OK(PlayCards(deal, "AS 2S KS QS"));
  EXPECT_EQ(deal.scores(), (Scores{50, -125, 0, 0}));
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(Sum(deal.scores()), -100);
}

TEST(DoublingTest, DoubledCardStillFollowsSuit) {
  // Seat 1 doubled KH but must still play it on a heart lead (its only heart).
  Deal deal(kClassic, Contract::kKingOfHearts, 0, KingOfHeartsHands(),
            DoubledBy(1, "KH"));
  ASSERT_OK(PlayCards(deal, "2H"));
  EXPECT_EQ(deal.LegalCards(), Bit(kKingOfHearts));
  EXPECT_EQ(deal.doubled(), Bit(kKingOfHearts));
}

// Scores a deal trick by trick from RULES.md, independently of Deal's bookkeeping.
Scores OracleScores(const Rules& rules, Contract contract, int owner, const Hands& hands,
                    const Hands& doubled_by, const std::vector<Card>& plays) {
  Scores scores{};
  Deal replay(rules, contract, owner, hands, doubled_by);
  for (Card card : plays) {
    const int leader = replay.leader();
    const int tricks = replay.tricks_played();
    replay.Play(card);
    if (replay.tricks_played() == tricks) continue;
    const CardSet trick = replay.last_trick();
    const int winner = replay.last_trick_winner();
    int32_t penalty = 0;
    const bool kh = trick & Bit(kKingOfHearts);
    const int queens = Count(trick & kQueens);
    const int diamonds = Count(trick & kDiamondsCards);
    if (contract == Contract::kKingOfHearts) penalty = 75 * kh;
    if (contract == Contract::kQueens) penalty = 25 * queens;
    if (contract == Contract::kComplex)
      penalty = 15 + 75 * kh + 25 * queens + 10 * diamonds;
    scores[winner] -= penalty;
    for (int doubler = 0; doubler < kNumSeats; ++doubler) {
      for (CardSet d = trick & doubled_by[doubler]; d;) {
        const int32_t value = PopLowest(d) == kKingOfHearts ? 75 : 25;
        scores[winner] -= value;
        scores[doubler == winner ? leader : doubler] += value;
      }
    }
  }
  return scores;
}

TEST(DoublingTest, RandomDoublesScoreAsRulesSayAndKeepTheTotal) {
  Rng rng(2024);
  for (Contract contract :
       {Contract::kKingOfHearts, Contract::kQueens, Contract::kComplex}) {
    for (bool end_early : {true, false}) {
      Rules rules = contract == Contract::kComplex ? kComplex : kClassic;
      rules.options.end_early = end_early;
      for (int i = 0; i < 100; ++i) {
        const Hands hands = ShuffledHands(rng.Next(), i);
        const Hands doubled_by = RandomDoubles(hands, contract, rules.options, rng);
        const int owner = i % kNumSeats;
        Deal deal(rules, contract, owner, hands, doubled_by);
        const std::vector<Card> plays = PlayOutRandomly(deal, rng);
        EXPECT_EQ(Sum(deal.scores()), FixedTotal(contract)) << ContractName(contract);
        EXPECT_EQ(deal.scores(),
                  OracleScores(rules, contract, owner, hands, doubled_by, plays))
            << ContractName(contract) << " deal " << i;
      }
    }
  }
}

}  // namespace
}  // namespace trix::engine
