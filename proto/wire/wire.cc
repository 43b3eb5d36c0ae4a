#include "proto/wire/wire.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trix::wire {

void AddCards(engine::CardSet cards, CardNames* out) {
  while (cards) out->Add(engine::CardName(engine::PopLowest(cards)));
}

absl::StatusOr<engine::Card> CardFromProto(const std::string& name) {
  // Echoing a megabyte of garbage back in an error helps nobody.
  if (name.size() > 3) {
    return absl::InvalidArgumentError(
        "not a card: a card is a rank 23456789TJQKA then a suit CDHS, e.g. \"TD\"");
  }
  return engine::ParseCard(name);
}

absl::StatusOr<engine::CardSet> CardSetFromProto(const CardNames& names) {
  engine::CardSet set = 0;
  for (const std::string& name : names) {
    absl::StatusOr<engine::Card> card = CardFromProto(name);
    if (!card.ok()) return card.status();
    if (set & engine::Bit(*card)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is listed twice"));
    }
    set |= engine::Bit(*card);
  }
  return set;
}

v1::Contract ContractToProto(engine::Contract contract) {
  switch (contract) {
    case engine::Contract::kKingOfHearts:
      return v1::CONTRACT_KING_OF_HEARTS;
    case engine::Contract::kQueens:
      return v1::CONTRACT_QUEENS;
    case engine::Contract::kDiamonds:
      return v1::CONTRACT_DIAMONDS;
    case engine::Contract::kTricks:
      return v1::CONTRACT_TRICKS;
    case engine::Contract::kTrix:
      return v1::CONTRACT_TRIX;
    case engine::Contract::kComplex:
      return v1::CONTRACT_COMPLEX;
  }
  return v1::CONTRACT_UNSPECIFIED;
}

absl::StatusOr<engine::Contract> ContractFromProto(int contract) {
  switch (contract) {
    case v1::CONTRACT_KING_OF_HEARTS:
      return engine::Contract::kKingOfHearts;
    case v1::CONTRACT_QUEENS:
      return engine::Contract::kQueens;
    case v1::CONTRACT_DIAMONDS:
      return engine::Contract::kDiamonds;
    case v1::CONTRACT_TRICKS:
      return engine::Contract::kTricks;
    case v1::CONTRACT_TRIX:
      return engine::Contract::kTrix;
    case v1::CONTRACT_COMPLEX:
      return engine::Contract::kComplex;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("contract ", contract, " is not a contract"));
  }
}

absl::StatusOr<engine::Contract> ContractOrNoneFromProto(int contract) {
  if (contract == v1::CONTRACT_UNSPECIFIED) return engine::kNoContract;
  return ContractFromProto(contract);
}

void AddContracts(uint32_t bits, google::protobuf::RepeatedField<int>* out) {
  for (int c = 0; c < engine::kNumContracts; ++c) {
    if (bits & (1u << c)) out->Add(ContractToProto(static_cast<engine::Contract>(c)));
  }
}

absl::StatusOr<uint32_t> ContractBitsFromProto(
    const google::protobuf::RepeatedField<int>& contracts) {
  uint32_t bits = 0;
  for (int c : contracts) {
    if (c == v1::CONTRACT_UNSPECIFIED) {
      return absl::InvalidArgumentError("an unspecified contract in a contract list");
    }
    absl::StatusOr<engine::Contract> contract = ContractFromProto(c);
    if (!contract.ok()) return contract.status();
    bits |= 1u << static_cast<int>(*contract);
  }
  return bits;
}

v1::Phase PhaseToProto(engine::Phase phase) {
  switch (phase) {
    case engine::Phase::kDealing:
      return v1::PHASE_DEALING;
    case engine::Phase::kChoosingContract:
      return v1::PHASE_CHOOSING_CONTRACT;
    case engine::Phase::kDoubling:
      return v1::PHASE_DOUBLING;
    case engine::Phase::kPlaying:
      return v1::PHASE_PLAYING;
    case engine::Phase::kGameOver:
      return v1::PHASE_GAME_OVER;
  }
  return v1::PHASE_UNSPECIFIED;
}

absl::StatusOr<engine::Phase> PhaseFromProto(v1::Phase phase) {
  switch (phase) {
    case v1::PHASE_DEALING:
      return engine::Phase::kDealing;
    case v1::PHASE_CHOOSING_CONTRACT:
      return engine::Phase::kChoosingContract;
    case v1::PHASE_DOUBLING:
      return engine::Phase::kDoubling;
    case v1::PHASE_PLAYING:
      return engine::Phase::kPlaying;
    case v1::PHASE_GAME_OVER:
      return engine::Phase::kGameOver;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown phase ", phase));
  }
}

absl::StatusOr<engine::Rules> RulesFromProto(const v1::Mode& mode,
                                             const v1::HouseRules& rules) {
  engine::Rules out;
  switch (mode.team()) {
    case v1::TEAM_SOLO:
      out.variant.team = engine::Team::kSolo;
      break;
    case v1::TEAM_PARTNER:
      out.variant.team = engine::Team::kPartner;
      break;
    default:
      return absl::InvalidArgumentError("mode.team must be TEAM_SOLO or TEAM_PARTNER");
  }
  switch (mode.format()) {
    case v1::FORMAT_CLASSIC:
      out.variant.format = engine::Format::kClassic;
      break;
    case v1::FORMAT_COMPLEX:
      out.variant.format = engine::Format::kComplex;
      break;
    default:
      return absl::InvalidArgumentError(
          "mode.format must be FORMAT_CLASSIC or FORMAT_COMPLEX");
  }
  if (rules.has_doubling()) out.options.doubling = rules.doubling();
  if (rules.has_end_early()) out.options.end_early = rules.end_early();
  if (rules.has_kingdoms()) out.options.kingdoms = rules.kingdoms();
  switch (rules.kh_heart_lead()) {
    case v1::HEART_LEAD_UNSPECIFIED:
    case v1::HEART_LEAD_ANY:
      out.options.kh_heart_lead = engine::HeartLead::kAny;
      break;
    case v1::HEART_LEAD_ONLY_IF_ALL_HEARTS:
      out.options.kh_heart_lead = engine::HeartLead::kOnlyIfAllHearts;
      break;
    case v1::HEART_LEAD_AFTER_BROKEN:
      out.options.kh_heart_lead = engine::HeartLead::kAfterBroken;
      break;
    default:
      return absl::InvalidArgumentError("rules.kh_heart_lead is not a heart-lead rule");
  }
  if (absl::Status s = engine::ValidateOptions(out.options); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("rules.", s.message()));
  }
  return out;
}

v1::Mode ModeToProto(const engine::Variant& variant) {
  v1::Mode mode;
  mode.set_team(variant.team == engine::Team::kSolo ? v1::TEAM_SOLO : v1::TEAM_PARTNER);
  mode.set_format(variant.format == engine::Format::kClassic ? v1::FORMAT_CLASSIC
                                                             : v1::FORMAT_COMPLEX);
  return mode;
}

std::string ModeName(const v1::Mode& mode) {
  absl::StatusOr<engine::Rules> rules = RulesFromProto(mode, v1::HouseRules());
  return rules.ok() ? engine::ModeName(rules->variant) : "unknown";
}

absl::StatusOr<v1::Mode> ModeFromName(const std::string& name) {
  std::vector<std::string> parts = absl::StrSplit(name, '-');
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode \"", name, "\" is not <classic|complex>-<solo|partner>"));
  }
  absl::StatusOr<engine::Format> format = engine::ParseFormat(parts[0]);
  if (!format.ok()) return format.status();
  absl::StatusOr<engine::Team> team = engine::ParseTeam(parts[1]);
  if (!team.ok()) return team.status();
  return ModeToProto(engine::Variant{*team, *format});
}

}  // namespace trix::wire
