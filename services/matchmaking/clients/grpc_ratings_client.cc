#include "services/matchmaking/clients/grpc_ratings_client.h"

#include <chrono>
#include <utility>

namespace trix::matchmaking {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

GrpcRatingsClient::GrpcRatingsClient(v1::RatingsService::StubInterface* stub,
                                     std::string token, absl::Duration timeout)
    : stub_(stub), token_(std::move(token)), timeout_(timeout) {}

grpc::ClientContext* GrpcRatingsClient::Prepare(grpc::ClientContext* c) const {
  c->AddMetadata("authorization", "Bearer " + token_);
  c->set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout_));
  return c;
}

absl::StatusOr<v1::GetRatingsResponse> GrpcRatingsClient::GetRatings(
    const v1::GetRatingsRequest& request) {
  v1::GetRatingsResponse response;
  grpc::ClientContext context;
  grpc::Status s = stub_->GetRatings(Prepare(&context), request, &response);
  if (!s.ok()) return FromGrpc(s);
  return response;
}

absl::StatusOr<v1::Hold> GrpcRatingsClient::HoldStake(const v1::HoldStakeRequest& request) {
  v1::Hold hold;
  grpc::ClientContext context;
  grpc::Status s = stub_->HoldStake(Prepare(&context), request, &hold);
  if (!s.ok()) return FromGrpc(s);
  return hold;
}

absl::StatusOr<v1::Hold> GrpcRatingsClient::KeepHold(const std::string& hold_id) {
  v1::KeepHoldRequest request;
  request.set_hold_id(hold_id);
  v1::Hold hold;
  grpc::ClientContext context;
  grpc::Status s = stub_->KeepHold(Prepare(&context), request, &hold);
  if (!s.ok()) return FromGrpc(s);
  return hold;
}

absl::Status GrpcRatingsClient::AttachHold(const std::string& hold_id,
                                           const std::string& table_id, int seat) {
  v1::AttachHoldRequest request;
  request.set_hold_id(hold_id);
  request.set_table_id(table_id);
  request.set_seat(seat);
  v1::Hold hold;
  grpc::ClientContext context;
  return FromGrpc(stub_->AttachHold(Prepare(&context), request, &hold));
}

absl::Status GrpcRatingsClient::ReleaseHold(const std::string& hold_id,
                                            const std::string& table_id) {
  v1::ReleaseHoldRequest request;
  request.set_hold_id(hold_id);
  request.set_table_id(table_id);
  v1::Hold hold;
  grpc::ClientContext context;
  return FromGrpc(stub_->ReleaseHold(Prepare(&context), request, &hold));
}

}  // namespace trix::matchmaking
