// HeuristicBot: sensible play from the seat's own view, the way a club player
// reasons without counting every card:
//   - contract: the one where this hand does best compared with what the contract
//     usually costs (hold the King of Hearts unprotected? not King of Hearts; three
//     jacks? Trix);
//   - doubling: a queen or the King of Hearts that enough low cards protect;
//   - trick play: lead the card least likely to win the trick; follow under the
//     winning card (shedding a penalty card there when the winner is an opponent);
//     when void, shed the costliest card; when the trick is lost anyway, win it
//     high; never win with a penalty card while another card would do; never
//     lead above another seat's revealed double (its holder sheds it on us);
//     cards already played are counted out of every estimate;
//   - Trix: long suits first, cards that free more of our own cards, and few that
//     free the opponents'; jacks held back while they free only others; in
//     partner Trix, rows moved towards the partner's shown 2s.
// Every card's points come from the engine (engine/points.h).
// It reads only SeatState (its own hand and public play), so it can never cheat,
// and chooses only among the server's options.
//
//   HeuristicBot bot;
//   Decision d = bot.Decide(state);
#ifndef TRIX_BOTS_STRATEGIES_HEURISTIC_BOT_H_
#define TRIX_BOTS_STRATEGIES_HEURISTIC_BOT_H_

#include <cstdint>

#include "bots/sdk/bot.h"
#include "engine/cards.h"
#include "engine/rules.h"

namespace trix::bots {

class HeuristicBot : public Bot {
 public:
  Decision Decide(const SeatState& state) override;
};

// The parts, for tests and for other strategies to build on.
namespace heuristic {

// What taking `card` costs under `contract` (the trick's own −15 aside); a
// doubled card costs twice its value, and a doubled QD 60.
int CardPenalty(engine::Card card, engine::Contract contract, engine::CardSet doubled);
// How much worse than usual `contract` is expected to go with `hand` (negative:
// better than usual).
double ContractDisadvantage(engine::CardSet hand, engine::Contract contract);
engine::Contract ChooseContract(engine::CardSet hand, uint32_t available);
engine::CardSet ChooseDoubles(engine::CardSet hand, engine::CardSet doublable);
// The card to play in a trick contract / in Trix; `state.options.legal` non-empty.
engine::Card ChooseTrickCard(const SeatState& state);
engine::Card ChooseTrixCard(const SeatState& state);

}  // namespace heuristic
}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_HEURISTIC_BOT_H_
