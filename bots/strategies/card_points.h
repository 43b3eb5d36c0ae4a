// The points of the trick contracts as the strategies count them: the one place
// in bots/strategies where a card's or a trick's worth is written. Every strategy
// reads these constants, so that switching to the engine's own export of the
// values is a change to this file alone.
//
//   int cost = CardCost(card, Contract::kComplex, doubled);  // 35 for QD undoubled
#ifndef TRIX_BOTS_STRATEGIES_CARD_POINTS_H_
#define TRIX_BOTS_STRATEGIES_CARD_POINTS_H_

#include "engine/cards.h"
#include "engine/rules.h"

namespace trix::bots {

// What taking each kind of card costs (RULES.md, "Trick contracts").
struct CardPoints {
  int king_of_hearts = 75;
  int queen = 25;
  int diamond = 10;
  int trick = 15;  // Tricks and Complex
};
inline constexpr CardPoints kCardPoints{};

// What taking `card` costs under `contract` (the trick's own cost aside); a doubled
// card costs twice its value (the diamond part of QD is never doubled).
inline int CardCost(engine::Card card, engine::Contract contract,
                    engine::CardSet doubled) {
  const bool complex = contract == engine::Contract::kComplex;
  const int factor = (doubled & engine::Bit(card)) ? 2 : 1;
  int cost = 0;
  if (card == engine::kKingOfHearts &&
      (complex || contract == engine::Contract::kKingOfHearts)) {
    cost += kCardPoints.king_of_hearts * factor;
  }
  if (engine::RankOf(card) == engine::kQueen &&
      (complex || contract == engine::Contract::kQueens)) {
    cost += kCardPoints.queen * factor;
  }
  if (engine::SuitOf(card) == engine::kDiamonds &&
      (complex || contract == engine::Contract::kDiamonds)) {
    cost += kCardPoints.diamond;
  }
  return cost;
}

// What winning any trick costs by itself.
inline int TrickCost(engine::Contract contract) {
  return contract == engine::Contract::kTricks || contract == engine::Contract::kComplex
             ? kCardPoints.trick
             : 0;
}

// The cards that cost something to take under `contract`.
inline engine::CardSet PenaltyCards(engine::Contract contract) {
  switch (contract) {
    case engine::Contract::kKingOfHearts:
      return engine::Bit(engine::kKingOfHearts);
    case engine::Contract::kQueens:
      return engine::kQueens;
    case engine::Contract::kDiamonds:
      return engine::kDiamondsCards;
    case engine::Contract::kComplex:
      return engine::Bit(engine::kKingOfHearts) | engine::kQueens |
             engine::kDiamondsCards;
    default:
      return 0;
  }
}

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_CARD_POINTS_H_
