// The point values of points.h against docs/rules.md's tables, and ScoreTrick's
// doubling transfers.
#include "engine/points.h"

#include "gtest/gtest.h"

namespace trix::engine {
namespace {

constexpr Card kQueenOfDiamonds = MakeCard(kDiamonds, kQueen);
constexpr Card kQueenOfSpades = MakeCard(kSpades, kQueen);
constexpr Card kTwoOfDiamonds = MakeCard(kDiamonds, kTwo);

TEST(PointsTest, CardPointsFollowTheContract) {
  EXPECT_EQ(CardPoints(Contract::kKingOfHearts, kKingOfHearts), -75);
  EXPECT_EQ(CardPoints(Contract::kKingOfHearts, kQueenOfSpades), 0);
  EXPECT_EQ(CardPoints(Contract::kQueens, kQueenOfDiamonds), -25);
  EXPECT_EQ(CardPoints(Contract::kDiamonds, kQueenOfDiamonds), -10);
  EXPECT_EQ(CardPoints(Contract::kTricks, kKingOfHearts), 0);
  EXPECT_EQ(CardPoints(Contract::kComplex, kQueenOfDiamonds), -35);
  EXPECT_EQ(CardPoints(Contract::kComplex, kKingOfHearts), -75);
  EXPECT_EQ(CardPoints(Contract::kComplex, kTwoOfDiamonds), -10);
  EXPECT_EQ(CardPoints(Contract::kTrix, kKingOfHearts), 0);
}

TEST(PointsTest, PenaltyCardsAreTheCardsWithPoints) {
  for (int c = 0; c < kNumContracts; ++c) {
    const Contract contract = static_cast<Contract>(c);
    for (CardSet all = kAllCards; all;) {
      const Card card = PopLowest(all);
      EXPECT_EQ((PenaltyCards(contract) & Bit(card)) != 0, CardPoints(contract, card) != 0)
          << ContractName(contract) << " " << CardName(card);
    }
  }
  EXPECT_EQ(Count(PenaltyCards(Contract::kComplex)), 1 + 4 + 13 - 1);
}

TEST(PointsTest, ADoubledCardCostsItsValueMore) {
  EXPECT_EQ(TakingCost(Contract::kKingOfHearts, kKingOfHearts, true), 150);
  EXPECT_EQ(TakingCost(Contract::kQueens, kQueenOfSpades, true), 50);
  // The diamond part of QD is never doubled: 35 + 25, not 2 x 35.
  EXPECT_EQ(TakingCost(Contract::kComplex, kQueenOfDiamonds, true), 60);
  EXPECT_EQ(TakingCost(Contract::kComplex, kQueenOfDiamonds, false), 35);
}

// Every trick contract hands out a fixed total: -75, -100, -130, -195; Complex -500.
TEST(PointsTest, EachContractHandsOutItsTotal) {
  EXPECT_EQ(TrickPoints(Contract::kKingOfHearts, kAllCards), -75);
  EXPECT_EQ(TrickPoints(Contract::kQueens, kAllCards), -100);
  EXPECT_EQ(TrickPoints(Contract::kDiamonds, kAllCards), -130);
  EXPECT_EQ(13 * TrickPoints(Contract::kTricks, 0), -195);
  EXPECT_EQ(TrickPoints(Contract::kComplex, kAllCards) + 12 * kTrickPoints, -500);
  int trix = 0;
  for (int32_t p : kTrixPlacePoints) trix += p;
  EXPECT_EQ(trix, 500);
}

TEST(PointsTest, ScoreTrickMovesDoubledValues) {
  const CardSet trick = Bit(kQueenOfDiamonds) | Bit(kKingOfHearts) |
                        Bit(MakeCard(kDiamonds, kAce)) | Bit(kTwoOfDiamonds);
  std::array<CardSet, kNumSeats> doubled_by{};
  doubled_by[1] = Bit(kQueenOfDiamonds);
  doubled_by[3] = Bit(kKingOfHearts);
  // Seat 2 takes it: -15 -75 -25 -30 and both doubles, +25 to seat 1, +75 to seat 3.
  std::array<int32_t, kNumSeats> scores{};
  ScoreTrick(Contract::kComplex, trick, /*winner=*/2, /*leader=*/0, doubled_by, scores);
  EXPECT_EQ(scores, (std::array<int32_t, kNumSeats>{0, 25, -245, 75}));
  // Seat 1 takes its own doubled QD: the +25 goes to the trick's leader.
  scores = {};
  ScoreTrick(Contract::kComplex, trick, /*winner=*/1, /*leader=*/0, doubled_by, scores);
  EXPECT_EQ(scores, (std::array<int32_t, kNumSeats>{25, -245, 0, 75}));
  int32_t sum = 0;
  for (int32_t s : scores) sum += s;
  EXPECT_EQ(sum, TrickPoints(Contract::kComplex, trick));
}

}  // namespace
}  // namespace trix::engine
