#include "engine/random.h"

namespace trix::engine {

Hands ShuffledHands(uint64_t seed, int deal_index) {
  Rng rng(seed ^ (0xD1B54A32D192ED03ULL * static_cast<uint64_t>(deal_index + 1)));
  Card deck[52];
  int n = 0;
  for (CardSet all = kAllCards; all;) deck[n++] = PopLowest(all);
  for (int i = 51; i > 0; --i) {
    const int j = static_cast<int>(rng.Below(static_cast<uint32_t>(i + 1)));
    const Card t = deck[i];
    deck[i] = deck[j];
    deck[j] = t;
  }
  Hands hands{};
  for (int i = 0; i < 52; ++i) hands[i / kHandSize] |= Bit(deck[i]);
  return hands;
}

}  // namespace trix::engine
