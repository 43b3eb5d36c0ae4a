// The table service's gRPC server, assembled: TableService on the callback API,
// gRPC health checking (grpc.health.v1.Health), server reflection, bounded request
// sizes and keepalive. main() and the integration tests build the very same server
// (tests on port 0).
//
// Health reports NOT_SERVING until SetServing(true) (main calls it once the
// database answers, migrations are applied and the host has resumed its tables)
// and again from the start of Shutdown(). With a certificate and key it serves TLS
// only, with a client CA mutual TLS only (see ServerOptions).
//
//   auto server = TableServer::Start({.listen_address = "127.0.0.1:0"}, &host);
//   (*server)->SetServing(true);
//   ... (*server)->port() ...
//   (*server)->Shutdown(absl::Seconds(10));
#ifndef TRIX_SERVICES_TABLE_SERVER_H_
#define TRIX_SERVICES_TABLE_SERVER_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/common/health_port.h"
#include "services/common/server_limits.h"
#include "services/common/tls.h"
#include "services/table/callback_threads.h"
#include "services/table/grpc_service.h"
#include "services/table/table_host.h"

namespace trix::table {

struct ServerOptions {
  std::string listen_address = "0.0.0.0:50051";
  // Requests larger than this are refused by gRPC (RESOURCE_EXHAUSTED) before any
  // code of ours reads them; the largest legitimate request is well under 4 KiB.
  int max_receive_message_bytes = 64 * 1024;
  // TLS (services/common/tls.h), plaintext when it names no certificate.
  service::ServerTls tls;
  // The memory quota and the streams one connection may hold (server_limits.h).
  service::ServerLimits limits;
  // Leave gRPC one thread for polling and reactions instead of its two (see
  // callback_threads.h): half the thread wake-ups per action at a player's pace.
  bool one_callback_thread = true;
  GrpcOptions grpc;
};

class TableServer {
 public:
  // `host` must outlive the server.
  static absl::StatusOr<std::unique_ptr<TableServer>> Start(const ServerOptions& options,
                                                            TableHost* host);
  ~TableServer();

  int port() const { return port_; }
  // The plaintext health port's (ServerTls::health_address), or 0 without one.
  int health_port() const { return health_port_ ? health_port_->port() : 0; }
  void SetServing(bool serving);
  // NOT_SERVING, then the host drains (its streams end UNAVAILABLE and it releases
  // its leases), then gRPC stops, giving unary calls in flight `grace` to finish.
  void Shutdown(absl::Duration grace);

 private:
  TableServer(TableHost* host, const GrpcOptions& options);

  TableHost* const host_;
  TableGrpcService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<service::HealthPort> health_port_;  // stopped before server_
  std::unique_ptr<CallbackThreadPark> park_;  // released before gRPC stops
  int port_ = 0;
  std::atomic<bool> shut_down_{false};
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_SERVER_H_
