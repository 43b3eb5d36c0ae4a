#include "services/ratings/server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/logging.h"
#include "services/common/server_limits.h"

namespace trix::ratings {
namespace {

constexpr char kServiceName[] = "trix.v1.RatingsService";

// The standby's pool for the history reads, or null without one.
std::unique_ptr<pg::ConnectionPool> HistoryPool(const ServerOptions& options) {
  if (options.read_database_url.empty()) return nullptr;
  return std::make_unique<pg::ConnectionPool>(
      options.read_database_url, options.db_connections, "ratings-service history");
}

ConsumerOptions WithUrl(ConsumerOptions c, const std::string& url) {
  c.database_url = url;
  return c;
}

}  // namespace

RatingsServer::RatingsServer(const ServerOptions& options, prometheus::Registry* registry)
    : options_(options),
      metrics_(*registry),
      pool_(options.database_url, options.db_connections, "ratings-service"),
      history_pool_(HistoryPool(options)),
      reader_store_(&pool_, history_pool_.get()),
      reader_(&reader_store_,
              {.provisional_games = options.provisional_games,
               .newcomer = {options.consumer.model.mu, options.consumer.model.sigma}}),
      ledger_store_(&pool_, history_pool_.get()),
      ledger_(&ledger_store_, options.ledger),
      service_(&reader_, &ledger_, &metrics_, options.access),
      consumer_(WithUrl(options.consumer, options.database_url), &metrics_),
      sweeper_(&ledger_, &metrics_, options.hold_sweep_interval) {}

RatingsServer::~RatingsServer() { Shutdown(absl::ZeroDuration()); }

absl::StatusOr<std::unique_ptr<RatingsServer>> RatingsServer::Start(
    const ServerOptions& options, prometheus::Registry* registry) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      service::ServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  std::unique_ptr<RatingsServer> server(new RatingsServer(options, registry));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, *credentials, &server->port_);
  builder.RegisterService(&server->service_);
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  service::ApplyServerLimits(options.limits, kServiceName, builder);
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen_address));
  }
  grpc::HealthCheckServiceInterface* health = server->server_->GetHealthCheckService();
  if (health != nullptr) {
    health->SetServingStatus(false);
    health->SetServingStatus(kServiceName, false);
  }
  absl::StatusOr<std::unique_ptr<service::HealthPort>> health_port =
      service::HealthPort::Start(options.tls.health_address, server->server_.get());
  if (!health_port.ok()) return health_port.status();
  server->health_port_ = *std::move(health_port);
  service::LogInfo("ratings service listening",
                   {{"address", options.listen_address}, {"port", server->port_}});
  return server;
}

void RatingsServer::SetReady() {
  if (ready_ || shut_down_) return;
  ready_ = true;
  service_.SetReady(true);
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(true);
    health->SetServingStatus(kServiceName, true);
  }
  if (options_.consume) consumer_.Start();
  sweeper_.Start();
  database_watch_ = std::make_unique<pg::ReadinessWatch>(
      &pool_, absl::Milliseconds(500), [this](bool ready) {
        grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
        if (health == nullptr || shut_down_.load()) return;
        health->SetServingStatus(ready);
        health->SetServingStatus(kServiceName, ready);
      });
}

void RatingsServer::Shutdown(absl::Duration grace) {
  if (!server_ || shut_down_.exchange(true)) return;
  database_watch_.reset();
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(false);
    health->SetServingStatus(kServiceName, false);
  }
  consumer_.Stop();
  sweeper_.Stop();
  health_port_.reset();
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(absl::ToInt64Milliseconds(grace)));
  server_->Wait();
  service_.SetReady(false);
}

}  // namespace trix::ratings
