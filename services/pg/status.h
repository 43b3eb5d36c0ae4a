// How database failures become absl::Status: libpqxx throws, this layer returns.
//
// Every call into libpqxx in services/pg and in each service's store sits in a try
// block whose catch (...) hands the exception to StatusFromException(), so no
// exception leaves the storage layer and callers see the gRPC-style codes that DESIGN.md promises:
//   connection lost or refused, server shutting down   -> UNAVAILABLE
//   commit sent but its outcome unknown                -> UNAVAILABLE
//   unique key clash (a duplicate request id or index) -> ALREADY_EXISTS
//   other constraint violation, bad data (JSON, UTF-8) -> INVALID_ARGUMENT
//   deadlock, serialization failure                    -> ABORTED (retry)
//   schema missing (migrations not applied)            -> FAILED_PRECONDITION
//   resources (disk full, out of memory)               -> RESOURCE_EXHAUSTED
//   anything else                                      -> INTERNAL
// The message says what was being done, the kind of failure and an error id; the
// server's own text (its DETAIL names key values, its messages the schema) is
// logged under that id ("database error", error_id) and never returned, since
// these statuses reach clients.
//
//   try { ... } catch (...) { return StatusFromException("loading game " + id); }
#ifndef TRIX_SERVICES_PG_STATUS_H_
#define TRIX_SERVICES_PG_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace trix::pg {

// Maps the exception being handled; call only inside a catch block. `context` says
// what was being done and prefixes the message.
absl::Status StatusFromException(absl::string_view context);

// True when `status` means the connection it came from cannot be used again.
bool IsConnectionLost(const absl::Status& status);

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_STATUS_H_
