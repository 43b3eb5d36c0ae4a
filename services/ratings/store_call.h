// How the ratings service's calls reach the database without telling their callers
// what the database said: a failure inside a call (what libpqxx threw: a constraint's
// name and DETAIL, a statement, a host name) is logged in full under a fresh error id,
// and the caller gets the same code with a plain message that names the id. The
// statuses the call itself returns (a missing id, an insufficient balance) pass
// through unchanged.
//
//   absl::Status s = RunLogged(pool_, "moving money", [&](pqxx::connection& c) { ... });
//   // INTERNAL "moving money failed (error id 6f1c...)"; the log has the rest.
#ifndef TRIX_SERVICES_RATINGS_STORE_CALL_H_
#define TRIX_SERVICES_RATINGS_STORE_CALL_H_

#include <pqxx/connection>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "services/storage/connection_pool.h"

namespace trix::ratings {

absl::Status RunLogged(storage::ConnectionPool* pool, absl::string_view what,
                       absl::FunctionRef<absl::Status(pqxx::connection&)> work);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_CALL_H_
