// A whole game of Trix as a state machine: deals, kingdoms, contract choice, the
// closed doubling phase, play, and scores.
//
// The game moves through phases; in each, Apply() takes one Action and either
// changes the game and appends Events, or returns an error naming the rule broken
// and changes nothing. Dealing is an action too (a chance move, as in OpenSpiel):
// the table service deals ShuffledHands(seed, i) and the replay tool deals the hands
// of a case, so the list of applied actions is the game's complete log, and
// Game::Replay() rebuilds any state from it exactly.
//
//   Game game(rules);
//   game.Apply(Action::Deal(ShuffledHands(seed, 0)));
//   game.Apply(Action::ChooseContract(game.owner(), Contract::kComplex));
//   ...
//
// Steps the rules make automatic happen inside Apply and are announced as events:
// the last contract of a kingdom is picked, Trix passes are made, deals and the
// game end. Who may see each event is decided in observation.h.
#ifndef TRIX_ENGINE_GAME_H_
#define TRIX_ENGINE_GAME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/deal.h"
#include "engine/rules.h"

namespace trix::engine {

enum class Phase : uint8_t {
  kDealing,           // waiting for the next deal's hands
  kChoosingContract,  // the kingdom's owner picks a contract
  kDoubling,          // closed doubling: every seat selects doubles, then is ready
  kPlaying,           // cards (trick play or the Trix layout)
  kGameOver,
};

enum class ActionType : uint8_t {
  kDeal,            // chance: `hands`
  kChooseContract,  // `seat` (the owner) picks `contract`
  kSelectDoubles,   // `seat` replaces its secret selection with `cards`
  kReady,           // `seat` commits its selection
  kPlayCard,        // `seat` plays `card`
};

struct Action {
  ActionType type = ActionType::kDeal;
  int8_t seat = -1;
  Contract contract = kNoContract;
  Card card = kNoCard;
  CardSet cards = 0;
  Hands hands{};
  bool autopilot = false;  // taken by the server for the seat (clock, left seat)

  static Action Deal(const Hands& hands);
  static Action ChooseContract(int seat, Contract contract);
  static Action SelectDoubles(int seat, CardSet cards);
  static Action Ready(int seat);
  static Action PlayCard(int seat, Card card);
};

enum class EventType : uint8_t {
  kDealStarted,      // `deal` (0-based), `kingdom`, `seat` = owner
  kHandShown,        // private: `cards` = `seat`'s hand, shown to it
  kContractChosen,   // `seat` = owner, `contract`, `automatic` when it was the last
  kDoublesSelected,  // private: `seat`'s current secret selection `cards`
  kReady,            // private: `seat` committed its selection
  kDoublesRevealed,  // `seat` doubled `cards` (one event per doubling seat)
  kTwosShown,        // partner Trix: `seat` holds the 2s `cards`
  kPlayStarted,      // play begins; `seat` is first to act
  kCardPlayed,       // `seat` played `card`
  kPassed,           // Trix: the server passed for `seat` (always `automatic`)
  kTrickTaken,       // `seat` took the trick `cards`
  kSeatOut,          // Trix: `seat`'s hand emptied; `values[seat]` its points
  kDealEnded,        // `values` = the deal's scores per seat
  kGameEnded,        // `values` = the game totals per seat
};

struct Event {
  EventType type;
  int8_t seat = -1;
  int8_t deal = 0;
  int8_t kingdom = 0;
  Contract contract = kNoContract;
  Card card = kNoCard;
  bool automatic = false;  // made by the rules or by the autopilot, not the seat
  CardSet cards = 0;
  Scores values{};
};

class Game;

// A game's events, spelled out on demand from the game's compact list (8 bytes an
// event): index it, iterate it, or copy it into a vector. It reads the game it
// came from, so it lives no longer than the game.
class EventList {
 public:
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Event;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Event;
    Iterator(const Game* game, size_t i) : game_(game), i_(i) {}
    Event operator*() const;
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return i_ == other.i_; }
    bool operator!=(const Iterator& other) const { return i_ != other.i_; }

   private:
    const Game* game_;
    size_t i_;
  };

  explicit EventList(const Game* game) : game_(game) {}
  size_t size() const;
  bool empty() const { return size() == 0; }
  Event operator[](size_t i) const;
  Event back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return Iterator(game_, 0); }
  Iterator end() const { return Iterator(game_, size()); }
  operator std::vector<Event>() const { return {begin(), end()}; }  // NOLINT

 private:
  const Game* game_;
};

class Game {
 public:
  explicit Game(const Rules& rules);
  // Rebuilds a game from its action log; fails at the first action that does not
  // apply, naming its index.
  static absl::StatusOr<Game> Replay(const Rules& rules, const std::vector<Action>& log);

  absl::Status Apply(const Action& action);

  const Rules& rules() const { return rules_; }
  Phase phase() const { return phase_; }
  // Deals started so far (the current one included); the current deal is
  // deals_started() - 1.
  int deals_started() const { return deals_started_; }
  int kingdom() const { return kingdom_; }
  int owner() const { return owner_; }
  Contract contract() const { return contract_; }
  // Contracts already picked in the current kingdom, as bits 1 << Contract.
  uint32_t contracts_played() const { return contracts_played_; }
  // The hands as dealt (before any card is played) of the current deal.
  const Hands& dealt() const { return dealt_; }
  // The deal being played (valid from kPlaying on, and after it ends).
  const Deal& deal() const { return deal_; }
  CardSet doubles_selected(int seat) const { return selected_[seat]; }
  bool ready(int seat) const { return ready_[seat]; }

  // Who may act now: the owner while choosing, every seat not yet ready while
  // doubling, the seat to play while playing.
  bool CanAct(int seat) const;
  // The single seat to act, or -1 (while dealing, doubling or after the game).
  int ToAct() const;
  // Contracts the owner may pick now, as bits 1 << Contract.
  uint32_t AvailableContracts() const;
  // Cards `seat` may double now (its doublable cards while doubling).
  CardSet DoublableFor(int seat) const;
  // Cards `seat` may play now.
  CardSet LegalCards(int seat) const;

  // The events so far; event(i) is the i-th, built from the compact list. A game
  // whose holder forgot its first events (ForgetEventsBefore) has only the events
  // from events_forgotten() on: event(i) of an earlier one is a bug (checked), and
  // events() is for a game that forgot none.
  EventList events() const { return EventList(this); }
  size_t event_count() const { return events_forgotten_ + events_.size(); }
  Event event(size_t i) const;
  // Stops holding the events before the n-th (n >= events_forgotten(), at most
  // event_count()): for a holder that keeps only the recent ones and rebuilds older
  // ones by replaying log(). Nothing else changes: the numbering, the state and the
  // log are the same, and the events that follow are the same.
  void ForgetEventsBefore(size_t n);
  size_t events_forgotten() const { return events_forgotten_; }
  // The actions applied so far, in order (built on demand from the compact log;
  // `hands` is kept for a Deal only, where it is used).
  std::vector<Action> log() const;
  size_t log_size() const { return log_.size(); }
  // The heap the game's lists hold (their capacity), for the table's accounting.
  size_t list_bytes() const;
  // Gives back the lists' spare capacity: for a game that grows no more (over, or
  // its table voided), of the thousands a table service hosts.
  void ShrinkLists();
  const std::vector<Scores>& deal_scores() const { return deal_scores_; }
  const Scores& totals() const { return totals_; }
  int total_deals() const { return DealsPerGame(rules_); }

 private:
  absl::Status CheckAction(const Action& action) const;
  absl::Status CheckContractChoice(const Action& action) const;
  absl::Status CheckDoubling(const Action& action) const;
  absl::Status CheckCardPlay(const Action& action) const;
  void StartDeal(const Hands& hands);
  void ChooseContract(Contract contract, bool automatic);
  void StartPlay();
  void PlayCard(int seat, Card card, bool autopilot);
  void EmitPasses();
  void FinishDeal();
  Event MakeEvent(EventType type, int seat) const;
  // Keeps `event` in its compact form (PackEvent in game.cc).
  void AddEvent(const Event& event);
  void AddAction(const Action& action);
  // The deal event i belongs to.
  int DealOf(size_t i) const;

  // Where each deal's events start, and its contract (kNoContract until chosen):
  // what the compact events leave out; and the hands its Deal action dealt.
  struct DealMark {
    uint32_t first_event;
    Contract contract;
    Hands hands;
  };

  Rules rules_;
  Phase phase_ = Phase::kDealing;
  int deals_started_ = 0;
  int kingdom_ = 0;
  int first_owner_ = -1;
  int owner_ = -1;
  Contract contract_ = kNoContract;
  uint32_t contracts_played_ = 0;
  Hands dealt_{};
  Hands selected_{};
  std::array<bool, kNumSeats> ready_{};
  Deal deal_;
  Scores totals_{};
  std::vector<Scores> deal_scores_;
  std::vector<DealMark> deal_marks_;
  std::vector<uint64_t> events_;  // PackEvent; the events from events_forgotten_ on
  size_t events_forgotten_ = 0;
  std::vector<uint32_t> log_;  // PackAction; cards apart, hands in deal_marks_
  std::vector<CardSet> log_cards_;
};

}  // namespace trix::engine

#endif  // TRIX_ENGINE_GAME_H_
