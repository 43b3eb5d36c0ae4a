// The ratings service as matchmaking calls it (the lobby, the hold releases):
// players' ratings and their stake holds. GrpcRatingsClient in production
// (grpc_ratings_client.h), a fake in the lobby's tests
// (testing/fake_ratings_client.h). Each call's status is the service's, its
// code and message unchanged.
//
//   absl::StatusOr<v1::Hold> hold = ratings->HoldStake(request);
#ifndef TRIX_SERVICES_MATCHMAKING_CLIENTS_RATINGS_CLIENT_H_
#define TRIX_SERVICES_MATCHMAKING_CLIENTS_RATINGS_CLIENT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trix/v1/ratings.pb.h"

namespace trix::matchmaking {

class RatingsClient {
 public:
  virtual ~RatingsClient() = default;
  // One rating per player, in order.
  virtual absl::StatusOr<v1::GetRatingsResponse> GetRatings(
      const v1::GetRatingsRequest& request) = 0;
  virtual absl::StatusOr<v1::Hold> HoldStake(const v1::HoldStakeRequest& request) = 0;
  virtual absl::StatusOr<v1::Hold> KeepHold(const std::string& hold_id) = 0;
  virtual absl::Status AttachHold(const std::string& hold_id, const std::string& table_id,
                                  int seat) = 0;
  // `table_id` names the table the hold may be attached to ("" for none).
  virtual absl::Status ReleaseHold(const std::string& hold_id, const std::string& table_id) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_CLIENTS_RATINGS_CLIENT_H_
