#include "services/table/grpc_status.h"

#include <optional>
#include <string>

#include "google/rpc/status.pb.h"
#include "proto/wire/table_location.h"
#include "services/table/refusals.h"

namespace trix::table {

void AddLocationMetadata(grpc::CallbackServerContext* context,
                         const grpc::Status& status) {
  if (std::optional<v1::TableLocation> where = wire::LocationFromStatus(status);
      where && !where->address().empty()) {
    context->AddTrailingMetadata(kTableAddressKey, where->address());
  }
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  const auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message(status.message());
  std::optional<v1::TableLocation> location = LocationIn(status);
  if (!location) return grpc::Status(code, message);
  // Where the table lives: the standard rich error (grpc-status-details-bin).
  google::rpc::Status details;
  details.set_code(static_cast<int>(status.code()));
  details.set_message(message);
  details.add_details()->PackFrom(*location);
  return grpc::Status(code, message, details.SerializeAsString());
}

}  // namespace trix::table
