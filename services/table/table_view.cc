// What a viewer is shown of a table. Table::View: a snapshot of the table for one
// viewer, the engine's Observation for that viewer (so it holds only what the
// viewer may see; codec.h puts it on the wire) and the table's public facts
// (seats, clocks, who left). Table::PromptFor: a seat's options. And the stream
// updates that carry them.
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/deal_proof.h"
#include "engine/observation.h"
#include "services/table/codec.h"
#include "services/table/table.h"

namespace trix::table {

v1::TableView Table::View(int viewer) const {
  const engine::Observation o = engine::Observe(game_, viewer);
  v1::TableView view;
  ObservationToProto(o, &view);
  view.set_table_id(id_);
  *view.mutable_mode() = settings_.mode();
  *view.mutable_rules() = settings_.rules();
  *view.mutable_clocks() = settings_.clocks();
  view.set_seq(last_seq(viewer));
  view.set_deals_per_game(game_.total_deals());
  view.set_unrated(settings_.unrated());
  for (int s = 0; s < engine::kNumSeats; ++s) {
    v1::SeatView* seat = view.mutable_seats(s);
    seat->set_player_id(seats_[s].player_id);
    seat->set_display_name(seats_[s].display_name);
    seat->set_bot(seats_[s].bot);
    seat->set_left(left_[s]);
    seat->set_stake(seats_[s].stake);
  }
  if (deadline_ && !over()) {
    // Doubling: all four, as who is ready stays secret while the phase is open.
    uint8_t seats = o.phase == engine::Phase::kDoubling ? 0b1111
                    : o.to_act >= 0                     ? 1 << o.to_act
                                                        : 0;
    for (int s = 0; s < engine::kNumSeats; ++s) {
      if (WaitsForSeed(s)) seats |= 1 << s;
    }
    *view.mutable_turn() = TurnToProto(seats, *deadline_);
  }
  if (over()) *view.mutable_result() = ResultProto();
  if (voided()) {
    view.set_voided(true);
    view.set_void_reason(void_reason_);
  }
  if (std::optional<v1::DealProof> proof = DealProof()) *view.mutable_deal_proof() = *proof;
  return view;
}

std::optional<v1::DealProof> Table::DealProof() const {
  if (settings_.deal_salt().empty()) return std::nullopt;
  v1::DealProof proof;
  const char* procedure =
      seat_seeds_ ? engine::kSeatSeededDealProcedure : engine::kDealProcedure;
  proof.set_procedure(procedure);
  proof.set_commitment(
      engine::DealCommitment(settings_.seed(), settings_.deal_salt(), procedure));
  proof.set_seed_chosen(settings_.seed_chosen());
  if (ended()) {
    proof.set_seed(settings_.seed());
    proof.set_salt(settings_.deal_salt());
    if (seat_seeds_) {
      for (const std::string& seed : *seat_seeds_) proof.add_seat_seeds(seed);
    }
  }
  return proof;
}

std::optional<v1::Prompt> Table::PromptFor(int seat) const {
  if (seat < 0 || seat >= engine::kNumSeats || left_[seat] || voided()) return std::nullopt;
  const bool seed = WaitsForSeed(seat);
  if (!seed && !game_.CanAct(seat)) return std::nullopt;
  v1::Prompt prompt = PromptToProto(engine::Observe(game_, seat));
  prompt.set_contribute_seed(seed);
  prompt.set_seq(last_seq(seat));
  if (deadline_) *prompt.mutable_deadline() = TimeToProto(*deadline_);
  return prompt;
}

std::vector<v1::TableUpdate> Table::EventUpdates(size_t from, uint64_t seen,
                                                 int viewer) const {
  const int viewer_index = ViewerIndex(viewer);
  std::vector<v1::TableUpdate> out;
  uint64_t seq = seen;
  for (size_t i = from; i < event_count(); ++i) {
    if (!(events_[i - base_].visible() & (1 << viewer_index))) continue;
    if ((seq - seen) % kMaxEventsPerUpdate == 0) out.emplace_back();
    *out.back().add_events() = EventProto(i, ++seq);
  }
  return out;
}

std::vector<v1::TableUpdate> Table::UpdatesAfter(uint64_t seen, int viewer) const {
  const int viewer_index = ViewerIndex(viewer);
  if (seen < base_seqs_[viewer_index]) return Rebuilt()->UpdatesAfter(seen, viewer);
  return EventUpdates(StartAfter(seen, viewer_index), seen, viewer);
}

std::vector<v1::TableUpdate> Table::StepUpdates(size_t from, int viewer) const {
  // The viewer's events before the step: those at table positions below `from`. A
  // step whose events start before the held ones (the stream fell a deal behind)
  // is read from the table rebuilt.
  std::vector<v1::TableUpdate> out;
  if (from < base_) {
    const std::unique_ptr<Table> whole = Rebuilt();
    out = whole->EventUpdates(from, whole->SeqBefore(from, ViewerIndex(viewer)), viewer);
  } else {
    out = EventUpdates(from, SeqBefore(from, ViewerIndex(viewer)), viewer);
  }
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
    return BeyondStream(after_seq, last_seq(viewer));
  } else {
    out = UpdatesAfter(after_seq, viewer);
  }
  // A seat resuming in the middle of its decision is told its options again.
  if (std::optional<v1::Prompt> prompt = PromptFor(viewer)) {
    if (out.empty()) out.emplace_back();
    *out.back().mutable_prompt() = *std::move(prompt);
  }
  return out;
}

}  // namespace trix::table
