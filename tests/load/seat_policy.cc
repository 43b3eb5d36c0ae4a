#include "tests/load/seat_policy.h"

#include "absl/strings/str_cat.h"
#include "engine/autopilot.h"
#include "engine/rules.h"
#include "proto/wire/wire.h"

namespace trix::load {
namespace {

absl::StatusOr<v1::ActRequest> ChooseContract(const v1::Prompt& prompt,
                                              engine::CardSet hand, Expected* expected) {
  uint32_t available = 0;
  for (int number : prompt.available_contracts()) {
    absl::StatusOr<engine::Contract> c = wire::ContractFromProto(number);
    if (c.ok()) available |= 1u << static_cast<int>(*c);
  }
  if (available == 0) {
    return absl::InvalidArgumentError("a contract prompt with no known contract");
  }
  engine::Contract chosen =
      static_cast<engine::Contract>(__builtin_ctz(available));  // lowest offered
  if (hand != 0) {
    const engine::Contract pick = engine::AutopilotContract(hand, available);
    if (available & (1u << static_cast<int>(pick))) chosen = pick;
  }
  v1::ActRequest request;
  request.mutable_choose_contract()->set_contract(wire::ContractToProto(chosen));
  *expected = {Expected::Kind::kContract, wire::ContractToProto(chosen), ""};
  return request;
}

}  // namespace

bool Expected::Matches(const v1::Event& event, int seat) const {
  std::optional<Expected> own = OwnDecision(event, seat);
  return own.has_value() && *own == *this;
}

std::string Expected::Text() const {
  switch (kind) {
    case Kind::kContract:
      return absl::StrCat("contract ", v1::Contract_Name(contract));
    case Kind::kReady:
      return "ready";
    case Kind::kCard:
      return absl::StrCat("card ", card);
  }
  return "?";
}

std::optional<Expected> OwnDecision(const v1::Event& event, int seat) {
  if (event.automatic()) return std::nullopt;
  switch (event.kind_case()) {
    case v1::Event::kContractChosen:
      if (event.contract_chosen().owner() != seat) return std::nullopt;
      return Expected{Expected::Kind::kContract, event.contract_chosen().contract(), ""};
    case v1::Event::kReady:
      if (event.ready().seat() != seat) return std::nullopt;
      return Expected{Expected::Kind::kReady, v1::CONTRACT_UNSPECIFIED, ""};
    case v1::Event::kCardPlayed:
      if (event.card_played().seat() != seat) return std::nullopt;
      return Expected{Expected::Kind::kCard, v1::CONTRACT_UNSPECIFIED,
                      event.card_played().card()};
    default:
      return std::nullopt;
  }
}

absl::StatusOr<v1::ActRequest> DecideAction(const v1::Prompt& prompt,
                                            engine::CardSet hand, engine::Rng& rng,
                                            Expected* expected) {
  switch (prompt.phase()) {
    case v1::PHASE_CHOOSING_CONTRACT:
      return ChooseContract(prompt, hand, expected);
    case v1::PHASE_DOUBLING: {
      v1::ActRequest request;
      v1::SelectDoubles* doubles = request.mutable_select_doubles();
      for (const std::string& card : prompt.doublable()) {
        if (rng.Below(2) == 0) doubles->add_cards(card);
      }
      doubles->set_ready(true);
      *expected = {Expected::Kind::kReady, v1::CONTRACT_UNSPECIFIED, ""};
      return request;
    }
    case v1::PHASE_PLAYING: {
      const int n = prompt.legal_cards_size();
      if (n == 0) return absl::InvalidArgumentError("a play prompt with no legal card");
      const std::string& card = prompt.legal_cards(static_cast<int>(rng.Below(n)));
      v1::ActRequest request;
      request.mutable_play_card()->set_card(card);
      *expected = {Expected::Kind::kCard, v1::CONTRACT_UNSPECIFIED, card};
      return request;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("a prompt in phase ", v1::Phase_Name(prompt.phase())));
  }
}

}  // namespace trix::load
