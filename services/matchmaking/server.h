// The matchmaking service assembled: the shared state (TicketStore), placement,
// the bot roster, the lobby, the matcher and the gRPC server (MatchmakingService,
// health, reflection). main() and the integration tests build the very same thing;
// tests listen on port 0.
//
// Start listens with health NOT_SERVING (every call UNAVAILABLE); SetReady, once
// the database is migrated, starts the lobby, the matcher and the rest, and
// reports SERVING.
//
//   auto server = MatchmakingServer::Start(config, &registry);
//   (*server)->SetReady();
//   ... (*server)->port() ...
//   (*server)->Shutdown(absl::Seconds(5));
#ifndef TRIX_SERVICES_MATCHMAKING_SERVER_H_
#define TRIX_SERVICES_MATCHMAKING_SERVER_H_

#include <atomic>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "prometheus/registry.h"
#include "services/common/health_port.h"
#include "services/common/server_limits.h"
#include "services/common/tls.h"
#include "services/matchmaking/bot_roster.h"
#include "services/matchmaking/store/postgres_bot_streams.h"
#include "services/matchmaking/grpc_service.h"
#include "services/matchmaking/hold_releases.h"
#include "services/matchmaking/lobby.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/placement.h"
#include "services/matchmaking/table_voids.h"
#include "services/matchmaking/player_auth.h"
#include "services/matchmaking/rooms/room_service.h"
#include "services/matchmaking/rooms/rooms_grpc.h"
#include "services/matchmaking/store/match_store.h"
#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/pg/readiness_watch.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::matchmaking {

struct MatchmakingConfig {
  std::string listen_address = "0.0.0.0:50053";
  std::string database_url;
  int db_connections = 8;
  std::string seat_token_key;  // required: the key of derived seat tokens (seat_tokens.h)
  std::string ratings_address;  // "" = no ratings service (see lobby.h)
  // Matchmaking's own service credential tokens: one presented to the ratings
  // service (scopes ledger:hold ratings:read), one to the table instances
  // (tables:create tables:void), so that no table instance is ever shown a token
  // that can hold a stake. table_credential_token empty: credential_token for both.
  std::string credential_token;
  std::string table_credential_token;
  const std::string& table_token() const {
    return table_credential_token.empty() ? credential_token : table_credential_token;
  }
  service::ServerTls tls;       // of listen_address; plaintext without a certificate
  service::ServerLimits limits;  // memory quota, streams per connection
  // How the table instances and the ratings service are dialled (TLS, a CA, a
  // client certificate for mutual TLS); placement.credentials is made from it.
  service::ChannelTls dial;
  PlayerAuthOptions auth;
  PlacementOptions placement;
  std::vector<int64_t> stake_levels;
  PoolOptions pool;          // applied to every pool (staked: no bot fill)
  absl::Duration tick = absl::Milliseconds(5);
  absl::Duration stage_log_every;  // 0: off (stage_log.h)
  absl::Duration lease_retry = absl::Seconds(1);
  absl::Duration pool_full_read_every = MatcherOptions().full_read_every;
  absl::Duration poll_every = absl::Milliseconds(100);
  absl::Duration update_every = absl::Seconds(1);
  absl::Duration keep_alive_every = absl::Seconds(10);
  absl::Duration keep_ended = absl::Hours(1);  // LobbyOptions::keep_ended
  absl::Duration reconcile_every = absl::Seconds(30);  // LobbyOptions::reconcile_every
  absl::Duration keep_holds_every = LobbyOptions().keep_holds_every;
  absl::Duration ratings_call_timeout = absl::Seconds(2);  // each call to the ratings service
  absl::Duration give_up_placing = MatcherOptions().give_up_placing;
  // HoldReleasesOptions::admission_grace.
  absl::Duration hold_admission_grace = HoldReleasesOptions().admission_grace;
  int default_rating = 1500;
  v1::Clocks clocks;
  GrpcOptions grpc;
  BotQuota bot_quota;
  size_t max_admissions = LobbyOptions().max_admissions;
  RoomsOptions rooms;  // private rooms (rooms/room_service.h); clocks: `clocks`
};

// The pools: four modes x (free + each stake level).
std::vector<PoolSpec> MakePools(const PoolOptions& base, const std::vector<int64_t>& stakes);

class MatchmakingServer {
 public:
  static absl::StatusOr<std::unique_ptr<MatchmakingServer>> Start(
      const MatchmakingConfig& config, prometheus::Registry* registry);
  ~MatchmakingServer();

  int port() const { return port_; }
  // Once migrated: the background work starts and health says SERVING.
  void SetReady();
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // NOT_SERVING, streams end UNAVAILABLE, the matcher lets its pools go, gRPC
  // stops giving calls in flight `grace`.
  void Shutdown(absl::Duration grace);
  Matcher& matcher() { return *matcher_; }
  BotRoster& bots() { return *bots_; }
  RoomService& rooms() { return *rooms_; }

 private:
  MatchmakingServer() = default;
  void Assemble(const MatchmakingConfig& config,
                const std::shared_ptr<grpc::ChannelCredentials>& dial,
                prometheus::Registry* registry);
  void AssembleRooms(const MatchmakingConfig& config,
                     const std::shared_ptr<grpc::ChannelCredentials>& dial);
  void AssembleMatcher(const MatchmakingConfig& config, const std::vector<PoolSpec>& pools,
                       prometheus::Registry* registry);
  // gRPC on config.listen_address and the health port, NOT_SERVING.
  absl::Status Listen(const MatchmakingConfig& config,
                      const std::shared_ptr<grpc::ServerCredentials>& credentials);
  void SetServing(bool serving);

  std::unique_ptr<PostgresTicketStore> store_;
  std::unique_ptr<MatchStore> match_store_;  // the matcher's (outlives it)
  std::unique_ptr<v1::RatingsService::Stub> ratings_;
  std::unique_ptr<PlayerAuth> auth_;
  std::unique_ptr<TableInstances> instances_;  // placement's (outlives it)
  std::unique_ptr<Placement> placement_;
  std::unique_ptr<PostgresBotStreams> bot_streams_;
  std::unique_ptr<RatingsClient> bot_ratings_;  // the roster's, for bot ratings
  std::unique_ptr<BotRoster> bots_;
  std::unique_ptr<HoldReleases> releases_;
  std::unique_ptr<TableVoidStore> void_store_;  // the voids' (outlives them)
  std::unique_ptr<TableVoids> voids_;
  std::unique_ptr<Lobby> lobby_;
  std::unique_ptr<Matcher> matcher_;
  std::unique_ptr<MatchmakingGrpcService> service_;
  // Private rooms (rooms.proto), served beside it.
  std::unique_ptr<RoomStore> room_store_;
  std::unique_ptr<TableStates> room_tables_;
  std::unique_ptr<RatingsClient> room_ratings_;  // staked rooms' holds
  std::unique_ptr<RoomService> rooms_;
  std::unique_ptr<RoomsGrpcService> rooms_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<service::HealthPort> health_port_;  // stopped before server_
  // Health NOT_SERVING while the database is away (calls need it).
  std::unique_ptr<pg::ReadinessWatch> database_watch_;
  int port_ = 0;
  bool ready_ = false;
  std::atomic<bool> shut_down_{false};
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_SERVER_H_
