#include "services/matchmaking/rooms/table_games.h"

#include <chrono>

namespace trix::matchmaking {

v1::TableService::Stub* GrpcTableGames::Stub(const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<v1::TableService::Stub>& stub = stubs_[address];
  if (!stub) stub = v1::TableService::NewStub(grpc::CreateChannel(address, dial_));
  return stub.get();
}

GameEnd GrpcTableGames::EndOf(const std::string& address, const std::string& table_id) {
  v1::GetTableRequest request;
  request.set_table_id(table_id);
  v1::TableView view;
  grpc::ClientContext context;
  if (!token_.empty()) context.AddMetadata("authorization", "Bearer " + token_);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
  grpc::Status s = Stub(address)->GetTable(&context, request, &view);
  GameEnd end;
  if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
    end.end = TableEnd::kGone;
  } else if (!s.ok()) {
    end.end = TableEnd::kUnknown;
  } else if (view.voided()) {
    end.end = TableEnd::kVoided;
  } else if (view.phase() == v1::PHASE_GAME_OVER) {
    end.end = TableEnd::kOver;
    end.result = view.result();
  } else {
    end.end = TableEnd::kLive;
  }
  return end;
}

}  // namespace trix::matchmaking
