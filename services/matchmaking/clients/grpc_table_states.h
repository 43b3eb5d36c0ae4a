// TableStates over gRPC: GetTable on the table instance at the seat's address.
//
//   GrpcTableStates tables(table_token, credentials);
#ifndef TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_TABLE_STATES_H_
#define TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_TABLE_STATES_H_

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "services/matchmaking/clients/table_states.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::matchmaking {

// Over gRPC: GetTable at `address` (1 s deadline), presenting `token` when set
// (the backend's: it reads tables that are not open to spectators).
class GrpcTableStates : public TableStates {
 public:
  GrpcTableStates(std::string token, std::shared_ptr<grpc::ChannelCredentials> credentials);
  TableGame GameAt(const std::string& address, const std::string& table_id) override;

 private:
  v1::TableService::Stub* Stub(const std::string& address);

  const std::string token_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<v1::TableService::Stub>> stubs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_TABLE_STATES_H_
