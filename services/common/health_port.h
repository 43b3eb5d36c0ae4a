// A plaintext port that answers grpc.health.v1.Health/Check and nothing else,
// with the answer of a server that serves TLS only: for Kubernetes' gRPC probes,
// which cannot speak TLS. Each Check is asked of the server itself over its
// in-process channel, so the probe sees exactly the health the service reports
// (NOT_SERVING while it waits for the database or drains). Every other method is
// UNIMPLEMENTED there: no call of the API ever travels in plaintext.
//
//   auto health = HealthPort::Start("0.0.0.0:8081", server.get());
//   ... (*health)->port() ...
#ifndef TRIX_SERVICES_COMMON_HEALTH_PORT_H_
#define TRIX_SERVICES_COMMON_HEALTH_PORT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/server.h"

namespace trix::service {

class HealthPort {
 public:
  // `server` must outlive the health port. Null (and OK) when `address` is
  // empty; UNAVAILABLE when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<HealthPort>> Start(const std::string& address,
                                                           grpc::Server* server);
  ~HealthPort();

  int port() const { return port_; }

 private:
  explicit HealthPort(grpc::Server* server);

  grpc::GenericStub main_;  // the server's in-process channel
  std::unique_ptr<grpc::CallbackGenericService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_HEALTH_PORT_H_
