// A seed is the same deal on every platform and compiler: pinned values of the
// generator and of ShuffledHands. If one of these changes, every stored game, rule
// case and benchmark seed deals differently: that is a format change, not a fix.
#include "engine/random.h"

#include <string>

#include "gtest/gtest.h"

namespace trix::engine {
namespace {

TEST(RandomTest, TheGeneratorIsSplitMix64) {
  Rng rng(42);
  EXPECT_EQ(rng.Next(), 0xbdd732262feb6e95ULL);
  EXPECT_EQ(rng.Next(), 0x28efe333b266f103ULL);
}

struct PinnedDeal {
  uint64_t seed;
  int deal;
  std::string hands[kNumSeats];
};

TEST(RandomTest, ShuffledHandsArePinned) {
  const PinnedDeal pinned[] = {
      {1, 0,
       {"6C 9C TC QC AC 2D 9D JD 5H 5S 6S 7S 8S", "4D 7D QD AD 3H 6H 8H 9H 2S TS JS QS KS",
        "2C 7C 8C 6D 8D KD 4H TH QH KH 3S 4S 9S", "3C 4C 5C JC KC 3D 5D TD 2H 7H JH AH AS"}},
      {7, 3,
       {"3C 4C 5C 8C TC 4D 7D 8D AH 5S 7S 8S AS", "6C JC QC AC 2D 2H 3H 7H TH KH 9S JS KS",
        "9C 5D 9D TD JD QD 4H 9H JH 2S 3S 6S TS", "2C 7C KC 3D 6D KD AD 5H 6H 8H QH 4S QS"}},
      {0xDEADBEEF, 19,
       {"4C 5C 7C 9C TC KC 2D 5D JD QD JH 4S 5S", "2C 3C 8C QC 6H 7H KH 3S 6S 9S TS QS KS",
        "6C AC 3D 4D 6D 9D KD AD 2H 8H 9H QH JS", "JC 7D 8D TD 3H 4H 5H TH AH 2S 7S 8S AS"}},
  };
  for (const PinnedDeal& p : pinned) {
    const Hands hands = ShuffledHands(p.seed, p.deal);
    for (int s = 0; s < kNumSeats; ++s) {
      EXPECT_EQ(CardsText(hands[s]), p.hands[s])
          << "seed " << p.seed << " deal " << p.deal << " seat " << s;
    }
  }
}

}  // namespace
}  // namespace trix::engine
