// The table service's own translations between engine values and trix.v1
// messages: log records, events, results, a viewer's snapshot and options,
// timestamps and the limits the table puts on a client's card lists. The values
// both the table and the bots use (cards, contracts, phases, modes, house rules)
// are in proto/wire/wire.h.
//
// Input from clients and from the database passes through the *FromProto and
// *FromLog functions, which never trust it: a malformed card or an unknown enum
// value is INVALID_ARGUMENT from a client, DATA_LOSS from the log. Output functions
// take what the engine has already decided a viewer may see; nothing here decides
// visibility.
//
//   absl::StatusOr<engine::CardSet> cards = SeatCardsFromProto(request.cards());
//   if (!cards.ok()) return cards.status();
//   v1::Event event_on_wire = EngineEventToProto(event, result_of_game);
#ifndef TRIX_SERVICES_TABLE_CODEC_H_
#define TRIX_SERVICES_TABLE_CODEC_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "engine/result.h"
#include "engine/rules.h"
#include "google/protobuf/timestamp.pb.h"
#include "proto/wire/wire.h"
#include "services/table/records.h"
#include "trix/v1/common.pb.h"
#include "trix/v1/log.pb.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

namespace v1 = ::trix::v1;
using wire::CardNames;

// One seat's cards from a client or the log: at most a hand's worth, so a huge
// list is refused before it is read; otherwise as wire::CardSetFromProto.
absl::StatusOr<engine::CardSet> SeatCardsFromProto(const CardNames& names);

// A stored game's mode name; a name this build does not know gives an unspecified
// mode rather than failing the whole listing.
v1::Mode ModeFromStoredName(const std::string& name);

google::protobuf::Timestamp TimeToProto(absl::Time time);

// The log: one engine action <-> its stored form. Reading is DATA_LOSS on anything
// that is not a well-formed action.
v1::internal::LoggedAction ActionToLog(const engine::Action& action);
absl::StatusOr<engine::Action> ActionFromLog(const v1::internal::LoggedAction& logged);

// A result on the wire, as GameEnded, a table's view, GetGameRecord and the outbox
// row show it; ResultFromJson reads the same fields back from the result row, so
// ListPlayerGames shows the same result. Solo results carry no team fields.
v1::GameResult ResultToProto(const engine::Variant& variant,
                             const engine::GameResult& result);
// The result row's JSON (games.result): mode, totals, places, team totals, winner,
// stakes, payouts, and "unrated": true for a game created unrated (absent: rated,
// as every row written before it).
std::string ResultJson(const engine::Variant& variant, const engine::GameResult& result,
                       const engine::Stakes& stakes, bool unrated = false);
// Whether a result row is of a game created unrated.
bool ResultJsonUnrated(const std::string& json);
// What the ratings service consumes when a game ends (the outbox row,
// proto/trix/v1/outbox.proto): who played which seat, how each seat ended, and the
// result as ResultToProto gives it.
std::string GameEndedOutboxJson(const std::string& game_id,
                                const engine::Variant& variant,
                                const engine::GameResult& result,
                                const std::array<SeatRecord, 4>& seats,
                                int64_t finished_unix_ms, bool unrated = false);
// A voided table's result row (VoidTable): no totals, places or payouts, only
// that it was voided and why.
std::string VoidedResultJson(const std::string& mode, const std::string& reason);
// Whether a result row is VoidedResultJson's.
bool ResultJsonVoided(const std::string& json);
// The outbox row of a voided table: who sat where at what stake, and why it was
// voided; no result, so the ratings service rates and settles nothing and releases
// the table's stake holds.
std::string VoidedOutboxJson(const std::string& game_id, const std::string& mode,
                             const std::array<SeatRecord, 4>& seats,
                             const std::string& reason, int64_t voided_unix_ms);
// Reads ResultJson's output back; DATA_LOSS if it is not that. Team fields only
// when the JSON has them (partner modes).
absl::StatusOr<v1::GameResult> ResultFromJson(const std::string& json);

// Who must act (bit s: seat s) and until when: the turn a TurnStarted event and a
// table's view show.
v1::Turn TurnToProto(uint8_t seats, absl::Time deadline);

// An engine event on the wire (without seq and time). `result` fills GameEnded.
v1::Event EngineEventToProto(const engine::Event& event, const v1::GameResult& result);

// A table's view as the engine shows it to one viewer (`o`, from engine::Observe):
// the viewer, phase, deal, kingdom, owner and contracts; each seat's hand size,
// revealed cards, tricks and scores (seats 0-3 are added to `view`); and the
// viewer's own hand, doubles and options. The table adds what only it knows: the
// seats' players, its settings and clocks, seq and the result.
void ObservationToProto(const engine::Observation& o, v1::TableView* view);

// A seat's options as its observation `o` holds them: the phase, the contracts it
// may choose, the cards it may double and has selected, the cards it may play.
// The table adds seq and the deadline.
v1::Prompt PromptToProto(const engine::Observation& o);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_CODEC_H_
