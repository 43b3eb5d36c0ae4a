// One deal of one contract, from the first card played to the deal's end.
//
// Deal is the hot core of the engine: a small copyable value (no heap, no
// exceptions) that knows the hands, the trick or the Trix layout, and the scores so
// far. It is what random playouts, search bots and the full Game all run on, so the
// rules of play live here and nowhere else: which cards are legal (as mask
// operations), who wins a trick, when a deal ends early, how doubled cards score,
// Trix placement and automatic passes.
//
//   Deal deal(rules, Contract::kQueens, /*owner=*/2, hands, doubled_by);
//   while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
//   deal.scores();  // per seat, doubles included
//
// Play() expects a legal card; CheckPlay() says why a card is not legal, and
// TryPlay() is the checked form that changes nothing on error.
#ifndef TRIX_ENGINE_DEAL_H_
#define TRIX_ENGINE_DEAL_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/cards.h"
#include "engine/points.h"
#include "engine/rules.h"

namespace trix::engine {

using Hands = std::array<CardSet, kNumSeats>;
using Scores = std::array<int32_t, kNumSeats>;

class Deal {
 public:
  Deal() = default;
  // `hands` is a partition of the 52 cards; `doubled_by[s]` the cards seat s
  // doubled (a subset of its hand and of DoublableCards). Game and the replay tool
  // validate both before they get here.
  Deal(const Rules& rules, Contract contract, int owner, const Hands& hands,
       const Hands& doubled_by);

  // The cards the seat to play may play now (empty once the deal is over).
  CardSet LegalCards() const;
  // Why `card` cannot be played now by the seat to play, or OK.
  absl::Status CheckPlay(Card card) const;
  // Plays a legal card for the seat to play.
  void Play(Card card);
  absl::Status TryPlay(Card card);

  bool over() const { return over_; }
  Contract contract() const { return contract_; }
  int owner() const { return owner_; }
  int to_play() const { return to_play_; }
  const Hands& hands() const { return hands_; }
  const Hands& doubled_by() const { return doubled_by_; }
  CardSet doubled() const {
    return doubled_by_[0] | doubled_by_[1] | doubled_by_[2] | doubled_by_[3];
  }
  const Scores& scores() const { return scores_; }
  int cards_played() const { return cards_played_; }

  // Trick contracts.
  int tricks_played() const { return tricks_played_; }
  int leader() const { return leader_; }
  int trick_size() const { return trick_size_; }
  // The card seat s put on the current trick, or kNoCard.
  Card trick_card(int seat) const { return trick_[seat]; }
  CardSet taken(int seat) const { return taken_[seat]; }
  int tricks_won(int seat) const { return tricks_won_[seat]; }
  // The last completed trick: its cards and who took it (-1 before the first).
  CardSet last_trick() const { return last_trick_; }
  int last_trick_winner() const { return last_trick_winner_; }
  bool hearts_broken() const { return hearts_broken_; }

  // Trix.
  CardSet layout() const { return played_; }
  int seats_out() const { return seats_out_; }
  // Seats in the order their hands emptied; all four once the deal is over.
  const std::array<int8_t, kNumSeats>& out_order() const { return out_order_; }
  int passes() const { return passes_; }
  // The seats the server passed for since the last card (or since the start), in
  // turn order; at most three.
  int recent_passes() const { return recent_passes_count_; }
  int recent_pass(int i) const { return recent_passes_[i]; }

 private:
  CardSet LegalLeads(CardSet hand) const;
  void PlayToTrick(Card card);
  void FinishTrick();
  void PlayToLayout(Card card);
  void AdvanceTrix(int from);
  bool EndsEarly() const;

  Rules rules_;
  Contract contract_ = Contract::kTricks;
  int8_t owner_ = 0;
  int8_t to_play_ = 0;
  bool over_ = false;
  bool hearts_broken_ = false;
  Hands hands_{};
  Hands doubled_by_{};
  Hands taken_{};
  Scores scores_{};
  CardSet played_ = 0;  // every card played; in Trix, the layout
  CardSet last_trick_ = 0;
  std::array<Card, kNumSeats> trick_{kNoCard, kNoCard, kNoCard, kNoCard};
  std::array<uint8_t, kNumSeats> tricks_won_{};
  int8_t leader_ = 0;
  int8_t trick_size_ = 0;
  int8_t tricks_played_ = 0;
  int8_t last_trick_winner_ = -1;
  int8_t cards_played_ = 0;
  int8_t seats_out_ = 0;
  std::array<int8_t, kNumSeats> out_order_{-1, -1, -1, -1};
  int16_t passes_ = 0;
  int8_t recent_passes_count_ = 0;
  std::array<int8_t, 3> recent_passes_{};
};

// The cards that may go on the Trix layout next: every jack, and the card one rank
// above the top or below the bottom of each open row.
inline CardSet TrixOpenings(CardSet layout) {
  return (kJacks | (layout << 1) | (layout >> 1)) & ~layout & kAllCards;
}

// Partner Trix: every 2 is shown beside its holder, unless one team holds all four.
inline bool TwosShown(const Variant& variant, Contract contract, const Hands& dealt) {
  const CardSet team0 = (dealt[0] | dealt[2]) & kTwos;
  return variant.team == Team::kPartner && contract == Contract::kTrix &&
         team0 != kTwos && team0 != 0;
}

// Checks that `hands` deals the 52 cards exactly once, 13 to a seat.
absl::Status ValidateHands(const Hands& hands);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_DEAL_H_
