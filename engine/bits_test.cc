#include "engine/bits.h"

#include <cstdint>

#include "engine/cards.h"
#include "engine/deal.h"
#include "engine/random.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

int ReferenceCount(uint64_t x) {
  int n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
}

int ReferenceSelect(uint64_t x, int n) {
  while (n-- > 0) x &= x - 1;
  return __builtin_ctzll(x);
}

// Masks of every density, and the corner cases of the byte-wise select.
std::vector<uint64_t> Masks() {
  std::vector<uint64_t> masks = {1, 0x80, 0x8000000000000000ULL, ~uint64_t{0},
                                 kAllCards, 0x00FF00000000FF00ULL, 0xFF00000000000000ULL};
  Rng rng(11);
  for (int i = 0; i < 3000; ++i) {
    uint64_t m = rng.Next();
    for (int k = i % 4; k > 0; --k) m &= rng.Next();  // sparser sets
    if (m) masks.push_back(m);
    masks.push_back(m & kAllCards ? m & kAllCards : 1);
  }
  return masks;
}

TEST(BitsTest, PortableFormsMatchTheReference) {
  for (uint64_t m : Masks()) {
    const int count = ReferenceCount(m);
    ASSERT_EQ(PortablePopCount(m), count) << std::hex << m;
    for (int n = 0; n < count; ++n) {
      ASSERT_EQ(PortableSelectBit(m, n), ReferenceSelect(m, n)) << std::hex << m << " " << n;
    }
  }
}

TEST(BitsTest, HardwareFormsMatchTheReferenceWhereTheCpuHasThem) {
  const BitsCpu cpu = DetectBitsCpu();
#if defined(__x86_64__)
  for (uint64_t m : Masks()) {
    const int count = ReferenceCount(m);
    if (cpu.popcnt) {
      ASSERT_EQ(HardwarePopCount(m), count) << std::hex << m;
    }
    if (!cpu.fast_pdep) continue;
    for (int n = 0; n < count; ++n) {
      ASSERT_EQ(HardwareSelectBit(m, n), ReferenceSelect(m, n)) << std::hex << m << " " << n;
    }
  }
#endif
  if (!cpu.popcnt && !cpu.fast_pdep) GTEST_SKIP() << "no POPCNT nor fast PDEP here";
}

TEST(BitsTest, TheChosenFormsMatchTheReference) {
  for (uint64_t m : Masks()) {
    const int count = ReferenceCount(m);
    ASSERT_EQ(Count(m), count);
    for (int n = 0; n < count; ++n) ASSERT_EQ(NthCard(m, n), ReferenceSelect(m, n));
  }
}

// Random playouts of every contract, as a search runs them: the cards picked and
// the scores.
std::vector<int32_t> Playouts() {
  const Rules rules;
  std::vector<int32_t> trace;
  Rng rng(5);
  for (int i = 0; i < 120; ++i) {
    const Contract contract = static_cast<Contract>(i % kNumContracts);
    Deal deal(rules, contract, i % 4, ShuffledHands(9, i), Hands{});
    while (!deal.over()) {
      const CardSet legal = deal.LegalCards();
      const Card card = NthCard(legal, static_cast<int>(rng.Below(Count(legal))));
      trace.push_back(card);
      deal.Play(card);
    }
    for (int32_t score : deal.scores()) trace.push_back(score);
  }
  return trace;
}

TEST(BitsTest, PlayoutsAreTheSameWithoutPopcntAndPdep) {
  const BitsCpu chosen = g_bits_cpu;
  const std::vector<int32_t> fast = Playouts();
  g_bits_cpu = BitsCpu{};  // as on a CPU without them
  const std::vector<int32_t> portable = Playouts();
  g_bits_cpu = chosen;
  EXPECT_EQ(fast, portable);
}

}  // namespace
}  // namespace trix::engine
