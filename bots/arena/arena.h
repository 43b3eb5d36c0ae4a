// The arena: two strategies, A and B, play each other with duplicate deals so
// that the luck of the cards cancels out. Each duplicate pair is two games on the
// same deals (the same table seed, so every seat is dealt the same hands): in the
// first A holds seats 0 and 2 and B seats 1 and 3; in the second they swap. In
// partner modes that swaps the two partnerships; in solo modes every seat, with
// its cards and its turns to choose a contract, is played once by each strategy.
// Every figure is a mean per seat and per game, and its 95% confidence interval
// is taken over the pairs (A's pair mean less B's), so that the variance the
// duplicate removes does not count against it.
//
//   MatchOptions options{.mode = "complex-partner", .games = 200, .a = "heuristic",
//                        .b = "random"};
//   absl::StatusOr<MatchReport> report = PlayMatch(options);
//   report->Margin(Figure::kPoints);  // A less B, points per seat per game
#ifndef TRIX_BOTS_ARENA_ARENA_H_
#define TRIX_BOTS_ARENA_ARENA_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bots/arena/arena_game.h"
#include "engine/rules.h"

namespace trix::arena {

struct MatchOptions {
  std::string mode = "complex-partner";
  int games = 100;  // rounded up to whole duplicate pairs (two games each)
  std::string a = "heuristic";
  std::string b = "random";
  uint64_t seed = 1;
  int threads = 2;
  bots::SearchOptions search;  // the search strategy's budget
};

// Which strategy, A (0) or B (1), plays `seat` in game `half` (0 or 1) of a pair.
inline int SideOf(int seat, int half) { return (seat & 1) ^ half; }
// The table seed of duplicate pair `pair`: both its games are dealt from it.
uint64_t PairTableSeed(uint64_t match_seed, int pair);
// The setup of one game of a pair.
ArenaGameSetup PairGameSetup(const MatchOptions& options, int pair, int half);

// What is measured, each per seat and per game of a strategy.
enum class Figure {
  kPoints = 0,  // the game's final total
  kOwned,       // points scored in the deals the seat chose the contract for
  kDoubling,    // points the doubled cards moved (own doubles and others')
  kKingOfHearts,  // points scored in each contract's deals (doubles included)
  kQueens,
  kDiamonds,
  kTricks,
  kTrix,
  kComplex,
};
inline constexpr int kNumFigures = 9;
const char* FigureName(Figure figure);
// The figure of one contract's deals.
inline Figure ContractFigure(engine::Contract c) {
  return static_cast<Figure>(static_cast<int>(Figure::kKingOfHearts) + static_cast<int>(c));
}

// One duplicate pair's means, per side (A = 0, B = 1).
struct PairResult {
  std::array<std::array<double, kNumFigures>, 2> figures{};
};

// A mean and the half-width of its 95% confidence interval (normal approximation).
struct Estimate {
  double mean = 0;
  double half_width = 0;
  int n = 0;
  bool Contains(double x) const { return x >= mean - half_width && x <= mean + half_width; }
};
Estimate EstimateOf(const std::vector<double>& samples);

struct MatchReport {
  MatchOptions options;
  std::vector<PairResult> pairs;
  // Decision times in nanoseconds, per side and kind of decision.
  std::array<std::array<std::vector<int64_t>, kNumDecisions>, 2> decision_ns;
  double seconds = 0;  // wall time of the whole match

  int games() const { return 2 * static_cast<int>(pairs.size()); }
  Estimate Of(int side, Figure figure) const;
  // A less B.
  Estimate Margin(Figure figure) const;
  // The p-th percentile (0 < p < 100) of a side's decision times, nanoseconds.
  int64_t DecisionPercentile(int side, Decision decision, double p) const;
};

// Plays options.games games (whole pairs) on options.threads threads. The result
// depends on the options only, whatever the number of threads.
absl::StatusOr<MatchReport> PlayMatch(const MatchOptions& options);

// Books one pair's two games.
PairResult BookPair(const GameRecord& first, const GameRecord& second);

}  // namespace trix::arena

#endif  // TRIX_BOTS_ARENA_ARENA_H_
