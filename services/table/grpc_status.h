// The table service's answers as gRPC statuses: one home for the conversion, used
// by the unary calls and the streams alike.
#ifndef TRIX_SERVICES_TABLE_GRPC_STATUS_H_
#define TRIX_SERVICES_TABLE_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace trix::table {

// The code and message; a refusal that says where the table lives (refusals.h)
// also carries a google.rpc.Status with that trix.v1.TableLocation in its details.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The same address, for clients that read metadata rather than error details:
// trailing metadata "mamlaka-table-address" on a refusal that names the table's
// instance. Call before finishing the call.
inline constexpr char kTableAddressKey[] = "mamlaka-table-address";
void AddLocationMetadata(grpc::CallbackServerContext* context, const grpc::Status& status);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_GRPC_STATUS_H_
