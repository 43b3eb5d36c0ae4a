// A real streaming standby of a test database's server, for the read-replica
// tests: scripts/pg.sh standby (a base backup that streams from the primary, on a
// socket in its own folder), its URL for that database, SQL run on it (pausing and
// resuming replay), and stopping it; and a shell command run to its end.
//
//   absl::StatusOr<std::unique_ptr<Standby>> standby = Standby::Start(*db_);
//   (*standby)->Run("SELECT pg_wal_replay_pause()");
//   (*standby)->Stop();  // or when it is destroyed
#ifndef TRIX_TESTS_INTEGRATION_REPLICA_STANDBY_H_
#define TRIX_TESTS_INTEGRATION_REPLICA_STANDBY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/pg/testing/test_database.h"

namespace trix {

// Runs a shell command to its end: its wait status (pclose) and all it printed
// (with 2>&1 in `command`, its errors too). Status -1 if it could not be started.
struct CommandRun {
  int status = -1;
  std::string output;
};
CommandRun RunCommand(const std::string& command);

class Standby {
 public:
  static absl::StatusOr<std::unique_ptr<Standby>> Start(const pg::TestDatabase& db);
  ~Standby() { Stop(); }

  const std::string& url() const { return url_; }
  // Runs `sql` on the standby; throws what libpqxx throws.
  void Run(const std::string& sql) const;
  void Stop();

 private:
  Standby(std::string dir, std::string url) : dir_(std::move(dir)), url_(std::move(url)) {}

  std::string dir_;  // empty once stopped
  const std::string url_;
};

}  // namespace trix

#endif  // TRIX_TESTS_INTEGRATION_REPLICA_STANDBY_H_
