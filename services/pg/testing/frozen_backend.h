// A frozen database server for one connection, as a primary that is SIGSTOPped or
// whose VM is paused looks to its clients: the kernel still acknowledges every
// packet, and no answer ever comes. Freeze() stops (SIGSTOP) the server process of
// the one idle connection to `database` named `application_name` in
// pg_stat_activity; the destructor lets it go on (SIGCONT) and waits until that
// process has ended or is idle again, so the test's database can be dropped.
//
//   absl::StatusOr<std::unique_ptr<FrozenBackend>> frozen =
//       FrozenBackend::Freeze(db_->admin_url(), db_->name(), "mamlaka matcher");
//   ASSERT_TRUE(frozen.ok()) << frozen.status();
//   ... the client's next statement waits; its StallLimit cuts it off ...
//
// Idle means no transaction open, so the frozen process holds no row or
// transaction lock (its session's advisory locks it keeps). The server must be
// one this test may signal (scripts/test.sh's, on this machine).
#ifndef TRIX_SERVICES_PG_TESTING_FROZEN_BACKEND_H_
#define TRIX_SERVICES_PG_TESTING_FROZEN_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace trix::pg {

class FrozenBackend {
 public:
  // DEADLINE_EXCEEDED if no such connection was idle within 20 s; the error of
  // kill(2) if the process may not be signalled.
  static absl::StatusOr<std::unique_ptr<FrozenBackend>> Freeze(
      const std::string& admin_url, const std::string& database,
      const std::string& application_name);
  ~FrozenBackend();
  FrozenBackend(const FrozenBackend&) = delete;
  FrozenBackend& operator=(const FrozenBackend&) = delete;


 private:
  FrozenBackend(std::string admin_url, int pid) : admin_url_(std::move(admin_url)), pid_(pid) {}

  std::string admin_url_;
  int pid_;
};

// How many connections to `database` named `application_name` the server has.
int ConnectionsNamed(const std::string& admin_url, const std::string& database,
                     const std::string& application_name);

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_TESTING_FROZEN_BACKEND_H_
