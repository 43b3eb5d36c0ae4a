#include "bots/strategies/search_playout.h"

#include <limits>

#include "bots/strategies/best_by.h"
#include "bots/strategies/card_points.h"

namespace trix::bots::search {
namespace {

using engine::Bit;
using engine::Card;
using engine::CardSet;
using engine::Count;
using engine::Deal;
using engine::kNoCard;
using engine::kNumSeats;
using engine::Scores;

CardSet SuitOfCard(Card c) { return engine::SuitCards(engine::SuitOf(c)); }
CardSet Below(Card c) { return SuitOfCard(c) & (Bit(c) - 1); }
CardSet Above(Card c) { return SuitOfCard(c) & ~((Bit(c) << 1) - 1); }

CardSet OthersHands(const Deal& d, int me) {
  CardSet all = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (s != me) all |= d.hands()[s];
  }
  return all;
}

Card LeadCard(const Deal& d, bool partner, CardSet legal) {
  const int me = d.to_play();
  const CardSet others = OthersHands(d, me);
  CardSet opponents = others;
  if (partner) opponents &= ~d.hands()[engine::PartnerOf(me)];
  const CardSet doubled = d.doubled();
  return BestBy(legal, [&](Card c) {
    const int cost = CardCost(c, d.contract(), doubled);
    const bool beaten = others & Above(c);
    // A card nobody can beat takes the trick and whatever the others shed on it.
    int value = beaten ? 0 : -(60 + 2 * cost);
    value -= 2 * engine::RankOf(c) + cost;
    // Low leads under the others' penalty cards drive those cards out.
    for (CardSet p = opponents & Above(c); p;) {
      value += CardCost(engine::PopLowest(p), d.contract(), doubled) / 4;
    }
    return value;
  });
}

Card TrickPolicy(const Deal& d, bool partner) {
  const CardSet legal = d.LegalCards();
  if ((legal & (legal - 1)) == 0) return engine::Lowest(legal);
  if (d.trick_size() == 0) return LeadCard(d, partner, legal);
  const int me = d.to_play();
  const CardSet doubled = d.doubled();
  const auto cost = [&](Card c) { return CardCost(c, d.contract(), doubled); };
  const Card led = d.trick_card(d.leader());
  CardSet on_trick = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (d.trick_card(s) != kNoCard) on_trick |= Bit(d.trick_card(s));
  }
  const Card winning = engine::Highest(on_trick & SuitOfCard(led));
  int winner = 0;
  while (d.trick_card(winner) != winning) ++winner;
  const bool friend_wins = partner && winner == engine::PartnerOf(me);
  const CardSet follow = legal & SuitOfCard(led);
  if (!follow) {
    // Void: shed the costliest card on an opponent, the highest clean one on a
    // partner.
    return BestBy(legal, [&](Card c) {
      return (friend_wins ? -cost(c) : cost(c)) * 64 + engine::RankOf(c);
    });
  }
  const CardSet under = follow & Below(winning);
  if (under) {
    return BestBy(under, [&](Card c) {
      return (friend_wins ? -cost(c) : cost(c)) * 64 + engine::RankOf(c);
    });
  }
  // Every card wins for now. Last, or nobody after us can overtake: win high
  // and cheap. Otherwise low, so that someone may still overtake.
  bool can_overtake = false;
  for (int s = (me + 1) & 3; s != d.leader(); s = (s + 1) & 3) {
    if (d.hands()[s] & Above(engine::Lowest(follow))) can_overtake = true;
  }
  if (!can_overtake) {
    return BestBy(follow, [&](Card c) { return -cost(c) * 64 + engine::RankOf(c); });
  }
  return BestBy(follow, [&](Card c) { return -cost(c) * 64 - engine::RankOf(c); });
}

// How many cards of `hand` follow `c` on its row, one after another, in the
// direction(s) `c` grows it.
int Chain(Card c, CardSet hand, int step) {
  int n = 0;
  for (int r = engine::RankOf(c) + step; r >= engine::kTwo && r <= engine::kAce;
       r += step) {
    if (!(hand & Bit(static_cast<Card>((c & ~15) + r)))) break;
    ++n;
  }
  return n;
}

Card TrixPolicy(const Deal& d, bool partner) {
  const CardSet legal = d.LegalCards();
  if ((legal & (legal - 1)) == 0) return engine::Lowest(legal);
  const int me = d.to_play();
  const CardSet hand = d.hands()[me];
  const CardSet friends = partner ? d.hands()[engine::PartnerOf(me)] : 0;
  const CardSet opponents = OthersHands(d, me) & ~friends;
  return BestBy(legal, [&](Card c) {
    const int rank = engine::RankOf(c);
    const bool jack = rank == engine::kJack;
    const bool up = rank >= engine::kJack && rank < engine::kAce;
    const bool down = rank <= engine::kJack && rank > engine::kTwo;
    int ours = 0, theirs = 0, helps = 0;
    if (up) {
      ours += Chain(c, hand, 1);
      theirs += (opponents & Bit(c + 1)) != 0;
      helps += (friends & Bit(c + 1)) != 0;
    }
    if (down) {
      ours += Chain(c, hand, -1);
      theirs += (opponents & Bit(c - 1)) != 0;
      helps += (friends & Bit(c - 1)) != 0;
    }
    int value = 3 * Count(hand & SuitOfCard(c)) + 4 * ours - 5 * theirs + 3 * helps;
    if (jack && ours == 0) value -= 3;
    return value;
  });
}

Scores Minus(const Scores& a, const Scores& b) {
  Scores r;
  for (int s = 0; s < kNumSeats; ++s) r[s] = a[s] - b[s];
  return r;
}

// The legal cards worth trying: of two cards of a suit with nothing still in
// play between them and the same cost, the lower one stands for both.
CardSet DistinctCards(const Deal& d) {
  const CardSet legal = d.LegalCards();
  CardSet live = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    live |= d.hands()[s];
    if (d.trick_card(s) != kNoCard) live |= Bit(d.trick_card(s));
  }
  const CardSet doubled = d.doubled();
  CardSet out = 0;
  Card prev = kNoCard;
  for (CardSet b = legal; b;) {
    const Card c = engine::PopLowest(b);
    if (prev != kNoCard && engine::SuitOf(prev) == engine::SuitOf(c) &&
        CardCost(prev, d.contract(), doubled) == CardCost(c, d.contract(), doubled)) {
      const CardSet between = (Bit(c) - 1) & ~((Bit(prev) << 1) - 1);
      if (!(between & live)) {
        prev = c;
        continue;
      }
    }
    out |= Bit(c);
    prev = c;
  }
  return out;
}

// Team 0's final points under best play by both teams.
int32_t AlphaBeta(const Deal& d, int32_t alpha, int32_t beta) {
  if (d.over()) return d.scores()[0] + d.scores()[2];
  const bool maximize = engine::TeamOf(d.to_play()) == 0;
  const Card first = TrickPolicy(d, true);
  const CardSet rest = DistinctCards(d) & ~Bit(first);
  int32_t best = maximize ? std::numeric_limits<int32_t>::min()
                          : std::numeric_limits<int32_t>::max();
  // True once the window closes (the rest cannot matter).
  const auto visit = [&](Card c) {
    Deal next = d;
    next.Play(c);
    const int32_t v = AlphaBeta(next, alpha, beta);
    if (maximize) {
      if (v > best) best = v;
      if (best > alpha) alpha = best;
    } else {
      if (v < best) best = v;
      if (best < beta) beta = best;
    }
    return alpha >= beta;
  };
  if (visit(first)) return best;
  for (CardSet b = rest; b;) {
    if (visit(engine::PopLowest(b))) break;
  }
  return best;
}

// Final points, every seat playing for itself.
Scores MaxN(const Deal& d) {
  if (d.over()) return d.scores();
  const int me = d.to_play();
  Scores best{};
  int32_t best_value = std::numeric_limits<int32_t>::min();
  for (CardSet b = DistinctCards(d); b;) {
    Deal next = d;
    next.Play(engine::PopLowest(b));
    const Scores v = MaxN(next);
    if (v[me] > best_value) {
      best_value = v[me];
      best = v;
    }
  }
  return best;
}

}  // namespace

Card PolicyCard(const Deal& deal, bool partner) {
  return deal.contract() == engine::Contract::kTrix ? TrixPolicy(deal, partner)
                                                    : TrickPolicy(deal, partner);
}

Scores Playout(Deal deal, bool partner) {
  const Scores start = deal.scores();
  while (!deal.over()) deal.Play(PolicyCard(deal, partner));
  return Minus(deal.scores(), start);
}

Scores SolveTricks(const Deal& deal, bool partner) {
  if (!partner) return Minus(MaxN(deal), deal.scores());
  // The deal's total is fixed, so team 1 gets what team 0 does not; split each
  // team's share over its seats as the policy's playout does (only team sums
  // matter to the caller).
  const int32_t team0 = AlphaBeta(deal, std::numeric_limits<int32_t>::min(),
                                  std::numeric_limits<int32_t>::max()) -
                        (deal.scores()[0] + deal.scores()[2]);
  const Scores played = Playout(deal, true);
  const int32_t total = played[0] + played[1] + played[2] + played[3];
  return Scores{team0, total - team0, 0, 0};
}

TrixSolver::TrixSolver(int log2_table)
    : table_(size_t{1} << log2_table), mask_((uint64_t{1} << log2_table) - 1) {
  NewHands();
}

TrixSolver::Entry& TrixSolver::Slot(uint64_t key) {
  uint64_t h = key * 0x9E3779B97F4A7C15ULL;
  return table_[(h >> 20) & mask_];
}

Scores TrixSolver::Solve(const Deal& deal, bool partner, int64_t node_budget) {
  if (partner != partner_) NewHands();
  partner_ = partner;
  nodes_ = 0;
  budget_ = node_budget;
  return Search(deal);
}

void TrixSolver::NewHands() {
  if (++stamp_ == 0) {
    for (Entry& e : table_) e.stamp = 0;
    stamp_ = 1;
  }
}

Scores TrixSolver::Search(const Deal& d) {
  if (d.over()) return Scores{};
  // The hands follow from the layout (one sampled deal per solve), so the layout
  // and the seat to play are the position; bits 13-14 of the clubs lane are free.
  const uint64_t key = d.layout() | (uint64_t{static_cast<uint64_t>(d.to_play())} << 13);
  Entry& slot = Slot(key);
  if (slot.stamp == stamp_ && slot.key == key) return slot.value;
  if (++nodes_ > budget_) return Playout(d, partner_);
  const int me = d.to_play();
  Scores best{};
  int32_t best_value = std::numeric_limits<int32_t>::min();
  const Card first = TrixPolicy(d, partner_);
  for (CardSet b = d.LegalCards() & ~Bit(first), order = Bit(first); b | order;) {
    const Card c = order ? engine::PopLowest(order) : engine::PopLowest(b);
    Deal next = d;
    next.Play(c);
    Scores v = Minus(next.scores(), d.scores());
    const Scores rest = Search(next);
    for (int s = 0; s < kNumSeats; ++s) v[s] += rest[s];
    const int32_t value = SeatValue(v, me, partner_);
    if (value > best_value) {
      best_value = value;
      best = v;
    }
  }
  Entry& out = Slot(key);
  out.key = key;
  out.stamp = stamp_;
  out.value = best;
  return best;
}

}  // namespace trix::bots::search
