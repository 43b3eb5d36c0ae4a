// ratings-service: OpenSkill ratings, leaderboards and the stake ledger over gRPC,
// fed by the table service's outbox (see server.h, consumer.h, ledger.h).
//
//   ratings-service --database_url=postgresql://... --service_credentials=FILE
//                   [--jwks_file=FILE --jwt_issuer=... --jwt_audience=...] [--listen=...]
//   ratings-service --migrate_only --database_url=...   # apply migrations and exit
//
// Every flag can also come from the environment (MAMLAKA_<FLAG>); --help lists them.
// The server listens at once with health NOT_SERVING while it waits for the
// database and applies migrations; then it reports SERVING and starts consuming.
// SIGTERM or SIGINT: NOT_SERVING, the consumer stops between batches (a batch in
// flight commits or rolls back whole), calls in flight finish, and it exits.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/result.h"
#include "services/common/config.h"
#include "services/common/caller_flags.h"
#include "services/common/logging.h"
#include "services/common/heap_metrics.h"
#include "services/common/metrics.h"
#include "services/common/service_main.h"
#include "services/ratings/server.h"
#include "services/pg/connection_pool.h"
#include "services/pg/migrations.h"

namespace trix::ratings {
namespace {

// The flags are bound straight into the server's options, whose defaults they
// show; the rest are main's own.
struct Flags {
  ServerOptions server;
  service::CallerFlags callers;
  std::string migrations_dir = "migrations";
  bool migrate = true;
  bool migrate_only = false;
  service::MetricsFlags metrics{.port = 9465};
  std::string log_level = "info";
  absl::Duration shutdown_grace = absl::Seconds(5);
};

void Bind(service::Config& c, Flags& f) {
  c.Bind("listen", &f.server.listen_address, "address:port for gRPC");
  c.Bind("database_url", &f.server.database_url, "PostgreSQL URL (required)");
  c.Bind("read_database_url", &f.server.read_database_url,
         "PostgreSQL URL of a standby for the history reads (GetLeaderboard, "
         "GetRatingHistory, GetStatement), which then lag by the standby's replay lag: "
         "a game just rated or money just moved may be missing from them for that "
         "long (empty: the primary, --database_url; current ratings, balances and "
         "every write always use the primary)");
  service::BindCallerFlags(c, &f.callers);
  c.Bind("credential_rate", &f.server.access.credential_rate.per_second,
         "requests per second of each service credential");
  c.Bind("credential_burst", &f.server.access.credential_rate.burst, "burst of each credential");
  c.Bind("player_rate", &f.server.access.player_rate.per_second,
         "requests per second of each player (player tokens)");
  c.Bind("player_burst", &f.server.access.player_rate.burst, "burst of each player");
  c.Bind("peer_rate", &f.server.access.peer_rate.per_second,
         "requests per second per client address, for calls with no verified identity");
  c.Bind("peer_burst", &f.server.access.peer_rate.burst, "burst per client address");
  c.Bind("migrations_dir", &f.migrations_dir, "folder of numbered SQL migrations");
  c.Bind("migrate", &f.migrate, "apply migrations at start-up");
  c.Bind("migrate_only", &f.migrate_only, "apply migrations and exit");
  c.Bind("consume", &f.server.consume, "consume the outbox of finished games in this instance");
  service::BindMetricsFlags(c, &f.metrics);
  service::BindServerTlsFlags(c, &f.server.tls);
  service::BindServerLimitsFlags(c, &f.server.limits);
  c.Bind("db_connections", &f.server.db_connections, "database connection pool size (reads, ledger)");
  c.Bind("provisional_games", &f.server.provisional_games,
         "rated games in a mode before a player's rating is no longer provisional");
  c.Bind("batch_size", &f.server.consumer.batch_size, "finished games applied per consumer transaction");
  c.Bind("poll_interval", &f.server.consumer.poll_interval, "outbox polling when no notification wakes it");
  c.Bind("order_grace", &f.server.consumer.order_grace,
         "how long the consumer waits for a missing outbox id before skipping it");
  c.Bind("set_aside_retry", &f.server.consumer.set_aside_retry,
         "how often a settlement the database refused is tried again");
  c.Bind("max_transfer", &f.server.ledger.max_transfer,
         "largest credit or debit, in units (larger: INVALID_ARGUMENT)");
  c.Bind("max_balance", &f.server.ledger.max_balance,
         "largest balance a credit may bring an account to (beyond: FAILED_PRECONDITION)");
  c.Bind("held_hold_ttl", &f.server.ledger.held_ttl,
         "a held (queued ticket's) hold is released by the service this long after it was placed");
  c.Bind("attached_hold_ttl", &f.server.ledger.attached_ttl,
         "an attached hold is released by the service this long after it was attached");
  c.Bind("hold_sweep_interval", &f.server.hold_sweep_interval,
         "how often the service releases holds past their TTL and measures open holds");
  c.Bind("log_level", &f.log_level, "debug, info, warn, error");
  c.Bind("shutdown_grace", &f.shutdown_grace, "time calls in flight get at shutdown");
}

// Whether libpq can parse both database URLs (it would otherwise only say so when
// connecting, over and over).
absl::Status CheckDatabaseUrls(const Flags& flags) {
  const std::pair<const char*, const std::string*> urls[] = {
      {"--database_url", &flags.server.database_url},
      {"--read_database_url", &flags.server.read_database_url}};
  for (const auto& [flag, url] : urls) {
    if (url->empty()) continue;
    if (absl::StatusOr<std::string> checked = pg::ConnectionUrl(*url); !checked.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": ", checked.status().message()));
    }
  }
  return absl::OkStatus();
}

// The service credentials and player tokens the flags name, into flags.server.access.
absl::Status LoadCallers(Flags& flags) {
  absl::StatusOr<service::Callers> callers = service::LoadCallers(flags.callers);
  if (!callers.ok()) return callers.status();
  flags.server.access.credentials = callers->credentials;
  flags.server.access.player_tokens = callers->player_tokens;
  return absl::OkStatus();
}

// INVALID_ARGUMENT, saying which, for flags the service cannot start with.
absl::Status CheckFlags(const Flags& flags) {
  const ServerOptions& o = flags.server;
  if (o.database_url.empty()) {
    return absl::InvalidArgumentError("--database_url (MAMLAKA_DATABASE_URL) is required");
  }
  if (absl::Status s = CheckDatabaseUrls(flags); !s.ok()) return s;
  if (o.consumer.batch_size < 1 || o.provisional_games < 0 || o.db_connections < 1) {
    return absl::InvalidArgumentError(
        "--batch_size and --db_connections must be positive, --provisional_games not "
        "negative");
  }
  if (o.ledger.max_transfer < 1 || o.ledger.max_balance < o.ledger.max_transfer ||
      o.ledger.max_balance > engine::kMaxStake) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_transfer must be at least 1, --max_balance at least "
                     "--max_transfer and at most ",
                     engine::kMaxStake));
  }
  if (o.ledger.held_ttl <= absl::ZeroDuration() ||
      o.ledger.attached_ttl <= absl::ZeroDuration() ||
      o.hold_sweep_interval <= absl::ZeroDuration() ||
      o.consumer.set_aside_retry <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "--held_hold_ttl, --attached_hold_ttl, --hold_sweep_interval and --set_aside_retry "
        "must be positive");
  }
  return absl::OkStatus();
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("ratings-service", "MAMLAKA_");
  Bind(config, flags);
  if (std::optional<int> exit_code =
          service::ParseServiceFlags(config, argc, argv, flags.log_level)) {
    return *exit_code;
  }
  if (absl::Status s = CheckFlags(flags); !s.ok()) {
    service::LogError(std::string(s.message()));
    return 2;
  }
  service::LogInfo("starting", {{"config", config.Describe()}});
  service::WarnIfPlaintext(flags.server.tls);
  if (flags.migrate_only) {
    pg::ConnectionPool migrating(flags.server.database_url, 1, "ratings-service migrate");
    absl::Status s = pg::Migrate(migrating, flags.migrations_dir);
    if (!s.ok()) {
      service::LogError("migration failed", {{"error", s.ToString()}});
      return 1;
    }
    return 0;
  }
  if (absl::Status s = LoadCallers(flags); !s.ok()) {
    service::LogError("cannot check callers", {{"error", s.ToString()}});
    return 2;
  }
  const service::StopSignals signals;

  absl::StatusOr<std::unique_ptr<service::Metrics>> metrics =
      service::StartMetrics(flags.metrics);
  if (!metrics.ok()) {
    service::LogError("cannot serve metrics", {{"error", metrics.status().ToString()}});
    return metrics.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  (*metrics)->Add(service::HeapMetrics());
  // The threads' caches bounded and freed pages given back: the RSS follows the
  // heap in use (heap_metrics.h).
  const service::HeapReleaser heap_releaser;
  absl::StatusOr<std::unique_ptr<RatingsServer>> server =
      RatingsServer::Start(flags.server, &(*metrics)->registry());
  if (!server.ok()) {
    service::LogError("cannot start the server", {{"error", server.status().ToString()}});
    return 1;
  }
  RatingsServer& serving = **server;
  return service::RunService(
      signals,
      {.migrate = flags.migrate ? std::function([&](const service::StopSignals& s) {
                                    return pg::MigrateWithRetry(
                                        flags.server.database_url, flags.migrations_dir,
                                        "ratings-service migrate", s);
                                  })
                                : nullptr,
       .serve = [&] { serving.SetReady(); },
       .serving_log = [&] { return service::LogFields{{"port", serving.port()}}; },
       .drain = [&] { serving.Shutdown(flags.shutdown_grace); }});
}

}  // namespace
}  // namespace trix::ratings

int main(int argc, char** argv) { return trix::ratings::Run(argc, argv); }
