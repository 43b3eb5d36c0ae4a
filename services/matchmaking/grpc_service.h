// The thin gRPC wiring of MatchmakingService on the callback API: authenticates
// the caller (PlayerAuth), turns requests into Lobby / BotRoster / TicketStore
// calls and absl::Status into grpc::Status. Blocking work (database, other
// services) runs on the lobby's threads, or, for the rare unary calls, inline.
#ifndef TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_
#define TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/bot_roster.h"
#include "services/matchmaking/lobby.h"
#include "services/matchmaking/player_auth.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::matchmaking {

struct GrpcOptions {
  absl::Duration party_ttl = absl::Minutes(30);
  int max_bot_capacity = 1000;
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
  absl::StatusOr<std::string> Player(grpc::CallbackServerContext* context,
                                     const std::string& player_id) const;
  // Bot accounts: a service credential with bots:admin.
  absl::Status Operator(grpc::CallbackServerContext* context) const;

  const GrpcOptions options_;
  const PlayerAuth* const auth_;
  Lobby* const lobby_;
  BotRoster* const bots_;
  TicketStore* const store_;
  std::atomic<bool> serving_{false};
};

grpc::Status ToGrpcStatus(const absl::Status& s);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_GRPC_SERVICE_H_
