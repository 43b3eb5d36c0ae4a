// HeuristicBot before play: which contract to pick and which cards to double.
#include <algorithm>
#include <limits>

#include "bots/strategies/card_points.h"
#include "bots/strategies/heuristic_bot.h"
#include "engine/deal.h"

namespace trix::bots::heuristic {
namespace {

using engine::Bit;
using engine::CardSet;
using engine::Contract;
using engine::Count;

// What taking each kind of card costs, as a positive number.
constexpr double kKingOfHeartsCost = -engine::kKingOfHeartsPoints;
constexpr double kQueenCost = -engine::kQueenPoints;
constexpr double kDiamondCost = -engine::kDiamondPoints;
constexpr double kTrickCost = -engine::kTrickPoints;

// Cards of `card`'s suit below it.
CardSet Below(engine::Card card) {
  return engine::SuitCards(engine::SuitOf(card)) & (Bit(card) - 1);
}

// What each contract costs a seat on average (a fixed total shared by four), so
// that contracts are compared by how much this hand improves on the usual.
double UsualCost(Contract contract) {
  switch (contract) {
    case Contract::kKingOfHearts:
      return kKingOfHeartsCost / 4.0;
    case Contract::kQueens:
      return 4 * kQueenCost / 4.0;
    case Contract::kDiamonds:
      return 13 * kDiamondCost / 4.0;
    case Contract::kTricks:
      return 13 * kTrickCost / 4.0;
    case Contract::kTrix:
      return -(engine::kTrixPlacePoints[0] + engine::kTrixPlacePoints[1] +
               engine::kTrixPlacePoints[2] + engine::kTrixPlacePoints[3]) /
             4.0;
    case Contract::kComplex:
      return (kKingOfHeartsCost + 4 * kQueenCost +
              13 * kDiamondCost + 13 * kTrickCost) /
             4.0;
  }
  return 0;
}

double KingOfHeartsCost(CardSet hand) {
  if (!(hand & Bit(engine::kKingOfHearts))) return 12;
  // Each low heart is a chance to duck a heart lead; four make the king fairly safe.
  const int guards = Count(Below(engine::kKingOfHearts) & hand);
  return kKingOfHeartsCost * std::max(0.12, 0.9 - 0.18 * guards);
}

double QueensCost(CardSet hand) {
  double cost = 0;
  for (int s = 0; s < 4; ++s) {
    const auto suit = static_cast<engine::Suit>(s);
    const engine::Card queen = engine::MakeCard(suit, engine::kQueen);
    const CardSet mine = hand & engine::SuitCards(suit);
    const int guards = Count(Below(queen) & hand);
    if (hand & Bit(queen)) {
      cost += kQueenCost * std::max(0.1, 0.85 - 0.18 * guards);
    } else {
      // A king or ace with few low cards may be forced onto someone's queen.
      const int high = Count(mine & (Bit(engine::MakeCard(suit, engine::kKing)) |
                                     Bit(engine::MakeCard(suit, engine::kAce))));
      cost += high * (guards >= 3 ? 2 : 6);
    }
  }
  return cost;
}

double DiamondsCost(CardSet hand) {
  const CardSet diamonds = hand & engine::kDiamondsCards;
  const CardSet high_diamonds =
      diamonds & ~(Bit(engine::MakeCard(engine::kDiamonds, engine::kTen)) - 1);
  const CardSet high =
      hand & (engine::RankCards(engine::kAce) | engine::RankCards(engine::kKing));
  return 9.0 * Count(high_diamonds) + 2.5 * Count(diamonds & ~high_diamonds) +
         4.0 * Count(high & ~diamonds);
}

// Expected tricks taken, at 15 each.
double TricksCost(CardSet hand) {
  double tricks = 0.3;
  for (int s = 0; s < 4; ++s) {
    const CardSet mine = hand & engine::SuitCards(static_cast<engine::Suit>(s));
    const int length = Count(mine);
    // High cards win; in a short suit there is nothing low to duck with.
    const double short_suit = length <= 2 ? 1.3 : 1.0;
    tricks += short_suit * (0.9 * Count(mine & engine::RankCards(engine::kAce)) +
                            0.6 * Count(mine & engine::RankCards(engine::kKing)) +
                            0.35 * Count(mine & engine::RankCards(engine::kQueen)) +
                            0.15 * Count(mine & engine::RankCards(engine::kJack)));
  }
  return kTrickCost * tricks;
}

// Trix pays more (a negative cost) the more rows this hand can open and follow.
double TrixCost(CardSet hand) {
  const int jacks = Count(hand & engine::kJacks);
  // Cards next to our own jacks: played at once after them.
  const CardSet near = ((hand & engine::kJacks) << 1) | ((hand & engine::kJacks) >> 1);
  return -(75.0 + 28.0 * jacks + 6.0 * Count(hand & near));
}

}  // namespace

int CardPenalty(engine::Card card, Contract contract, CardSet doubled) {
  return CardCost(card, contract, doubled);
}

double ContractDisadvantage(CardSet hand, Contract contract) {
  double cost = 0;
  switch (contract) {
    case Contract::kKingOfHearts:
      cost = KingOfHeartsCost(hand);
      break;
    case Contract::kQueens:
      cost = QueensCost(hand);
      break;
    case Contract::kDiamonds:
      cost = DiamondsCost(hand);
      break;
    case Contract::kTricks:
      cost = TricksCost(hand);
      break;
    case Contract::kTrix:
      cost = TrixCost(hand);
      break;
    case Contract::kComplex:
      cost = KingOfHeartsCost(hand) + QueensCost(hand) + DiamondsCost(hand) +
             TricksCost(hand);
      break;
  }
  return cost - UsualCost(contract);
}

Contract ChooseContract(CardSet hand, uint32_t available) {
  Contract best = engine::kNoContract;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int c = 0; c < engine::kNumContracts; ++c) {
    if (!(available & (1u << c))) continue;
    const double cost = ContractDisadvantage(hand, static_cast<Contract>(c));
    if (cost < best_cost) {
      best_cost = cost;
      best = static_cast<Contract>(c);
    }
  }
  return best;
}

CardSet ChooseDoubles(CardSet hand, CardSet doublable) {
  CardSet doubles = 0;
  for (CardSet b = doublable & hand; b;) {
    const engine::Card card = engine::PopLowest(b);
    // Enough low cards to duck every lead of the suit until it can be shed: the
    // double then pays (+v) instead of costing (−2v).
    if (Count(Below(card) & hand) >= 4) doubles |= Bit(card);
  }
  return doubles;
}

}  // namespace trix::bots::heuristic
