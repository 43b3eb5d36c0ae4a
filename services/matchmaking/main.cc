// matchmaking-service: from "I want to play" to a seat (see server.h, lobby.h,
// matcher.h and proto/trix/v1/matchmaking.proto).
//
//   matchmaking-service --database_url=postgresql://... --service_credentials=FILE
//       --credential_file=FILE [--ratings_address=host:port] [--table_address=...]
//       [--jwks_file=FILE --jwt_issuer=... --jwt_audience=...]
//
// Every flag can also come from the environment (MAMLAKA_<FLAG>); --help lists them.
// Start-up listens with health NOT_SERVING (every call UNAVAILABLE), applies the
// migrations (advisory-locked), then starts matching and reports SERVING. SIGTERM or
// SIGINT drains: NOT_SERVING, streams end UNAVAILABLE (clients resubmit; tickets
// and assignments are kept in PostgreSQL), the pools pass to other replicas.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "services/common/config.h"
#include "services/common/caller_flags.h"
#include "services/common/credentials.h"
#include "services/common/logging.h"
#include "services/common/heap_metrics.h"
#include "services/common/metrics.h"
#include "services/common/service_main.h"
#include "services/matchmaking/server.h"
#include "services/pg/migrations.h"

namespace trix::matchmaking {
namespace {

// The flags are bound straight into the server's config, whose defaults they
// show; the rest are main's own.
struct Flags {
  MatchmakingConfig server;
  service::CallerFlags callers;
  std::string credential_file;
  std::string table_credential_file;
  std::string migrations_dir = "migrations";
  std::string stake_levels;
  int card_ms = 0;
  service::MetricsFlags metrics;
  std::string log_level = "info";
  absl::Duration shutdown_grace = absl::Seconds(5);
  std::string seat_token_key_file;
  int stream_buffer = static_cast<int>(GrpcOptions().stream_buffer);
  int max_admissions = static_cast<int>(LobbyOptions().max_admissions);
};

// The doors' quotas (services/matchmaking/README.md, "Bounds").
void BindQuotas(service::Config& c, Flags& f) {
  c.Bind("player_rate", &f.server.grpc.player_rate.per_second,
         "calls per second per player (token) or bot account");
  c.Bind("player_burst", &f.server.grpc.player_rate.burst, "burst per player or bot account");
  c.Bind("backend_rate", &f.server.grpc.backend_rate.per_second,
         "calls per second per service credential");
  c.Bind("backend_burst", &f.server.grpc.backend_rate.burst, "burst per service credential");
  c.Bind("peer_rate", &f.server.grpc.peer_rate.per_second,
         "calls per second per client address, for callers not verified (and every "
         "ServeBot before its key is looked up)");
  c.Bind("peer_burst", &f.server.grpc.peer_rate.burst, "burst per client address");
  c.Bind("bot_stream_capacity", &f.server.grpc.max_bot_capacity,
         "most tables one ServeBot stream may offer");
  c.Bind("bot_max_streams", &f.server.bot_quota.max_streams,
         "ServeBot streams one bot account may hold open on a replica");
  c.Bind("bot_max_capacity", &f.server.bot_quota.max_capacity,
         "tables one bot account's streams may offer together on a replica");
  c.Bind("stream_buffer", &f.stream_buffer,
         "messages a stream holds for a slow client before it ends RESOURCE_EXHAUSTED");
  c.Bind("max_admissions", &f.max_admissions,
         "FindTable requests waiting to be queued before more are RESOURCE_EXHAUSTED");
}

// Long on purpose: one line per flag, read as the list of the service's flags.
void Bind(service::Config& c, Flags& f) {
  c.Bind("listen", &f.server.listen_address, "address:port for gRPC");
  c.Bind("database_url", &f.server.database_url, "PostgreSQL URL (required)");
  service::BindCallerFlags(c, &f.callers);
  c.Bind("credential_file", &f.credential_file,
         "file with matchmaking's own credential token, presented to the ratings "
         "service (and to the table instances without --table_credential_file; "
         "default: the legacy --service_token)");
  c.Bind("table_credential_file", &f.table_credential_file,
         "file with the credential token presented to the table instances "
         "(tables:create tables:void), so that none of them sees the ratings one");
  c.Bind("ratings_address", &f.server.ratings_address,
         "ratings service host:port; empty: default ratings and no staked play");
  c.Bind("table_address", &f.server.placement.fallback_address,
         "a table service to use when no registered instance has room");
  c.Bind("migrations_dir", &f.migrations_dir, "folder of numbered SQL migrations");
  c.Bind("stake_levels", &f.stake_levels, "comma-separated stake levels, e.g. 10,100");
  c.Bind("bot_fill_wait", &f.server.pool.bot_fill_wait, "wait before empty seats go to bots");
  c.Bind("window_initial", &f.server.pool.curve.initial, "rating window at first");
  c.Bind("window_per_second", &f.server.pool.curve.per_second, "rating window growth per second");
  c.Bind("window_max", &f.server.pool.curve.max, "widest rating window");
  c.Bind("provisional_slack", &f.server.pool.provisional_slack,
         "rating distance forgiven when a provisional player is involved");
  c.Bind("default_rating", &f.server.default_rating, "rating without a ratings service");
  c.Bind("tick", &f.server.tick, "how often the matcher groups its pools");
  c.Bind("stage_log_every", &f.server.stage_log_every,
         "log where placed tables' time went this often (0: never)");
  c.Bind("lease_retry", &f.server.lease_retry, "how often unmatched pools are claimed");
  c.Bind("pool_full_read_every", &f.server.pool_full_read_every,
         "how often a leased pool's waiting tickets are read whole, which drops those "
         "cancelled on other replicas (in between, only newly queued ones are read)");
  c.Bind("poll_every", &f.server.poll_every, "how often open streams' tickets are checked");
  c.Bind("keep_alive_every", &f.server.keep_alive_every, "bot stream keep-alive period");
  c.Bind("keep_ended", &f.server.keep_ended,
         "ended tickets, finished assignments and expired parties are deleted this long "
         "after");
  c.Bind("reconcile_every", &f.server.reconcile_every,
         "how often staked seats are checked against their tables: holds of live games "
         "attached, of games over, voided or gone released");
  c.Bind("ratings_call_timeout", &f.server.ratings_call_timeout,
         "how long a call to the ratings service (a stake's hold, a rating) may take");
  c.Bind("keep_holds_every", &f.server.keep_holds_every,
         "how often the stake holds of waiting tickets are kept; well within the ratings "
         "service's --held_hold_ttl (a ticket whose hold is gone ends)");
  c.Bind("give_up_placing", &f.server.give_up_placing,
         "how long an unanswered CreateTable is asked again before its tickets go back "
         "to the queue and its table, if made, is voided");
  c.Bind("hold_admission_grace", &f.server.hold_admission_grace,
         "a stake held for a ticket that is not queued within this long (the process "
         "died, the answer was lost) is released");
  c.Bind("instance_stale_after", &f.server.placement.stale_after,
         "a table instance whose heartbeat is older is not used");
  c.Bind("card_ms", &f.card_ms, "clocks of created tables (all three); 0: the table's");
  c.Bind("db_connections", &f.server.db_connections, "database connection pool size");
  c.Bind("room_code_ttl", &f.server.rooms.code_ttl, "how long a room's invite code joins");
  c.Bind("room_idle_ttl", &f.server.rooms.idle_ttl,
         "a room nobody is in is deleted after this long");
  c.Bind("room_resume_after", &f.server.rooms.resume_after,
         "a room's start left unfinished this long (its process died, the table's "
         "answer was lost) is finished by the keeper");
  service::BindMetricsFlags(c, &f.metrics);
  service::BindServerTlsFlags(c, &f.server.tls);
  service::BindServerLimitsFlags(c, &f.server.limits);
  // How matchmaking dials the table instances and the ratings service.
  service::BindChannelTlsFlags(c, &f.server.dial);
  c.Bind("log_level", &f.log_level, "debug, info, warn, error");
  c.Bind("shutdown_grace", &f.shutdown_grace, "time calls in flight get at shutdown");
  c.Bind("seat_token_key_file", &f.seat_token_key_file,
         "file with the key seat tokens are derived from (HMAC-SHA256; every replica "
         "the same); empty: derived from matchmaking's credential token");
  BindQuotas(c, f);
}

// Whom matchmaking trusts (credentials, player tokens) and the token it presents.
absl::Status LoadAuth(const Flags& flags, MatchmakingConfig& mc) {
  absl::StatusOr<service::Callers> callers = service::LoadCallers(flags.callers);
  if (!callers.ok()) return callers.status();
  mc.auth = {.credentials = callers->credentials, .player_tokens = callers->player_tokens};
  mc.credential_token = flags.callers.legacy_token;
  if (!flags.credential_file.empty()) {
    absl::StatusOr<std::string> token = service::ReadCredentialToken(flags.credential_file);
    if (!token.ok()) return token.status();
    mc.credential_token = *token;
  }
  if (mc.credential_token.empty()) {
    return absl::InvalidArgumentError("--credential_file (MAMLAKA_CREDENTIAL_FILE) is required");
  }
  if (!flags.table_credential_file.empty()) {
    absl::StatusOr<std::string> token = service::ReadCredentialToken(flags.table_credential_file);
    if (!token.ok()) return token.status();
    mc.table_credential_token = *token;
  } else if (!mc.ratings_address.empty()) {
    service::LogWarn(
        "no --table_credential_file: every table instance is shown the credential "
        "presented to the ratings service, which can hold players' stakes");
  }
  if (flags.seat_token_key_file.empty()) {
    service::LogWarn("no --seat_token_key_file: seat tokens are derived from the credential");
    mc.seat_token_key = "mamlaka seat tokens:" + mc.credential_token;
    return absl::OkStatus();
  }
  std::ifstream in(flags.seat_token_key_file);
  std::stringstream key;
  key << in.rdbuf();
  mc.seat_token_key = key.str();
  // A key file usually ends with a newline that is not part of the key.
  while (!mc.seat_token_key.empty() && mc.seat_token_key.back() == '\n') {
    mc.seat_token_key.pop_back();
  }
  if (!in || mc.seat_token_key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read --seat_token_key_file ", flags.seat_token_key_file));
  }
  return absl::OkStatus();
}

// What the flags say beyond the fields bound in flags.server: the stake levels,
// the bounds given as ints, the bot seats' rating and the created tables' clocks.
absl::Status FinishConfig(Flags& flags) {
  MatchmakingConfig& mc = flags.server;
  for (absl::string_view level : absl::StrSplit(flags.stake_levels, ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(level, &v) || v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--stake_levels must be positive integers, not \"", level, "\""));
    }
    mc.stake_levels.push_back(v);
  }
  mc.grpc.stream_buffer = static_cast<size_t>(std::max(1, flags.stream_buffer));
  mc.max_admissions = static_cast<size_t>(std::max(1, flags.max_admissions));
  mc.pool.bot_rating = mc.default_rating;
  if (flags.card_ms > 0) {
    mc.clocks.set_contract_ms(flags.card_ms);
    mc.clocks.set_doubling_ms(flags.card_ms);
    mc.clocks.set_card_ms(flags.card_ms);
  }
  return absl::OkStatus();
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("matchmaking-service", "MAMLAKA_");
  Bind(config, flags);
  if (std::optional<int> exit_code =
          service::ParseServiceFlags(config, argc, argv, flags.log_level)) {
    return *exit_code;
  }
  if (flags.server.database_url.empty()) {
    service::LogError("--database_url is required");
    return 2;
  }
  service::LogInfo("starting", {{"config", config.Describe()}});
  service::WarnIfPlaintext(flags.server.tls);
  if (absl::Status s = LoadAuth(flags, flags.server); !s.ok()) {
    service::LogError("cannot check callers", {{"error", s.ToString()}});
    return 2;
  }
  if (absl::Status s = FinishConfig(flags); !s.ok()) {
    service::LogError(std::string(s.message()));
    return 2;
  }
  const MatchmakingConfig& mc = flags.server;

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
  absl::StatusOr<std::unique_ptr<MatchmakingServer>> server =
      MatchmakingServer::Start(mc, &(*metrics)->registry());
  if (!server.ok()) {
    service::LogError("cannot start", {{"error", server.status().ToString()}});
    return 1;
  }
  MatchmakingServer& serving = **server;
  return service::RunService(
      signals,
      {.migrate =
           [&](const service::StopSignals& s) {
             return pg::MigrateWithRetry(mc.database_url, flags.migrations_dir,
                                              "mamlaka matchmaking migrations", s);
           },
       .serve = [&] { serving.SetReady(); },
       .serving_log = [&] { return service::LogFields{{"port", serving.port()}}; },
       .drain = [&] { serving.Shutdown(flags.shutdown_grace); }});
}

}  // namespace
}  // namespace trix::matchmaking

int main(int argc, char** argv) { return trix::matchmaking::Run(argc, argv); }
