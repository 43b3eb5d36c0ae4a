#include "services/pg/status.h"

#include <exception>
#include <pqxx/except>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/logging.h"

namespace trix::pg {
namespace {

// SQLSTATE classes that mean the session is gone even when libpq still reported a
// server error rather than a dead socket: 08 connection exception, 57P01..57P03
// admin shutdown / crash shutdown / cannot connect now (pg_terminate_backend sends
// 57P01).
bool IsConnectionSqlState(absl::string_view state) {
  return absl::StartsWith(state, "08") || absl::StartsWith(state, "57P");
}

std::string ServerText(const std::exception& e) {
  // Server messages end in a newline and sometimes carry more lines (DETAIL, HINT).
  std::string what = e.what();
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  return what;
}

// What a caller may be told: what was being done, the kind of failure and an
// error id. The database's own words (DETAIL with key values, the query) go only
// to the log, under that id, so that a client never sees the schema or another
// player's data.
std::string Message(absl::string_view context, absl::string_view kind,
                    const std::exception& e, absl::string_view sqlstate = "") {
  const std::string id = absl::StrCat(absl::Hex(service::RandomUint64(), absl::kZeroPad16));
  service::LogWarn("database error", {{"error_id", id},
                                      {"context", std::string(context)},
                                      {"sqlstate", std::string(sqlstate)},
                                      {"error", ServerText(e)}});
  return absl::StrCat(context, ": ", kind, " (database error ", id,
                      "; the details are in the service's log)");
}

absl::Status FromSqlState(absl::string_view context, const pqxx::sql_error& e) {
  const std::string& state = e.sqlstate();
  if (IsConnectionSqlState(state)) {
    return absl::UnavailableError(
        Message(context, "the database connection was closed", e, state));
  }
  if (state == "23505") {
    return absl::AlreadyExistsError(Message(context, "a unique key is taken", e, state));
  }
  if (absl::StartsWith(state, "23")) {
    return absl::InvalidArgumentError(
        Message(context, "a constraint of the schema was violated", e, state));
  }
  if (absl::StartsWith(state, "22")) {
    return absl::InvalidArgumentError(
        Message(context, "a value the database does not accept", e, state));
  }
  if (absl::StartsWith(state, "40")) {
    return absl::AbortedError(Message(context, "a transaction conflict; retry", e, state));
  }
  if (state == "42P01" || state == "42703") {
    return absl::FailedPreconditionError(
        Message(context, "a table or column is missing (are the migrations applied?)",
                e, state));
  }
  if (absl::StartsWith(state, "53")) {
    return absl::ResourceExhaustedError(
        Message(context, "the database is out of resources", e, state));
  }
  if (state == "57014") {
    return absl::DeadlineExceededError(
        Message(context, "the statement was cancelled", e, state));
  }
  return absl::InternalError(Message(context, "the database failed", e, state));
}

}  // namespace

absl::Status StatusFromException(absl::string_view context) {
  try {
    throw;
  } catch (const pqxx::in_doubt_error& e) {
    return absl::UnavailableError(Message(
        context, "the connection broke during commit (the commit's outcome is unknown)",
        e));
  } catch (const pqxx::broken_connection& e) {
    return absl::UnavailableError(Message(context, "the database is unreachable", e));
  } catch (const pqxx::statement_completion_unknown& e) {
    return absl::UnavailableError(
        Message(context, "the connection broke before the statement completed", e));
  } catch (const pqxx::sql_error& e) {
    return FromSqlState(context, e);
  } catch (const pqxx::conversion_error& e) {
    // A stored value we cannot read: the database is input we do not trust.
    return absl::DataLossError(Message(context, "a stored value is unreadable", e));
  } catch (const std::exception& e) {
    return absl::InternalError(Message(context, "the database call failed", e));
  } catch (...) {
    return absl::InternalError(absl::StrCat(context, ": unknown exception"));
  }
}

bool IsConnectionLost(const absl::Status& status) { return absl::IsUnavailable(status); }

}  // namespace trix::pg
