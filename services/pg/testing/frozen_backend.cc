#include "services/pg/testing/frozen_backend.h"

#include <signal.h>

#include <cerrno>
#include <pqxx/pqxx>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trix::pg {
namespace {

// The state pg_stat_activity shows for `pid` ("" once it has ended).
std::string State(const std::string& admin_url, int pid) {
  pqxx::connection c(admin_url);
  pqxx::nontransaction tx(c);
  const pqxx::result r =
      tx.exec_params("SELECT COALESCE(state, '') FROM pg_stat_activity WHERE pid = $1", pid);
  return r.empty() ? "" : r[0][0].as<std::string>();
}

}  // namespace

absl::StatusOr<std::unique_ptr<FrozenBackend>> FrozenBackend::Freeze(
    const std::string& admin_url, const std::string& database,
    const std::string& application_name) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  for (; absl::Now() < deadline; absl::SleepFor(absl::Milliseconds(20))) {
    pqxx::connection c(admin_url);
    pqxx::nontransaction tx(c);
    const pqxx::result r = tx.exec_params(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 "
        "AND state = 'idle'",
        database, application_name);
    if (r.size() != 1) continue;
    const int pid = r[0][0].as<int>();
    if (kill(pid, SIGSTOP) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("SIGSTOP of server process ", pid));
    }
    auto frozen = std::unique_ptr<FrozenBackend>(new FrozenBackend(admin_url, pid));
    // Stopped while still idle: it began nothing it could hold a lock for.
    if (State(admin_url, pid) == "idle") return frozen;
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "no idle connection named \"", application_name, "\" to ", database, " within 20 s"));
}

FrozenBackend::~FrozenBackend() {
  kill(pid_, SIGCONT);
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline) {
    const std::string state = State(admin_url_, pid_);
    if (state.empty() || state == "idle") return;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

int ConnectionsNamed(const std::string& admin_url, const std::string& database,
                     const std::string& application_name) {
  pqxx::connection c(admin_url);
  pqxx::nontransaction tx(c);
  return tx
      .exec_params1("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 "
                    "AND application_name = $2",
                    database, application_name)[0]
      .as<int>();
}

}  // namespace trix::pg
