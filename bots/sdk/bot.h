// The interface a bot developer implements, in the spirit of OpenSpiel's Bot
// (Restart / InformAction / Step): the SDK (seat.h) keeps the seat's view of the
// table, tells the bot what happened, and asks it to decide when the seat must act.
// A bot never talks to the network and never sees a card its seat may not see.
//
//   class Lowest : public Bot {
//    public:
//     Decision Decide(const SeatState& s) override {
//       if (s.options.phase == engine::Phase::kPlaying)
//         return Decision::PlayCard(engine::Lowest(s.options.legal));
//       return FirstOption(s.options);
//     }
//   };
#ifndef TRIX_BOTS_SDK_BOT_H_
#define TRIX_BOTS_SDK_BOT_H_

#include <string>

#include "bots/sdk/seat_state.h"
#include "engine/cards.h"
#include "engine/rules.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

// One action of a seat: the answer to a prompt.
struct Decision {
  enum class Kind { kChooseContract, kSelectDoubles, kPlayCard };
  Kind kind = Kind::kPlayCard;
  engine::Contract contract = engine::kNoContract;
  engine::CardSet doubles = 0;  // the whole selection, replacing the previous one
  bool ready = true;            // commit the selection (the usual answer)
  engine::Card card = engine::kNoCard;

  static Decision ChooseContract(engine::Contract contract);
  static Decision SelectDoubles(engine::CardSet cards, bool ready = true);
  static Decision PlayCard(engine::Card card);
};

class Bot {
 public:
  virtual ~Bot() = default;
  // The SDK rebuilt `state` from a snapshot: at the start, or after the stream
  // fell too far behind. Whatever the bot kept from events should be rebuilt.
  virtual void Restart(const SeatState& state) {}
  // An event the seat saw; `state` has already taken it in.
  virtual void Observe(const v1::Event& event, const SeatState& state) {}
  // The seat must act: `state.options.pending` is true and its phase says how.
  // Must answer one of the options; the SDK replaces an answer that is not (and
  // logs it) rather than send an action the server would refuse.
  virtual Decision Decide(const SeatState& state) = 0;
};

// Whether `decision` answers `options` legally.
bool IsAllowed(const Decision& decision, const SeatOptions& options);
// A legal answer that needs no thought: the first contract, the current doubles
// committed as they stand, the lowest legal card.
Decision FirstOption(const SeatOptions& options);
// "play QS", "choose queens", "double KH QS (ready)".
std::string DescribeDecision(const Decision& decision);

// The action part of an ActRequest (table, token and request id are the SDK's).
void FillAction(const Decision& decision, v1::ActRequest* request);

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_BOT_H_
