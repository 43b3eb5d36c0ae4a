// SeatState: one seat's client-side view of its table, and SeatTracker, which keeps
// it up to date from the seat's stream (updates carrying a snapshot, then numbered
// events, and a Prompt whenever the seat must act).
//
// The view holds exactly what the server lets the seat see: its own hand, public
// play (tricks, the Trix layout, revealed doubles, shown 2s, scores) and, while the
// seat faces a decision, the server's list of its options. Strategies read the
// options from here and never apply the rules themselves: the server's engine is the
// only rule book. Card sets are engine::CardSet masks so that a strategy can use the
// engine's card helpers (Count, Highest, SuitCards, ...).
//
// The tracker is pure (no gRPC, no clock) so that it can be checked against the
// server's own TableView after every event (seat_state_test.cc).
//
//   SeatTracker tracker;
//   absl::StatusOr<bool> must_act = tracker.Apply(update, &bot);  // bot.Observe(...)
//   if (must_act.ok() && *must_act) Decide(tracker.state());
#ifndef TRIX_BOTS_SDK_SEAT_STATE_H_
#define TRIX_BOTS_SDK_SEAT_STATE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/cards.h"
#include "engine/game.h"
#include "engine/rules.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

class Bot;

// The public facts about one seat.
struct SeatInfo {
  std::string player_id;
  std::string display_name;
  bool bot = false;
  bool left = false;  // played by the server's autopilot
  int hand_size = 0;
  engine::CardSet doubled = 0;  // revealed doubles, still in hand or played
  engine::CardSet twos_shown = 0;
  engine::CardSet taken = 0;  // cards taken in tricks this deal
  int tricks_won = 0;
  // This deal's score so far, doubles included: from the snapshot, then after
  // every trick with the engine's own scoring (engine/points.h), for every Trix
  // placement and at the deal's end. Bots never re-implement the scoring.
  int deal_score = 0;
  int total = 0;
  int64_t stake = 0;
};

// The decision the seat faces, as the server's latest Prompt states it.
struct SeatOptions {
  bool pending = false;  // false: nothing to decide now
  uint64_t seq = 0;      // the seat's last event when the prompt was made
  engine::Phase phase = engine::Phase::kDealing;
  uint32_t contracts = 0;  // choosing: bits 1 << engine::Contract
  engine::CardSet doublable = 0;
  engine::CardSet my_doubles = 0;
  engine::CardSet legal = 0;  // playing
  absl::Time deadline = absl::InfiniteFuture();
  // Before the first deal of a table with seat_seeds: the table waits for the
  // seat's seed, which the SDK sends itself (a bot is never asked).
  bool contribute_seed = false;
};

struct SeatState {
  std::string table_id;
  engine::Rules rules;
  int seat = -1;
  uint64_t seq = 0;  // the last event taken in
  engine::Phase phase = engine::Phase::kDealing;
  int deal = -1;  // 0-based
  int deals_per_game = 0;
  int kingdom = 0;
  int owner = -1;
  engine::Contract contract = engine::kNoContract;
  uint32_t contracts_played = 0;  // this kingdom, bits 1 << engine::Contract
  engine::CardSet hand = 0;       // once shown to the seat
  std::array<SeatInfo, engine::kNumSeats> seats;
  engine::CardSet my_doubles = 0;  // while doubling
  bool my_ready = false;

  // Trick contracts: who led the current trick and the cards on it by seat.
  int leader = -1;
  std::array<engine::Card, engine::kNumSeats> trick{engine::kNoCard, engine::kNoCard,
                                                    engine::kNoCard, engine::kNoCard};
  // Every card played this deal (tricks, the current trick, the layout).
  engine::CardSet played = 0;
  // Trix.
  engine::CardSet layout = 0;
  std::vector<int> out_order;

  // Whose clock runs, and until when.
  std::vector<int> turn;
  absl::Time deadline = absl::InfiniteFuture();

  SeatOptions options;
  bool game_over = false;
  v1::GameResult result;

  // Helpers for strategies.
  bool partner_mode() const { return rules.variant.team == engine::Team::kPartner; }
  int partner() const { return engine::PartnerOf(seat); }
  int trick_size() const;
  // The card that led the current trick, or engine::kNoCard.
  engine::Card led_card() const;
  // The card winning the current trick and its seat, or kNoCard / -1.
  engine::Card winning_card() const;
  int winning_seat() const;
  // Cards in the other seats' hands (or, after an early end, never shown).
  engine::CardSet unseen() const { return engine::kAllCards & ~hand & ~played; }
  // Every revealed double, all seats.
  engine::CardSet doubled() const;
};

// Short text for logs: "deal 3/8 queens, playing, hand AS KH ..., legal ...".
std::string DescribeState(const SeatState& state);

class SeatTracker {
 public:
  enum class Applied {
    kEvent,        // one more event
    kDuplicate,    // an event already taken in (a resumed stream may repeat)
    kPrompt,       // the seat must act: state().options is fresh
    kStalePrompt,  // a prompt older than the state: ignored
  };

  // Takes in a whole update in the order the protocol sets: the snapshot if any,
  // then each event, then the prompt if any. With a `bot`, tells it of each step
  // as it is taken in (Restart after the snapshot, Observe after each new event),
  // so that it follows the play one event at a time. True when the seat must act
  // now (the update's prompt is fresh). Action results (Play streams) are left to
  // the caller; an update with results only changes nothing. A malformed piece (an
  // unknown card, a gap in the numbering, an event before any snapshot) is an error and
  // changes nothing itself, but the pieces before it stay taken in; the caller
  // resubscribes from state().seq (or from a snapshot).
  absl::StatusOr<bool> Apply(const v1::TableUpdate& update, Bot* bot = nullptr);
  // One piece of an update each; Apply is these in order.
  absl::Status ApplySnapshot(const v1::TableView& view);
  absl::StatusOr<Applied> ApplyEvent(const v1::Event& event);
  absl::StatusOr<Applied> ApplyPrompt(const v1::Prompt& prompt);

  const SeatState& state() const { return state_; }
  // Whether a snapshot was taken in (events alone cannot start a state).
  bool started() const { return started_; }

 private:
  SeatState state_;
  bool started_ = false;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_SEAT_STATE_H_
