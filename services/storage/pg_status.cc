#include "services/storage/pg_status.h"

#include <exception>
#include <pqxx/except>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trix::storage {
namespace {

// SQLSTATE classes that mean the session is gone even when libpq still reported a
// server error rather than a dead socket: 08 connection exception, 57P01..57P03
// admin shutdown / crash shutdown / cannot connect now (pg_terminate_backend sends
// 57P01).
bool IsConnectionSqlState(absl::string_view state) {
  return absl::StartsWith(state, "08") || absl::StartsWith(state, "57P");
}

std::string Message(absl::string_view context, const std::exception& e) {
  // Server messages end in a newline and sometimes carry a second line.
  std::string what = e.what();
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  return absl::StrCat(context, ": ", what);
}

absl::Status FromSqlState(absl::string_view context, const pqxx::sql_error& e) {
  const std::string& state = e.sqlstate();
  const std::string message = Message(context, e);
  if (IsConnectionSqlState(state)) return absl::UnavailableError(message);
  if (state == "23505") return absl::AlreadyExistsError(message);
  if (absl::StartsWith(state, "23") || absl::StartsWith(state, "22")) {
    return absl::InvalidArgumentError(message);
  }
  if (absl::StartsWith(state, "40")) return absl::AbortedError(message);
  if (state == "42P01" || state == "42703") {
    return absl::FailedPreconditionError(
        absl::StrCat(message, " (are the migrations applied?)"));
  }
  if (absl::StartsWith(state, "53")) return absl::ResourceExhaustedError(message);
  if (state == "57014") return absl::DeadlineExceededError(message);  // cancelled
  return absl::InternalError(message);
}

}  // namespace

absl::Status StatusFromException(absl::string_view context) {
  try {
    throw;
  } catch (const pqxx::in_doubt_error& e) {
    return absl::UnavailableError(
        absl::StrCat(Message(context, e), " (the commit's outcome is unknown)"));
  } catch (const pqxx::broken_connection& e) {
    return absl::UnavailableError(Message(context, e));
  } catch (const pqxx::statement_completion_unknown& e) {
    return absl::UnavailableError(Message(context, e));
  } catch (const pqxx::sql_error& e) {
    return FromSqlState(context, e);
  } catch (const pqxx::conversion_error& e) {
    // A stored value we cannot read: the database is input we do not trust.
    return absl::DataLossError(Message(context, e));
  } catch (const std::exception& e) {
    return absl::InternalError(Message(context, e));
  } catch (...) {
    return absl::InternalError(absl::StrCat(context, ": unknown exception"));
  }
}

bool IsConnectionLost(const absl::Status& status) { return absl::IsUnavailable(status); }

}  // namespace trix::storage
