// The card of a set with the highest key, for the strategies' card rules
// (heuristic_play.cc, search_playout.cc).
//
//   Card c = BestBy(legal, [&](Card c) { return -engine::RankOf(c); });  // lowest rank
#ifndef TRIX_BOTS_STRATEGIES_BEST_BY_H_
#define TRIX_BOTS_STRATEGIES_BEST_BY_H_

#include <limits>
#include <type_traits>

#include "engine/cards.h"

namespace trix::bots {

// The card of `cards` with the highest key(card); ties go to the lower card. The
// key is a number (int or double).
template <typename Key>
engine::Card BestBy(engine::CardSet cards, Key key) {
  using Number = decltype(key(engine::Card{}));
  static_assert(std::is_same_v<Number, int> || std::is_same_v<Number, double>,
                "a card's key is an int or a double");
  using Limits = std::numeric_limits<Number>;
  engine::Card best = engine::Lowest(cards);
  Number best_key = Limits::has_infinity ? -Limits::infinity() : Limits::min();
  for (engine::CardSet b = cards; b;) {
    const engine::Card c = engine::PopLowest(b);
    const Number k = key(c);
    if (k > best_key) {
      best_key = k;
      best = c;
    }
  }
  return best;
}

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_BEST_BY_H_
