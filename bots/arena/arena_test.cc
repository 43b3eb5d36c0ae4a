#include "bots/arena/arena.h"

#include "bots/arena/arena_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::arena {
namespace {

using engine::kNumSeats;

MatchOptions Options(const std::string& mode, int games, const std::string& a,
                     const std::string& b) {
  MatchOptions o;
  o.mode = mode;
  o.games = games;
  o.a = a;
  o.b = b;
  o.seed = 42;
  o.threads = 2;
  return o;
}

TEST(ArenaTest, APairDealsTheSameHandsWithTheSidesSwapped) {
  const MatchOptions options = Options("classic-solo", 2, "heuristic", "random");
  const ArenaGameSetup first = PairGameSetup(options, 3, 0);
  const ArenaGameSetup second = PairGameSetup(options, 3, 1);
  EXPECT_EQ(first.table_seed, second.table_seed);
  EXPECT_NE(first.table_seed, PairGameSetup(options, 4, 0).table_seed);
  for (int s = 0; s < kNumSeats; ++s) {
    EXPECT_NE(first.strategies[s], second.strategies[s]) << "seat " << s;
  }
  EXPECT_THAT(first.strategies, testing::ElementsAre("heuristic", "random", "heuristic",
                                                     "random"));

  absl::StatusOr<GameRecord> a = PlayArenaGame(first);
  absl::StatusOr<GameRecord> b = PlayArenaGame(second);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->deals.size(), 20u);  // 4 kingdoms of 5 contracts
  ASSERT_EQ(b->deals.size(), a->deals.size());
  for (size_t i = 0; i < a->deals.size(); ++i) {
    EXPECT_EQ(a->deals[i].dealt, b->deals[i].dealt) << "deal " << i;
    EXPECT_EQ(a->deals[i].owner, b->deals[i].owner) << "deal " << i;
  }
  // The deals' scores add up to the game's totals.
  engine::Scores sum{};
  for (const DealRecord& deal : a->deals) {
    for (int s = 0; s < kNumSeats; ++s) sum[s] += deal.scores[s];
  }
  EXPECT_EQ(sum, a->totals);
}

TEST(ArenaTest, APairIsBookedPerSeatAndGameForEachSide) {
  GameRecord first, second;
  first.totals = {100, -40, 20, -80};    // A at seats 0 and 2
  second.totals = {-10, 30, -50, 30};    // A at seats 1 and 3
  DealRecord deal;
  deal.contract = engine::Contract::kQueens;
  deal.owner = 1;
  deal.scores = {0, -50, -25, -25};
  deal.doubling = {0, -25, 25, 0};
  first.deals = {deal};
  second.deals = {deal};
  const PairResult pair = BookPair(first, second);
  const auto& a = pair.figures[0];
  const auto& b = pair.figures[1];
  EXPECT_DOUBLE_EQ(a[static_cast<int>(Figure::kPoints)], (100 + 20 + 30 + 30) / 4.0);
  EXPECT_DOUBLE_EQ(b[static_cast<int>(Figure::kPoints)], (-40 - 80 - 10 - 50) / 4.0);
  // Seat 1 owned the deal: B in the first game, A in the second.
  EXPECT_DOUBLE_EQ(a[static_cast<int>(Figure::kOwned)], -50 / 4.0);
  EXPECT_DOUBLE_EQ(b[static_cast<int>(Figure::kOwned)], -50 / 4.0);
  EXPECT_DOUBLE_EQ(a[static_cast<int>(Figure::kQueens)], (0 - 25 - 50 - 25) / 4.0);
  EXPECT_DOUBLE_EQ(a[static_cast<int>(Figure::kDoubling)], (0 + 25 - 25 + 0) / 4.0);
  EXPECT_DOUBLE_EQ(a[static_cast<int>(Figure::kTrix)], 0);
}

TEST(ArenaTest, BookingSplitsOutWhatTheDoublesMoved) {
  // Random play doubles half the doublable cards; over a few games some doubled
  // card is taken, and what the doubles moved is zero-sum within each deal.
  const MatchOptions options = Options("classic-partner", 2, "random", "random");
  absl::StatusOr<GameRecord> game = PlayArenaGame(PairGameSetup(options, 0, 0));
  ASSERT_TRUE(game.ok()) << game.status();
  bool any = false;
  for (const DealRecord& deal : game->deals) {
    int sum = 0;
    for (int s = 0; s < kNumSeats; ++s) {
      sum += deal.doubling[s];
      any |= deal.doubling[s] != 0;
    }
    EXPECT_EQ(sum, 0);
  }
  EXPECT_TRUE(any);
}

TEST(ArenaTest, ADeterministicStrategyAgainstItselfHasNoMargin) {
  absl::StatusOr<MatchReport> report =
      PlayMatch(Options("complex-partner", 4, "heuristic", "heuristic"));
  ASSERT_TRUE(report.ok()) << report.status();
  for (Figure f : ReportedFigures(*report)) {
    const Estimate margin = report->Margin(f);
    EXPECT_EQ(margin.mean, 0) << FigureName(f);
    EXPECT_EQ(margin.half_width, 0) << FigureName(f);
  }
}

TEST(ArenaTest, RandomAgainstItselfHasAMarginWhoseIntervalHoldsZero) {
  absl::StatusOr<MatchReport> report =
      PlayMatch(Options("complex-solo", 60, "random", "random"));
  ASSERT_TRUE(report.ok()) << report.status();
  const Estimate margin = report->Margin(Figure::kPoints);
  EXPECT_GT(margin.half_width, 0);
  EXPECT_TRUE(margin.Contains(0)) << margin.mean << " ± " << margin.half_width;
}

TEST(ArenaTest, HeuristicBeatsRandomSignificantly) {
  absl::StatusOr<MatchReport> report =
      PlayMatch(Options("complex-partner", 20, "heuristic", "random"));
  ASSERT_TRUE(report.ok()) << report.status();
  const Estimate margin = report->Margin(Figure::kPoints);
  EXPECT_GT(margin.mean - margin.half_width, 0) << margin.mean << " ± " << margin.half_width;
  EXPECT_EQ(report->games(), 20);
  EXPECT_GT(report->decision_ns[0][static_cast<int>(Decision::kPlay)].size(), 0u);
}

TEST(ArenaTest, AMatchDependsOnItsSeedOnly) {
  MatchOptions options = Options("classic-solo", 6, "random", "heuristic");
  options.threads = 1;
  absl::StatusOr<MatchReport> one = PlayMatch(options);
  options.threads = 2;
  absl::StatusOr<MatchReport> two = PlayMatch(options);
  options.seed = 43;
  absl::StatusOr<MatchReport> other = PlayMatch(options);
  ASSERT_TRUE(one.ok() && two.ok() && other.ok());
  ASSERT_EQ(one->pairs.size(), 3u);
  for (size_t p = 0; p < one->pairs.size(); ++p) {
    EXPECT_EQ(one->pairs[p].figures, two->pairs[p].figures) << "pair " << p;
  }
  EXPECT_NE(one->pairs[0].figures, other->pairs[0].figures);
}

TEST(ArenaTest, AnUnknownStrategyOrModeIsAnError) {
  absl::StatusOr<MatchReport> strategy = PlayMatch(Options("classic-solo", 2, "x", "random"));
  EXPECT_EQ(strategy.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(strategy.status().message(), testing::HasSubstr("unknown strategy"));
  absl::StatusOr<MatchReport> mode = PlayMatch(Options("hearts", 2, "random", "random"));
  EXPECT_EQ(mode.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ArenaTest, TheReportNamesEveryFigureOfTheMode) {
  absl::StatusOr<MatchReport> report =
      PlayMatch(Options("classic-partner", 2, "heuristic", "random"));
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json json = ReportJson(*report);
  for (const char* name : {"points", "owned_deals", "doubling", "king_of_hearts", "queens",
                           "diamonds", "tricks", "trix"}) {
    EXPECT_TRUE(json["figures"].contains(name)) << name;
  }
  EXPECT_FALSE(json["figures"].contains("complex"));
  EXPECT_TRUE(json["decision_us"]["a"]["play"].contains("p99"));
  EXPECT_THAT(ReportText(*report), testing::HasSubstr("A - B"));
}

}  // namespace
}  // namespace trix::arena
