#include "engine/deal.h"

#include "absl/strings/str_cat.h"
#include "engine/points.h"

namespace trix::engine {

Deal::Deal(const Rules& rules, Contract contract, int owner, const Hands& hands,
           const Hands& doubled_by)
    : rules_(rules),
      contract_(contract),
      owner_(static_cast<int8_t>(owner)),
      to_play_(static_cast<int8_t>(owner)),
      hands_(hands),
      doubled_by_(doubled_by),
      leader_(static_cast<int8_t>(owner)) {
  if (contract_ == Contract::kTrix) AdvanceTrix((owner + 3) & 3);
}

CardSet Deal::LegalLeads(CardSet hand) const {
  if (contract_ != Contract::kKingOfHearts) return hand;
  const CardSet others = hand & ~kHeartsCards;
  if (others == 0) return hand;
  switch (rules_.options.kh_heart_lead) {
    case HeartLead::kAny:
      return hand;
    case HeartLead::kOnlyIfAllHearts:
      return others;
    case HeartLead::kAfterBroken:
      return hearts_broken_ ? hand : others;
  }
  return hand;
}

CardSet Deal::LegalCards() const {
  if (over_) return 0;
  const CardSet hand = hands_[to_play_];
  if (contract_ == Contract::kTrix) return hand & TrixOpenings(played_);
  if (trick_size_ == 0) return LegalLeads(hand);
  const CardSet follow = hand & SuitCards(SuitOf(trick_[leader_]));
  return follow ? follow : hand;
}

absl::Status Deal::CheckPlay(Card card) const {
  if (over_) return absl::FailedPreconditionError("deal already over");
  if (card > 63 || !(Bit(card) & kAllCards)) {
    return absl::InvalidArgumentError(absl::StrCat("card ", int{card}, " is not a card"));
  }
  if (LegalCards() & Bit(card)) return absl::OkStatus();
  const std::string seat = absl::StrCat("seat ", to_play_);
  if (!(hands_[to_play_] & Bit(card))) {
    return absl::FailedPreconditionError(
        absl::StrCat(seat, " does not hold ", CardName(card)));
  }
  if (contract_ == Contract::kTrix) {
    return absl::FailedPreconditionError(absl::StrCat(
        seat, " cannot play ", CardName(card),
        " in Trix: only a jack or the card next to its suit's row may be played"));
  }
  if (trick_size_ == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        seat, " may not lead a heart in King of Hearts (kh_heart_lead=",
        HeartLeadName(rules_.options.kh_heart_lead), ")"));
  }
  return absl::FailedPreconditionError(
      absl::StrCat(seat, " must follow suit (",
                   std::string(1, "CDHS"[SuitOf(trick_[leader_])]), ")"));
}

absl::Status Deal::TryPlay(Card card) {
  absl::Status status = CheckPlay(card);
  if (status.ok()) Play(card);
  return status;
}

void Deal::Play(Card card) {
  hands_[to_play_] &= ~Bit(card);
  played_ |= Bit(card);
  ++cards_played_;
  if (contract_ == Contract::kTrix) {
    PlayToLayout(card);
  } else {
    PlayToTrick(card);
  }
}

void Deal::PlayToTrick(Card card) {
  if (trick_size_ > 0 && SuitOf(card) == kHearts &&
      SuitOf(trick_[leader_]) != kHearts) {
    hearts_broken_ = true;
  }
  trick_[to_play_] = card;
  if (++trick_size_ < kNumSeats) {
    to_play_ = (to_play_ + 1) & 3;
    return;
  }
  FinishTrick();
}

void Deal::FinishTrick() {
  const CardSet trick =
      Bit(trick_[0]) | Bit(trick_[1]) | Bit(trick_[2]) | Bit(trick_[3]);
  const Card best = Highest(trick & SuitCards(SuitOf(trick_[leader_])));
  // Branchless: which seat took the trick is as good as random in a playout.
  const int winner = (trick_[1] == best) + 2 * (trick_[2] == best) + 3 * (trick_[3] == best);

  ScoreTrick(contract_, trick, winner, leader_, doubled_by_, scores_);

  taken_[winner] |= trick;
  ++tricks_won_[winner];
  ++tricks_played_;
  last_trick_ = trick;
  last_trick_winner_ = static_cast<int8_t>(winner);
  trick_ = {kNoCard, kNoCard, kNoCard, kNoCard};
  trick_size_ = 0;
  leader_ = to_play_ = static_cast<int8_t>(winner);
  if (tricks_played_ == kHandSize || EndsEarly()) over_ = true;
}

bool Deal::EndsEarly() const {
  if (!rules_.options.end_early) return false;
  const CardSet all_taken = taken_[0] | taken_[1] | taken_[2] | taken_[3];
  switch (contract_) {
    case Contract::kKingOfHearts:
      return all_taken & Bit(kKingOfHearts);
    case Contract::kQueens:
      return (all_taken & kQueens) == kQueens;
    case Contract::kDiamonds:
      return (all_taken & kDiamondsCards) == kDiamondsCards;
    default:
      return false;
  }
}

void Deal::PlayToLayout(Card card) {
  const int seat = to_play_;
  recent_passes_count_ = 0;
  if (hands_[seat] == 0) {
    scores_[seat] += kTrixPlacePoints[seats_out_];
    out_order_[seats_out_++] = static_cast<int8_t>(seat);
    if (seats_out_ == kNumSeats - 1) {
      int last = 0;
      while (hands_[last] == 0) ++last;
      scores_[last] += kTrixPlacePoints[seats_out_];
      out_order_[seats_out_++] = static_cast<int8_t>(last);
      over_ = true;
      return;
    }
  }
  AdvanceTrix(seat);
}

// Moves the turn to the next seat, after `from`, that holds a playable card. Seats
// with empty hands are skipped; a seat with cards but nothing playable passes. Some
// seat always can play: an unplayed jack, or the next card of a row, is in a hand.
void Deal::AdvanceTrix(int from) {
  int seat = from;
  for (;;) {
    seat = (seat + 1) & 3;
    if (hands_[seat] == 0) continue;
    if (hands_[seat] & TrixOpenings(played_)) break;
    ++passes_;
    recent_passes_[recent_passes_count_++] = static_cast<int8_t>(seat);
  }
  to_play_ = static_cast<int8_t>(seat);
}

absl::Status ValidateHands(const Hands& hands) {
  CardSet all = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (hands[s] & ~kAllCards) {
      return absl::InvalidArgumentError(absl::StrCat("seat ", s, "'s hand has a non-card"));
    }
    if (Count(hands[s]) != kHandSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "seat ", s, " holds ", Count(hands[s]), " cards, not ", kHandSize));
    }
    if (all & hands[s]) {
      return absl::InvalidArgumentError(
          absl::StrCat("seat ", s, " holds ", CardsText(all & hands[s]),
                       " dealt to another seat too"));
    }
    all |= hands[s];
  }
  return absl::OkStatus();
}

}  // namespace trix::engine
