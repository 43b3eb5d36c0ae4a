// RandomBot: a uniformly random legal action — any available contract, a random
// subset of the doublable cards (then ready), any legal card. The baseline every
// other strategy must beat, and the quickest way to exercise a table's rules.
//
//   RandomBot bot(/*seed=*/42);
//   Seat seat(channel, config, &bot);
#ifndef TRIX_BOTS_STRATEGIES_RANDOM_BOT_H_
#define TRIX_BOTS_STRATEGIES_RANDOM_BOT_H_

#include <cstdint>

#include "bots/sdk/bot.h"
#include "engine/random.h"

namespace trix::bots {

class RandomBot : public Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}
  Decision Decide(const SeatState& state) override;

 private:
  engine::Rng rng_;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_RANDOM_BOT_H_
