#include "engine/autopilot.h"

#include <climits>

#include "engine/points.h"

namespace trix::engine {
namespace {

// What taking `card` would cost under `contract` (points.h: a doubled card costs v
// more).
int PenaltyOf(Card card, Contract contract, CardSet doubled) {
  return TakingCost(contract, card, (doubled & Bit(card)) != 0);
}

Card BestBy(CardSet cards, int (*score)(Card, const Deal&), const Deal& deal) {
  Card best = Lowest(cards);
  int best_score = INT_MIN;
  for (CardSet b = cards; b;) {
    const Card c = PopLowest(b);
    const int s = score(c, deal);
    if (s > best_score) {
      best_score = s;
      best = c;
    }
  }
  return best;
}

Card TrixCard(const Deal& deal, CardSet legal) {
  return BestBy(
      legal,
      [](Card c, const Deal& d) {
        const CardSet h = d.hands()[d.to_play()];
        // Longest suit first; among its cards, non-jacks (keep rows closed to others).
        return Count(h & SuitCards(SuitOf(c))) * 4 - (RankOf(c) == kJack ? 2 : 0);
      },
      deal);
}

}  // namespace

Card AutopilotCard(const Deal& deal) {
  const CardSet legal = deal.LegalCards();
  if (deal.contract() == Contract::kTrix) return TrixCard(deal, legal);

  const Contract contract = deal.contract();
  const CardSet doubled = deal.doubled();
  if (deal.trick_size() == 0) {
    // Lead the lowest safe card: least penalty, then lowest rank.
    Card best = Lowest(legal);
    int best_key = INT_MAX;
    for (CardSet b = legal; b;) {
      const Card c = PopLowest(b);
      const int key = PenaltyOf(c, contract, doubled) * 16 + RankOf(c);
      if (key < best_key) {
        best_key = key;
        best = c;
      }
    }
    return best;
  }
  const Suit led = SuitOf(deal.trick_card(deal.leader()));
  CardSet on_trick = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (deal.trick_card(s) != kNoCard) on_trick |= Bit(deal.trick_card(s));
  }
  const Card winning = Highest(on_trick & SuitCards(led));
  if (legal & SuitCards(led)) {
    const CardSet under = legal & (Bit(winning) - 1);
    return under ? Highest(under) : Highest(legal);  // duck, or win as high as we can
  }
  // Void in the led suit: shed the costliest card, else the highest.
  Card best = Lowest(legal);
  int best_key = INT_MIN;
  for (CardSet b = legal; b;) {
    const Card c = PopLowest(b);
    const int key = PenaltyOf(c, contract, doubled) * 16 + RankOf(c);
    if (key > best_key) {
      best_key = key;
      best = c;
    }
  }
  return best;
}

Contract AutopilotContract(CardSet hand, uint32_t available) {
  const int hearts = Count(hand & kHeartsCards);
  const int high = Count(hand & (RankCards(kAce) | RankCards(kKing)));
  const int jacks = Count(hand & kJacks);
  int cost[kNumContracts] = {};
  cost[static_cast<int>(Contract::kKingOfHearts)] =
      (hand & Bit(kKingOfHearts)) ? 60 - 8 * (hearts - 1) : 15;
  int queens = 0;
  for (CardSet q = hand & kQueens; q;) {
    const Card c = PopLowest(q);
    const int below = Count(hand & SuitCards(SuitOf(c)) & (Bit(c) - 1));
    queens += below >= 4 ? 8 : 25 - 4 * below;
  }
  cost[static_cast<int>(Contract::kQueens)] = queens + 15;
  cost[static_cast<int>(Contract::kDiamonds)] =
      10 * Count(hand & kDiamondsCards & ~(Bit(MakeCard(kDiamonds, kTen)) - 1)) +
      3 * Count(hand & kDiamondsCards) + 10;
  cost[static_cast<int>(Contract::kTricks)] = 15 * high + 20;
  cost[static_cast<int>(Contract::kTrix)] = 40 - 15 * jacks;
  cost[static_cast<int>(Contract::kComplex)] =
      cost[0] + cost[1] + cost[2] + cost[3] - 60;
  Contract best = kNoContract;
  for (int c = 0; c < kNumContracts; ++c) {
    if (!(available & (1u << c))) continue;
    if (best == kNoContract || cost[c] < cost[static_cast<int>(best)]) {
      best = static_cast<Contract>(c);
    }
  }
  return best;
}

Action AutopilotAction(const Game& game, int seat) {
  Action action;
  switch (game.phase()) {
    case Phase::kChoosingContract:
      action = Action::ChooseContract(
          seat, AutopilotContract(game.dealt()[seat], game.AvailableContracts()));
      break;
    case Phase::kDoubling:
      action = Action::Ready(seat);
      break;
    default:
      action = Action::PlayCard(seat, AutopilotCard(game.deal()));
      break;
  }
  action.autopilot = true;
  return action;
}

}  // namespace trix::engine
