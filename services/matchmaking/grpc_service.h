// The thin gRPC wiring of MatchmakingService on the callback API: authenticates
// the caller (PlayerAuth), turns requests into Lobby / BotRoster / TicketStore
// calls and absl::Status into grpc::Status. Blocking work (database, other
// services) runs on the lobby's threads, or, for the rare unary calls, inline.
#ifndef TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_
#define TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_

#include <atomic>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/rate_limit.h"
#include "services/matchmaking/bot_roster.h"
#include "services/matchmaking/lobby.h"
#include "services/matchmaking/player_auth.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::matchmaking {

// The doors' quotas (services/matchmaking/README.md, "Bounds"). Every call counts
// against its verified caller: a player (by their token), a service credential (by
// its name), and for a caller not verified (no token, a bad one, and every
// ServeBot before its key is looked up) the address.
struct GrpcOptions {
  absl::Duration party_ttl = absl::Minutes(30);
  int max_bot_capacity = 1000;  // one ServeBot stream's
  // Messages a stream holds for a client that reads too slowly; past them the
  // stream ends RESOURCE_EXHAUSTED (stream_outbox.h).
  size_t stream_buffer = 256;
  service::RateLimit player_rate{.per_second = 10, .burst = 20};
  service::RateLimit backend_rate{.per_second = 20000, .burst = 40000};
  service::RateLimit peer_rate{.per_second = 20, .burst = 40};
  // A bot key found unknown is answered from memory this long (at most
  // `max_bad_keys` of them), without a database lookup each.
  absl::Duration bad_key_memory = absl::Seconds(30);
  size_t max_bad_keys = 10000;
};

class MatchmakingGrpcService final : public v1::MatchmakingService::CallbackService {
 public:
  MatchmakingGrpcService(GrpcOptions options, const PlayerAuth* auth, Lobby* lobby,
                         BotRoster* bots, TicketStore* store);
  // Until SetServing(true), and again from draining, calls are UNAVAILABLE.
  void SetServing(bool serving) { serving_ = serving; }

  grpc::ServerWriteReactor<v1::MatchUpdate>* FindTable(
      grpc::CallbackServerContext* context, const v1::FindTableRequest* request) override;
  grpc::ServerUnaryReactor* GetAssignment(grpc::CallbackServerContext* context,
                                          const v1::GetAssignmentRequest* request,
                                          v1::Assignment* response) override;
  grpc::ServerUnaryReactor* CreateParty(grpc::CallbackServerContext* context,
                                        const v1::CreatePartyRequest* request,
                                        v1::Party* response) override;
  grpc::ServerUnaryReactor* JoinParty(grpc::CallbackServerContext* context,
                                      const v1::JoinPartyRequest* request,
                                      v1::Party* response) override;
  grpc::ServerUnaryReactor* LeaveParty(grpc::CallbackServerContext* context,
                                       const v1::LeavePartyRequest* request,
                                       v1::LeavePartyResponse* response) override;
  grpc::ServerUnaryReactor* RegisterBot(grpc::CallbackServerContext* context,
                                        const v1::RegisterBotRequest* request,
                                        v1::RegisterBotResponse* response) override;
  grpc::ServerUnaryReactor* RotateBotKey(grpc::CallbackServerContext* context,
                                         const v1::RotateBotKeyRequest* request,
                                         v1::RegisterBotResponse* response) override;
  grpc::ServerUnaryReactor* RevokeBot(grpc::CallbackServerContext* context,
                                      const v1::RevokeBotRequest* request,
                                      v1::RevokeBotResponse* response) override;
  grpc::ServerWriteReactor<v1::BotUpdate>* ServeBot(
      grpc::CallbackServerContext* context, const v1::ServeBotRequest* request) override;

 private:
  // `consent`, when given, receives the token a player called with (their own
  // consent to a stake's hold), or "" for a service caller.
  absl::StatusOr<std::string> Player(grpc::CallbackServerContext* context,
                                     const std::string& player_id,
                                     std::string* consent = nullptr);
  // Bot accounts: a service credential with bots:admin.
  absl::Status Operator(grpc::CallbackServerContext* context);
  // RESOURCE_EXHAUSTED, before any token is verified, when the caller's address
  // has spent its quota on calls that were not verified.
  absl::Status Screen(grpc::CallbackServerContext* context) const;
  // RESOURCE_EXHAUSTED when the caller (null: not verified, so its address) has
  // used its quota.
  absl::Status CheckRate(grpc::CallbackServerContext* context, const Caller* caller);
  // The bot account of a ServeBot key; known-bad keys are answered from memory.
  absl::StatusOr<BotAccount> BotOfKey(const std::string& key);

  const GrpcOptions options_;
  const PlayerAuth* const auth_;
  Lobby* const lobby_;
  BotRoster* const bots_;
  TicketStore* const store_;
  std::atomic<bool> serving_{false};
  service::RateLimiter player_limiter_;
  service::RateLimiter backend_limiter_;
  service::RateLimiter peer_limiter_;
  absl::Mutex bad_keys_mu_;
  absl::flat_hash_map<std::string, absl::Time> bad_keys_ ABSL_GUARDED_BY(bad_keys_mu_);
};

grpc::Status ToGrpcStatus(const absl::Status& s);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_
