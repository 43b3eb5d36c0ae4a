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

namespace trix::bots {

// "random" or "heuristic"; anything else is INVALID_ARGUMENT naming the choices.
absl::StatusOr<std::unique_ptr<Bot>> MakeStrategy(const std::string& name, uint64_t seed);

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_STRATEGY_H_
