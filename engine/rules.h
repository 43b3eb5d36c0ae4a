// The table's rule set: mode (solo/partner x classic/complex), contracts, and the
// house-rule options of RULES.md. Everything here is a small value type; the names
// are the ones used on the wire, in logs and in conformance cases.
//
//   Rules rules{{Team::kPartner, Format::kComplex}, Options{}};
//   for (Contract c : ContractsOf(rules.variant.format)) ...
#ifndef TRIX_ENGINE_RULES_H_
#define TRIX_ENGINE_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/cards.h"

namespace trix::engine {

enum class Team : uint8_t { kSolo, kPartner };
enum class Format : uint8_t { kClassic, kComplex };

struct Variant {
  Team team = Team::kSolo;
  Format format = Format::kClassic;
};

enum class Contract : uint8_t {
  kKingOfHearts = 0,
  kQueens,
  kDiamonds,
  kTricks,
  kTrix,
  kComplex,
};
inline constexpr int kNumContracts = 6;
inline constexpr Contract kNoContract = static_cast<Contract>(0xFF);

enum class HeartLead : uint8_t { kAny, kOnlyIfAllHearts, kAfterBroken };

// House rules; the defaults are the 004 seed's rules.
struct Options {
  bool doubling = true;
  HeartLead kh_heart_lead = HeartLead::kAny;
  bool end_early = true;
  int kingdoms = 4;  // 1..4
};

struct Rules {
  Variant variant;
  Options options;
};

// The contracts each kingdom plays, in the order a menu lists them.
const std::vector<Contract>& ContractsOf(Format format);
bool InFormat(Contract contract, Format format);
// Deals in a game: kingdoms x contracts per kingdom.
int DealsPerGame(const Rules& rules);
bool IsTrickContract(Contract contract);
// The cards a holder may double in this contract under these options.
CardSet DoublableCards(Contract contract, const Options& options);
absl::Status ValidateOptions(const Options& options);

inline int TeamOf(int seat) { return seat & 1; }
inline int PartnerOf(int seat) { return (seat + 2) & 3; }

// Wire names: "king_of_hearts", "solo", "complex", "only_if_all_hearts", ...
std::string ContractName(Contract contract);
absl::StatusOr<Contract> ParseContract(absl::string_view name);
std::string TeamName(Team team);
absl::StatusOr<Team> ParseTeam(absl::string_view name);
std::string FormatName(Format format);
absl::StatusOr<Format> ParseFormat(absl::string_view name);
std::string HeartLeadName(HeartLead rule);
absl::StatusOr<HeartLead> ParseHeartLead(absl::string_view name);
// "classic-solo", "complex-partner", ...
std::string ModeName(const Variant& variant);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_RULES_H_
