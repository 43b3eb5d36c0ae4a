// Keys for trix-play: the bytes a terminal sends turned into key presses
// (KeyDecoder), and what a key does to the decision the seat faces (Chooser).
//
// The Chooser holds the person's side of one decision: the options of the prompt
// in the order the screen lists them (contracts in the menu's order; cards sorted
// by suit, then rank), a cursor over them, and while doubling the selection being
// built. A key moves the cursor, toggles a card or commits, and when the decision
// is complete it yields the Decision the Seat sends. `q` asks to leave the table
// and needs a `y` to confirm (the server's autopilot then plays the seat).
//
//   Chooser chooser;
//   chooser.Begin(state);                            // a prompt arrived
//   for (KeyPress k : decoder.Feed(bytes))
//     if (auto d = chooser.Handle(k).decision) Send(*d);
//
// Both are pure (no terminal, no clock) so that tests drive them key by key.
#ifndef TRIX_BOTS_PLAY_KEYS_H_
#define TRIX_BOTS_PLAY_KEYS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/seat_state.h"
#include "engine/cards.h"
#include "engine/game.h"
#include "engine/rules.h"

namespace trix::bots {

enum class Key { kLeft, kRight, kUp, kDown, kEnter, kSpace, kDigit, kChar };

struct KeyPress {
  Key key = Key::kChar;
  int digit = 0;  // kDigit: 0..9
  char ch = 0;    // kChar: the character (lower case for letters)
};

class KeyDecoder {
 public:
  // The keys in `bytes`; an escape sequence cut off at the end is kept for the
  // next call.
  std::vector<KeyPress> Feed(absl::string_view bytes);

 private:
  std::string pending_;
};

// The keys, as --help and the screen's footer show them.
extern const char kKeysHelp[];

class Chooser {
 public:
  struct Outcome {
    std::optional<Decision> decision;  // the decision is complete: send it
    bool leave = false;                // leaving was confirmed
    bool changed = false;              // something to redraw
  };

  // A decision opens: its options come from `state.options`.
  void Begin(const SeatState& state);
  // The decision was answered (or the game moved on).
  void End();
  Outcome Handle(const KeyPress& key);

  bool open() const { return open_; }
  engine::Phase phase() const { return phase_; }
  // Choosing: the contracts on offer, in menu order.
  const std::vector<engine::Contract>& contracts() const { return contracts_; }
  // Playing: the legal cards; doubling: the doublable cards (hand order).
  const std::vector<engine::Card>& cards() const { return cards_; }
  int cursor() const { return cursor_; }
  // The option under the cursor, or kNoCard.
  engine::Card cursor_card() const;
  engine::CardSet selection() const { return selection_; }  // doubling
  bool confirming_leave() const { return confirming_leave_; }

 private:
  int size() const;
  Outcome Commit();

  bool open_ = false;
  engine::Phase phase_ = engine::Phase::kDealing;
  std::vector<engine::Contract> contracts_;
  std::vector<engine::Card> cards_;
  int cursor_ = 0;
  engine::CardSet selection_ = 0;
  bool confirming_leave_ = false;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_KEYS_H_
