#include "services/table/refusals.h"

#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/common/auth.h"

namespace trix::table {
namespace {

template <typename T>
std::optional<T> PayloadIn(const absl::Status& status, const char* type) {
  auto payload = status.GetPayload(type);
  if (!payload) return std::nullopt;
  T message;
  if (!message.ParseFromString(std::string(*payload))) return std::nullopt;
  return message;
}

}  // namespace

absl::Status CheckTableId(absl::string_view table_id) {
  if (table_id.empty()) return absl::InvalidArgumentError("table_id is required");
  if (!service::IsUuid(table_id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "table_id \"", absl::CEscape(table_id.substr(0, 64)),
        "\" is not a table id (CreateTable's table ids are lower-case UUIDs)"));
  }
  return absl::OkStatus();
}

v1::TableLocation LocationOf(const std::string& table_id,
                             const table::TableHome& home) {
  v1::TableLocation location;
  location.set_table_id(table_id);
  if (home.leased) {
    location.set_address(home.address);
    location.set_instance_id(home.owner);
  }
  location.set_finished(home.finished);
  return location;
}

absl::Status MovedError(const v1::TableLocation& location, absl::string_view why) {
  const std::string where =
      location.address().empty()
          ? std::string("no instance hosts it now: retry (any instance adopts it)")
          : absl::StrCat("it is hosted at ", location.address(),
                         ": reconnect there and resume with after_seq");
  absl::Status status = absl::UnavailableError(
      absl::StrCat("table ", location.table_id(), " is not hosted on this instance (",
                   why, "); ", where));
  status.SetPayload(kLocationType, absl::Cord(location.SerializeAsString()));
  return status;
}

std::optional<v1::TableLocation> LocationIn(const absl::Status& status) {
  return PayloadIn<v1::TableLocation>(status, kLocationType);
}

namespace {
constexpr absl::string_view kQuarantined = "table quarantined: ";
}  // namespace

absl::Status QuarantinedError(absl::string_view reason) {
  return absl::FailedPreconditionError(absl::StrCat(kQuarantined, reason));
}

bool IsQuarantined(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) &&
         absl::StartsWith(status.message(), kQuarantined);
}

absl::Status WithPrompt(absl::Status status, const v1::Prompt& prompt) {
  status.SetPayload(kPromptType, absl::Cord(prompt.SerializeAsString()));
  return status;
}

std::optional<v1::Prompt> PromptIn(const absl::Status& status) {
  return PayloadIn<v1::Prompt>(status, kPromptType);
}

}  // namespace trix::table
