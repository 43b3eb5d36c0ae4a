#include "services/ratings/store_call.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/logging.h"

namespace trix::ratings {

absl::Status RunLogged(storage::ConnectionPool* pool, absl::string_view what,
                       absl::FunctionRef<absl::Status(pqxx::connection&)> work) {
  bool answered = false;  // `work` returned its own status
  const absl::Status s = pool->Run(what, [&](pqxx::connection& c) {
    absl::Status own = work(c);
    answered = true;
    return own;
  });
  if (s.ok() || answered) return s;
  const std::string error_id = service::NewUuid();
  service::LogError("database call failed",
                    {{"error_id", error_id}, {"call", std::string(what)}, {"error", s.ToString()}});
  return absl::Status(s.code(), absl::StrCat(what, " failed (error id ", error_id, ")"));
}

}  // namespace trix::ratings
