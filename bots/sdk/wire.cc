#include "bots/sdk/wire.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trix::bots {

absl::StatusOr<engine::Card> CardFromWire(const std::string& name) {
  return engine::ParseCard(name);
}

absl::StatusOr<engine::CardSet> CardSetFromWire(const CardNames& names) {
  engine::CardSet set = 0;
  for (const std::string& name : names) {
    absl::StatusOr<engine::Card> card = engine::ParseCard(name);
    if (!card.ok()) return card.status();
    if (set & engine::Bit(*card)) {
      return absl::InvalidArgumentError(absl::StrCat("card ", name, " is repeated"));
    }
    set |= engine::Bit(*card);
  }
  return set;
}

void AddCards(engine::CardSet cards, CardNames* out) {
  for (engine::CardSet b = cards; b;) out->Add(engine::CardName(engine::PopLowest(b)));
}

// The wire numbers the contracts from 1 in the engine's order (0 is "unset").
absl::StatusOr<engine::Contract> ContractFromWire(int contract) {
  if (contract == v1::CONTRACT_UNSPECIFIED) return engine::kNoContract;
  if (contract < 1 || contract > engine::kNumContracts) {
    return absl::InvalidArgumentError(absl::StrCat("unknown contract ", contract));
  }
  return static_cast<engine::Contract>(contract - 1);
}

v1::Contract ContractToWire(engine::Contract contract) {
  if (contract == engine::kNoContract) return v1::CONTRACT_UNSPECIFIED;
  return static_cast<v1::Contract>(static_cast<int>(contract) + 1);
}

absl::StatusOr<uint32_t> ContractBitsFromWire(
    const google::protobuf::RepeatedField<int>& contracts) {
  uint32_t bits = 0;
  for (int c : contracts) {
    absl::StatusOr<engine::Contract> contract = ContractFromWire(c);
    if (!contract.ok()) return contract.status();
    if (*contract == engine::kNoContract) {
      return absl::InvalidArgumentError("an unspecified contract in a contract list");
    }
    bits |= 1u << static_cast<int>(*contract);
  }
  return bits;
}

absl::StatusOr<engine::Phase> PhaseFromWire(v1::Phase phase) {
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

absl::StatusOr<engine::Rules> RulesFromWire(const v1::Mode& mode,
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
      return absl::InvalidArgumentError("the mode's team is unset or unknown");
  }
  switch (mode.format()) {
    case v1::FORMAT_CLASSIC:
      out.variant.format = engine::Format::kClassic;
      break;
    case v1::FORMAT_COMPLEX:
      out.variant.format = engine::Format::kComplex;
      break;
    default:
      return absl::InvalidArgumentError("the mode's format is unset or unknown");
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
      return absl::InvalidArgumentError("unknown kh_heart_lead");
  }
  if (absl::Status s = engine::ValidateOptions(out.options); !s.ok()) return s;
  return out;
}

v1::Mode ModeToWire(const engine::Variant& variant) {
  v1::Mode mode;
  mode.set_team(variant.team == engine::Team::kSolo ? v1::TEAM_SOLO : v1::TEAM_PARTNER);
  mode.set_format(variant.format == engine::Format::kClassic ? v1::FORMAT_CLASSIC
                                                             : v1::FORMAT_COMPLEX);
  return mode;
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
  return ModeToWire(engine::Variant{*team, *format});
}

std::string ModeName(const v1::Mode& mode) {
  absl::StatusOr<engine::Rules> rules = RulesFromWire(mode, v1::HouseRules());
  return rules.ok() ? engine::ModeName(rules->variant) : "unknown-mode";
}

}  // namespace trix::bots
