// Cards and card sets for Trix.
//
// A card is an index into a 64-bit mask: suit * 16 + rank, with ranks 0..12 for
// 2..A and suits 0..3 for clubs, diamonds, hearts, spades. Each suit owns a 16-bit
// lane, so "the cards of a suit" is one shifted constant and "one rank up/down" is a
// shift; the three unused bits of a lane keep shifts from leaking between suits.
// A hand, a trick, the Trix layout and the set of doubled cards are all CardSets.
//
//   CardSet hand = ParseCards("AS KH 2C").value();
//   for (CardSet b = hand; b; ) { Card c = PopLowest(b); ... }
#ifndef TRIX_ENGINE_CARDS_H_
#define TRIX_ENGINE_CARDS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/bits.h"

namespace trix::engine {

using Card = uint8_t;     // suit * 16 + rank
using CardSet = uint64_t;  // bit c set <=> card c in the set

enum Suit : uint8_t { kClubs = 0, kDiamonds = 1, kHearts = 2, kSpades = 3 };
enum Rank : uint8_t {
  kTwo = 0, kThree, kFour, kFive, kSix, kSeven, kEight, kNine, kTen,
  kJack, kQueen, kKing, kAce
};

inline constexpr int kNumSeats = 4;
inline constexpr int kHandSize = 13;
inline constexpr Card kNoCard = 0xFF;

constexpr Card MakeCard(Suit s, Rank r) { return static_cast<Card>(s * 16 + r); }
constexpr Suit SuitOf(Card c) { return static_cast<Suit>(c >> 4); }
constexpr Rank RankOf(Card c) { return static_cast<Rank>(c & 15); }
constexpr CardSet Bit(Card c) { return CardSet{1} << c; }

inline constexpr CardSet kSuitLane = 0x1FFF;
constexpr CardSet SuitCards(Suit s) { return kSuitLane << (16 * s); }
constexpr CardSet RankCards(Rank r) { return 0x0001000100010001ULL << r; }
inline constexpr CardSet kAllCards = 0x1FFF1FFF1FFF1FFFULL;
inline constexpr CardSet kHeartsCards = SuitCards(kHearts);
inline constexpr CardSet kDiamondsCards = SuitCards(kDiamonds);
inline constexpr CardSet kQueens = RankCards(kQueen);
inline constexpr CardSet kJacks = RankCards(kJack);
inline constexpr CardSet kTwos = RankCards(kTwo);
inline constexpr Card kKingOfHearts = MakeCard(kHearts, kKing);
inline constexpr Card kQueenOfDiamonds = MakeCard(kDiamonds, kQueen);
inline constexpr Card kSevenOfHearts = MakeCard(kHearts, kSeven);

inline int Count(CardSet s) { return PopCount(s); }
inline Card Lowest(CardSet s) { return static_cast<Card>(__builtin_ctzll(s)); }
inline Card Highest(CardSet s) { return static_cast<Card>(63 - __builtin_clzll(s)); }
inline Card PopLowest(CardSet& s) {
  Card c = Lowest(s);
  s &= s - 1;
  return c;
}
// The n-th (0-based) lowest card of a set with more than n cards; branchless, as
// a random playout picks its card with it (bits.h).
inline Card NthCard(CardSet s, int n) { return static_cast<Card>(SelectBit(s, n)); }

// "TD", "KH", "2C": rank 23456789TJQKA, then suit CDHS.
std::string CardName(Card c);
absl::StatusOr<Card> ParseCard(absl::string_view text);
// Space separated card names, lowest card first (clubs 2 .. spades A).
std::string CardsText(CardSet s);
// Space separated names; a repeated or unknown card is an error.
absl::StatusOr<CardSet> ParseCards(absl::string_view text);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_CARDS_H_
