// What every service's main does around its own work, written once: parse the
// flags and start logging, block the stop signals (SIGINT, SIGTERM) before any
// thread starts, and then one life for all three services (RunService): listen
// with health NOT_SERVING, migrate with retry, start, SERVING, drain.
//
//   Flags flags;
//   service::Config config("ratings-service", "MAMLAKA_");
//   Bind(config, flags);
//   if (std::optional<int> exit_code =
//           service::ParseServiceFlags(config, argc, argv, flags.log_level)) {
//     return *exit_code;  // --help, or a bad flag (already reported)
//   }
//   service::StopSignals signals;  // before any thread starts
//   ...                            // start the server: listening, NOT_SERVING
//   return service::RunService(signals, {
//       .migrate = [&](const service::StopSignals& s) { return Migrate(flags, s); },
//       .serve = [&] { server->SetReady(); },
//       .serving_log = [&] { return service::LogFields{{"port", server->port()}}; },
//       .drain = [&] { server->Shutdown(flags.shutdown_grace); }});
#ifndef TRIX_SERVICES_COMMON_SERVICE_MAIN_H_
#define TRIX_SERVICES_COMMON_SERVICE_MAIN_H_

#include <signal.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/config.h"
#include "services/common/logging.h"
#include "services/common/metrics.h"
#include "services/common/server_limits.h"
#include "services/common/tls.h"

namespace trix::service {

// The start of a service's main: turns Abseil's mutex deadlock detection off (see
// the .cc), parses the flags bound to `config` and starts the JSON logs at
// `log_level`, a bound flag read once the flags are parsed. Returns the exit code
// when main should return at once (--help: 0; a bad flag: 2).
std::optional<int> ParseServiceFlags(Config& config, int argc, const char* const* argv,
                                     const std::string& log_level);

// Where /metrics listens: --metrics_address ("host:port", port -1: nowhere) when
// set, else --metrics_port on every interface (0.0.0.0, which a Prometheus that
// scrapes pod addresses needs).
struct MetricsFlags {
  int port = 9464;
  std::string address;
};
void BindMetricsFlags(Config& config, MetricsFlags* flags);
// Serves /metrics where `flags` say and logs "serving metrics" with the port;
// INVALID_ARGUMENT for a bad address, UNAVAILABLE when it cannot be bound.
absl::StatusOr<std::unique_ptr<Metrics>> StartMetrics(const MetricsFlags& flags);

// The TLS flags, with the same names and help in every program: a server's
// (--tls_cert, --tls_key, --tls_client_ca, --tls_refresh) and a client's (--tls,
// --tls_ca, --tls_client_cert, --tls_client_key), see tls.h.
void BindServerTlsFlags(Config& config, ServerTls* tls);
// Logs a warning naming the flags when `tls` serves plaintext (and does not
// require TLS, which ServerCredentials refuses).
void WarnIfPlaintext(const ServerTls& tls);
void BindChannelTlsFlags(Config& config, ChannelTls* tls);
// The server bounds (server_limits.h), the same flags in every service:
// --grpc_memory_quota_mib and --max_streams_per_connection.
void BindServerLimitsFlags(Config& config, ServerLimits* limits);
// The same client settings as the environment of a program whose flags read
// `prefix` (e.g. "TRIX_BOT_" for the trix-bot processes a demo starts); empty when
// TLS is off.
std::vector<std::pair<std::string, std::string>> ChannelTlsEnvironment(
    const ChannelTls& tls, const std::string& prefix);

// SIGINT and SIGTERM, blocked in the thread that makes this and so in every thread
// it starts afterwards: they reach the process only through Wait. Make it before
// any thread starts.
class StopSignals {
 public:
  StopSignals();

  // True when a stop signal came within `timeout`.
  bool Wait(absl::Duration timeout) const;

  // Calls `attempt` until it succeeds or fails with an error `retry` refuses (every
  // error is retried when `retry` is empty), logging each retried error as
  // "waiting for the database" and waiting 2 s before the next attempt. Returns OK,
  // the refused error, or CANCELLED when a stop signal came first.
  absl::Status RetryUntilReady(
      const std::function<absl::Status()>& attempt,
      const std::function<bool(const absl::Status&)>& retry = nullptr) const;

  // Waits for a stop signal, then logs "draining", calls `drain` and logs
  // "stopped". Returns 0, main's exit code.
  int ServeUntilStopped(const std::function<void()>& drain) const;

 private:
  sigset_t signals_;
};

// A service's life once it listens with health NOT_SERVING, the same for every
// service: `migrate` (which retries while the database does not answer, e.g.
// pg::MigrateWithRetry), then `ready` until it succeeds (retried every 2 s:
// what must hold before SERVING, such as resuming the instance's tables), then
// `serve` (SERVING) and the "serving" log line with `serving_log`'s fields (tests
// and scripts read the port there); then it waits for a stop signal, logs
// "draining", calls `drain` and logs "stopped". A stop signal before SERVING drains
// at once. Empty `migrate` or `ready`: no such step.
struct ServiceLife {
  std::function<absl::Status(const StopSignals&)> migrate;
  std::function<absl::Status()> ready;
  std::function<void()> serve;
  std::function<LogFields()> serving_log;
  std::function<void()> drain;
};
// Returns main's exit code: 0 after a stop signal, 1 when the migrations cannot
// apply (logged as "migration failed").
int RunService(const StopSignals& signals, const ServiceLife& life);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_SERVICE_MAIN_H_
