// The thin gRPC wiring of RatingsService (proto/trix/v1/ratings.proto): checks who
// is calling, turns requests into calls of RatingReader and Ledger, and their
// answers and absl::Status errors into responses and gRPC statuses. Until
// SetReady(true), and again while it drains, every call is UNAVAILABLE.
//
// Who may call ("authorization: Bearer <token>"): a service credential holding
// the RPC's scope — ratings:read (GetPlayerRatings, GetRatings, GetLeaderboard,
// GetRatingHistory), ledger:write (Credit, Debit), ledger:read (GetBalance,
// GetStatement), ledger:hold (HoldStake, ReleaseHold, AttachHold, KeepHold) — or,
// when player tokens are on, a player for their own ratings, history, balance and
// statement, and any player for the leaderboard. Every call is rate-limited by
// its verified identity: per credential, per player, else per client address;
// over the rate it is RESOURCE_EXHAUSTED.
#ifndef TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_
#define TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_

#include <atomic>
#include <memory>
#include <string>

#include "services/common/auth.h"
#include "services/common/credentials.h"
#include "services/common/rate_limit.h"
#include "services/ratings/ledger.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/ratings_metrics.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::ratings {

struct RatingsAccess {
  std::shared_ptr<const service::ServiceCredentials> credentials;  // null: none
  std::shared_ptr<const service::PlayerTokenVerifier> player_tokens;  // null: off
  service::RateLimit credential_rate{.per_second = 5000, .burst = 10000};
  service::RateLimit player_rate{.per_second = 20, .burst = 40};
  service::RateLimit peer_rate{.per_second = 50, .burst = 100};
};

class RatingsGrpcService final : public v1::RatingsService::Service {
 public:
  RatingsGrpcService(RatingReader* reader, Ledger* ledger, RatingsMetrics* metrics,
                     RatingsAccess access)
      : reader_(reader), ledger_(ledger), metrics_(metrics), access_(std::move(access)),
        credential_limiter_(access_.credential_rate),
        player_limiter_(access_.player_rate),
        peer_limiter_(access_.peer_rate) {}

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
  grpc::Status KeepHold(grpc::ServerContext* context, const v1::KeepHoldRequest* request,
                        v1::Hold* response) override;

 private:
  // Which players, besides a credential with the scope, may make a call.
  enum class Players { kNone, kNamed, kAny };
  // UNAVAILABLE until ready; RESOURCE_EXHAUSTED over the caller's rate (counted
  // in trix_ratings_rate_limited_total{method,limit}); then whether the caller
  // may (see the top of this file). `method` is the RPC's name; `player_id` is
  // the one the request names (Players::kNamed).
  // `credential`, when given, receives the verified service credential.
  absl::Status Admit(grpc::ServerContext* context, const char* method,
                     absl::string_view scope, Players players = Players::kNone,
                     const std::string& player_id = "",
                     service::ServiceCaller* credential = nullptr);
  // The verified identity's rate bucket ("credential:<name>", "player:<id>"), or
  // empty with the refusal in `refusal`.
  std::string Identify(grpc::ServerContext* context, absl::string_view scope,
                       Players players, const std::string& player_id,
                       absl::Status* refusal, service::ServiceCaller* credential) const;
  // HoldStake's consent, for a credential that needs it: `consent` must be
  // `player_id`'s own valid token.
  absl::Status CheckConsent(const service::ServiceCaller& credential,
                            const std::string& player_id, const std::string& consent) const;
  grpc::Status Transfer(grpc::ServerContext* context, EntryKind kind,
                        const v1::TransferRequest* request, v1::TransferResponse* response);

  RatingReader* const reader_;
  Ledger* const ledger_;
  RatingsMetrics* const metrics_;
  const RatingsAccess access_;
  service::RateLimiter credential_limiter_;
  service::RateLimiter player_limiter_;
  service::RateLimiter peer_limiter_;
  std::atomic<bool> ready_{false};
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_GRPC_SERVICE_H_
