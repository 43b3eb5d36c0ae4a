// table-service: hosts Trix tables over gRPC (see server.h and table_host.h).
//
//   table-service --database_url=postgresql://... --service_credentials=FILE
//                 [--jwks_file=FILE --jwt_issuer=... --jwt_audience=...] [--listen=...]
//   table-service --migrate_only --database_url=...   # apply migrations and exit
//
// Every flag can also come from the environment (MAMLAKA_<FLAG>); --help lists them.
// Start-up: the server listens at once with health NOT_SERVING (and every call
// UNAVAILABLE) while it waits for the database, applies migrations, registers itself
// in the instance registry, and resumes its own previous run's tables and those whose
// lease lapsed; then it reports SERVING. SIGTERM or SIGINT drains it:
// NOT_SERVING, streams end UNAVAILABLE (clients resume elsewhere), leases are
// released, and it exits.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "services/common/auth.h"
#include "services/common/config.h"
#include "services/common/caller_flags.h"
#include "services/common/logging.h"
#include "services/common/heap_metrics.h"
#include "services/common/metrics.h"
#include "services/common/service_main.h"
#include "services/table/store/game_store.h"
#include "services/table/store/instance_registry.h"
#include "services/table/server.h"
#include "services/table/table_host.h"
#include "services/table/table_store.h"

namespace trix::table {
namespace {

// The service's own settings; everything else a flag sets lives in the options
// structs of the parts it configures, and their defaults are the flags' defaults.
struct Flags {
  std::string advertise_address;
  std::string read_database_url;
  std::string port_file;
  std::string instance_id;
  std::string migrations_dir = "migrations";
  bool migrate = true;
  bool migrate_only = false;
  service::MetricsFlags metrics;
  int stream_buffer = static_cast<int>(GrpcOptions().stream_buffer);
  int max_spectators = static_cast<int>(HostOptions().max_spectators_per_table);
  int max_watches_per_peer = static_cast<int>(GrpcOptions().max_watches_per_peer);
  int max_waiting_play_streams = static_cast<int>(GrpcOptions().max_waiting_play_streams);
  std::string log_level = "info";
  absl::Duration shutdown_grace = absl::Seconds(10);
  service::CallerFlags callers;
  table::StoreOptions store;
  HostOptions host;
  ServerOptions server;
};

// Long on purpose: one line per flag, read as the list of the service's flags.
void Bind(service::Config& c, Flags& f) {
  c.Bind("listen", &f.server.listen_address,
         "address:port for gRPC (port 0: any free port)");
  c.Bind("advertise_address", &f.advertise_address,
         "host:port clients dial to reach this instance, registered for LocateTable "
         "(default: the listen address with its bound port; the host name when it "
         "listens on all interfaces)");
  c.Bind("port_file", &f.port_file,
         "once listening, write the bound port to this file (for --listen=...:0)");
  c.Bind("database_url", &f.store.url, "PostgreSQL URL (required)");
  c.Bind("read_database_url", &f.read_database_url,
         "PostgreSQL URL of a standby for the game history (GetGameRecord, "
         "ListPlayerGames), which then lags by the standby's replay lag (empty: the "
         "primary, --database_url)");
  c.Bind("instance_id", &f.instance_id,
         "this instance's name for table leases (default: the host name, which is the "
         "pod name on Kubernetes); a restart with the same id resumes its tables");
  service::BindCallerFlags(c, &f.callers);
  c.Bind("migrations_dir", &f.migrations_dir, "folder of numbered SQL migrations");
  c.Bind("migrate", &f.migrate, "apply migrations at start-up");
  c.Bind("migrate_only", &f.migrate_only, "apply migrations and exit");
  c.Bind("lease_ttl", &f.host.lease_ttl,
         "how long this instance's lease, which holds all of its tables, lasts "
         "unrenewed (renewed every third of it)");
  c.Bind("default_contract_ms", &f.host.default_contract_ms, "contract clock default");
  c.Bind("default_doubling_ms", &f.host.default_doubling_ms, "doubling clock default");
  c.Bind("default_card_ms", &f.host.default_card_ms, "card clock default");
  service::BindMetricsFlags(c, &f.metrics);
  c.Bind("max_message_bytes", &f.server.max_receive_message_bytes,
         "largest request accepted");
  c.Bind("stream_buffer", &f.stream_buffer, "updates a slow stream may queue");
  c.Bind("subscribe_within", &f.server.grpc.subscribe_within,
         "time a Play stream has to send its first message (subscribe) before it is "
         "ended DEADLINE_EXCEEDED (0: no limit)");
  c.Bind("max_waiting_play_streams", &f.max_waiting_play_streams,
         "Play streams that may wait for their first message at once, over every "
         "connection; more end RESOURCE_EXHAUSTED (0: no limit)");
  c.Bind("max_spectators", &f.max_spectators,
         "Watch streams one table takes at most (0: no limit)");
  c.Bind("max_watches_per_peer", &f.max_watches_per_peer,
         "Watch streams one client address may hold open (0: no limit; those of a "
         "service credential with tables:watch are not counted)");
  c.Bind("seat_rate", &f.server.grpc.seat_rate.per_second,
         "requests per second per verified seat");
  c.Bind("seat_burst", &f.server.grpc.seat_rate.burst, "burst per verified seat");
  c.Bind("backend_rate", &f.server.grpc.backend_rate.per_second,
         "requests per second of each service credential");
  c.Bind("backend_burst", &f.server.grpc.backend_rate.burst,
         "burst of each service credential");
  c.Bind("peer_rate", &f.server.grpc.peer_rate.per_second,
         "requests per second per client address, for calls with no verified seat or "
         "service credential");
  c.Bind("peer_burst", &f.server.grpc.peer_rate.burst, "burst per client address");
  service::BindServerTlsFlags(c, &f.server.tls);
  service::BindServerLimitsFlags(c, &f.server.limits);
  c.Bind("public_player_history", &f.server.grpc.public_player_history,
         "list any player's tables and games to anyone (default: only to the backend "
         "and to the player)");
  c.Bind("workers", &f.host.worker_threads, "threads running table steps");
  c.Bind("io_threads", &f.host.io_threads, "threads for blocking database reads");
  c.Bind("one_callback_thread", &f.server.one_callback_thread,
         "leave gRPC one thread for polling and reactions instead of two (fewer "
         "wake-ups per action; docs/benchmarks.md)");
  c.Bind("db_connections", &f.store.connections, "database connection pool size");
  c.Bind("max_tables", &f.host.max_tables, "tables this instance hosts at most");
  c.Bind("claim_batch", &f.host.claim_batch,
         "lapsed tables claimed per maintenance round (every lease_ttl/3) at most");
  c.Bind("claim_room_share", &f.host.claim_room_share,
         "share of its free room (max_tables minus hosted) the first claim round after "
         "an instance died takes at once, if more than claim_batch (0 to 1)");
  c.Bind("load_wait", &f.host.load_wait,
         "how long a call for a table this instance claimed and is still loading "
         "waits for it before it is refused UNAVAILABLE (0: refused at once)");
  c.Bind("max_stake", &f.host.max_stake,
         "largest stake a seat may put up, in whole units");
  c.Bind("log_level", &f.log_level, "debug, info, warn, error");
  c.Bind("shutdown_grace", &f.shutdown_grace, "time calls in flight get at shutdown");
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "table-0";
  return name;
}

// The listen address with its bound port; a wildcard host becomes the host name.
std::string AdvertiseAddress(const std::string& listen, int port) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") {
    host = HostName();
  }
  return absl::StrCat(host, ":", port);
}

// Written whole (to a temporary, then renamed): a reader never sees half a port.
bool WritePortFile(const std::string& path, int port) {
  const std::string temporary = path + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "w");
  if (file == nullptr) return false;
  const bool written = std::fprintf(file, "%d\n", port) > 0;
  return std::fclose(file) == 0 && written &&
         std::rename(temporary.c_str(), path.c_str()) == 0;
}

// The games and the instance registry, both under this run's lease owner, and the
// games on a standby for the history reads (null: those read `games`).
struct Storage {
  std::unique_ptr<table::GameStore> games;
  std::unique_ptr<table::InstanceRegistry> registry;
  std::unique_ptr<table::GameStore> history;
};

// The history's store on --read_database_url, if set: the same pool size, never
// written to.
absl::StatusOr<std::unique_ptr<table::GameStore>> OpenHistory(const Flags& flags) {
  if (flags.read_database_url.empty()) return nullptr;
  table::StoreOptions options = flags.store;
  options.url = flags.read_database_url;
  return table::GameStore::Open(options);
}

// Opens the storage; on failure logs why and returns the exit code.
std::optional<int> OpenStorage(Flags& flags, const std::string& lease_owner,
                               Storage& out) {
  flags.store.instance_id = lease_owner;
  flags.store.lease_ttl = flags.host.lease_ttl;
  absl::StatusOr<std::unique_ptr<table::GameStore>> store =
      table::GameStore::Open(flags.store);
  if (!store.ok()) {
    service::LogError("cannot open the store", {{"error", store.status().ToString()}});
    return 1;
  }
  absl::StatusOr<std::unique_ptr<table::InstanceRegistry>> registry =
      table::InstanceRegistry::Open({.url = flags.store.url,
                                       .instance_id = lease_owner,
                                       .live_for = flags.host.lease_ttl});
  if (!registry.ok()) {
    service::LogError("cannot open the registry",
                      {{"error", registry.status().ToString()}});
    return 1;
  }
  absl::StatusOr<std::unique_ptr<table::GameStore>> history = OpenHistory(flags);
  if (!history.ok()) {
    service::LogError("cannot open the history's store (--read_database_url)",
                      {{"error", history.status().ToString()}});
    return 1;
  }
  out.games = *std::move(store);
  out.registry = *std::move(registry);
  out.history = *std::move(history);
  return std::nullopt;
}

// --migrate_only: applies the migrations and exits.
int MigrateOnly(const Flags& flags, table::GameStore& games) {
  absl::Status s = games.Migrate(flags.migrations_dir);
  if (!s.ok()) {
    service::LogError("migration failed", {{"error", s.ToString()}});
    return 1;
  }
  service::LogInfo("migrations applied", {{"dir", flags.migrations_dir}});
  return 0;
}

// Serves /metrics where the flags say; on failure logs why and returns the exit
// code.
std::optional<int> ServeMetrics(const Flags& flags,
                                std::unique_ptr<service::Metrics>& out) {
  absl::StatusOr<std::unique_ptr<service::Metrics>> metrics =
      service::StartMetrics(flags.metrics);
  if (!metrics.ok()) {
    service::LogError("cannot serve metrics", {{"error", metrics.status().ToString()}});
    return metrics.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  out = *std::move(metrics);
  out->Add(service::HeapMetrics());
  return std::nullopt;
}

// The service credentials and player tokens the flags name; on failure logs why
// and returns the exit code.
std::optional<int> LoadCallers(Flags& flags) {
  absl::StatusOr<service::Callers> callers = service::LoadCallers(flags.callers);
  if (!callers.ok()) {
    service::LogError("cannot check callers", {{"error", callers.status().ToString()}});
    return 2;
  }
  flags.server.grpc.credentials = callers->credentials;
  flags.server.grpc.player_tokens = callers->player_tokens;
  return std::nullopt;
}

// Hosts tables until SIGINT or SIGTERM, then drains.
int Serve(Flags& flags, const std::string& lease_owner, Storage& storage,
          service::Metrics& metrics, const service::StopSignals& signals) {
  std::unique_ptr<TableStore> tables = PostgresTableStore(
      storage.games.get(), storage.registry.get(), storage.history.get());
  flags.host.instance_id = lease_owner;
  flags.host.instance_name = flags.instance_id;
  flags.host.maintenance_every = flags.host.lease_ttl / 3;
  flags.host.max_spectators_per_table =
      static_cast<size_t>(std::max(0, flags.max_spectators));
  TableHost host(flags.host, tables.get(), &metrics.registry());

  flags.server.grpc.stream_buffer = static_cast<size_t>(flags.stream_buffer);
  flags.server.grpc.max_watches_per_peer =
      static_cast<size_t>(std::max(0, flags.max_watches_per_peer));
  flags.server.grpc.max_waiting_play_streams =
      static_cast<size_t>(std::max(0, flags.max_waiting_play_streams));
  absl::StatusOr<std::unique_ptr<TableServer>> server =
      TableServer::Start(flags.server, &host);
  if (!server.ok()) {
    service::LogError("cannot start the server", {{"error", server.status().ToString()}});
    return 1;
  }
  host.Advertise(flags.advertise_address.empty()
                     ? AdvertiseAddress(flags.server.listen_address, (*server)->port())
                     : flags.advertise_address);
  if (!flags.port_file.empty() && !WritePortFile(flags.port_file, (*server)->port())) {
    service::LogError("cannot write the port file", {{"path", flags.port_file}});
    return 1;
  }
  // Migrated, it resumes its previous run's tables and those whose lease lapsed
  // before it reports SERVING.
  TableServer& serving = **server;
  table::GameStore& games = *storage.games;
  return service::RunService(
      signals,
      {.migrate = flags.migrate ? std::function([&](const service::StopSignals& s) {
                                    return games.MigrateWithRetry(flags.migrations_dir, s);
                                  })
                                : nullptr,
       .ready = [&] { return host.Start(); },
       .serve = [&] { serving.SetServing(true); },
       .serving_log =
           [&] {
             return service::LogFields{{"port", serving.port()},
                                       {"instance", lease_owner},
                                       {"tables", static_cast<int64_t>(host.table_count())}};
           },
       .drain = [&] { serving.Shutdown(flags.shutdown_grace); }});
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("table-service", "MAMLAKA_");
  Bind(config, flags);
  if (std::optional<int> exit_code =
          service::ParseServiceFlags(config, argc, argv, flags.log_level)) {
    return *exit_code;
  }
  if (flags.instance_id.empty()) flags.instance_id = HostName();
  if (flags.store.url.empty()) {
    service::LogError("--database_url (MAMLAKA_DATABASE_URL) is required");
    return 2;
  }
  if (flags.host.claim_batch < 1) {
    service::LogError("--claim_batch must be at least 1");
    return 2;
  }
  if (flags.host.claim_room_share < 0 || flags.host.claim_room_share > 1) {
    service::LogError("--claim_room_share must be 0 to 1");
    return 2;
  }
  if (flags.host.load_wait < absl::ZeroDuration()) {
    service::LogError("--load_wait must not be negative");
    return 2;
  }
  service::LogInfo("starting", {{"config", config.Describe()}});
  service::WarnIfPlaintext(flags.server.tls);

  // Signals go to StopSignals, not to a random thread: blocked before any thread
  // starts.
  const service::StopSignals signals;

  // The lease owner is this run of the instance (see HostOptions::instance_id): a
  // restart under the same name resumes its old tables once their leases lapse.
  const std::string lease_owner =
      absl::StrCat(flags.instance_id, "#", absl::Hex(service::RandomUint64() >> 32));
  Storage storage;
  if (std::optional<int> failed = OpenStorage(flags, lease_owner, storage)) {
    return *failed;
  }
  if (flags.migrate_only) return MigrateOnly(flags, *storage.games);
  if (std::optional<int> failed = LoadCallers(flags)) return *failed;
  std::unique_ptr<service::Metrics> metrics;
  if (std::optional<int> failed = ServeMetrics(flags, metrics)) return *failed;
  // The threads' caches bounded and freed pages given back: the RSS follows the
  // heap in use (heap_metrics.h).
  const service::HeapReleaser heap_releaser;
  return Serve(flags, lease_owner, storage, *metrics, signals);
}

}  // namespace
}  // namespace trix::table

int main(int argc, char** argv) { return trix::table::Run(argc, argv); }
