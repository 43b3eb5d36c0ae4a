#include "bots/arena/arena.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "engine/random.h"

namespace trix::arena {
namespace {

using engine::kNumSeats;

// Seat-games each side plays in a pair: two seats in each of the two games.
constexpr double kSeatGamesPerSide = 4;

struct PairGames {
  GameRecord first;
  GameRecord second;
};

absl::StatusOr<PairGames> PlayPair(const MatchOptions& options, int pair) {
  absl::StatusOr<GameRecord> first = PlayArenaGame(PairGameSetup(options, pair, 0));
  if (!first.ok()) return first.status();
  absl::StatusOr<GameRecord> second = PlayArenaGame(PairGameSetup(options, pair, 1));
  if (!second.ok()) return second.status();
  return PairGames{*std::move(first), *std::move(second)};
}

}  // namespace

const char* FigureName(Figure figure) {
  switch (figure) {
    case Figure::kPoints:
      return "points";
    case Figure::kOwned:
      return "owned_deals";
    case Figure::kDoubling:
      return "doubling";
    case Figure::kKingOfHearts:
      return "king_of_hearts";
    case Figure::kQueens:
      return "queens";
    case Figure::kDiamonds:
      return "diamonds";
    case Figure::kTricks:
      return "tricks";
    case Figure::kTrix:
      return "trix";
    case Figure::kComplex:
      return "complex";
  }
  return "?";
}

uint64_t PairTableSeed(uint64_t match_seed, int pair) {
  engine::Rng rng(match_seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(pair + 1)));
  return rng.Next();
}

ArenaGameSetup PairGameSetup(const MatchOptions& options, int pair, int half) {
  ArenaGameSetup setup;
  setup.mode = options.mode;
  setup.table_seed = PairTableSeed(options.seed, pair);
  setup.search = options.search;
  engine::Rng bot_seeds(setup.table_seed + 1 + static_cast<uint64_t>(half));
  for (int s = 0; s < kNumSeats; ++s) {
    setup.strategies[s] = SideOf(s, half) == 0 ? options.a : options.b;
    setup.bot_seeds[s] = bot_seeds.Next();
  }
  return setup;
}

PairResult BookPair(const GameRecord& first, const GameRecord& second) {
  PairResult result;
  const GameRecord* games[2] = {&first, &second};
  for (int half = 0; half < 2; ++half) {
    for (int s = 0; s < kNumSeats; ++s) {
      std::array<double, kNumFigures>& f = result.figures[SideOf(s, half)];
      f[static_cast<int>(Figure::kPoints)] += games[half]->totals[s];
      for (const DealRecord& deal : games[half]->deals) {
        if (deal.owner == s) f[static_cast<int>(Figure::kOwned)] += deal.scores[s];
        f[static_cast<int>(Figure::kDoubling)] += deal.doubling[s];
        f[static_cast<int>(ContractFigure(deal.contract))] += deal.scores[s];
      }
    }
  }
  for (auto& side : result.figures) {
    for (double& x : side) x /= kSeatGamesPerSide;
  }
  return result;
}

Estimate EstimateOf(const std::vector<double>& samples) {
  Estimate e;
  e.n = static_cast<int>(samples.size());
  if (e.n == 0) return e;
  double sum = 0;
  for (double x : samples) sum += x;
  e.mean = sum / e.n;
  if (e.n < 2) return e;
  double squares = 0;
  for (double x : samples) squares += (x - e.mean) * (x - e.mean);
  e.half_width = 1.96 * std::sqrt(squares / (e.n - 1) / e.n);
  return e;
}

Estimate MatchReport::Of(int side, Figure figure) const {
  std::vector<double> samples;
  samples.reserve(pairs.size());
  for (const PairResult& p : pairs) samples.push_back(p.figures[side][static_cast<int>(figure)]);
  return EstimateOf(samples);
}

Estimate MatchReport::Margin(Figure figure) const {
  std::vector<double> samples;
  samples.reserve(pairs.size());
  const int f = static_cast<int>(figure);
  for (const PairResult& p : pairs) samples.push_back(p.figures[0][f] - p.figures[1][f]);
  return EstimateOf(samples);
}

int64_t MatchReport::DecisionPercentile(int side, Decision decision, double p) const {
  const std::vector<int64_t>& times = decision_ns[side][static_cast<int>(decision)];
  if (times.empty()) return 0;
  // Nearest rank on the sorted times.
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * times.size()));
  return times[std::min(times.size() - 1, rank == 0 ? 0 : rank - 1)];
}

absl::StatusOr<MatchReport> PlayMatch(const MatchOptions& options) {
  if (options.games < 1) return absl::InvalidArgumentError("--games must be at least 1");
  if (options.threads < 1) return absl::InvalidArgumentError("--threads must be at least 1");
  const auto start = std::chrono::steady_clock::now();
  const int pairs = (options.games + 1) / 2;
  std::vector<std::optional<PairGames>> played(pairs);
  std::atomic<int> next{0};
  std::mutex error_mutex;
  absl::Status error;
  auto work = [&] {
    for (int pair; (pair = next.fetch_add(1)) < pairs;) {
      absl::StatusOr<PairGames> games = PlayPair(options, pair);
      if (!games.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.ok()) {
          error = absl::Status(games.status().code(),
                               absl::StrCat("pair ", pair, ": ", games.status().message()));
        }
        next = pairs;
        return;
      }
      played[pair] = *std::move(games);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::min(options.threads, pairs); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (!error.ok()) return error;

  MatchReport report;
  report.options = options;
  for (int pair = 0; pair < pairs; ++pair) {
    const PairGames& games = *played[pair];
    report.pairs.push_back(BookPair(games.first, games.second));
    const GameRecord* halves[2] = {&games.first, &games.second};
    for (int half = 0; half < 2; ++half) {
      for (int s = 0; s < kNumSeats; ++s) {
        for (int d = 0; d < kNumDecisions; ++d) {
          const std::vector<int64_t>& times = halves[half]->decision_ns[s][d];
          std::vector<int64_t>& all = report.decision_ns[SideOf(s, half)][d];
          all.insert(all.end(), times.begin(), times.end());
        }
      }
    }
    played[pair].reset();
  }
  for (auto& side : report.decision_ns) {
    for (std::vector<int64_t>& times : side) std::sort(times.begin(), times.end());
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace trix::arena
