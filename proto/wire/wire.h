// The one translation between the table API's values (package trix.v1) and the
// engine's value types, shared by the table service and the bot SDK: cards in the
// RULES.md notation ("TD") and card masks, contracts, phases, modes and house
// rules. The engine stays free of protobuf; this library is where the two meet.
//
// Everything read from the wire goes through the *FromProto functions, which never
// trust it: an unknown card name or enum value is INVALID_ARGUMENT, never a crash.
// What a caller then does with it (refuse a client's request, call a stored log
// corrupt, resync a bot's view) is the caller's business.
//
//   absl::StatusOr<engine::CardSet> hand = wire::CardSetFromProto(view.hand());
//   wire::AddCards(o.legal, prompt.mutable_legal_cards());
#ifndef TRIX_PROTO_WIRE_WIRE_H_
#define TRIX_PROTO_WIRE_WIRE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "engine/cards.h"
#include "engine/game.h"
#include "engine/rules.h"
#include "google/protobuf/repeated_field.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "trix/v1/common.pb.h"

namespace trix::wire {

namespace v1 = ::trix::v1;
using CardNames = google::protobuf::RepeatedPtrField<std::string>;

// Cards: sets go out lowest first (clubs 2 .. spades A).
void AddCards(engine::CardSet cards, CardNames* out);
absl::StatusOr<engine::Card> CardFromProto(const std::string& name);
// A repeated or unknown card is INVALID_ARGUMENT.
absl::StatusOr<engine::CardSet> CardSetFromProto(const CardNames& names);

// The wire numbers the contracts from 1 in the engine's order; 0 is "unset".
v1::Contract ContractToProto(engine::Contract contract);  // kNoContract: UNSPECIFIED
// CONTRACT_UNSPECIFIED is an error here.
absl::StatusOr<engine::Contract> ContractFromProto(int contract);
// The same, but CONTRACT_UNSPECIFIED is engine::kNoContract (no contract yet).
absl::StatusOr<engine::Contract> ContractOrNoneFromProto(int contract);
// Contract sets as bits 1 << engine::Contract, lowest first on the wire.
void AddContracts(uint32_t bits, google::protobuf::RepeatedField<int>* out);
absl::StatusOr<uint32_t> ContractBitsFromProto(
    const google::protobuf::RepeatedField<int>& contracts);

v1::Phase PhaseToProto(engine::Phase phase);
absl::StatusOr<engine::Phase> PhaseFromProto(v1::Phase phase);

// Both mode fields are required; unset house rules take the defaults of RULES.md,
// and the result is checked.
absl::StatusOr<engine::Rules> RulesFromProto(const v1::Mode& mode,
                                             const v1::HouseRules& rules);
v1::Mode ModeToProto(const engine::Variant& variant);
// "complex-partner", "classic-solo", ...; "unknown" for an unset or unknown mode.
std::string ModeName(const v1::Mode& mode);
// The inverse; a name that is not <classic|complex>-<solo|partner> is an error.
absl::StatusOr<v1::Mode> ModeFromName(const std::string& name);

}  // namespace trix::wire

#endif  // TRIX_PROTO_WIRE_WIRE_H_
