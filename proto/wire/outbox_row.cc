#include "proto/wire/outbox_row.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace trix::wire {

std::string OutboxRowJson(const v1::internal::FinishedGame& game) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  // Printing a message that exists can only fail on invalid UTF-8 in a string,
  // which ids and mode names never have; the row is then written as printed.
  (void)google::protobuf::util::MessageToJsonString(game, &json, options);
  return json;
}

absl::StatusOr<v1::internal::FinishedGame> OutboxRowFromJson(absl::string_view json) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  v1::internal::FinishedGame game;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &game, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an outbox row: ", std::string(status.message())));
  }
  return game;
}

}  // namespace trix::wire
