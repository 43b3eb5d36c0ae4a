#include "services/common/service_main.h"

#include <pthread.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "services/common/logging.h"

namespace trix::service {

std::optional<int> ParseServiceFlags(Config& config, int argc, const char* const* argv,
                                     const std::string& log_level) {
  // Debian's Abseil is built without NDEBUG, which leaves deadlock detection on in
  // every absl::Mutex, gRPC's included: a lock-graph update under one process-wide
  // lock on every acquisition, measured at a fifth of the table service's CPU under
  // load (docs/experiments/2026-11-29-table-service-rate-sweep.md, "History"). Lock
  // order is checked by the tests, not in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::optional<int> exit_code = config.ParseCommandLine(argc, argv);
  if (exit_code) return exit_code;
  InitLogging(config.program(), log_level);
  return std::nullopt;
}

void BindMetricsFlags(Config& config, MetricsFlags* flags) {
  config.Bind("metrics_port", &flags->port,
              "Prometheus /metrics port on 0.0.0.0; -1 turns it off");
  config.Bind("metrics_address", &flags->address,
              "host:port for Prometheus /metrics (e.g. 127.0.0.1:9464; port -1: none); "
              "when set, replaces --metrics_port");
}

absl::StatusOr<std::unique_ptr<Metrics>> StartMetrics(const MetricsFlags& flags) {
  absl::StatusOr<std::pair<std::string, int>> at =
      flags.address.empty() ? std::make_pair(std::string("0.0.0.0"), flags.port)
                            : ParseMetricsAddress(flags.address);
  if (!at.ok()) return at.status();
  absl::StatusOr<std::unique_ptr<Metrics>> metrics = Metrics::Start(at->first, at->second);
  if (metrics.ok() && (*metrics)->port() >= 0) {
    LogInfo("serving metrics", {{"address", at->first},
                                {"port", static_cast<int64_t>((*metrics)->port())}});
  }
  return metrics;
}

void BindServerTlsFlags(Config& config, ServerTls* tls) {
  config.Bind("tls_cert", &tls->cert_file,
              "PEM certificate chain for TLS on --listen (with --tls_key; plaintext "
              "when both are empty)");
  config.Bind("tls_key", &tls->key_file, "PEM private key of --tls_cert");
  config.Bind("tls_client_ca", &tls->client_ca_file,
              "PEM CA bundle: when set, every client must present a certificate it "
              "signed (mutual TLS)");
  config.Bind("tls_refresh", &tls->refresh,
              "how often the TLS files are re-read (a renewed certificate is used "
              "without a restart)");
  config.Bind("require_tls", &tls->require,
              "refuse to start without --tls_cert and --tls_key instead of serving "
              "plaintext");
  config.Bind("health_address", &tls->health_address,
              "host:port of a plaintext port serving grpc.health.v1.Health/Check only, "
              "with --listen's answer, for probes that cannot speak TLS (empty: none)");
}

void WarnIfPlaintext(const ServerTls& tls) {
  if (!tls.cert_file.empty() || !tls.key_file.empty() || tls.require) return;
  LogWarn(
      "serving plaintext: no --tls_cert and --tls_key, so every call, token and card "
      "crosses the network unencrypted; set them, and --require_tls to refuse to start "
      "without them");
}

void BindServerLimitsFlags(Config& config, ServerLimits* limits) {
  config.Bind("grpc_memory_quota_mib", &limits->memory_quota_mib,
              "memory gRPC may take for this server's connections and calls, in MiB "
              "(0: no quota)");
  config.Bind("max_streams_per_connection", &limits->max_streams_per_connection,
              "calls one client connection may have open at once; more wait in the "
              "client (0: no limit)");
}

void BindChannelTlsFlags(Config& config, ChannelTls* tls) {
  config.Bind("tls", &tls->enabled,
              "dial the services over TLS (on by itself when any --tls_ca or "
              "--tls_client_* flag is set)");
  config.Bind("tls_ca", &tls->ca_file,
              "PEM CA bundle the services' certificates must chain to (default: the "
              "system's roots)");
  config.Bind("tls_client_cert", &tls->client_cert_file,
              "PEM certificate to present to services that require one (mutual TLS)");
  config.Bind("tls_client_key", &tls->client_key_file, "PEM private key of --tls_client_cert");
}

std::vector<std::pair<std::string, std::string>> ChannelTlsEnvironment(
    const ChannelTls& tls, const std::string& prefix) {
  if (!tls.on()) return {};
  return {{prefix + "TLS", "true"},
          {prefix + "TLS_CA", tls.ca_file},
          {prefix + "TLS_CLIENT_CERT", tls.client_cert_file},
          {prefix + "TLS_CLIENT_KEY", tls.client_key_file}};
}

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

bool StopSignals::Wait(absl::Duration timeout) const {
  const timespec ts = absl::ToTimespec(timeout);
  return sigtimedwait(&signals_, nullptr, &ts) > 0;
}

absl::Status StopSignals::RetryUntilReady(
    const std::function<absl::Status()>& attempt,
    const std::function<bool(const absl::Status&)>& retry) const {
  for (;;) {
    absl::Status s = attempt();
    if (s.ok() || (retry && !retry(s))) return s;
    LogWarn("waiting for the database", {{"error", s.ToString()}});
    if (Wait(absl::Seconds(2))) return absl::CancelledError("stopped while waiting");
  }
}

int StopSignals::ServeUntilStopped(const std::function<void()>& drain) const {
  while (!Wait(absl::Hours(1))) {
  }
  LogInfo("draining");
  drain();
  LogInfo("stopped");
  return 0;
}

int RunService(const StopSignals& signals, const ServiceLife& life) {
  if (life.migrate) {
    const absl::Status migrated = life.migrate(signals);
    if (!migrated.ok()) {
      if (!absl::IsCancelled(migrated)) {
        LogError("migration failed", {{"error", migrated.ToString()}});
      }
      life.drain();
      return absl::IsCancelled(migrated) ? 0 : 1;
    }
  }
  if (life.ready && !signals.RetryUntilReady(life.ready).ok()) {  // stopped first
    life.drain();
    return 0;
  }
  life.serve();
  LogInfo("serving", life.serving_log());
  return signals.ServeUntilStopped(life.drain);
}

}  // namespace trix::service
