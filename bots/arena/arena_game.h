// One game of the arena: four strategies play a table in-process on the table
// service's own logic (services/table Table), each seat fed exactly what its
// stream would carry (the server's snapshot, the events engine::VisibleTo lets it
// see, its prompts) through the SDK's SeatTracker, as a live bot is. No strategy
// ever reads another seat's cards. After the game the arena reads the full event
// list (which no bot saw) to book each deal: its contract, owner, scores and the
// part of the scores the doubled cards moved.
//
//   ArenaGameSetup setup{"complex-partner", /*table_seed=*/7,
//                        {"heuristic", "random", "heuristic", "random"}, {1, 2, 3, 4}};
//   absl::StatusOr<GameRecord> game = PlayArenaGame(setup);
#ifndef TRIX_BOTS_ARENA_ARENA_GAME_H_
#define TRIX_BOTS_ARENA_ARENA_GAME_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bots/strategies/search_bot.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/rules.h"

namespace trix::arena {

// The decisions timed apart.
enum class Decision : uint8_t { kContract = 0, kDoubling, kPlay };
inline constexpr int kNumDecisions = 3;
const char* DecisionName(Decision decision);

struct ArenaGameSetup {
  std::string mode = "complex-partner";  // "classic-solo", ...
  uint64_t table_seed = 1;               // the deals: ShuffledHands(table_seed, i)
  std::array<std::string, engine::kNumSeats> strategies;
  std::array<uint64_t, engine::kNumSeats> bot_seeds{};
  bots::SearchOptions search;  // for the seats that play "search"
};

struct DealRecord {
  engine::Contract contract = engine::kNoContract;
  int owner = -1;
  engine::Hands dealt{};
  engine::Scores scores{};    // the deal's scores, doubles included
  engine::Scores doubling{};  // what the doubles added to or took from each seat
};

struct GameRecord {
  std::vector<DealRecord> deals;
  engine::Scores totals{};
  // Decision times in nanoseconds, per seat and kind of decision.
  std::array<std::array<std::vector<int64_t>, kNumDecisions>, engine::kNumSeats>
      decision_ns;
};

// Plays one whole game; an answer the table refuses is an error naming it.
absl::StatusOr<GameRecord> PlayArenaGame(const ArenaGameSetup& setup);

// Books the deals of a game from its complete event list. The doubling part is
// the deal's scores less those of the same play without doubles, replayed on the
// engine (which is the only place that knows what a double is worth).
absl::StatusOr<std::vector<DealRecord>> BookDeals(const engine::Rules& rules,
                                                  const std::vector<engine::Event>& events);

}  // namespace trix::arena

#endif  // TRIX_BOTS_ARENA_ARENA_GAME_H_
