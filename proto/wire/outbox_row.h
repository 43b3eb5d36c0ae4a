// The outbox row (game_results.payload) in and out of its one stored form: a
// trix.v1.internal.FinishedGame (proto/trix/v1/outbox.proto) as its protobuf JSON
// mapping with the proto's field names. The table service writes it, the ratings
// service and the fault tools read it; nothing else spells the row's fields.
//
//   std::string payload = wire::OutboxRowJson(game);
//   absl::StatusOr<v1::internal::FinishedGame> back = wire::OutboxRowFromJson(payload);
#ifndef TRIX_PROTO_WIRE_OUTBOX_ROW_H_
#define TRIX_PROTO_WIRE_OUTBOX_ROW_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "trix/v1/outbox.pb.h"

namespace trix::wire {

std::string OutboxRowJson(const v1::internal::FinishedGame& game);

// INVALID_ARGUMENT, with the parser's reason, for text that is not such a row.
// Fields this build does not know are skipped (rows written before the message
// had a copy of the mode and stakes inside `result`); whole numbers written as
// JSON numbers, strings or whole doubles (400.0) all read.
absl::StatusOr<v1::internal::FinishedGame> OutboxRowFromJson(absl::string_view json);

}  // namespace trix::wire

#endif  // TRIX_PROTO_WIRE_OUTBOX_ROW_H_
