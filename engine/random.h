// A small, fast, seedable random generator with a fixed algorithm (SplitMix64), so
// that a seed means the same deal on every platform and compiler, and the seeded
// shuffle that deals a game. std::shuffle and the std distributions are
// implementation-defined and cannot be used for reproducible deals.
//
//   Hands hands = ShuffledHands(game_seed, deal_index);
//   Rng rng(seed); Card c = NthCard(legal, rng.Below(Count(legal)));
#ifndef TRIX_ENGINE_RANDOM_H_
#define TRIX_ENGINE_RANDOM_H_

#include <cstdint>

#include "engine/deal.h"

namespace trix::engine {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift; the bias is below 2^-32).
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>(((Next() >> 32) * uint64_t{n}) >> 32);
  }

 private:
  uint64_t state_;
};

// The hands of deal `deal_index` of the game with this seed: a uniform shuffle of
// the 52 cards, 13 to each seat.
Hands ShuffledHands(uint64_t seed, int deal_index);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_RANDOM_H_
