// Counting and selecting the set bits of a card set, cheap on every x86-64 CPU.
//
// The build targets baseline x86-64, where __builtin_popcountll is an out-of-line
// library call and picking the n-th set bit is a loop with a data-dependent trip
// count (a branch misprediction per random playout move). These are the two
// operations of the playout hot path, so they are chosen at run time: the
// hardware POPCNT, and PDEP + TZCNT for the select, where the CPU has them and
// they are fast (PDEP is microcoded and slow on AMD before Zen 3); otherwise
// branchless portable forms (a SWAR count, a byte-wise broadword select with a
// small table). Every form gives the same answers, so which one runs never
// changes a result. The choice is made once at start-up (bits.cc); code that runs
// before that (other static initialisers) uses the portable forms. Setting
// TRIX_ENGINE_BITS=portable in the environment forces the portable forms, which is
// how a CPU without POPCNT or BMI2 is checked on one that has them. A build with
// -mpopcnt (or -march=...) uses the compiler's POPCNT directly.
//
//   int n = PopCount(legal);         // what Count() in cards.h is
//   int bit = SelectBit(legal, k);   // index of the k-th lowest set bit, k < n
#ifndef TRIX_ENGINE_BITS_H_
#define TRIX_ENGINE_BITS_H_

#include <array>
#include <cstdint>

namespace trix::engine {

struct BitsCpu {
  bool popcnt = false;     // POPCNT
  bool fast_pdep = false;  // BMI2 with a PDEP that is not microcoded
};
// What the hot path uses; written once at start-up.
extern BitsCpu g_bits_cpu;
// What this CPU offers (cpuid), before the TRIX_ENGINE_BITS override.
BitsCpu DetectBitsCpu();

namespace bits_internal {

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHighs = 0x8080808080808080ULL;

// The count of set bits of each byte, in that byte.
constexpr uint64_t ByteCounts(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  return (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
}

// kSelectInByte[k][b]: the index of the k-th lowest set bit of byte b.
constexpr std::array<std::array<uint8_t, 256>, 8> MakeSelectInByte() {
  std::array<std::array<uint8_t, 256>, 8> table{};
  for (int b = 0; b < 256; ++b) {
    int k = 0;
    for (int bit = 0; bit < 8; ++bit) {
      if ((b >> bit) & 1) table[k++][b] = static_cast<uint8_t>(bit);
    }
  }
  return table;
}
inline constexpr std::array<std::array<uint8_t, 256>, 8> kSelectInByte =
    MakeSelectInByte();

}  // namespace bits_internal

constexpr int PortablePopCount(uint64_t x) {
  return static_cast<int>((bits_internal::ByteCounts(x) * bits_internal::kOnes) >> 56);
}

// Branchless: the byte holding the n-th bit is the first whose running count
// exceeds n (a bytewise compare of the prefix sums), then a table lookup in it.
inline int PortableSelectBit(uint64_t x, int n) {
  using namespace bits_internal;
  const uint64_t prefix = ByteCounts(x) * kOnes;  // byte i: bits in bytes 0..i
  // High bit of byte i set <=> prefix_i <= n (no borrow: 0x80 + n - prefix_i > 0).
  const uint64_t at_most_n = ((kOnes * static_cast<uint64_t>(n)) | kHighs) - prefix;
  const int shift = __builtin_ctzll((at_most_n & kHighs) ^ kHighs) - 7;
  const int before = static_cast<int>(((prefix << 8) >> shift) & 0xFF);
  return shift + kSelectInByte[n - before][(x >> shift) & 0xFF];
}

#if defined(__x86_64__)
// Inline assembly rather than target attributes, so that these inline into
// baseline code; they run only where g_bits_cpu says the CPU has them.
inline int HardwarePopCount(uint64_t x) {
  uint64_t count;
  __asm__("popcntq %1, %0" : "=r"(count) : "rm"(x) : "cc");
  return static_cast<int>(count);
}
inline int HardwareSelectBit(uint64_t x, int n) {
  uint64_t deposited;
  __asm__("pdepq %2, %1, %0" : "=r"(deposited) : "r"(uint64_t{1} << n), "rm"(x));
  return __builtin_ctzll(deposited);
}
#endif

inline int PopCount(uint64_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
  return __builtin_popcountll(x);
#else
  return g_bits_cpu.popcnt ? HardwarePopCount(x) : PortablePopCount(x);
#endif
}

// The index of the n-th (0-based) lowest set bit; x has more than n set bits.
inline int SelectBit(uint64_t x, int n) {
#if defined(__x86_64__)
  return g_bits_cpu.fast_pdep ? HardwareSelectBit(x, n) : PortableSelectBit(x, n);
#else
  return PortableSelectBit(x, n);
#endif
}

}  // namespace trix::engine

#endif  // TRIX_ENGINE_BITS_H_
