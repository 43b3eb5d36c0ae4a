// Reading where a table lives from a refused call: the table service puts a
// trix.v1.TableLocation in the error's details (a google.rpc.Status in
// grpc-status-details-bin) when the table is hosted on another instance. Clients
// (the bot SDK, tools, tests) reconnect to its address.
//
//   if (std::optional<v1::TableLocation> where = wire::LocationFromStatus(status))
//     Reconnect(where->address());
#ifndef TRIX_PROTO_WIRE_TABLE_LOCATION_H_
#define TRIX_PROTO_WIRE_TABLE_LOCATION_H_

#include <optional>

#include "grpcpp/support/status.h"
#include "trix/v1/table.pb.h"

namespace trix::wire {

// The location in `status`'s details, if it carries one.
std::optional<v1::TableLocation> LocationFromStatus(const grpc::Status& status);

}  // namespace trix::wire

#endif  // TRIX_PROTO_WIRE_TABLE_LOCATION_H_
