// What cards and tricks are worth: the one home of Trix's point values (as
// OpenSpiel's hearts exports CardPoints). The engine scores deals with these, the
// autopilot weighs cards with them, and bots and the SDK import them rather than
// writing 75, 25 or 10 again (docs/rules.md "Trick contracts", "Doubling").
//
//   CardPoints(Contract::kComplex, MakeCard(kDiamonds, kQueen));   // -35
//   TakingCost(Contract::kComplex, qd, /*doubled=*/true);            // 60
//   ScoreTrick(contract, trick, winner, leader, doubled_by, scores);  // one trick
#ifndef TRIX_ENGINE_POINTS_H_
#define TRIX_ENGINE_POINTS_H_

#include <array>
#include <cstdint>

#include "engine/cards.h"
#include "engine/rules.h"

namespace trix::engine {

// Penalties for taking, as the score they add (negative).
inline constexpr int32_t kKingOfHeartsPoints = -75;
inline constexpr int32_t kQueenPoints = -25;
inline constexpr int32_t kDiamondPoints = -10;
inline constexpr int32_t kTrickPoints = -15;  // per trick, in Tricks and Complex
// Points for the 1st, 2nd, 3rd and 4th seat out in Trix.
inline constexpr std::array<int32_t, kNumSeats> kTrixPlacePoints = {200, 150, 100, 50};

inline bool ScoresKingOfHearts(Contract c) {
  return c == Contract::kKingOfHearts || c == Contract::kComplex;
}
inline bool ScoresQueens(Contract c) {
  return c == Contract::kQueens || c == Contract::kComplex;
}
inline bool ScoresDiamonds(Contract c) {
  return c == Contract::kDiamonds || c == Contract::kComplex;
}
inline bool ScoresTricks(Contract c) {
  return c == Contract::kTricks || c == Contract::kComplex;
}

// The cards that cost their taker something under `contract`, doubled or not.
inline CardSet PenaltyCards(Contract contract) {
  CardSet cards = 0;
  if (ScoresKingOfHearts(contract)) cards |= Bit(kKingOfHearts);
  if (ScoresQueens(contract)) cards |= kQueens;
  if (ScoresDiamonds(contract)) cards |= kDiamondsCards;
  return cards;
}

// The points of taking `cards` in one trick under `contract`, before doubling: the
// cards' penalties plus the trick's own (Complex: QD counts as queen and diamond).
inline int32_t TrickPoints(Contract contract, CardSet cards) {
  int32_t points = ScoresTricks(contract) ? kTrickPoints : 0;
  if (ScoresKingOfHearts(contract) && (cards & Bit(kKingOfHearts))) {
    points += kKingOfHeartsPoints;
  }
  if (ScoresQueens(contract)) points += kQueenPoints * Count(cards & kQueens);
  if (ScoresDiamonds(contract)) points += kDiamondPoints * Count(cards & kDiamondsCards);
  return points;
}

// The points of taking one card, before doubling and without the trick's own:
// KH -75, a queen -25, a diamond -10 where the contract counts them (Complex QD -35).
inline int32_t CardPoints(Contract contract, Card card) {
  return TrickPoints(contract, Bit(card)) - (ScoresTricks(contract) ? kTrickPoints : 0);
}

// What a doubled card moves, v: 75 for KH, 25 for a queen (only these double).
inline int32_t DoubleValue(Card card) {
  return card == kKingOfHearts ? -kKingOfHeartsPoints : -kQueenPoints;
}

// What taking `card` costs its taker (a positive number): its penalty, and v more
// when it is doubled (the taker scores -2v where an undoubled card costs -v; the
// Complex QD doubled costs 35 + 25 = 60, its diamond part is never doubled).
inline int32_t TakingCost(Contract contract, Card card, bool doubled) {
  return -CardPoints(contract, card) + (doubled ? DoubleValue(card) : 0);
}

// Adds one finished trick to `scores`: `winner` takes `trick`; each doubled card
// in it (held by the seat in `doubled_by`) costs the winner v more and pays v to
// its doubler, or to the trick's `leader` when the doubler took it.
inline void ScoreTrick(Contract contract, CardSet trick, int winner, int leader,
                       const std::array<CardSet, kNumSeats>& doubled_by,
                       std::array<int32_t, kNumSeats>& scores) {
  scores[winner] += TrickPoints(contract, trick);
  const CardSet doubled = doubled_by[0] | doubled_by[1] | doubled_by[2] | doubled_by[3];
  for (CardSet d = trick & doubled; d;) {
    const Card card = PopLowest(d);
    const int32_t value = DoubleValue(card);
    int doubler = 0;
    while (!(doubled_by[doubler] & Bit(card))) ++doubler;
    scores[winner] -= value;
    scores[doubler == winner ? leader : doubler] += value;
  }
}

}  // namespace trix::engine

#endif  // TRIX_ENGINE_POINTS_H_
