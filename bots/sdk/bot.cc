#include "bots/sdk/bot.h"

#include "absl/strings/str_cat.h"
#include "proto/wire/wire.h"

namespace trix::bots {

Decision Decision::ChooseContract(engine::Contract contract) {
  Decision d;
  d.kind = Kind::kChooseContract;
  d.contract = contract;
  return d;
}

Decision Decision::SelectDoubles(engine::CardSet cards, bool ready) {
  Decision d;
  d.kind = Kind::kSelectDoubles;
  d.doubles = cards;
  d.ready = ready;
  return d;
}

Decision Decision::PlayCard(engine::Card card) {
  Decision d;
  d.kind = Kind::kPlayCard;
  d.card = card;
  return d;
}

bool IsAllowed(const Decision& d, const SeatOptions& o) {
  if (!o.pending) return false;
  switch (d.kind) {
    case Decision::Kind::kChooseContract:
      return o.phase == engine::Phase::kChoosingContract &&
             d.contract != engine::kNoContract &&
             (o.contracts & (1u << static_cast<int>(d.contract))) != 0;
    case Decision::Kind::kSelectDoubles:
      return o.phase == engine::Phase::kDoubling && (d.doubles & ~o.doublable) == 0;
    case Decision::Kind::kPlayCard:
      return o.phase == engine::Phase::kPlaying && d.card != engine::kNoCard &&
             d.card < 64 && (o.legal & engine::Bit(d.card)) != 0;
  }
  return false;
}

Decision FirstOption(const SeatOptions& o) {
  switch (o.phase) {
    case engine::Phase::kChoosingContract:
      return Decision::ChooseContract(
          o.contracts ? static_cast<engine::Contract>(__builtin_ctz(o.contracts))
                      : engine::kNoContract);
    case engine::Phase::kDoubling:
      return Decision::SelectDoubles(o.my_doubles & o.doublable);
    default:
      return Decision::PlayCard(o.legal ? engine::Lowest(o.legal) : engine::kNoCard);
  }
}

std::string DescribeDecision(const Decision& d) {
  switch (d.kind) {
    case Decision::Kind::kChooseContract:
      return absl::StrCat("choose ", d.contract == engine::kNoContract
                                         ? "nothing"
                                         : engine::ContractName(d.contract));
    case Decision::Kind::kSelectDoubles:
      return absl::StrCat("double [", engine::CardsText(d.doubles), "]",
                          d.ready ? " (ready)" : "");
    case Decision::Kind::kPlayCard:
      return absl::StrCat(
          "play ", d.card == engine::kNoCard ? "nothing" : engine::CardName(d.card));
  }
  return "?";
}

void FillAction(const Decision& d, v1::ActRequest* request) {
  switch (d.kind) {
    case Decision::Kind::kChooseContract:
      request->mutable_choose_contract()->set_contract(wire::ContractToProto(d.contract));
      break;
    case Decision::Kind::kSelectDoubles:
      wire::AddCards(d.doubles, request->mutable_select_doubles()->mutable_cards());
      request->mutable_select_doubles()->set_ready(d.ready);
      break;
    case Decision::Kind::kPlayCard:
      request->mutable_play_card()->set_card(engine::CardName(d.card));
      break;
  }
}

}  // namespace trix::bots
