// A small pool of PostgreSQL connections for the store's short calls (create, load,
// leases, listings), so concurrent callers neither share one connection nor open a
// new one per call.
//
// Connections open lazily, up to `size`; a caller waits when all are in use. A call
// runs a function on one connection, cut off if it takes longer than kStallLimit
// (StallLimit); whatever it throws is caught here and mapped
// to an absl::Status (pg_status.h). A connection that broke is dropped, so the call
// that saw the failure returns UNAVAILABLE and the next call opens a fresh one:
// the pool heals itself once the server is back, without a retry that might run a
// write twice.
//
//   ConnectionPool pool(url, 4, "mamlaka table-1");
//   absl::Status s = pool.Run("renewing leases", [&](pqxx::connection& c) {
//     pqxx::work tx(c);
//     tx.exec_params0("UPDATE ...", ...);
//     tx.commit();
//     return absl::OkStatus();
//   });
#ifndef TRIX_SERVICES_PG_CONNECTION_POOL_H_
#define TRIX_SERVICES_PG_CONNECTION_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <pqxx/connection>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "services/pg/dedicated_connection.h"

namespace trix::pg {

// `url` checked by libpq (INVALID_ARGUMENT if it cannot parse it; it would
// otherwise only say so when connecting), plus the defaults a long-running service
// needs unless the URL sets them: connect_timeout=3 (connecting to a host that
// does not answer would otherwise wait minutes; with several hosts, each attempt
// at each), tcp_user_timeout=5000 (data sent and not acknowledged for 5 s, a
// host that vanished mid-call, breaks the connection) and TCP keepalives (idle
// 10 s, every 3 s, 3 probes: an idle connection to a vanished host is dropped
// within 20 s). A server that is frozen while its host's kernel still answers TCP
// escapes all of these: StallLimit bounds that wait.
absl::StatusOr<std::string> ConnectionUrl(const std::string& url);

// How long the pool's calls and the table service's log writes may wait for the
// server's answer before their connection is cut (StallLimit). Longer than any of
// them takes on a working server, shorter than Patroni's and CloudNativePG's
// failover of a frozen primary (about 20-30 s), so that a call given up on
// reconnects and finds the new primary as soon as there is one.
inline constexpr absl::Duration kStallLimit = absl::Seconds(8);

// While it lives, cuts `connection` off (shuts its socket down) once `limit` has
// passed: libpq waits for an answer forever, and a frozen server (SIGSTOP, a
// paused VM) never sends one while its kernel acknowledges every packet, so that
// neither keepalives nor tcp_user_timeout end the wait. The call in flight then
// fails as a lost connection (UNAVAILABLE), its outcome in doubt if it was a
// commit: the caller must not acknowledge it, and must find out what landed (the
// log writer's probe) or retry only what is idempotent.
//
//   const StallLimit limit(connection, kStallLimit);
//   tx.exec_prepared(...);
class StallLimit {
 public:
  StallLimit(const pqxx::connection_base& connection, absl::Duration limit);
  ~StallLimit();
  StallLimit(const StallLimit&) = delete;
  StallLimit& operator=(const StallLimit&) = delete;

 private:
  uint64_t id_ = 0;  // 0: the connection has no socket
};

// Opens a connection to `url`, with ConnectionUrl's defaults, that stays broken
// once it breaks (libpqxx 6 would otherwise reconnect behind our back and lose
// prepared statements and session state mid-transaction), tagged with `application_name` for pg_stat_activity,
// with its transactions bounded: idle in a transaction 2 s, waiting on a lock 2 s,
// one statement 30 s (a frozen process's row locks are released within a lease).
// Throws what libpqxx throws.
std::unique_ptr<pqxx::connection> Connect(const std::string& url,
                                          const std::string& application_name);

class ConnectionPool {
 public:
  ConnectionPool(std::string url, int size, std::string application_name);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Runs `work` on a pooled connection and returns its status, or the mapped
  // exception prefixed by `context`.
  absl::Status Run(absl::string_view context,
                   absl::FunctionRef<absl::Status(pqxx::connection&)> work);

  // Connections currently open (idle or in use), for tests.
  int open_connections() const;

 private:
  std::unique_ptr<pqxx::connection> Acquire(bool* must_open);
  void Release(std::unique_ptr<pqxx::connection> connection);

  const int size_;
  // Connect(), unless a recent attempt failed (then broken_connection at once): a
  // database that is down is not dialled once per request.
  Dialer dialer_;

  mutable std::mutex mu_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
  int open_ = 0;  // idle + in use + being opened
};

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_CONNECTION_POOL_H_
