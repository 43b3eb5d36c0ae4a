#include "services/matchmaking/clients/grpc_table_states.h"

#include <chrono>
#include <utility>

namespace trix::matchmaking {

GrpcTableStates::GrpcTableStates(std::string token,
                                 std::shared_ptr<grpc::ChannelCredentials> credentials)
    : token_(std::move(token)), credentials_(std::move(credentials)) {}

v1::TableService::Stub* GrpcTableStates::Stub(const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<v1::TableService::Stub>& stub = stubs_[address];
  if (!stub) stub = v1::TableService::NewStub(grpc::CreateChannel(address, credentials_));
  return stub.get();
}

TableGame GrpcTableStates::GameAt(const std::string& address, const std::string& table_id) {
  v1::GetTableRequest request;
  request.set_table_id(table_id);
  v1::TableView view;
  grpc::ClientContext context;
  if (!token_.empty()) context.AddMetadata("authorization", "Bearer " + token_);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
  grpc::Status s = Stub(address)->GetTable(&context, request, &view);
  if (s.error_code() == grpc::StatusCode::NOT_FOUND) return {.end = TableEnd::kGone};
  if (!s.ok()) return {.end = TableEnd::kUnknown};
  if (view.voided()) return {.end = TableEnd::kVoided};
  if (view.phase() != v1::PHASE_GAME_OVER) return {.end = TableEnd::kLive};
  return {.end = TableEnd::kOver, .result = view.result()};
}

}  // namespace trix::matchmaking
