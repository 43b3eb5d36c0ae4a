// The server's autopilot: a legal, sensible action for a seat whose clock ran out
// or who left the table. It picks a contract from a rough reading of the hand,
// commits the seat's current doubling selection as it stands, ducks under the
// winning card when it can, sheds penalty cards when void, and in Trix plays the
// card of its longest suit first. It is deterministic: the same game and seat
// always give the same action.
//
//   if (clock_expired) game.Apply(AutopilotAction(game, seat));
#ifndef TRIX_ENGINE_AUTOPILOT_H_
#define TRIX_ENGINE_AUTOPILOT_H_

#include "engine/game.h"

namespace trix::engine {

// Requires game.CanAct(seat). The action has `autopilot` set.
Action AutopilotAction(const Game& game, int seat);

// The card the autopilot plays from `deal` for the seat to play.
Card AutopilotCard(const Deal& deal);

// The contract the autopilot picks for `hand` among `available` (bits 1 << Contract).
Contract AutopilotContract(CardSet hand, uint32_t available);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_AUTOPILOT_H_
