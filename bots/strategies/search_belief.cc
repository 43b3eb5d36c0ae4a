#include "bots/strategies/search_belief.h"

namespace trix::bots::search {
namespace {

using engine::Bit;
using engine::Card;
using engine::CardSet;
using engine::Count;
using engine::kNumSeats;

// Hall's condition for the deal still to make: cards are grouped by the set of
// seats that may take them (a 4-bit mask); for every set of seats T, the cards
// that only seats of T may take must fit in T's free places. sum_[T] counts those
// cards, room_[T] the places. Placing one card is O(16).
class Placement {
 public:
  void AddCard(int allowed) {
    for (int t = 1; t < 16; ++t) sum_[t] += (allowed & ~t) == 0;
  }
  void AddRoom(int seat, int n) {
    for (int t = 1; t < 16; ++t) room_[t] += (t >> seat & 1) * n;
  }
  bool Feasible() const {
    for (int t = 1; t < 16; ++t) {
      if (sum_[t] > room_[t]) return false;
    }
    return true;
  }
  // Whether the deal stays possible with one card of `allowed` given to `seat`.
  bool CanPlace(int allowed, int seat) {
    Place(allowed, seat, -1);
    const bool ok = Feasible();
    Place(allowed, seat, +1);
    return ok;
  }
  void Place(int allowed, int seat, int delta) {
    for (int t = 1; t < 16; ++t) {
      sum_[t] += delta * ((allowed & ~t) == 0);
      room_[t] += delta * (t >> seat & 1);
    }
  }

 private:
  std::array<int, 16> sum_{};
  std::array<int, 16> room_{};
};

int AllowedSeats(const Belief& b, Card card) {
  int allowed = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (s == b.viewer || b.need[s] == 0) continue;
    if (b.cannot[s] & Bit(card)) continue;
    allowed |= 1 << s;
  }
  for (int s = 0; s < kNumSeats; ++s) {
    if (b.must[s] & Bit(card)) return allowed & (1 << s);
  }
  return allowed;
}

}  // namespace

bool SampleHands(const Belief& b, engine::Rng& rng, engine::Hands* hands) {
  Placement placement;
  std::array<int, 64> allowed{};
  int total = 0;
  for (CardSet u = b.unseen; u;) {
    const Card c = engine::PopLowest(u);
    allowed[c] = AllowedSeats(b, c);
    if (allowed[c] == 0) return false;
    placement.AddCard(allowed[c]);
  }
  std::array<int, kNumSeats> room{};
  for (int s = 0; s < kNumSeats; ++s) {
    room[s] = s == b.viewer ? 0 : b.need[s];
    placement.AddRoom(s, room[s]);
    total += room[s];
  }
  if (total != Count(b.unseen) || !placement.Feasible()) return false;
  *hands = engine::Hands{};
  (*hands)[b.viewer] = b.known;
  for (CardSet u = b.unseen; u;) {
    const Card c = engine::PopLowest(u);
    // Each seat that keeps the rest possible, in proportion to its free places:
    // with no constraints this is a uniform deal.
    std::array<int, kNumSeats> weight{};
    int sum = 0;
    for (int s = 0; s < kNumSeats; ++s) {
      if (!(allowed[c] >> s & 1) || room[s] == 0) continue;
      if (allowed[c] != (1 << s) && !placement.CanPlace(allowed[c], s)) continue;
      weight[s] = room[s];
      sum += room[s];
    }
    if (sum == 0) return false;  // cannot happen while Hall's condition holds
    int pick = static_cast<int>(rng.Below(sum));
    int seat = 0;
    while (pick >= weight[seat]) pick -= weight[seat++];
    placement.Place(allowed[c], seat, -1);
    --room[seat];
    (*hands)[seat] |= Bit(c);
  }
  return true;
}

bool Consistent(const Belief& b, const engine::Hands& hands) {
  CardSet all = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (all & hands[s]) return false;
    all |= hands[s];
    if (s == b.viewer) {
      if (hands[s] != b.known) return false;
      continue;
    }
    if (Count(hands[s]) != b.need[s]) return false;
    if ((hands[s] & b.must[s]) != b.must[s]) return false;
    if (hands[s] & b.cannot[s]) return false;
    if (hands[s] & ~b.unseen) return false;
  }
  return true;
}

void DealHistory::Reset() { *this = DealHistory(); }

void DealHistory::CardPlayed(int seat, Card card, const SeatState& after) {
  if (plays_ >= 52) {
    complete_ = false;
    return;
  }
  cards_[plays_] = card;
  seats_[plays_] = static_cast<int8_t>(seat);
  ++plays_;
  played_by_[seat] |= Bit(card);
  if (after.contract == engine::Contract::kTrix) return;
  const Card led = after.led_card();
  if (led == engine::kNoCard) return;
  const engine::Suit led_suit = engine::SuitOf(led);
  if (seat != after.leader) {
    if (engine::SuitOf(card) != led_suit) {
      cannot_[seat] |= engine::SuitCards(led_suit);
      if (engine::SuitOf(card) == engine::kHearts) hearts_broken_ = true;
    }
    return;
  }
  // A heart led in King of Hearts where the house rule allows it only from a hand
  // of hearts.
  if (after.contract != engine::Contract::kKingOfHearts || led_suit != engine::kHearts) {
    return;
  }
  const engine::HeartLead rule = after.rules.options.kh_heart_lead;
  if (rule == engine::HeartLead::kOnlyIfAllHearts ||
      (rule == engine::HeartLead::kAfterBroken && !hearts_broken_)) {
    cannot_[seat] |= engine::kAllCards & ~engine::kHeartsCards;
  }
}

void DealHistory::Passed(int seat, const SeatState& state) {
  cannot_[seat] |= engine::TrixOpenings(state.layout);
}

Belief DealHistory::BeliefFor(const SeatState& state) const {
  Belief b;
  b.viewer = state.seat;
  b.known = state.hand;
  b.unseen = state.unseen();
  for (int s = 0; s < kNumSeats; ++s) {
    if (s == state.seat) continue;
    const SeatInfo& info = state.seats[s];
    b.need[s] = info.hand_size;
    b.must[s] = (info.doubled | info.twos_shown) & b.unseen;
    b.cannot[s] = cannot_[s] & b.unseen;
  }
  return b;
}

bool DealHistory::Rebuild(const SeatState& state, const engine::Hands& hands,
                          engine::Deal* deal) const {
  if (!complete_) return false;
  engine::Hands dealt;
  engine::Hands doubled_by;
  for (int s = 0; s < kNumSeats; ++s) {
    dealt[s] = hands[s] | played_by_[s];
    doubled_by[s] = state.seats[s].doubled & dealt[s];
  }
  *deal = engine::Deal(state.rules, state.contract, state.owner, dealt, doubled_by);
  for (int i = 0; i < plays_; ++i) {
    if (deal->over() || deal->to_play() != seats_[i] ||
        !(deal->LegalCards() & Bit(cards_[i]))) {
      return false;
    }
    deal->Play(cards_[i]);
  }
  return !deal->over();
}

}  // namespace trix::bots::search
