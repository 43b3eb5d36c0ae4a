// The thin gRPC wiring of trix.v1.Rooms (rooms.proto) on the callback API, served
// beside MatchmakingService: authenticates the caller (PlayerAuth, as
// MatchmakingService does), counts every call against the caller's quota (the
// same rates, GrpcOptions) and JoinRoom's code lookups against a quota of their
// own, checks the request's form, and turns it into a RoomService call.
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_ROOMS_GRPC_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_ROOMS_GRPC_H_

#include <atomic>
#include <string>

#include "services/common/rate_limit.h"
#include "services/matchmaking/grpc_service.h"
#include "services/matchmaking/player_auth.h"
#include "services/matchmaking/rooms/room_service.h"
#include "trix/v1/rooms.grpc.pb.h"

namespace trix::matchmaking {

struct RoomsGrpcOptions {
  GrpcOptions calls;  // the callers' quotas, as MatchmakingService's
  // Invite-code lookups (JoinRoom), per player and per service credential: a
  // code cannot be guessed at a useful rate.
  service::RateLimit player_code_lookups{.per_second = 1, .burst = 10};
  service::RateLimit backend_code_lookups{.per_second = 200, .burst = 400};
};

class RoomsGrpcService final : public v1::Rooms::CallbackService {
 public:
  RoomsGrpcService(RoomsGrpcOptions options, const PlayerAuth* auth, RoomService* rooms);
  void SetServing(bool serving) { serving_ = serving; }

  grpc::ServerUnaryReactor* CreateRoom(grpc::CallbackServerContext* context,
                                       const v1::CreateRoomRequest* request,
                                       v1::RoomState* response) override;
  grpc::ServerUnaryReactor* JoinRoom(grpc::CallbackServerContext* context,
                                     const v1::JoinRoomRequest* request,
                                     v1::RoomState* response) override;
  grpc::ServerWriteReactor<v1::RoomState>* WatchRoom(
      grpc::CallbackServerContext* context, const v1::WatchRoomRequest* request) override;
  grpc::ServerUnaryReactor* TakeSeat(grpc::CallbackServerContext* context,
                                     const v1::TakeSeatRequest* request,
                                     v1::RoomState* response) override;
  grpc::ServerUnaryReactor* SwapSeats(grpc::CallbackServerContext* context,
                                      const v1::SwapSeatsRequest* request,
                                      v1::RoomState* response) override;
  grpc::ServerUnaryReactor* SetReady(grpc::CallbackServerContext* context,
                                     const v1::SetReadyRequest* request,
                                     v1::RoomState* response) override;
  grpc::ServerUnaryReactor* LeaveRoom(grpc::CallbackServerContext* context,
                                      const v1::LeaveRoomRequest* request,
                                      v1::LeaveRoomResponse* response) override;
  grpc::ServerUnaryReactor* Kick(grpc::CallbackServerContext* context,
                                 const v1::KickRequest* request,
                                 v1::RoomState* response) override;
  grpc::ServerUnaryReactor* StartGame(grpc::CallbackServerContext* context,
                                      const v1::StartGameRequest* request,
                                      v1::RoomState* response) override;
  grpc::ServerUnaryReactor* Rematch(grpc::CallbackServerContext* context,
                                    const v1::RematchRequest* request,
                                    v1::RoomState* response) override;

 private:
  // The player the call acts for, its quota counted; `caller` receives who called.
  absl::StatusOr<std::string> Player(grpc::CallbackServerContext* context,
                                     const std::string& player_id,
                                     Caller* caller = nullptr);
  // Player() (the caller into `caller` when not null), then a room id checked,
  // then `change` applied to the room.
  grpc::ServerUnaryReactor* Apply(
      grpc::CallbackServerContext* context, const std::string& player_id,
      const std::string& room_id,
      const std::function<absl::Status(Room&, const std::string&)>& change,
      v1::RoomState* response, Caller* caller = nullptr);
  // StartGame (rematch false) and Rematch (true).
  grpc::ServerUnaryReactor* Start(grpc::CallbackServerContext* context,
                                  const std::string& player_id, const std::string& room_id,
                                  bool rematch, v1::RoomState* response);

  const RoomsGrpcOptions options_;
  const PlayerAuth* const auth_;
  RoomService* const rooms_;
  std::atomic<bool> serving_{false};
  service::RateLimiter player_limiter_, backend_limiter_, peer_limiter_;
  service::RateLimiter player_lookups_, backend_lookups_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_ROOMS_GRPC_H_
