#include "services/matchmaking/server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/auth.h"
#include "services/common/logging.h"
#include "services/common/server_limits.h"
#include "services/matchmaking/clients/grpc_ratings_client.h"
#include "services/matchmaking/clients/grpc_table_states.h"
#include "services/matchmaking/rooms/postgres_room_store.h"
#include "services/matchmaking/store/postgres_match_store.h"

namespace trix::matchmaking {
namespace {

constexpr char kServiceName[] = "trix.v1.MatchmakingService";

v1::Mode MakeMode(v1::Team team, v1::Format format) {
  v1::Mode m;
  m.set_team(team);
  m.set_format(format);
  return m;
}

}  // namespace

std::vector<PoolSpec> MakePools(const PoolOptions& base, const std::vector<int64_t>& stakes) {
  std::vector<int64_t> levels = {0};
  levels.insert(levels.end(), stakes.begin(), stakes.end());
  std::vector<PoolSpec> pools;
  for (v1::Team team : {v1::TEAM_SOLO, v1::TEAM_PARTNER}) {
    for (v1::Format format : {v1::FORMAT_CLASSIC, v1::FORMAT_COMPLEX}) {
      for (int64_t stake : levels) {
        PoolSpec spec{.mode = MakeMode(team, format), .stake = stake, .options = base};
        spec.name = PoolName(spec.mode, stake);
        spec.options.partner = team == v1::TEAM_PARTNER;
        if (stake > 0) spec.options.bot_fill = false;  // bots never stake
        pools.push_back(std::move(spec));
      }
    }
  }
  return pools;
}

absl::StatusOr<std::unique_ptr<MatchmakingServer>> MatchmakingServer::Start(
    const MatchmakingConfig& config, prometheus::Registry* registry) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  if (config.seat_token_key.empty()) {
    return absl::InvalidArgumentError("a seat token key is required");
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      service::ServerCredentials(config.tls);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> dial =
      service::ChannelCredentials(config.dial);
  if (!dial.ok()) return dial.status();
  std::unique_ptr<MatchmakingServer> s(new MatchmakingServer());
  s->Assemble(config, *dial, registry);
  if (absl::Status listening = s->Listen(config, *credentials); !listening.ok()) {
    return listening;
  }
  return s;
}

// The parts, wired together; nothing runs yet.
void MatchmakingServer::Assemble(const MatchmakingConfig& config,
                                 const std::shared_ptr<grpc::ChannelCredentials>& dial,
                                 prometheus::Registry* registry) {
  store_ = std::make_unique<PostgresTicketStore>(config.database_url, config.db_connections,
                                                 SeatTokens(config.seat_token_key));
  if (!config.ratings_address.empty()) {
    ratings_ =
        v1::RatingsService::NewStub(grpc::CreateChannel(config.ratings_address, dial));
  }
  auth_ = std::make_unique<PlayerAuth>(config.auth);
  PlacementOptions placement = config.placement;
  placement.service_token = config.table_token();
  placement.credentials = dial;
  instances_ = std::make_unique<RegisteredInstances>(&store_->pool());
  placement_ = std::make_unique<Placement>(instances_.get(), placement);
  std::vector<PoolSpec> pools = MakePools(config.pool, config.stake_levels);

  LobbyOptions lobby{.pools = pools,
                     .stake_levels = config.stake_levels,
                     .default_rating = config.default_rating,
                     .poll_every = config.poll_every,
                     .update_every = config.update_every,
                     .max_admissions = config.max_admissions,
                     .keep_ended = config.keep_ended,
                     .reconcile_every = config.reconcile_every,
                     .keep_holds_every = config.keep_holds_every};
  auto ratings = [&](absl::Duration timeout) -> std::unique_ptr<RatingsClient> {
    if (ratings_ == nullptr) return nullptr;
    return std::make_unique<GrpcRatingsClient>(ratings_.get(), config.credential_token, timeout);
  };
  releases_ = std::make_unique<HoldReleases>(
      std::make_unique<PostgresHoldReleaseStore>(&store_->pool()), ratings(absl::Seconds(2)),
      HoldReleasesOptions{.admission_grace = config.hold_admission_grace,
                          .keep = 2 * config.keep_ended},
      registry);
  void_store_ = std::make_unique<PostgresTableVoidStore>(&store_->pool());
  voids_ = std::make_unique<TableVoids>(void_store_.get(), placement_.get(),
                                        &store_->seat_tokens(), releases_.get(), registry);
  bot_streams_ = std::make_unique<PostgresBotStreams>(&store_->pool(), service::NewUuid());
  bots_ = std::make_unique<BotRoster>(
      config.keep_alive_every,
      [this](const std::string& address, const std::string& table) {
        return lobby_->GameOver(address, table);
      },
      store_.get(), bot_streams_.get(), config.bot_quota);
  bot_ratings_ = ratings(config.ratings_call_timeout);
  bots_->SetRatings(bot_ratings_.get());  // bot fill by rating (bot_roster.h)
  AssembleMatcher(config, pools, registry);
  lobby_ = std::make_unique<Lobby>(
      lobby, store_.get(), ratings(config.ratings_call_timeout), matcher_.get(), releases_.get(),
      std::make_unique<GrpcTableStates>(config.table_token(), dial));
  service_ = std::make_unique<MatchmakingGrpcService>(
      config.grpc, auth_.get(), lobby_.get(), bots_.get(), store_.get());
  AssembleRooms(config, dial);
}

// Private rooms: their tables through the same placement, their empty seats
// from the same bot roster, their tables' ends read as the lobby reads them.
void MatchmakingServer::AssembleRooms(const MatchmakingConfig& config,
                                      const std::shared_ptr<grpc::ChannelCredentials>& dial) {
  room_store_ = std::make_unique<PostgresRoomStore>(&store_->pool());
  room_tables_ = std::make_unique<GrpcTableStates>(config.table_token(), dial);
  if (ratings_ != nullptr) {
    room_ratings_ = std::make_unique<GrpcRatingsClient>(
        ratings_.get(), config.credential_token, config.ratings_call_timeout);
  }
  RoomsOptions rooms = config.rooms;
  rooms.clocks = config.clocks;
  rooms.stake_levels = config.stake_levels;
  BotLending lending{
      .reserve = [this](const BotAsk& ask) { return bots_->Reserve(ask); },
      .deliver = [this](const std::vector<AssignmentRow>& rows) { bots_->Deliver(rows); },
      .people_rating =
          [this](const v1::Mode& mode, const std::vector<std::string>& people) {
            return MeanDisplayedRating(bot_ratings_.get(), mode, people);
          }};
  rooms_ = std::make_unique<RoomService>(
      rooms, room_store_.get(), placement_.get(), room_tables_.get(),
      &store_->seat_tokens(), std::move(lending),
      RoomHolds{.ratings = room_ratings_.get(), .releases = releases_.get()});
  rooms_service_ = std::make_unique<RoomsGrpcService>(RoomsGrpcOptions{.calls = config.grpc},
                                                      auth_.get(), rooms_.get());
}

// The matcher: it asks the bot roster for bot seats and hands what it placed to
// the lobby (players' streams), the roster (bots') and the holds.
void MatchmakingServer::AssembleMatcher(const MatchmakingConfig& config,
                                        const std::vector<PoolSpec>& pools,
                                        prometheus::Registry* registry) {
  match_store_ = std::make_unique<PostgresMatchStore>(config.database_url, &store_->pool());
  MatcherOptions matcher{.store = match_store_.get(),
                         .pools = pools,
                         .tick = config.tick,
                         .lease_retry = config.lease_retry,
                         .full_read_every = config.pool_full_read_every,
                         .clocks = config.clocks,
                         .give_up_placing = config.give_up_placing,
                         .stage_log_every = config.stage_log_every,
                         .seat_tokens = &store_->seat_tokens()};
  if (ratings_ != nullptr) {
    // A staked table is made only for tickets whose holds are held.
    matcher.check_holds = [this](const std::vector<std::string>& tickets) {
      return lobby_->CheckHolds(tickets);
    };
    matcher.end_unheld = [this](const std::vector<std::string>& tickets) {
      lobby_->EndUnheld(tickets);
    };
  }
  matcher_ = std::make_unique<Matcher>(
      matcher, placement_.get(),
      [this](const BotAsk& ask) { return bots_->Reserve(ask); },
      [this](const std::vector<AssignmentRow>& rows) {
        lobby_->Deliver(rows);
        bots_->Deliver(rows);
        lobby_->AttachHolds(rows);
      },
      registry);
}

absl::Status MatchmakingServer::Listen(
    const MatchmakingConfig& config,
    const std::shared_ptr<grpc::ServerCredentials>& credentials) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(config.listen_address, credentials, &port_);
  builder.RegisterService(service_.get());
  builder.RegisterService(rooms_service_.get());
  builder.SetMaxReceiveMessageSize(64 * 1024);
  service::ApplyServerLimits(config.limits, kServiceName, builder);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config.listen_address));
  }
  absl::StatusOr<std::unique_ptr<service::HealthPort>> health_port =
      service::HealthPort::Start(config.tls.health_address, server_.get());
  if (!health_port.ok()) return health_port.status();
  health_port_ = *std::move(health_port);
  SetServing(false);  // until SetReady: every call UNAVAILABLE
  service::LogInfo("matchmaking listening", {{"port", port_}});
  return absl::OkStatus();
}

void MatchmakingServer::SetReady() {
  if (ready_ || shut_down_.load()) return;
  ready_ = true;
  releases_->Start();
  voids_->Start();
  lobby_->Start();
  bots_->Start();
  matcher_->Start();
  rooms_->Start();
  SetServing(true);
  database_watch_ = std::make_unique<pg::ReadinessWatch>(
      &store_->pool(), absl::Milliseconds(500), [this](bool ready) {
        grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
        if (health == nullptr || shut_down_.load()) return;
        health->SetServingStatus(ready);
        health->SetServingStatus(kServiceName, ready);
      });
}

MatchmakingServer::~MatchmakingServer() { Shutdown(absl::ZeroDuration()); }

void MatchmakingServer::SetServing(bool serving) {
  service_->SetServing(serving);
  rooms_service_->SetServing(serving);
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);
  health->SetServingStatus(kServiceName, serving);
}

void MatchmakingServer::Shutdown(absl::Duration grace) {
  if (!server_ || shut_down_.exchange(true)) return;
  database_watch_.reset();
  health_port_.reset();
  SetServing(false);
  rooms_->Stop();
  matcher_->Stop();
  lobby_->Stop();
  bots_->Stop();
  voids_->Stop();
  releases_->Stop();
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(absl::ToInt64Milliseconds(grace)));
  server_->Wait();
}

}  // namespace trix::matchmaking
