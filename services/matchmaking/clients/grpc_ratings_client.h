// RatingsClient over gRPC (RatingsService): each call presents matchmaking's
// ratings credential and may take the timeout given.
//
//   GrpcRatingsClient ratings(stub.get(), token, absl::Seconds(2));
#ifndef TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_RATINGS_CLIENT_H_
#define TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_RATINGS_CLIENT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/matchmaking/clients/ratings_client.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::matchmaking {

class GrpcRatingsClient : public RatingsClient {
 public:
  GrpcRatingsClient(v1::RatingsService::StubInterface* stub, std::string token,
                    absl::Duration timeout);

  absl::StatusOr<v1::GetRatingsResponse> GetRatings(
      const v1::GetRatingsRequest& request) override;
  absl::StatusOr<v1::Hold> HoldStake(const v1::HoldStakeRequest& request) override;
  absl::StatusOr<v1::Hold> KeepHold(const std::string& hold_id) override;
  absl::Status AttachHold(const std::string& hold_id, const std::string& table_id,
                          int seat) override;
  absl::Status ReleaseHold(const std::string& hold_id, const std::string& table_id) override;

 private:
  // A call's context: the token and a deadline.
  grpc::ClientContext* Prepare(grpc::ClientContext* c) const;

  v1::RatingsService::StubInterface* const stub_;
  const std::string token_;
  const absl::Duration timeout_;
};

// A gRPC status as absl::Status (the codes are the same numbers).
absl::Status FromGrpc(const grpc::Status& s);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_CLIENTS_GRPC_RATINGS_CLIENT_H_
