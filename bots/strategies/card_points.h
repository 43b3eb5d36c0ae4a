// The strategies' view of what taking a card or a trick costs, as a positive
// number: the engine's own point values (engine/points.h) read with the doubled
// cards as a set, the way the strategies hold them. No value is written here.
//
//   int cost = CardCost(card, Contract::kComplex, doubled);  // 35 for QD undoubled
#ifndef TRIX_BOTS_STRATEGIES_CARD_POINTS_H_
#define TRIX_BOTS_STRATEGIES_CARD_POINTS_H_

#include "engine/cards.h"
#include "engine/points.h"
#include "engine/rules.h"

namespace trix::bots {

// What taking `card` costs under `contract` (the trick's own cost aside); a doubled
// card costs twice its value (the diamond part of QD is never doubled).
inline int CardCost(engine::Card card, engine::Contract contract,
                    engine::CardSet doubled) {
  return engine::TakingCost(contract, card, (doubled & engine::Bit(card)) != 0);
}

// What winning any trick costs by itself.
inline int TrickCost(engine::Contract contract) {
  return engine::ScoresTricks(contract) ? -engine::kTrickPoints : 0;
}

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_CARD_POINTS_H_
