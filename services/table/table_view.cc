// What a viewer is shown of a table. Table::View: a snapshot of the table for one
// viewer, built from the engine's Observation for that viewer (so it holds only
// what the viewer may see) and the table's public facts (seats, clocks, who left).
// Table::PromptFor: a seat's options. And the stream updates that carry them.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/observation.h"
#include "proto/wire/wire.h"
#include "services/table/table.h"

namespace trix::table {

v1::TableView Table::View(int viewer) const {
  const engine::Observation o = engine::Observe(game_, viewer);
  v1::TableView view;
  view.set_table_id(id_);
  *view.mutable_mode() = settings_.mode();
  *view.mutable_rules() = settings_.rules();
  *view.mutable_clocks() = settings_.clocks();
  view.set_seq(last_seq(viewer));
  view.set_phase(wire::PhaseToProto(o.phase));
  view.set_deal(o.deal);
  view.set_deals_per_game(game_.total_deals());
  view.set_kingdom(o.kingdom);
  view.set_owner(o.owner);
  view.set_contract(wire::ContractToProto(o.contract));
  wire::AddContracts(o.contracts_played, view.mutable_contracts_played());
  for (int s = 0; s < engine::kNumSeats; ++s) {
    v1::SeatView* seat = view.add_seats();
    seat->set_seat(s);
    seat->set_player_id(seats_[s].player_id);
    seat->set_display_name(seats_[s].display_name);
    seat->set_bot(seats_[s].bot);
    seat->set_left(left_[s]);
    seat->set_hand_size(o.hand_sizes[s]);
    wire::AddCards(o.doubled[s], seat->mutable_doubled());
    wire::AddCards(o.twos_shown[s], seat->mutable_twos_shown());
    wire::AddCards(o.taken[s], seat->mutable_taken());
    seat->set_tricks_won(o.tricks_won[s]);
    seat->set_deal_score(o.deal_scores[s]);
    seat->set_total(o.totals[s]);
    seat->set_stake(seats_[s].stake);
  }
  if (deadline_ && !over()) {
    // Doubling: all four, as who is ready stays secret while the phase is open.
    const uint8_t seats = o.phase == engine::Phase::kDoubling ? 0b1111
                          : o.to_act >= 0                     ? 1 << o.to_act
                                                              : 0;
    *view.mutable_turn() = TurnToProto(seats, *deadline_);
  }
  view.set_viewer(viewer);
  wire::AddCards(o.hand, view.mutable_hand());
  wire::AddCards(o.my_doubles, view.mutable_my_doubles());
  view.set_my_ready(o.my_ready);
  view.set_leader(o.leader);
  const bool trick_contract = o.contract != engine::kNoContract &&
                              engine::IsTrickContract(o.contract) &&
                              o.phase == engine::Phase::kPlaying;
  if (trick_contract) {
    for (engine::Card c : o.trick) {
      view.add_trick(c == engine::kNoCard ? "" : engine::CardName(c));
    }
  }
  wire::AddCards(o.layout, view.mutable_layout());
  for (int8_t s : o.out_order) {
    if (s >= 0) view.add_out_order(s);
  }
  wire::AddContracts(o.available_contracts, view.mutable_available_contracts());
  wire::AddCards(o.doublable, view.mutable_doublable());
  wire::AddCards(o.legal, view.mutable_legal_cards());
  if (over()) *view.mutable_result() = ResultProto();
  return view;
}

std::optional<v1::Prompt> Table::PromptFor(int seat) const {
  if (seat < 0 || seat >= engine::kNumSeats || left_[seat] || !game_.CanAct(seat)) {
    return std::nullopt;
  }
  const engine::Observation o = engine::Observe(game_, seat);
  v1::Prompt prompt;
  prompt.set_seq(last_seq(seat));
  prompt.set_phase(wire::PhaseToProto(o.phase));
  wire::AddContracts(o.available_contracts, prompt.mutable_available_contracts());
  wire::AddCards(o.doublable, prompt.mutable_doublable());
  wire::AddCards(o.my_doubles, prompt.mutable_my_doubles());
  wire::AddCards(o.legal, prompt.mutable_legal_cards());
  if (deadline_) *prompt.mutable_deadline() = TimeToProto(*deadline_);
  return prompt;
}

std::vector<v1::TableUpdate> Table::EventUpdates(int viewer, uint64_t after_seq) const {
  const std::vector<int32_t>& mine = positions_[ViewerIndex(viewer)];
  std::vector<v1::TableUpdate> out;
  for (size_t k = after_seq; k < mine.size(); ++k) {
    if ((k - after_seq) % kMaxEventsPerUpdate == 0) out.emplace_back();
    *out.back().add_events() = *EventFor(mine[k], viewer);
  }
  return out;
}

std::vector<v1::TableUpdate> Table::StepUpdates(size_t from, int viewer) const {
  const std::vector<int32_t>& mine = positions_[ViewerIndex(viewer)];
  // The viewer's events before the step: those at table positions below `from`.
  const uint64_t seen =
      std::lower_bound(mine.begin(), mine.end(), static_cast<int32_t>(from)) -
      mine.begin();
  std::vector<v1::TableUpdate> out = EventUpdates(viewer, seen);
  if (out.empty()) return out;
  if (std::optional<v1::Prompt> prompt = PromptFor(viewer)) {
    *out.back().mutable_prompt() = *std::move(prompt);
  }
  return out;
}

absl::StatusOr<std::vector<v1::TableUpdate>> Table::StreamStart(
    int viewer, uint64_t after_seq) const {
  std::vector<v1::TableUpdate> out;
  if (after_seq == 0) {
    *out.emplace_back().mutable_snapshot() = View(viewer);
  } else if (after_seq > last_seq(viewer)) {
    return absl::InvalidArgumentError(
        absl::StrCat("after_seq ", after_seq, " is beyond this stream's last event, ",
                     last_seq(viewer)));
  } else {
    out = EventUpdates(viewer, after_seq);
  }
  // A seat resuming in the middle of its decision is told its options again.
  if (std::optional<v1::Prompt> prompt = PromptFor(viewer)) {
    if (out.empty()) out.emplace_back();
    *out.back().mutable_prompt() = *std::move(prompt);
  }
  return out;
}

}  // namespace trix::table
