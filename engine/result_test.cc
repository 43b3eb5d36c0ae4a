// Places, team results and pot splits (docs/rules.md "Winning", "Staked tables"),
// and the whole-unit rounding of result.h.
#include "engine/result.h"

#include <numeric>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

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
  EXPECT_THAT(r.payouts, ElementsAre(0, 0, 0, 0));
}

TEST(ResultTest, SoloSingleStakerGetsTheStakeBack) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {0, 0, 0, 70});
  EXPECT_THAT(r.payouts, ElementsAre(0, 0, 0, 70));
}

TEST(ResultTest, SoloTwoStakersBetterPlacedTakesThePot) {
  const GameResult r = ResultOf(kSolo, {50, 20, 20, -90}, {0, 100, 0, 300});
  EXPECT_THAT(r.payouts, ElementsAre(0, 400, 0, 0));
}

TEST(ResultTest, SoloThreeStakersSplit70And30) {
  const GameResult r = ResultOf(kSolo, {50, 20, 10, -80}, {100, 0, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(210, 0, 90, 0));
}

TEST(ResultTest, SoloFourStakersSplit60And30And10) {
  const GameResult r = ResultOf(kSolo, {-10, 40, 30, -60}, {100, 100, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(40, 240, 120, 0));
}

TEST(ResultTest, SoloTiedStakersSplitTheSharesOfTheirPlaces) {
  // Two stakers tied for first of four: (60 + 30) / 2 = 45% each.
  const GameResult r = ResultOf(kSolo, {30, 30, 0, -60}, {100, 100, 100, 100});
  EXPECT_THAT(r.payouts, ElementsAre(180, 180, 40, 0));
  // Tied for last of three stakers: (30 + 0) / 2 = 15% each.
  const GameResult last = ResultOf(kSolo, {50, -25, 0, -25}, {0, 200, 100, 100});
  EXPECT_THAT(last.payouts, ElementsAre(0, 60, 280, 60));
  // Two stakers tied: half each.
  const GameResult two = ResultOf(kSolo, {10, 10, -10, -10}, {50, 150, 0, 0});
  EXPECT_THAT(two.payouts, ElementsAre(100, 100, 0, 0));
}

TEST(ResultTest, SoloPlacesAmongStakersIgnoreNonStakers) {
  // Seat 0 ranks first overall but does not stake; seat 1 is the best staker.
  const GameResult r = ResultOf(kSolo, {90, 20, -40, -70}, {0, 100, 100, 0});
  EXPECT_THAT(r.payouts, ElementsAre(0, 200, 0, 0));
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
  EXPECT_THAT(r.payouts, ElementsAre(0, 0, 0, 450));
  const GameResult both = ResultOf(kPartner, {-100, 30, -20, 90}, {100, 20, 300, 60});
  EXPECT_THAT(both.payouts, ElementsAre(0, 240, 0, 240));
}

TEST(ResultTest, PartnerDrawRefundsEveryStake) {
  const GameResult r = ResultOf(kPartner, {50, -25, -50, 25}, {100, 0, 300, 40});
  EXPECT_THAT(r.team_totals, ElementsAre(0, 0));
  EXPECT_EQ(r.winner_team, -1);
  EXPECT_THAT(r.places, ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(r.payouts, ElementsAre(100, 0, 300, 40));
}

TEST(ResultTest, PartnerWinnersWithoutAStakerRefundEveryStake) {
  const GameResult r = ResultOf(kPartner, {100, -30, 20, -90}, {0, 70, 0, 30});
  EXPECT_EQ(r.winner_team, 0);
  EXPECT_THAT(r.payouts, ElementsAre(0, 70, 0, 30));
}

// Three stakers tied for first of three share 100% / 3 each: 133 1/3 of 400 units.
// The exact split stays exact; the leftover unit goes to the lowest seat among the
// equally placed.
TEST(ResultTest, UnevenSplitsKeepTheExactShareAndRoundToThePot) {
  const GameResult r = ResultOf(kSolo, {10, 10, 10, -30}, {100, 100, 200, 0});
  EXPECT_THAT(r.payouts, ElementsAre(134, 133, 133, 0));
  EXPECT_EQ(r.shares[0].numerator, 400 * 100);
  EXPECT_EQ(r.shares[0].denominator, 3 * 100);
  EXPECT_NEAR(r.shares[2].value(), 133.3333, 1e-4);
  EXPECT_EQ(r.shares[3].value(), 0.0);
}

// 70/30 of 101 units is 70.7 and 30.3: the unit left over goes to the better placed.
TEST(ResultTest, LeftoverUnitGoesToTheBetterPlaced) {
  const GameResult r = ResultOf(kSolo, {-50, 20, 30, 0}, {0, 50, 50, 1});
  EXPECT_THAT(r.places, ElementsAre(4, 2, 1, 3));
  EXPECT_THAT(r.payouts, ElementsAre(0, 30, 71, 0));
  // Partner winners split 3 units: 2 to the lower seat.
  const GameResult p = ResultOf(kPartner, {-100, 30, -20, 90}, {1, 1, 0, 1});
  EXPECT_THAT(p.payouts, ElementsAre(0, 2, 0, 1));
}

TEST(ResultTest, StakesAreBounded) {
  EXPECT_TRUE(ValidateStakes({0, 10, 0, kMaxStake}).ok());
  EXPECT_TRUE(ValidateStakes({0, 10, 0, 500}, 500).ok());
  const absl::Status over = ValidateStakes({0, 10, 0, 501}, 500);
  EXPECT_EQ(over.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(over.message(), "seat 3: a stake must be 0 to 500 units, not 501");
  EXPECT_EQ(ValidateStakes({0, -1, 0, 0}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateStakes({kMaxStake + 1, 0, 0, 0}, kMaxStake + 5).code(),
            absl::StatusCode::kInvalidArgument);
}

// Over random stakes (small ones, to make ties and uneven splits common, and the
// largest allowed) and random totals: the payouts add up to the pot, nobody is paid
// further than a unit from their exact share, and non-stakers get nothing.
TEST(ResultTest, PayoutsAlwaysAddUpToThePot) {
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 20000; ++i) {
    const Variant variant = i % 2 ? kSolo : kPartner;
    Stakes stakes{};
    Scores totals{};
    for (int s = 0; s < kNumSeats; ++s) {
      const int kind = static_cast<int>(rng() % 4);
      stakes[s] = kind == 0   ? 0
                  : kind == 1 ? static_cast<int64_t>(rng() % 7)
                  : kind == 2 ? static_cast<int64_t>(rng() % 100000)
                              : kMaxStake - static_cast<int64_t>(rng() % 3);
      totals[s] = static_cast<int32_t>(rng() % 5) * 25 - 50;
    }
    ASSERT_TRUE(ValidateStakes(stakes).ok());
    const GameResult r = ResultOf(variant, totals, stakes);
    const int64_t pot = std::accumulate(stakes.begin(), stakes.end(), int64_t{0});
    int64_t paid = 0;
    for (int s = 0; s < kNumSeats; ++s) {
      paid += r.payouts[s];
      const long double exact =
          static_cast<long double>(r.shares[s].numerator) / r.shares[s].denominator;
      ASSERT_LT(std::abs(static_cast<long double>(r.payouts[s]) - exact), 1.0L);
      if (stakes[s] == 0) {
        ASSERT_EQ(r.payouts[s], 0);
      }
    }
    ASSERT_EQ(paid, pot) << "case " << i;
  }
}

}  // namespace
}  // namespace trix::engine
