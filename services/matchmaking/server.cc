#include "services/matchmaking/server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/auth.h"
#include "services/common/logging.h"

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
  s->store_ = std::make_unique<TicketStore>(config.database_url, config.db_connections,
                                            SeatTokens(config.seat_token_key));
  if (!config.ratings_address.empty()) {
    s->ratings_ = v1::RatingsService::NewStub(
        grpc::CreateChannel(config.ratings_address, *dial));
  }
  s->auth_ = std::make_unique<PlayerAuth>(config.auth);
  PlacementOptions placement = config.placement;
  placement.service_token = config.credential_token;
  placement.credentials = *dial;
  s->placement_ = std::make_unique<Placement>(&s->store_->pool(), placement);
  std::vector<PoolSpec> pools = MakePools(config.pool, config.stake_levels);

  LobbyOptions lobby{.pools = pools,
                     .stake_levels = config.stake_levels,
                     .default_rating = config.default_rating,
                     .ratings_token = config.credential_token,
                     .table_token = config.credential_token,
                     .table_credentials = *dial,
                     .poll_every = config.poll_every,
                     .update_every = config.update_every,
                     .max_admissions = config.max_admissions,
                     .keep_ended = config.keep_ended,
                     .reconcile_every = config.reconcile_every};
  s->releases_ = std::make_unique<HoldReleases>(
      &s->store_->pool(), s->ratings_.get(),
      HoldReleasesOptions{.ratings_token = lobby.ratings_token,
                          .admission_grace = config.hold_admission_grace,
                          .keep = 2 * config.keep_ended},
      registry);
  s->voids_ = std::make_unique<TableVoids>(&s->store_->pool(), s->placement_.get(),
                                           s->releases_.get(), registry);
  MatchmakingServer* raw = s.get();
  s->bot_streams_ = std::make_unique<BotStreams>(&s->store_->pool(), service::NewUuid());
  s->bots_ = std::make_unique<BotRoster>(
      config.keep_alive_every,
      [raw](const std::string& address, const std::string& table) {
        return raw->lobby_->GameOver(address, table);
      },
      s->store_.get(), s->bot_streams_.get(), config.bot_quota);
  MatcherOptions matcher{.database_url = config.database_url,
                         .pools = pools,
                         .tick = config.tick,
                         .lease_retry = config.lease_retry,
                         .full_read_every = config.pool_full_read_every,
                         .clocks = config.clocks,
                         .db = &s->store_->pool(),
                         .give_up_placing = config.give_up_placing,
                         .stage_log_every = config.stage_log_every,
                         .seat_tokens = &s->store_->seat_tokens()};
  s->matcher_ = std::make_unique<Matcher>(
      matcher, s->placement_.get(),
      [raw](const v1::Mode& mode, const std::vector<std::string>& taken) {
        return raw->bots_->Reserve(mode, taken);
      },
      [raw](const std::vector<AssignmentRow>& rows) {
        raw->lobby_->Deliver(rows);
        raw->bots_->Deliver(rows);
        raw->lobby_->AttachHolds(rows);
      },
      registry);
  s->lobby_ = std::make_unique<Lobby>(lobby, s->store_.get(), s->ratings_.get(),
                                      s->matcher_.get(), s->releases_.get());
  s->service_ = std::make_unique<MatchmakingGrpcService>(
      config.grpc, s->auth_.get(), s->lobby_.get(), s->bots_.get(), s->store_.get());

  grpc::ServerBuilder builder;
  builder.AddListeningPort(config.listen_address, *credentials, &s->port_);
  builder.RegisterService(s->service_.get());
  builder.SetMaxReceiveMessageSize(64 * 1024);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config.listen_address));
  }
  absl::StatusOr<std::unique_ptr<service::HealthPort>> health_port =
      service::HealthPort::Start(config.tls.health_address, s->server_.get());
  if (!health_port.ok()) return health_port.status();
  s->health_port_ = *std::move(health_port);
  s->SetServing(false);  // until SetReady: every call UNAVAILABLE
  service::LogInfo("matchmaking listening", {{"port", s->port_}});
  return s;
}

void MatchmakingServer::SetReady() {
  if (ready_ || shut_down_.load()) return;
  ready_ = true;
  releases_->Start();
  voids_->Start();
  lobby_->Start();
  bots_->Start();
  matcher_->Start();
  SetServing(true);
  database_watch_ = std::make_unique<storage::ReadinessWatch>(
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
