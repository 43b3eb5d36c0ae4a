// Places, team results and pot splits (RULES.md "Winning", "Staked tables").
#include "engine/result.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;

constexpr Variant kSolo{Team::kSolo, Format::kClassic};
constexpr Variant kPartner{Team::kPartner, Format::kComplex};

TEST(ResultTest, SoloPlacesShareTies) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {});
  EXPECT_THAT(r.places, ElementsAre(1, 2, 2, 4));
  EXPECT_THAT(ResultOf(kSolo, {-90, 20, 50, 20}, {}).places, ElementsAre(4, 2, 1, 2));
  EXPECT_THAT(ResultOf(kSolo, {0, 0, 0, 0}, {}).places, ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(ResultOf(kSolo, {10, 10, -5, -15}, {}).places, ElementsAre(1, 1, 3, 4));
  EXPECT_EQ(r.totals, (Scores{50, 20, 20, -90}));
}

TEST(ResultTest, NoStakesNoPayouts) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {});
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 0.0, 0.0, 0.0));
}

TEST(ResultTest, SoloSingleStakerGetsTheStakeBack) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {0, 0, 0, 70});
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 0.0, 0.0, 70.0));
}

TEST(ResultTest, SoloTwoStakersBetterPlacedTakesThePot) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {0, 100, 0, 300});
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 400.0, 0.0, 0.0));
}

TEST(ResultTest, SoloThreeStakersSplit70And30) {
  const GameResult r = ResultOf(kSolo, {50, 20, 10, -80}, {100, 0, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(DoubleEq(210), 0.0, DoubleEq(90), 0.0));
}

TEST(ResultTest, SoloFourStakersSplit60And30And10) {
  const GameResult r = ResultOf(kSolo, {-10, 40, 30, -60}, {100, 100, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(DoubleEq(40), DoubleEq(240), DoubleEq(120), 0.0));
}

TEST(ResultTest, SoloTiedStakersSplitTheSharesOfTheirPlaces) {
  // Two stakers tied for first of four: (60 + 30) / 2 = 45% each.
  const GameResult r = ResultOf(kSolo, {30, 30, 0, -60}, {100, 100, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(DoubleEq(180), DoubleEq(180), DoubleEq(40), 0.0));
  // Tied for last of three stakers: (30 + 0) / 2 = 15% each.
  const GameResult last = ResultOf(kSolo, {50, -25, 0, -25}, {0, 200, 100, 100});
  EXPECT_THAT(last.payouts, ElementsAre(0.0, DoubleEq(60), DoubleEq(280), DoubleEq(60)));
  // Two stakers tied: half each.
  const GameResult two = ResultOf(kSolo, {10, 10, -10, -10}, {50, 150, 0, 0});
  EXPECT_THAT(two.payouts, ElementsAre(DoubleEq(100), DoubleEq(100), 0.0, 0.0));
}

TEST(ResultTest, SoloPlacesAmongStakersIgnoreNonStakers) {
  // Seat 0 ranks first overall but does not stake; seat 1 is the best staker.
  const GameResult r = ResultOf(kSolo, {90, 20, -40, -70}, {0, 100, 100, 0});
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 200.0, 0.0, 0.0));
}

TEST(ResultTest, PartnerTeamInThePlusWins) {
  const GameResult r = ResultOf(kPartner, {100, -30, 20, -90}, {});
  EXPECT_THAT(r.team_totals, ElementsAre(120, -120));
  EXPECT_EQ(r.winner_team, 0);
  EXPECT_THAT(r.places, ElementsAre(1, 2, 1, 2));
}

TEST(ResultTest, PartnerWinningStakersSplitThePot) {
  const GameResult r = ResultOf(kPartner, {-100, 30, -20, 90}, {100, 0, 300, 50});
  EXPECT_EQ(r.winner_team, 1);
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 0.0, 0.0, 450.0));
  const GameResult both = ResultOf(kPartner, {-100, 30, -20, 90}, {100, 20, 300, 60});
  EXPECT_THAT(both.payouts, ElementsAre(0.0, 240.0, 0.0, 240.0));
}

TEST(ResultTest, PartnerDrawRefundsEveryStake) {
  const GameResult r = ResultOf(kPartner, {50, -25, -50, 25}, {100, 0, 300, 40});
  EXPECT_THAT(r.team_totals, ElementsAre(0, 0));
  EXPECT_EQ(r.winner_team, -1);
  EXPECT_THAT(r.places, ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(r.payouts, ElementsAre(100.0, 0.0, 300.0, 40.0));
}

TEST(ResultTest, PartnerWinnersWithoutAStakerRefundEveryStake) {
  const GameResult r = ResultOf(kPartner, {100, -30, 20, -90}, {0, 70, 0, 30});
  EXPECT_EQ(r.winner_team, 0);
  EXPECT_THAT(r.payouts, ElementsAre(0.0, 70.0, 0.0, 30.0));
}

}  // namespace
}  // namespace trix::engine
