#include "services/matchmaking/rooms/rooms_grpc.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/grpc_metadata.h"
#include "services/common/tls.h"
#include "services/matchmaking/stream_outbox.h"

namespace trix::matchmaking {
namespace {

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context,
                                 const absl::Status& s) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(s));
  return reactor;
}

absl::Status CheckRoomId(const std::string& room_id) {
  if (room_id.empty() || room_id.size() > 128) {
    return absl::InvalidArgumentError("a room_id (CreateRoom's answer) is required");
  }
  return absl::OkStatus();
}

absl::StatusOr<RoomPlayer> Named(const std::string& player_id, const std::string& name) {
  if (name.size() > 64)
    return absl::InvalidArgumentError("display_name is longer than 64 bytes");
  return RoomPlayer{player_id, name.empty() ? player_id : name};
}

// A WatchRoom stream as the room service sees it.
class WatchSink : public RoomSink {
 public:
  explicit WatchSink(std::shared_ptr<StreamOutbox<v1::RoomState>> outbox)
      : outbox_(std::move(outbox)) {}
  void Send(const v1::RoomState& state) override { outbox_->Push(state); }
  void End(const absl::Status& status) override { outbox_->End(ToGrpcStatus(status)); }

 private:
  std::shared_ptr<StreamOutbox<v1::RoomState>> outbox_;
};

}  // namespace

RoomsGrpcService::RoomsGrpcService(RoomsGrpcOptions options, const PlayerAuth* auth,
                                   RoomService* rooms)
    : options_(options),
      auth_(auth),
      rooms_(rooms),
      player_limiter_(options_.calls.player_rate),
      backend_limiter_(options_.calls.backend_rate),
      peer_limiter_(options_.calls.peer_rate),
      player_lookups_(options_.player_code_lookups),
      backend_lookups_(options_.backend_code_lookups) {}

absl::StatusOr<std::string> RoomsGrpcService::Player(grpc::CallbackServerContext* context,
                                                     const std::string& player_id,
                                                     Caller* caller_out) {
  if (!serving_) return absl::UnavailableError("matchmaking is not serving; retry");
  const std::string peer = service::PeerKey(context->peer());
  if (peer_limiter_.Spent(peer)) {
    return absl::ResourceExhaustedError("too many calls from this address; slow down");
  }
  absl::StatusOr<Caller> caller =
      auth_->Authenticate(service::ClientMetadata(*context, "authorization"),
                          service::PeerCertificateNames(context->auth_context().get()));
  if (!caller.ok()) {
    if (!peer_limiter_.Allow(peer)) {
      return absl::ResourceExhaustedError("too many calls from this address; slow down");
    }
    return caller.status();
  }
  if (caller->service ? !backend_limiter_.Allow(caller->credential)
                      : !player_limiter_.Allow(caller->player_id)) {
    return absl::ResourceExhaustedError("too many calls; slow down");
  }
  if (player_id.size() > 128)
    return absl::InvalidArgumentError("player_id is longer than 128 bytes");
  if (caller_out != nullptr) *caller_out = *caller;
  return ActingFor(*caller, player_id);
}

grpc::ServerUnaryReactor* RoomsGrpcService::CreateRoom(
    grpc::CallbackServerContext* context, const v1::CreateRoomRequest* request,
    v1::RoomState* response) {
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  if (!player.ok()) return Finish(context, player.status());
  absl::StatusOr<RoomPlayer> owner = Named(*player, request->display_name());
  if (!owner.ok()) return Finish(context, owner.status());
  absl::StatusOr<Room> room = rooms_->Create(*owner, *request);
  if (room.ok()) *response = rooms_->View(*room, *player);
  return Finish(context, room.status());
}

grpc::ServerUnaryReactor* RoomsGrpcService::JoinRoom(grpc::CallbackServerContext* context,
                                                     const v1::JoinRoomRequest* request,
                                                     v1::RoomState* response) {
  Caller caller;
  absl::StatusOr<std::string> player = Player(context, request->player_id(), &caller);
  if (!player.ok()) return Finish(context, player.status());
  absl::StatusOr<std::string> code = CheckRoomCode(request->code());
  if (!code.ok()) return Finish(context, code.status());
  // Every lookup counts, found or not: codes cannot be tried at a useful rate.
  if (caller.service ? !backend_lookups_.Allow(caller.credential)
                     : !player_lookups_.Allow(*player)) {
    return Finish(context,
                  absl::ResourceExhaustedError("too many invite codes tried; slow down"));
  }
  absl::StatusOr<RoomPlayer> joining = Named(*player, request->display_name());
  if (!joining.ok()) return Finish(context, joining.status());
  absl::StatusOr<Room> room = rooms_->Join(*joining, *code);
  if (room.ok()) *response = rooms_->View(*room, *player);
  return Finish(context, room.status());
}

grpc::ServerWriteReactor<v1::RoomState>* RoomsGrpcService::WatchRoom(
    grpc::CallbackServerContext* context, const v1::WatchRoomRequest* request) {
  auto outbox =
      std::make_shared<StreamOutbox<v1::RoomState>>(options_.calls.stream_buffer);
  auto sink = std::make_shared<WatchSink>(outbox);
  RoomService* rooms = rooms_;
  std::weak_ptr<RoomSink> weak = sink;
  auto* reactor = new OutboxReactor<v1::RoomState>(outbox, [rooms, weak] {
    if (std::shared_ptr<RoomSink> s = weak.lock()) rooms->Unwatch(s);
  });
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  absl::Status s = player.status();
  if (s.ok()) s = CheckRoomId(request->room_id());
  if (s.ok()) s = rooms_->Watch(request->room_id(), *player, sink);
  if (!s.ok()) outbox->End(ToGrpcStatus(s));
  return reactor;
}

grpc::ServerUnaryReactor* RoomsGrpcService::Apply(
    grpc::CallbackServerContext* context, const std::string& player_id,
    const std::string& room_id,
    const std::function<absl::Status(Room&, const std::string&)>& change,
    v1::RoomState* response, Caller* caller) {
  absl::StatusOr<std::string> player = Player(context, player_id, caller);
  if (!player.ok()) return Finish(context, player.status());
  if (absl::Status s = CheckRoomId(room_id); !s.ok()) return Finish(context, s);
  const std::string who = *player;
  absl::StatusOr<Room> room =
      rooms_->Change(room_id, who, [&](Room& r) { return change(r, who); });
  if (room.ok() && response != nullptr) *response = rooms_->View(*room, who);
  return Finish(context, room.status());
}

grpc::ServerUnaryReactor* RoomsGrpcService::TakeSeat(grpc::CallbackServerContext* context,
                                                     const v1::TakeSeatRequest* request,
                                                     v1::RoomState* response) {
  const int seat = request->seat();
  return Apply(
      context, request->player_id(), request->room_id(),
      [seat](Room& r, const std::string& p) { return r.TakeSeat(p, seat); }, response);
}

grpc::ServerUnaryReactor* RoomsGrpcService::SwapSeats(
    grpc::CallbackServerContext* context, const v1::SwapSeatsRequest* request,
    v1::RoomState* response) {
  const int a = request->seat_a(), b = request->seat_b();
  return Apply(
      context, request->player_id(), request->room_id(),
      [a, b](Room& r, const std::string& p) { return r.SwapSeats(p, a, b); }, response);
}

grpc::ServerUnaryReactor* RoomsGrpcService::SetReady(grpc::CallbackServerContext* context,
                                                     const v1::SetReadyRequest* request,
                                                     v1::RoomState* response) {
  const bool ready = request->ready();
  if (request->stake_consent().size() > 4096) {
    return Finish(context,
                  absl::InvalidArgumentError("stake_consent is longer than 4096 bytes"));
  }
  // A player's own call consents with its token; a backend's carries it.
  const std::string token =
      service::BearerToken(service::ClientMetadata(*context, "authorization"));
  Caller caller;
  return Apply(
      context, request->player_id(), request->room_id(),
      [&](Room& r, const std::string& p) {
        return r.SetReady(p, ready, caller.service ? request->stake_consent() : token);
      },
      response, &caller);
}

grpc::ServerUnaryReactor* RoomsGrpcService::LeaveRoom(
    grpc::CallbackServerContext* context, const v1::LeaveRoomRequest* request,
    v1::LeaveRoomResponse*) {
  return Apply(
      context, request->player_id(), request->room_id(),
      [](Room& r, const std::string& p) { return r.Leave(p); }, nullptr);
}

grpc::ServerUnaryReactor* RoomsGrpcService::Kick(grpc::CallbackServerContext* context,
                                                 const v1::KickRequest* request,
                                                 v1::RoomState* response) {
  if (request->member().empty() || request->member().size() > 128) {
    return Finish(context, absl::InvalidArgumentError("the member to kick is required"));
  }
  const std::string member = request->member();
  return Apply(
      context, request->player_id(), request->room_id(),
      [member](Room& r, const std::string& p) { return r.Kick(p, member); }, response);
}

grpc::ServerUnaryReactor* RoomsGrpcService::StartGame(
    grpc::CallbackServerContext* context, const v1::StartGameRequest* request,
    v1::RoomState* response) {
  return Start(context, request->player_id(), request->room_id(), /*rematch=*/false, response);
}

grpc::ServerUnaryReactor* RoomsGrpcService::Rematch(grpc::CallbackServerContext* context,
                                                    const v1::RematchRequest* request,
                                                    v1::RoomState* response) {
  return Start(context, request->player_id(), request->room_id(), /*rematch=*/true, response);
}

// StartGame and Rematch: the room's next game, started on the room service's
// threads (it waits for CreateTable), answered when it is made or refused.
grpc::ServerUnaryReactor* RoomsGrpcService::Start(grpc::CallbackServerContext* context,
                                                  const std::string& player_id,
                                                  const std::string& room_id, bool rematch,
                                                  v1::RoomState* response) {
  absl::StatusOr<std::string> player = Player(context, player_id);
  if (!player.ok()) return Finish(context, player.status());
  if (absl::Status s = CheckRoomId(room_id); !s.ok()) return Finish(context, s);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  RoomService* rooms = rooms_;
  const std::string who = *player;
  rooms_->StartGameLater(room_id, who, rematch,
                         [reactor, response, rooms, who](absl::StatusOr<Room> room) {
                           if (room.ok()) *response = rooms->View(*room, who);
                           reactor->Finish(ToGrpcStatus(room.status()));
                         });
  return reactor;
}

}  // namespace trix::matchmaking
