// HeuristicBot in play: trick contracts and the Trix layout.
#include <algorithm>
#include <limits>

#include "bots/strategies/best_by.h"
#include "bots/strategies/card_points.h"
#include "bots/strategies/heuristic_bot.h"

namespace trix::bots {
namespace heuristic {
namespace {

using engine::Bit;
using engine::Card;
using engine::CardSet;
using engine::Contract;
using engine::Count;

CardSet SuitOfCard(Card c) { return engine::SuitCards(engine::SuitOf(c)); }
CardSet Below(Card c) { return SuitOfCard(c) & (Bit(c) - 1); }
CardSet Above(Card c) { return SuitOfCard(c) & ~((Bit(c) << 1) - 1); }

struct TrickView {
  Contract contract;
  CardSet doubled;
  CardSet hand;
  CardSet unseen;
  int penalty_out = 0;  // unseen cards' penalties, summed

  int Penalty(Card c) const { return CardPenalty(c, contract, doubled); }
};

TrickView MakeView(const SeatState& s) {
  TrickView v{s.contract, s.doubled(), s.hand, s.unseen()};
  for (CardSet b = v.unseen; b;) v.penalty_out += v.Penalty(engine::PopLowest(b));
  return v;
}

// The revealed doubles of the other seats still in their hands.
CardSet DoubledByOthers(const SeatState& s) {
  CardSet out = 0;
  for (int seat = 0; seat < engine::kNumSeats; ++seat) {
    if (seat != s.seat) out |= s.seats[seat].doubled;
  }
  return out & s.unseen();
}

Card Lead(const SeatState& s, const TrickView& v, CardSet legal) {
  // What the others may throw on a trick we win, per card they hold.
  const double dump = v.unseen ? 2.0 * v.penalty_out / Count(v.unseen) : 0;
  return BestBy(legal, [&](Card c) {
    const int higher = Count(v.unseen & Above(c));
    const int lower = Count(v.unseen & Below(c));
    // Followers duck with lower cards while they can; with none left below ours,
    // whoever follows must play over it. Nobody left in the suit: we win it.
    const double risk =
        higher + lower == 0 ? 1.0 : static_cast<double>(lower) / (higher + lower);
    const double win_cost = TrickCost(v.contract) + v.Penalty(c) + dump;
    double value = -risk * win_cost;
    // A penalty card led under higher cards is shed onto whoever wins.
    if (!s.partner_mode()) value += (1 - risk) * 0.5 * v.Penalty(c);
    // Low leads in a suit whose penalty cards are still out force them out.
    for (CardSet p = v.unseen & Above(c); p;) {
      const Card d = engine::PopLowest(p);
      value += (1 - risk) * 0.2 * v.Penalty(d);
    }
    // Keep the guards of our own penalty cards in their suit, without making
    // every low lead look worse than a certain winner.
    int guarded = 0;
    for (CardSet p = v.hand & Above(c); p;)
      guarded += v.Penalty(engine::PopLowest(p)) > 0;
    value -= 4 * std::min(guarded, 2);
    // A doubled card of another seat below ours is a trap: its holder sheds it
    // onto our winner (a partner's costs the team the same way).
    for (CardSet d = DoubledByOthers(s) & Below(c); d;) {
      value -= 2.0 * v.Penalty(engine::PopLowest(d));
    }
    return value - 0.01 * engine::RankOf(c);
  });
}

Card Follow(const SeatState& s, const TrickView& v, CardSet legal) {
  const Card winning = s.winning_card();
  const int winner = s.winning_seat();
  const bool partner_wins = s.partner_mode() && winner == s.partner();
  const bool last = s.trick_size() == engine::kNumSeats - 1;
  int on_trick = 0;
  for (Card c : s.trick) {
    if (c != engine::kNoCard) on_trick += v.Penalty(c);
  }
  const CardSet under = legal & Below(winning);
  const CardSet over = legal & Above(winning);
  CardSet clean_over = 0;
  for (CardSet b = over; b;) {
    const Card c = engine::PopLowest(b);
    if (v.Penalty(c) == 0) clean_over |= Bit(c);
  }
  // Last to a clean trick that costs nothing to win: win it with a high card we
  // would otherwise have to get rid of later.
  if (last && on_trick == 0 && TrickCost(v.contract) == 0 && clean_over) {
    return engine::Highest(clean_over);
  }
  if (under) {
    // Duck. Onto an opponent's winning card, shed the costliest card that ducks;
    // otherwise the highest one (the low ones are the guards for later).
    return BestBy(under, [&](Card c) {
      const double shed = partner_wins ? -v.Penalty(c) : v.Penalty(c);
      return shed * 16 + engine::RankOf(c);
    });
  }
  // Every card we hold beats the trick. Win with a card that costs nothing if we
  // can, else with the cheapest; when the trick is ours whatever the others hold
  // (we are last, or nobody has a higher card left), win it high to be rid of a
  // high card; otherwise stay low, so that someone after us may still overtake.
  CardSet candidates = clean_over;
  if (!candidates) {
    int cheapest = std::numeric_limits<int>::max();
    for (CardSet b = legal; b;) {
      const Card c = engine::PopLowest(b);
      if (v.Penalty(c) < cheapest) {
        cheapest = v.Penalty(c);
        candidates = 0;
      }
      if (v.Penalty(c) == cheapest) candidates |= Bit(c);
    }
  }
  const bool certain = last || !(v.unseen & Above(engine::Lowest(candidates)));
  return certain ? engine::Highest(candidates) : engine::Lowest(candidates);
}

Card Discard(const SeatState& s, const TrickView& v, CardSet legal) {
  const bool partner_wins = s.partner_mode() && s.winning_seat() == s.partner();
  return BestBy(legal, [&](Card c) {
    const int length = Count(v.hand & SuitOfCard(c));
    // High cards in short suits are the ones that win tricks later.
    const double danger = engine::RankOf(c) * 3.0 - length * 2.0;
    const int penalty = v.Penalty(c);
    return (partner_wins ? -penalty : penalty) * 100.0 + danger;
  });
}

}  // namespace

Card ChooseTrickCard(const SeatState& s) {
  const CardSet legal = s.options.legal;
  const TrickView v = MakeView(s);
  const Card led = s.led_card();
  if (led == engine::kNoCard) return Lead(s, v, legal);
  if (legal & SuitOfCard(led)) return Follow(s, v, legal & SuitOfCard(led));
  return Discard(s, v, legal);
}

Card ChooseTrixCard(const SeatState& s) {
  const CardSet hand = s.hand;
  const CardSet others = s.unseen();
  return BestBy(s.options.legal, [&](Card c) {
    const CardSet suit = SuitOfCard(c);
    double value = 3.0 * Count(hand & suit);  // long suits first
    // Which way the row grows from this card: a jack opens both ways.
    const bool jack = engine::RankOf(c) == engine::kJack;
    const bool up = jack || engine::RankOf(c) > engine::kJack;
    const bool down = jack || engine::RankOf(c) < engine::kJack;
    int ours = 0;    // our cards this one frees, one after another
    int theirs = 0;  // neighbours the others may then play
    if (up && engine::RankOf(c) < engine::kAce) {
      for (Card n = c; engine::RankOf(n) < engine::kAce && (hand & Bit(n + 1)); ++n)
        ++ours;
      if (others & Bit(c + 1)) ++theirs;
    }
    if (down && engine::RankOf(c) > engine::kTwo) {
      for (Card n = c; engine::RankOf(n) > engine::kTwo && (hand & Bit(n - 1)); --n)
        ++ours;
      if (others & Bit(c - 1)) ++theirs;
    }
    // In partner Trix the others include the partner: a freed card is less
    // often an opponent's. A row moved down towards the partner's shown 2 helps
    // it get out.
    const bool partner_two =
        s.partner_mode() && down && (s.seats[s.partner()].twos_shown & suit);
    value += 4.0 * ours - (s.partner_mode() ? 2.0 : 3.0) * theirs + 2.0 * partner_two;
    // A jack held back blocks a whole row for the others; play it only when it
    // frees our own cards.
    if (jack && ours == 0) value -= 2;
    return value;
  });
}

}  // namespace heuristic

Decision HeuristicBot::Decide(const SeatState& state) {
  const SeatOptions& o = state.options;
  switch (o.phase) {
    case engine::Phase::kChoosingContract:
      if (!o.contracts) break;
      return Decision::ChooseContract(heuristic::ChooseContract(state.hand, o.contracts));
    case engine::Phase::kDoubling:
      return Decision::SelectDoubles(heuristic::ChooseDoubles(state.hand, o.doublable));
    case engine::Phase::kPlaying:
      if (!o.legal) break;
      return Decision::PlayCard(state.contract == engine::Contract::kTrix
                                    ? heuristic::ChooseTrixCard(state)
                                    : heuristic::ChooseTrickCard(state));
    default:
      break;
  }
  return FirstOption(o);
}

}  // namespace trix::bots
