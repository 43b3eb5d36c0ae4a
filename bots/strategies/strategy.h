// The strategies trix-bot can play, by name.
//
//   absl::StatusOr<std::unique_ptr<Bot>> bot = MakeStrategy("heuristic", seed);
#ifndef TRIX_BOTS_STRATEGIES_STRATEGY_H_
#define TRIX_BOTS_STRATEGIES_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bots/sdk/bot.h"
#include "bots/strategies/search_bot.h"

namespace trix::bots {

// "random", "heuristic" or "search"; anything else is INVALID_ARGUMENT naming the
// choices. `search` sets the search strategy's budget.
absl::StatusOr<std::unique_ptr<Bot>> MakeStrategy(const std::string& name, uint64_t seed,
                                                  const SearchOptions& search = {});

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_STRATEGY_H_
