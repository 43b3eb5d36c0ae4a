#include "tests/integration/visibility_check.h"

#include "absl/strings/str_cat.h"
#include "engine/cards.h"
#include "engine/random.h"

namespace trix::table {
namespace {

using engine::CardSet;

class Checker {
 public:
  Checker(int viewer, uint64_t seed) : viewer_(viewer), seed_(seed) {}

  void Event(const v1::Event& e) {
    if (e.deal() != deal_) StartDeal(e.deal());
    const std::string at = absl::StrCat("seq ", e.seq(), ": ");
    switch (e.kind_case()) {
      case v1::Event::kHandShown:
        if (e.hand_shown().seat() != viewer_) Leak(at + "another seat's hand");
        if (Cards(e.hand_shown().cards()) != Hand(viewer_)) Leak(at + "a wrong hand");
        break;
      case v1::Event::kDoublesSelected:
        if (e.doubles_selected().seat() != viewer_) Leak(at + "another seat's selection");
        Own(Cards(e.doubles_selected().cards()), at + "selection");
        break;
      case v1::Event::kReady:
        if (e.ready().seat() != viewer_) Leak(at + "another seat's readiness");
        break;
      case v1::Event::kDoublesRevealed:
        Holds(e.doubles_revealed().seat(), Cards(e.doubles_revealed().cards()), at);
        public_ |= Cards(e.doubles_revealed().cards());
        break;
      case v1::Event::kTwosShown: {
        const CardSet twos = Cards(e.twos_shown().cards());
        if (twos & ~engine::kTwos) Leak(at + "twos shown that are not 2s");
        Holds(e.twos_shown().seat(), twos, at);
        public_ |= twos;
        break;
      }
      case v1::Event::kCardPlayed: {
        const CardSet card = Cards({e.card_played().card()});
        Holds(e.card_played().seat(), card, at);
        public_ |= card;
        played_ |= card;
        break;
      }
      case v1::Event::kTrickTaken:
        if (Cards(e.trick_taken().cards()) & ~played_)
          Leak(at + "a trick of unplayed cards");
        break;
      default:
        break;
    }
  }

  void Snapshot(const v1::TableView& view) {
    if (view.deal() >= 0 && view.deal() != deal_) StartDeal(view.deal());
    const std::string at = absl::StrCat("snapshot ", view.seq(), ": ");
    Own(Cards(view.hand()), at + "hand");
    Own(Cards(view.my_doubles()), at + "my doubles");
    Own(Cards(view.legal_cards()), at + "legal cards");
    Own(Cards(view.doublable()), at + "doublable");
    for (const v1::SeatView& seat : view.seats()) {
      Holds(seat.seat(), Cards(seat.doubled()), at);
      Holds(seat.seat(), Cards(seat.twos_shown()), at);
    }
  }

  void Prompt(const v1::Prompt& prompt) {
    if (viewer_ < 0) Leak("a prompt to a spectator");
    const std::string at = absl::StrCat("prompt after ", prompt.seq(), ": ");
    Own(Cards(prompt.legal_cards()), at + "legal cards");
    Own(Cards(prompt.doublable()), at + "doublable");
    Own(Cards(prompt.my_doubles()), at + "my doubles");
  }

  std::vector<std::string> leaks;

 private:
  void StartDeal(int deal) {
    deal_ = deal;
    hands_ = engine::ShuffledHands(seed_, deal);
    public_ = played_ = 0;
  }
  CardSet Hand(int seat) const { return seat >= 0 && seat < 4 ? hands_[seat] : 0; }
  template <typename Names>
  CardSet Cards(const Names& names) {
    CardSet set = 0;
    for (const std::string& name : names) {
      if (name.empty()) continue;
      absl::StatusOr<engine::Card> card = engine::ParseCard(name);
      if (!card.ok()) {
        Leak("unparsable card " + name);
        continue;
      }
      set |= engine::Bit(*card);
    }
    return set;
  }
  CardSet Cards(std::initializer_list<std::string> names) {
    return Cards(std::vector<std::string>(names));
  }
  // The viewer may see `cards` as its own.
  void Own(CardSet cards, const std::string& what) {
    if (cards & ~Hand(viewer_)) Leak(what + " holds cards not in the viewer's hand");
  }
  // `cards` are really `seat`'s (a wrong claim would be a bug, not a leak, but it
  // also would show cards of someone else).
  void Holds(int seat, CardSet cards, const std::string& at) {
    if (cards & ~Hand(seat))
      Leak(at + "cards attributed to a seat that does not hold them");
  }
  void Leak(const std::string& what) {
    leaks.push_back(absl::StrCat("viewer ", viewer_, ", deal ", deal_, ": ", what));
  }

  const int viewer_;
  const uint64_t seed_;
  int deal_ = -1;
  engine::Hands hands_{};
  CardSet public_ = 0;
  CardSet played_ = 0;
};

}  // namespace

std::vector<std::string> FindLeaks(const std::vector<v1::TableUpdate>& updates,
                                   int viewer, uint64_t seed) {
  Checker checker(viewer, seed);
  for (const v1::TableUpdate& u : updates) {
    // In the order a client applies them.
    if (u.has_snapshot()) checker.Snapshot(u.snapshot());
    for (const v1::Event& e : u.events()) checker.Event(e);
    if (u.has_prompt()) checker.Prompt(u.prompt());
  }
  return checker.leaks;
}

}  // namespace trix::table
