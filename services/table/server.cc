#include "services/table/server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/logging.h"
#include "services/common/server_limits.h"

namespace trix::table {
namespace {

constexpr char kServiceName[] = "trix.v1.TableService";

}  // namespace

TableServer::TableServer(TableHost* host, const GrpcOptions& options)
    : host_(host), service_(host, options) {}

TableServer::~TableServer() { Shutdown(absl::ZeroDuration()); }

absl::StatusOr<std::unique_ptr<TableServer>> TableServer::Start(
    const ServerOptions& options, TableHost* host) {
  // Both are process-wide switches that must precede building a server.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      service::ServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  std::unique_ptr<TableServer> server(new TableServer(host, options.grpc));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, *credentials, &server->port_);
  builder.RegisterService(&server->service_);
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  service::ApplyServerLimits(options.limits, kServiceName, builder);
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen_address));
  }
  server->SetServing(false);
  absl::StatusOr<std::unique_ptr<service::HealthPort>> health_port =
      service::HealthPort::Start(options.tls.health_address, server->server_.get());
  if (!health_port.ok()) return health_port.status();
  server->health_port_ = *std::move(health_port);
  if (options.one_callback_thread) {
    server->park_ = CallbackThreadPark::Start(server->server_.get());
  }
  // While the database is away the instance cannot accept actions: load balancers
  // should send new clients elsewhere.
  TableServer* raw = server.get();
  host->SetReadinessListener([raw](bool ready) {
    if (!raw->shut_down_.load()) raw->SetServing(ready);
  });
  service::LogInfo("table service listening",
                   {{"address", options.listen_address}, {"port", server->port_}});
  return server;
}

void TableServer::SetServing(bool serving) {
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);  // the overall status ("")
  health->SetServingStatus(kServiceName, serving);
}

void TableServer::Shutdown(absl::Duration grace) {
  if (!server_ || shut_down_.exchange(true)) return;
  SetServing(false);
  host_->Shutdown();
  host_->SetReadinessListener(nullptr);
  health_port_.reset();
  // gRPC joins its threads when it stops: the parked one must be back first.
  if (park_) park_->Release();
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(absl::ToInt64Milliseconds(grace)));
  server_->Wait();
}

}  // namespace trix::table
