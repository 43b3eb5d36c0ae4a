// Conversions between the table API's wire values (package trix.v1) and the
// engine's value types, for bots: card names ("QS") and card masks, contracts,
// phases, modes and house rules.
//
// Everything read from the server goes through the *FromWire functions, which
// check it: a bot is a client of a network service, and an unknown card name or
// enum value becomes an error the SDK turns into a resync, never a crash.
//
//   absl::StatusOr<engine::CardSet> hand = CardSetFromWire(view.hand());
//   AddCards(engine::Bit(card), request.mutable_select_doubles()->mutable_cards());
#ifndef TRIX_BOTS_SDK_WIRE_H_
#define TRIX_BOTS_SDK_WIRE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "engine/cards.h"
#include "engine/game.h"
#include "engine/rules.h"
#include "google/protobuf/repeated_field.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "trix/v1/common.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;
using CardNames = google::protobuf::RepeatedPtrField<std::string>;

absl::StatusOr<engine::Card> CardFromWire(const std::string& name);
// A repeated or unknown card is INVALID_ARGUMENT.
absl::StatusOr<engine::CardSet> CardSetFromWire(const CardNames& names);
// Lowest card first, as the server sends sets.
void AddCards(engine::CardSet cards, CardNames* out);

// CONTRACT_UNSPECIFIED is engine::kNoContract; an unknown number is an error.
absl::StatusOr<engine::Contract> ContractFromWire(int contract);
v1::Contract ContractToWire(engine::Contract contract);
// Repeated contracts as bits 1 << engine::Contract.
absl::StatusOr<uint32_t> ContractBitsFromWire(
    const google::protobuf::RepeatedField<int>& contracts);

absl::StatusOr<engine::Phase> PhaseFromWire(v1::Phase phase);

// Both mode fields are required; unset house rules take the defaults of RULES.md.
absl::StatusOr<engine::Rules> RulesFromWire(const v1::Mode& mode,
                                            const v1::HouseRules& rules);
v1::Mode ModeToWire(const engine::Variant& variant);
// "complex-partner", "classic-solo", ...
absl::StatusOr<v1::Mode> ModeFromName(const std::string& name);
std::string ModeName(const v1::Mode& mode);

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_WIRE_H_
