// Translation between the engine's value types and the trix.v1 protobuf messages:
// cards, contracts, modes and house rules, log records, events and results.
//
// Input from clients and from the database passes through the *FromProto and
// *FromLog functions, which never trust it: a malformed card or an unknown enum
// value is INVALID_ARGUMENT from a client, DATA_LOSS from the log. Output functions
// take what the engine has already decided a viewer may see; nothing here decides
// visibility.
//
//   ASSIGN_OR_RETURN(engine::Card card, CardFromProto(request.play_card().card()));
//   v1::Event wire = EngineEventToProto(event, result_of_game);
#ifndef TRIX_SERVICES_TABLE_CODEC_H_
#define TRIX_SERVICES_TABLE_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/result.h"
#include "engine/rules.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "google/protobuf/timestamp.pb.h"
#include "trix/v1/common.pb.h"
#include "trix/v1/log.pb.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

namespace v1 = ::trix::v1;
using CardNames = google::protobuf::RepeatedPtrField<std::string>;

// Cards: the RULES.md notation ("TD"), sets sorted clubs 2 .. spades A.
void AddCards(engine::CardSet cards, CardNames* out);
absl::StatusOr<engine::Card> CardFromProto(const std::string& name);
// A repeated or unknown card is INVALID_ARGUMENT.
absl::StatusOr<engine::CardSet> CardSetFromProto(const CardNames& names);

v1::Contract ContractToProto(engine::Contract contract);  // kNoContract: UNSPECIFIED
absl::StatusOr<engine::Contract> ContractFromProto(v1::Contract contract);
void AddContracts(uint32_t bits, google::protobuf::RepeatedField<int>* out);
v1::Phase PhaseToProto(engine::Phase phase);

// The table's rules: both mode fields required, house rules defaulted and checked.
absl::StatusOr<engine::Rules> RulesFromProto(const v1::Mode& mode,
                                             const v1::HouseRules& rules);
// "complex-partner", ...
std::string ModeName(const v1::Mode& mode);
// The inverse; an unknown name gives an unspecified mode.
v1::Mode ModeFromName(const std::string& name);

google::protobuf::Timestamp TimeToProto(absl::Time time);

// The log: one engine action <-> its stored form. Reading is DATA_LOSS on anything
// that is not a well-formed action.
v1::internal::LoggedAction ActionToLog(const engine::Action& action);
absl::StatusOr<engine::Action> ActionFromLog(const v1::internal::LoggedAction& logged);

v1::GameResult ResultToProto(const engine::GameResult& result);
// The result row's JSON: totals, places, team totals, winner, stakes, payouts.
std::string ResultJson(const engine::Variant& variant, const engine::GameResult& result,
                       const engine::Stakes& stakes);
// Reads ResultJson's output back (for listings); DATA_LOSS if it is not that.
absl::StatusOr<v1::GameResult> ResultFromJson(const std::string& json);

// An engine event on the wire (without seq and time). `result` fills GameEnded.
v1::Event EngineEventToProto(const engine::Event& event,
                             const engine::GameResult& result);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_CODEC_H_
