#include "engine/observation.h"

namespace trix::engine {

bool VisibleTo(const Event& event, int viewer) {
  switch (event.type) {
    case EventType::kHandShown:
    case EventType::kDoublesSelected:
    case EventType::kReady:
      return viewer == event.seat;
    default:
      return true;
  }
}

Observation Observe(const Game& game, int viewer) {
  Observation o;
  o.viewer = viewer;
  o.phase = game.phase();
  o.deal = game.deals_started() - 1;
  o.kingdom = game.kingdom();
  o.owner = game.owner();
  o.contract = game.contract();
  o.contracts_played = game.contracts_played();
  o.to_act = game.ToAct();
  o.totals = game.totals();
  if (o.deal < 0) return o;

  const bool seat = viewer >= 0 && viewer < kNumSeats;
  const bool hands_shown = game.contract() != kNoContract;
  if (seat && (hands_shown || viewer == game.owner())) o.hand = game.dealt()[viewer];
  for (int s = 0; s < kNumSeats; ++s) o.hand_sizes[s] = kHandSize;
  if (seat && game.phase() == Phase::kDoubling) {
    o.my_doubles = game.doubles_selected(viewer);
    o.my_ready = game.ready(viewer);
  }
  if (seat) {
    o.available_contracts = viewer == game.owner() ? game.AvailableContracts() : 0;
    o.doublable = game.DoublableFor(viewer);
    o.legal = game.LegalCards(viewer);
  }

  // game.deal() is the deal in play, or the one that just ended until the next is
  // dealt; while a contract is chosen or doubled it still holds the previous deal.
  if (game.phase() == Phase::kChoosingContract || game.phase() == Phase::kDoubling) {
    return o;
  }
  const Deal& deal = game.deal();
  if (seat) o.hand = deal.hands()[viewer];
  for (int s = 0; s < kNumSeats; ++s) {
    o.hand_sizes[s] = Count(deal.hands()[s]);
    o.doubled[s] = deal.doubled_by()[s];
    o.taken[s] = deal.taken(s);
    o.tricks_won[s] = deal.tricks_won(s);
    o.trick[s] = deal.trick_card(s);
  }
  if (TwosShown(game.rules().variant, deal.contract(), game.dealt())) {
    for (int s = 0; s < kNumSeats; ++s) o.twos_shown[s] = deal.hands()[s] & kTwos;
  }
  o.leader = deal.leader();
  o.layout = deal.contract() == Contract::kTrix ? deal.layout() : 0;
  o.out_order = deal.out_order();
  o.deal_scores = deal.scores();
  return o;
}

}  // namespace trix::engine
