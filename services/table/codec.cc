#include "services/table/codec.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/cards.h"
#include "google/protobuf/util/time_util.h"
#include "nlohmann/json.hpp"
#include "proto/wire/outbox_row.h"

namespace trix::table {
namespace {

using engine::Card;
using engine::CardSet;
using engine::Contract;
using v1::internal::ActionKind;

absl::Status Corrupt(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("log record: ", what));
}

}  // namespace

absl::StatusOr<CardSet> SeatCardsFromProto(const CardNames& names) {
  if (names.size() > engine::kHandSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(names.size(), " cards listed; a hand holds at most 13"));
  }
  return wire::CardSetFromProto(names);
}

v1::Mode ModeFromStoredName(const std::string& name) {
  return wire::ModeFromName(name).value_or(v1::Mode());
}

google::protobuf::Timestamp TimeToProto(absl::Time time) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(time));
}

v1::internal::LoggedAction ActionToLog(const engine::Action& action) {
  v1::internal::LoggedAction out;
  out.set_seat(action.seat);
  out.set_autopilot(action.autopilot);
  switch (action.type) {
    case engine::ActionType::kDeal:
      out.set_kind(v1::internal::ACTION_KIND_DEAL);
      for (CardSet hand : action.hands) out.add_hands(engine::CardsText(hand));
      break;
    case engine::ActionType::kChooseContract:
      out.set_kind(v1::internal::ACTION_KIND_CHOOSE_CONTRACT);
      out.set_contract(wire::ContractToProto(action.contract));
      break;
    case engine::ActionType::kSelectDoubles:
      out.set_kind(v1::internal::ACTION_KIND_SELECT_DOUBLES);
      wire::AddCards(action.cards, out.mutable_cards());
      break;
    case engine::ActionType::kReady:
      out.set_kind(v1::internal::ACTION_KIND_READY);
      break;
    case engine::ActionType::kPlayCard:
      out.set_kind(v1::internal::ACTION_KIND_PLAY_CARD);
      out.set_card(engine::CardName(action.card));
      break;
  }
  return out;
}

absl::StatusOr<engine::Action> ActionFromLog(const v1::internal::LoggedAction& logged) {
  engine::Action action;
  const int seat = logged.seat();
  const bool seated = seat >= 0 && seat < engine::kNumSeats;
  switch (logged.kind()) {
    case v1::internal::ACTION_KIND_DEAL: {
      if (logged.hands_size() != engine::kNumSeats)
        return Corrupt("a deal needs 4 hands");
      engine::Hands hands{};
      for (int s = 0; s < engine::kNumSeats; ++s) {
        absl::StatusOr<CardSet> hand = engine::ParseCards(logged.hands(s));
        if (!hand.ok()) return Corrupt(hand.status().message());
        hands[s] = *hand;
      }
      action = engine::Action::Deal(hands);
      break;
    }
    case v1::internal::ACTION_KIND_CHOOSE_CONTRACT: {
      absl::StatusOr<Contract> contract = wire::ContractFromProto(logged.contract());
      if (!contract.ok() || !seated) return Corrupt("bad contract choice");
      action = engine::Action::ChooseContract(seat, *contract);
      break;
    }
    case v1::internal::ACTION_KIND_SELECT_DOUBLES: {
      absl::StatusOr<CardSet> cards = SeatCardsFromProto(logged.cards());
      if (!cards.ok() || !seated) return Corrupt("bad doubles selection");
      action = engine::Action::SelectDoubles(seat, *cards);
      break;
    }
    case v1::internal::ACTION_KIND_READY:
      if (!seated) return Corrupt("bad ready");
      action = engine::Action::Ready(seat);
      break;
    case v1::internal::ACTION_KIND_PLAY_CARD: {
      absl::StatusOr<Card> card = wire::CardFromProto(logged.card());
      if (!card.ok() || !seated) return Corrupt("bad card play");
      action = engine::Action::PlayCard(seat, *card);
      break;
    }
    default:
      return Corrupt(absl::StrCat("unknown action kind ", logged.kind()));
  }
  action.autopilot = logged.autopilot();
  return action;
}

v1::GameResult ResultToProto(const engine::Variant& variant,
                             const engine::GameResult& result) {
  v1::GameResult out;
  out.mutable_totals()->Add(result.totals.begin(), result.totals.end());
  out.mutable_places()->Add(result.places.begin(), result.places.end());
  if (variant.team == engine::Team::kPartner) {
    out.mutable_team_totals()->Add(result.team_totals.begin(), result.team_totals.end());
    out.set_winner_team(result.winner_team);
  }
  out.mutable_payouts()->Add(result.payouts.begin(), result.payouts.end());
  return out;
}

std::string ResultJson(const engine::Variant& variant, const engine::GameResult& result,
                       const engine::Stakes& stakes, bool unrated) {
  // From the wire's message, so that which fields a mode has is said once.
  const v1::GameResult wire = ResultToProto(variant, result);
  auto list = [](const auto& field) {
    return std::vector<int64_t>(field.begin(), field.end());
  };
  nlohmann::json j;
  j["mode"] = engine::ModeName(variant);
  j["totals"] = list(wire.totals());
  j["places"] = list(wire.places());
  if (wire.team_totals_size() > 0) {
    j["team_totals"] = list(wire.team_totals());
    j["winner_team"] = wire.winner_team();
  }
  j["stakes"] = stakes;
  j["payouts"] = list(wire.payouts());
  if (unrated) j["unrated"] = true;
  return j.dump();
}

namespace {

// The outbox's seat: who sat there, for which team, at what stake.
v1::internal::FinishedSeat OutboxSeat(int s, const SeatRecord& seat) {
  v1::internal::FinishedSeat out;
  out.set_seat(s);
  out.set_player_id(seat.player_id);
  out.set_bot(seat.bot);
  out.set_team(engine::TeamOf(s));
  out.set_stake(seat.stake);
  return out;
}

}  // namespace

std::string GameEndedOutboxJson(const std::string& game_id,
                                const engine::Variant& variant,
                                const engine::GameResult& result,
                                const std::array<SeatRecord, 4>& seats,
                                int64_t finished_unix_ms, bool unrated) {
  v1::internal::FinishedGame outbox;
  outbox.set_game_id(game_id);
  outbox.set_mode(engine::ModeName(variant));
  outbox.set_finished_unix_ms(finished_unix_ms);
  outbox.set_unrated(unrated);
  for (int s = 0; s < engine::kNumSeats; ++s) {
    v1::internal::FinishedSeat* seat = outbox.add_seats();
    *seat = OutboxSeat(s, seats[s]);
    seat->set_total(result.totals[s]);
    seat->set_place(result.places[s]);
    seat->set_payout(result.payouts[s]);
  }
  *outbox.mutable_result() = ResultToProto(variant, result);
  return wire::OutboxRowJson(outbox);
}

std::string VoidedResultJson(const std::string& mode, const std::string& reason) {
  return nlohmann::json{{"mode", mode},
                        {"voided", true},
                        {"reason", reason}}
      .dump();
}

namespace {

// Whether the result row `json` has `key` set to true.
bool ResultJsonFlag(const std::string& json, const char* key) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

}  // namespace

bool ResultJsonVoided(const std::string& json) { return ResultJsonFlag(json, "voided"); }

bool ResultJsonUnrated(const std::string& json) { return ResultJsonFlag(json, "unrated"); }

std::string VoidedOutboxJson(const std::string& game_id, const std::string& mode,
                             const std::array<SeatRecord, 4>& seats,
                             const std::string& reason, int64_t voided_unix_ms) {
  v1::internal::FinishedGame outbox;
  outbox.set_game_id(game_id);
  outbox.set_mode(mode);
  outbox.set_voided(true);
  outbox.set_reason(reason);
  outbox.set_voided_unix_ms(voided_unix_ms);
  for (int s = 0; s < engine::kNumSeats; ++s) *outbox.add_seats() = OutboxSeat(s, seats[s]);
  return wire::OutboxRowJson(outbox);
}

absl::StatusOr<v1::GameResult> ResultFromJson(const std::string& json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return absl::DataLossError("a result that is not a JSON object");
  v1::GameResult out;
  auto ints = [&](const char* key, google::protobuf::RepeatedField<int32_t>* field) {
    if (!j.contains(key) || !j[key].is_array()) return;
    for (const auto& v : j[key]) {
      if (v.is_number_integer()) field->Add(v.get<int32_t>());
    }
  };
  ints("totals", out.mutable_totals());
  ints("places", out.mutable_places());
  ints("team_totals", out.mutable_team_totals());
  if (j.contains("winner_team") && j["winner_team"].is_number_integer()) {
    out.set_winner_team(j["winner_team"].get<int32_t>());
  }
  if (j.contains("payouts") && j["payouts"].is_array()) {
    for (const auto& v : j["payouts"]) {
      if (v.is_number_integer()) {
        out.add_payouts(v.get<int64_t>());
      } else if (v.is_number_float()) {
        // A row written while payouts were floating point.
        out.add_payouts(std::llround(v.get<double>()));
      }
    }
  }
  return out;
}

v1::Turn TurnToProto(uint8_t seats, absl::Time deadline) {
  v1::Turn turn;
  for (int seat = 0; seat < engine::kNumSeats; ++seat) {
    if (seats & (1 << seat)) turn.add_seats(seat);
  }
  *turn.mutable_deadline() = TimeToProto(deadline);
  return turn;
}

v1::Event EngineEventToProto(const engine::Event& e, const v1::GameResult& result) {
  v1::Event out;
  out.set_deal(e.deal);
  out.set_kingdom(e.kingdom);
  out.set_automatic(e.automatic);
  switch (e.type) {
    case engine::EventType::kDealStarted:
      out.mutable_deal_started()->set_owner(e.seat);
      break;
    case engine::EventType::kHandShown:
      out.mutable_hand_shown()->set_seat(e.seat);
      wire::AddCards(e.cards, out.mutable_hand_shown()->mutable_cards());
      break;
    case engine::EventType::kContractChosen:
      out.mutable_contract_chosen()->set_owner(e.seat);
      out.mutable_contract_chosen()->set_contract(wire::ContractToProto(e.contract));
      break;
    case engine::EventType::kDoublesSelected:
      out.mutable_doubles_selected()->set_seat(e.seat);
      wire::AddCards(e.cards, out.mutable_doubles_selected()->mutable_cards());
      break;
    case engine::EventType::kReady:
      out.mutable_ready()->set_seat(e.seat);
      break;
    case engine::EventType::kDoublesRevealed:
      out.mutable_doubles_revealed()->set_seat(e.seat);
      wire::AddCards(e.cards, out.mutable_doubles_revealed()->mutable_cards());
      break;
    case engine::EventType::kTwosShown:
      out.mutable_twos_shown()->set_seat(e.seat);
      wire::AddCards(e.cards, out.mutable_twos_shown()->mutable_cards());
      break;
    case engine::EventType::kPlayStarted:
      out.mutable_play_started()->set_seat(e.seat);
      break;
    case engine::EventType::kCardPlayed:
      out.mutable_card_played()->set_seat(e.seat);
      out.mutable_card_played()->set_card(engine::CardName(e.card));
      break;
    case engine::EventType::kPassed:
      out.mutable_passed()->set_seat(e.seat);
      break;
    case engine::EventType::kTrickTaken:
      out.mutable_trick_taken()->set_seat(e.seat);
      wire::AddCards(e.cards, out.mutable_trick_taken()->mutable_cards());
      break;
    case engine::EventType::kSeatOut:
      out.mutable_seat_out()->set_seat(e.seat);
      out.mutable_seat_out()->set_points(e.values[e.seat]);
      break;
    case engine::EventType::kDealEnded:
      for (int32_t v : e.values) out.mutable_deal_ended()->add_scores(v);
      break;
    case engine::EventType::kGameEnded:
      *out.mutable_game_ended()->mutable_result() = result;
      break;
  }
  return out;
}

void ObservationToProto(const engine::Observation& o, v1::TableView* view) {
  view->set_phase(wire::PhaseToProto(o.phase));
  view->set_deal(o.deal);
  view->set_kingdom(o.kingdom);
  view->set_owner(o.owner);
  view->set_contract(wire::ContractToProto(o.contract));
  wire::AddContracts(o.contracts_played, view->mutable_contracts_played());
  for (int s = 0; s < engine::kNumSeats; ++s) {
    v1::SeatView* seat = view->add_seats();
    seat->set_seat(s);
    seat->set_hand_size(o.hand_sizes[s]);
    wire::AddCards(o.doubled[s], seat->mutable_doubled());
    wire::AddCards(o.twos_shown[s], seat->mutable_twos_shown());
    wire::AddCards(o.taken[s], seat->mutable_taken());
    seat->set_tricks_won(o.tricks_won[s]);
    seat->set_deal_score(o.deal_scores[s]);
    seat->set_total(o.totals[s]);
  }
  view->set_viewer(o.viewer);
  wire::AddCards(o.hand, view->mutable_hand());
  wire::AddCards(o.my_doubles, view->mutable_my_doubles());
  view->set_my_ready(o.my_ready);
  view->set_leader(o.leader);
  const bool trick_contract = o.contract != engine::kNoContract &&
                              engine::IsTrickContract(o.contract) &&
                              o.phase == engine::Phase::kPlaying;
  if (trick_contract) {
    for (Card c : o.trick) {
      view->add_trick(c == engine::kNoCard ? "" : engine::CardName(c));
    }
  }
  wire::AddCards(o.layout, view->mutable_layout());
  for (int8_t s : o.out_order) {
    if (s >= 0) view->add_out_order(s);
  }
  wire::AddContracts(o.available_contracts, view->mutable_available_contracts());
  wire::AddCards(o.doublable, view->mutable_doublable());
  wire::AddCards(o.legal, view->mutable_legal_cards());
}

v1::Prompt PromptToProto(const engine::Observation& o) {
  v1::Prompt prompt;
  prompt.set_phase(wire::PhaseToProto(o.phase));
  wire::AddContracts(o.available_contracts, prompt.mutable_available_contracts());
  wire::AddCards(o.doublable, prompt.mutable_doublable());
  wire::AddCards(o.my_doubles, prompt.mutable_my_doubles());
  wire::AddCards(o.legal, prompt.mutable_legal_cards());
  return prompt;
}

}  // namespace trix::table
