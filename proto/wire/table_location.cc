#include "proto/wire/table_location.h"

#include "google/rpc/status.pb.h"

namespace trix::wire {

std::optional<v1::TableLocation> LocationFromStatus(const grpc::Status& status) {
  if (status.ok() || status.error_details().empty()) return std::nullopt;
  google::rpc::Status details;
  if (!details.ParseFromString(status.error_details())) return std::nullopt;
  for (const google::protobuf::Any& any : details.details()) {
    v1::TableLocation location;
    if (any.Is<v1::TableLocation>() && any.UnpackTo(&location)) return location;
  }
  return std::nullopt;
}

}  // namespace trix::wire
