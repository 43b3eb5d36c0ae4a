// Bot levels: the strengths a bot account is offered at, each a named
// configuration of a strategy. This table is the one place a level is defined.
//
//   level     strategy    search budget per decision        noise
//   beginner  heuristic   -                                 60% of decisions random
//   casual    heuristic   -                                 20% of decisions random
//   strong    search      8 ms, at most 6 sampled deals     none
//                         (contract 60, doubling 30 deals)
//   expert    search      the full budget (SearchOptions)   none
//
// Why these: the levels are spaced by their measured lead over the level below,
// about 275-300 points per seat per game each in the arena with duplicate deals
// (`trix-arena --a=strong --b=casual`, docs/benchmarks.md "Bot levels"). The
// full search saturates: four times its budget gains nothing measurable, so the
// expert is the ceiling and the levels below are placed from it downwards. A
// strong bot searches a few sampled deals, a casual and a beginner bot play the
// heuristic with a share of random legal moves. The levels' measured ratings
// through the services are in docs/benchmarks.md.
//
//   absl::StatusOr<BotLevel> level = ParseBotLevel("casual");
//   std::unique_ptr<Bot> bot = MakeLevelBot(*level, seed);
#ifndef TRIX_BOTS_STRATEGIES_LEVEL_H_
#define TRIX_BOTS_STRATEGIES_LEVEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bots/sdk/bot.h"
#include "bots/strategies/search_bot.h"
#include "engine/random.h"

namespace trix::bots {

enum class BotLevel { kBeginner, kCasual, kStrong, kExpert };

struct LevelConfig {
  BotLevel level;
  const char* name;
  const char* strategy;  // a MakeStrategy name
  SearchOptions search;  // when `strategy` is "search"
  double noise;          // the probability of a random legal answer instead
};

// Every level, weakest first.
const std::vector<LevelConfig>& BotLevels();
const LevelConfig& LevelConfigOf(BotLevel level);
const char* BotLevelName(BotLevel level);
// "beginner", "casual", "strong" or "expert"; anything else is INVALID_ARGUMENT
// naming the choices.
absl::StatusOr<BotLevel> ParseBotLevel(absl::string_view name);
// The level's strategy, with its budget and noise.
std::unique_ptr<Bot> MakeLevelBot(BotLevel level, uint64_t seed);
// A level's bot for a level's name, else MakeStrategy's (`search` for "search"):
// what the arena and trix-strategy-match play, so levels can be matched offline.
absl::StatusOr<std::unique_ptr<Bot>> MakeBotNamed(const std::string& name, uint64_t seed,
                                                  const SearchOptions& search);

// Answers as `inner` does, except that with probability `noise` a decision is a
// uniformly random legal one; `inner` still sees every event.
class NoisyBot : public Bot {
 public:
  NoisyBot(std::unique_ptr<Bot> inner, double noise, uint64_t seed);
  void Restart(const SeatState& state) override;
  void Observe(const v1::Event& event, const SeatState& state) override;
  Decision Decide(const SeatState& state) override;

 private:
  std::unique_ptr<Bot> inner_;
  double noise_;
  std::unique_ptr<Bot> random_;
  engine::Rng rng_;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_LEVEL_H_
