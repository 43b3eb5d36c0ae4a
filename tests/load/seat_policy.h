// How a load-tool seat plays, with no gRPC: the answer to a Prompt, and the event
// that answer must produce on the seat's own stream (which is how the tool times an
// action from send to event and later finds it in the game's record).
//
// The play is autopilot-like and cheap, so that the tool measures the server and
// not itself: the contract is the engine's AutopilotContract for the hand, each
// doublable card is doubled with probability 1/2 and the seat is ready at once,
// and a card is drawn uniformly from the prompt's legal cards. The tool applies no
// rule of its own: every option comes from the server's prompt.
//
//   Expected expected;
//   absl::StatusOr<v1::ActRequest> act = DecideAction(prompt, hand, rng, &expected);
//   ... later, on the seat's stream:
//   if (expected.Matches(event, seat)) { /* the action's event */ }
#ifndef TRIX_TESTS_LOAD_SEAT_POLICY_H_
#define TRIX_TESTS_LOAD_SEAT_POLICY_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/cards.h"
#include "engine/random.h"
#include "trix/v1/table.pb.h"

namespace trix::load {

// A seat's own decision as it appears among the seat's events: ContractChosen
// (owner), ReadyDeclared (the end of a doubling selection) or CardPlayed.
struct Expected {
  enum class Kind { kContract, kReady, kCard };
  Kind kind = Kind::kCard;
  v1::Contract contract = v1::CONTRACT_UNSPECIFIED;  // kContract
  std::string card;                                  // kCard

  bool operator==(const Expected& o) const {
    return kind == o.kind && contract == o.contract && card == o.card;
  }
  bool Matches(const v1::Event& event, int seat) const;
  std::string Text() const;  // "card QS", "contract 3", "ready"
};

// The seat's own, non-automatic decision carried by `event`, if any.
std::optional<Expected> OwnDecision(const v1::Event& event, int seat);

// The action answering `prompt` (table id, token and request id left unset), and in
// `expected` the event it produces. `hand` is the seat's hand (0 when unknown).
// INVALID_ARGUMENT when the prompt offers nothing to do.
absl::StatusOr<v1::ActRequest> DecideAction(const v1::Prompt& prompt,
                                            engine::CardSet hand, engine::Rng& rng,
                                            Expected* expected);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_SEAT_POLICY_H_
