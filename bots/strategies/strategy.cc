#include "bots/strategies/strategy.h"

#include "absl/strings/str_cat.h"
#include "bots/strategies/heuristic_bot.h"
#include "bots/strategies/random_bot.h"

namespace trix::bots {

absl::StatusOr<std::unique_ptr<Bot>> MakeStrategy(const std::string& name, uint64_t seed,
                                                  const SearchOptions& search) {
  if (name == "random") return std::make_unique<RandomBot>(seed);
  if (name == "heuristic") return std::make_unique<HeuristicBot>();
  if (name == "search") return std::make_unique<SearchBot>(seed, search);
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown strategy \"", name, "\" (one of: random, heuristic, search)"));
}

}  // namespace trix::bots
