#include "engine/rules.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace trix::engine {
namespace {

template <typename E, size_t N>
absl::StatusOr<E> ParseName(absl::string_view what, absl::string_view name,
                            const std::array<const char*, N>& names) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<E>(i);
  }
  std::string known;
  for (const char* n : names) absl::StrAppend(&known, known.empty() ? "" : ", ", n);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", what, " '", name, "' (one of: ", known, ")"));
}

constexpr std::array<const char*, kNumContracts> kContractNames = {
    "king_of_hearts", "queens", "diamonds", "tricks", "trix", "complex"};
constexpr std::array<const char*, 2> kTeamNames = {"solo", "partner"};
constexpr std::array<const char*, 2> kFormatNames = {"classic", "complex"};
constexpr std::array<const char*, 3> kHeartLeadNames = {"any", "only_if_all_hearts",
                                                        "after_broken"};

}  // namespace

const std::vector<Contract>& ContractsOf(Format format) {
  static const std::vector<Contract> kClassic = {
      Contract::kKingOfHearts, Contract::kQueens, Contract::kDiamonds,
      Contract::kTricks, Contract::kTrix};
  static const std::vector<Contract> kComplexContracts = {Contract::kComplex,
                                                          Contract::kTrix};
  return format == Format::kClassic ? kClassic : kComplexContracts;
}

bool InFormat(Contract contract, Format format) {
  for (Contract c : ContractsOf(format)) {
    if (c == contract) return true;
  }
  return false;
}

int DealsPerGame(const Rules& rules) {
  return rules.options.kingdoms * static_cast<int>(ContractsOf(rules.variant.format).size());
}

bool IsTrickContract(Contract contract) { return contract != Contract::kTrix; }

CardSet DoublableCards(Contract contract, const Options& options) {
  if (!options.doubling) return 0;
  switch (contract) {
    case Contract::kKingOfHearts:
      return Bit(kKingOfHearts);
    case Contract::kQueens:
      return kQueens;
    case Contract::kComplex:
      return kQueens | Bit(kKingOfHearts);
    default:
      return 0;
  }
}

absl::Status ValidateOptions(const Options& options) {
  if (options.kingdoms < 1 || options.kingdoms > 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("kingdoms must be 1 to 4, not ", options.kingdoms));
  }
  return absl::OkStatus();
}

std::string ContractName(Contract contract) {
  size_t i = static_cast<size_t>(contract);
  return i < kContractNames.size() ? kContractNames[i] : "none";
}
absl::StatusOr<Contract> ParseContract(absl::string_view name) {
  return ParseName<Contract>("contract", name, kContractNames);
}
std::string TeamName(Team team) { return kTeamNames[static_cast<size_t>(team)]; }
absl::StatusOr<Team> ParseTeam(absl::string_view name) {
  return ParseName<Team>("team", name, kTeamNames);
}
std::string FormatName(Format format) { return kFormatNames[static_cast<size_t>(format)]; }
absl::StatusOr<Format> ParseFormat(absl::string_view name) {
  return ParseName<Format>("format", name, kFormatNames);
}
std::string HeartLeadName(HeartLead rule) {
  return kHeartLeadNames[static_cast<size_t>(rule)];
}
absl::StatusOr<HeartLead> ParseHeartLead(absl::string_view name) {
  return ParseName<HeartLead>("kh_heart_lead", name, kHeartLeadNames);
}
std::string ModeName(const Variant& variant) {
  return absl::StrCat(FormatName(variant.format), "-", TeamName(variant.team));
}

}  // namespace trix::engine
