#include "bots/strategies/level.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/strategies/random_bot.h"
#include "bots/strategies/strategy.h"

namespace trix::bots {
namespace {

SearchOptions SmallSearch() {
  SearchOptions search;
  search.samples = 6;
  search.min_samples = 3;
  search.budget = absl::Milliseconds(8);
  search.contract_samples = 60;
  search.double_samples = 30;
  return search;
}

}  // namespace

const std::vector<LevelConfig>& BotLevels() {
  static const std::vector<LevelConfig>* const levels = new std::vector<LevelConfig>{
      {BotLevel::kBeginner, "beginner", "heuristic", SearchOptions(), 0.6},
      {BotLevel::kCasual, "casual", "heuristic", SearchOptions(), 0.2},
      {BotLevel::kStrong, "strong", "search", SmallSearch(), 0.0},
      {BotLevel::kExpert, "expert", "search", SearchOptions(), 0.0},
  };
  return *levels;
}

const LevelConfig& LevelConfigOf(BotLevel level) {
  for (const LevelConfig& config : BotLevels()) {
    if (config.level == level) return config;
  }
  return BotLevels().front();  // unreachable: every level is in the table
}

const char* BotLevelName(BotLevel level) { return LevelConfigOf(level).name; }

absl::StatusOr<BotLevel> ParseBotLevel(absl::string_view name) {
  std::vector<std::string> names;
  for (const LevelConfig& config : BotLevels()) {
    if (name == config.name) return config.level;
    names.push_back(config.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown level \"", name, "\" (one of: ",
                                                 absl::StrJoin(names, ", "), ")"));
}

std::unique_ptr<Bot> MakeLevelBot(BotLevel level, uint64_t seed) {
  const LevelConfig& config = LevelConfigOf(level);
  // The table names only strategies MakeStrategy knows (the tests check each level).
  std::unique_ptr<Bot> bot = *MakeStrategy(config.strategy, seed, config.search);
  if (config.noise <= 0) return bot;
  return std::make_unique<NoisyBot>(std::move(bot), config.noise, seed ^ 0x5eedULL);
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBotNamed(const std::string& name, uint64_t seed,
                                                  const SearchOptions& search) {
  absl::StatusOr<BotLevel> level = ParseBotLevel(name);
  if (level.ok()) return MakeLevelBot(*level, seed);
  return MakeStrategy(name, seed, search);
}

NoisyBot::NoisyBot(std::unique_ptr<Bot> inner, double noise, uint64_t seed)
    : inner_(std::move(inner)),
      noise_(noise),
      random_(std::make_unique<RandomBot>(seed + 1)),
      rng_(seed) {}

void NoisyBot::Restart(const SeatState& state) { inner_->Restart(state); }

void NoisyBot::Observe(const v1::Event& event, const SeatState& state) {
  inner_->Observe(event, state);
}

Decision NoisyBot::Decide(const SeatState& state) {
  const double draw = static_cast<double>(rng_.Next() >> 11) * 0x1.0p-53;
  return draw < noise_ ? random_->Decide(state) : inner_->Decide(state);
}

}  // namespace trix::bots
