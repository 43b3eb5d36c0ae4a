// What one seat has learned about the hidden hands during a deal, and random deals
// of the hidden cards that agree with all of it: the sampling half of the search
// strategy (determinized search, "PIMC").
//
// DealHistory follows the deal event by event (Bot::Observe): the order of play
// (so that any sampled deal can be replayed on an engine::Deal up to now), the
// suits each seat showed void in (it did not follow), the heart leads that prove a
// hand of hearts only (King of Hearts house rules), and the Trix passes, which prove
// that the seat held no playable card then. Belief adds what the seat state shows
// at any time: revealed doubles and shown 2s stay in their holder's hand until
// played, and each seat holds hand_size cards.
//
//   DealHistory history;              // history.Observe(seat, card, state) ...
//   Belief belief = history.BeliefFor(state);
//   Hands hands;
//   if (SampleHands(belief, rng, &hands)) { engine::Deal deal; history.Rebuild(...); }
#ifndef TRIX_BOTS_STRATEGIES_SEARCH_BELIEF_H_
#define TRIX_BOTS_STRATEGIES_SEARCH_BELIEF_H_

#include <array>
#include <cstdint>

#include "bots/sdk/seat_state.h"
#include "engine/cards.h"
#include "engine/deal.h"
#include "engine/random.h"
#include "engine/rules.h"

namespace trix::bots::search {

// The constraints on a deal of the hidden cards: seat s gets exactly need[s] cards
// of `unseen` (the viewer's own hand is `known`, need 0), all of must[s] and none
// of cannot[s].
struct Belief {
  int viewer = 0;
  engine::CardSet known = 0;
  engine::CardSet unseen = 0;
  std::array<int, engine::kNumSeats> need{};
  engine::Hands must{};
  engine::Hands cannot{};
};

// A deal of `belief.unseen` to the other seats that meets every constraint, with
// hands[viewer] = known; each consistent deal is reachable, and with no
// constraints every deal is equally likely. False when no deal fits.
bool SampleHands(const Belief& belief, engine::Rng& rng, engine::Hands* hands);

// Whether `hands` meets every constraint of `belief`.
bool Consistent(const Belief& belief, const engine::Hands& hands);

class DealHistory {
 public:
  // A new deal: nothing played, nothing known.
  void Reset();
  // Joined in the middle of a deal (a snapshot): the order of play is unknown, so
  // no deal can be rebuilt until the next one starts.
  void Lost() { complete_ = false; }
  bool complete() const { return complete_; }

  // `seat` played `card`; `after` is the seat state with the card taken in.
  void CardPlayed(int seat, engine::Card card, const SeatState& after);
  // The server passed for `seat` in Trix; `state.layout` is the layout then.
  void Passed(int seat, const SeatState& state);

  Belief BeliefFor(const SeatState& state) const;

  // The deal as it stands now if the seats hold `hands` now (`doubled_by` the
  // revealed doubles): dealt hands[s] plus what s played, then the play replayed.
  // False if the history does not replay on those hands.
  bool Rebuild(const SeatState& state, const engine::Hands& hands,
               engine::Deal* deal) const;

  int plays() const { return plays_; }
  engine::CardSet cannot(int seat) const { return cannot_[seat]; }

 private:
  bool complete_ = true;
  bool hearts_broken_ = false;
  int plays_ = 0;
  std::array<engine::Card, 52> cards_{};
  std::array<int8_t, 52> seats_{};
  engine::Hands played_by_{};
  engine::Hands cannot_{};
};

}  // namespace trix::bots::search

#endif  // TRIX_BOTS_STRATEGIES_SEARCH_BELIEF_H_
