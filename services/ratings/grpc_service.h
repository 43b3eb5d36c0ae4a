// The thin gRPC wiring of RatingsService (proto/trix/v1/ratings.proto): checks the
// caller's service token, turns requests into calls of RatingReader and Ledger,
// and their answers and absl::Status errors into responses and gRPC statuses.
// Every call needs "authorization: Bearer <service token>" (players reach the
// service through trusted backends). Until SetReady(true), and again while it
// drains, every call is UNAVAILABLE.
#ifndef TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_
#define TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_

#include <atomic>
#include <string>

#include "services/ratings/ledger.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/ratings_metrics.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::ratings {

class RatingsGrpcService final : public v1::RatingsService::Service {
 public:
  RatingsGrpcService(RatingReader* reader, Ledger* ledger, RatingsMetrics* metrics,
                     std::string service_token)
      : reader_(reader), ledger_(ledger), metrics_(metrics),
        service_token_(std::move(service_token)) {}

  void SetReady(bool ready) { ready_ = ready; }

  grpc::Status GetPlayerRatings(grpc::ServerContext* context,
                                const v1::GetPlayerRatingsRequest* request,
                                v1::GetPlayerRatingsResponse* response) override;
  grpc::Status GetRatings(grpc::ServerContext* context, const v1::GetRatingsRequest* request,
                          v1::GetRatingsResponse* response) override;
  grpc::Status GetLeaderboard(grpc::ServerContext* context,
                              const v1::GetLeaderboardRequest* request,
                              v1::GetLeaderboardResponse* response) override;
  grpc::Status GetRatingHistory(grpc::ServerContext* context,
                                const v1::GetRatingHistoryRequest* request,
                                v1::GetRatingHistoryResponse* response) override;
  grpc::Status Credit(grpc::ServerContext* context, const v1::TransferRequest* request,
                      v1::TransferResponse* response) override;
  grpc::Status Debit(grpc::ServerContext* context, const v1::TransferRequest* request,
                     v1::TransferResponse* response) override;
  grpc::Status GetBalance(grpc::ServerContext* context, const v1::GetBalanceRequest* request,
                          v1::Balance* response) override;
  grpc::Status GetStatement(grpc::ServerContext* context,
                            const v1::GetStatementRequest* request,
                            v1::GetStatementResponse* response) override;
  grpc::Status HoldStake(grpc::ServerContext* context, const v1::HoldStakeRequest* request,
                         v1::Hold* response) override;
  grpc::Status ReleaseHold(grpc::ServerContext* context, const v1::ReleaseHoldRequest* request,
                           v1::Hold* response) override;
  grpc::Status AttachHold(grpc::ServerContext* context, const v1::AttachHoldRequest* request,
                          v1::Hold* response) override;

 private:
  absl::Status Admit(grpc::ServerContext* context) const;
  grpc::Status Transfer(grpc::ServerContext* context, EntryKind kind,
                        const v1::TransferRequest* request, v1::TransferResponse* response);

  RatingReader* const reader_;
  Ledger* const ledger_;
  RatingsMetrics* const metrics_;
  const std::string service_token_;
  std::atomic<bool> ready_{false};
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_
