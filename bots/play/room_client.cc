#include "bots/play/room_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/sdk/seat.h"
#include "grpcpp/create_channel.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

constexpr absl::Duration kCallDeadline = absl::Seconds(10);

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

}  // namespace

RoomClient::RoomClient(RoomMemberOptions options)
    : options_(std::move(options)),
      stub_(v1::Rooms::NewStub(
          grpc::CreateChannel(options_.address, OrPlaintext(options_.credentials)))) {}

RoomClient::~RoomClient() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (watch_context_) watch_context_->TryCancel();
  }
  if (watcher_.joinable()) watcher_.join();
}

void RoomClient::Prepare(grpc::ClientContext* context) const {
  if (!options_.bearer.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", options_.bearer));
  }
}

template <typename Request>
absl::StatusOr<v1::RoomState> RoomClient::Call(
    grpc::Status (v1::Rooms::Stub::*method)(grpc::ClientContext*, const Request&,
                                            v1::RoomState*),
    Request request) {
  request.set_player_id(options_.player);
  grpc::ClientContext context;
  Prepare(&context);
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  v1::RoomState state;
  const grpc::Status status = (stub_.get()->*method)(&context, request, &state);
  if (!status.ok()) return FromGrpc(status);
  Keep(state);
  return state;
}

absl::StatusOr<v1::RoomState> RoomClient::Create(v1::EmptySeats empty_seats,
                                                 const std::string& mode) {
  v1::CreateRoomRequest request;
  request.set_display_name(options_.display_name);
  request.set_empty_seats(empty_seats);
  if (!mode.empty()) {
    absl::StatusOr<v1::Mode> parsed = wire::ModeFromName(mode);
    if (!parsed.ok()) return parsed.status();
    *request.mutable_mode() = *parsed;
  }
  return Call(&v1::Rooms::Stub::CreateRoom, request);
}

absl::StatusOr<v1::RoomState> RoomClient::Join(const std::string& code) {
  v1::JoinRoomRequest request;
  request.set_code(code);
  request.set_display_name(options_.display_name);
  return Call(&v1::Rooms::Stub::JoinRoom, request);
}

absl::StatusOr<v1::RoomState> RoomClient::TakeSeat(int seat) {
  v1::TakeSeatRequest request;
  request.set_room_id(room_id_);
  request.set_seat(seat);
  return Call(&v1::Rooms::Stub::TakeSeat, request);
}

absl::StatusOr<v1::RoomState> RoomClient::SetReady(bool ready) {
  v1::SetReadyRequest request;
  request.set_room_id(room_id_);
  request.set_ready(ready);
  return Call(&v1::Rooms::Stub::SetReady, request);
}

absl::StatusOr<v1::RoomState> RoomClient::StartGame() {
  v1::StartGameRequest request;
  request.set_room_id(room_id_);
  return Call(&v1::Rooms::Stub::StartGame, request);
}

absl::StatusOr<v1::RoomState> RoomClient::Rematch() {
  v1::RematchRequest request;
  request.set_room_id(room_id_);
  return Call(&v1::Rooms::Stub::Rematch, request);
}

absl::Status RoomClient::Leave() {
  v1::LeaveRoomRequest request;
  request.set_player_id(options_.player);
  request.set_room_id(room_id_);
  grpc::ClientContext context;
  Prepare(&context);
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  v1::LeaveRoomResponse response;
  return FromGrpc(stub_->LeaveRoom(&context, request, &response));
}

void RoomClient::Keep(const v1::RoomState& state) {
  absl::MutexLock lock(&mu_);
  if (room_id_.empty()) room_id_ = state.room_id();
  if (!latest_ || state.version() >= latest_->version()) latest_ = state;
}

std::optional<v1::RoomState> RoomClient::Latest() {
  absl::MutexLock lock(&mu_);
  return latest_;
}

absl::Status RoomClient::WatchStatus() {
  absl::MutexLock lock(&mu_);
  return watch_status_;
}

bool RoomClient::AwaitNewer(int64_t version, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto newer = [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return latest_.has_value() && latest_->version() > version;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&newer), timeout);
}

void RoomClient::Watch(const std::string& room_id) {
  {
    absl::MutexLock lock(&mu_);
    room_id_ = room_id;
  }
  watcher_ = std::thread([this] { WatchLoop(); });
}

void RoomClient::WatchLoop() {
  while (WatchOnce()) absl::SleepFor(absl::Seconds(1));
}

// One WatchRoom stream to its end; whether to open another.
bool RoomClient::WatchOnce() {
  grpc::ClientContext context;
  Prepare(&context);
  v1::WatchRoomRequest request;
  request.set_player_id(options_.player);
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return false;
    request.set_room_id(room_id_);
    watch_context_ = &context;
  }
  std::unique_ptr<grpc::ClientReader<v1::RoomState>> reader =
      stub_->WatchRoom(&context, request);
  v1::RoomState state;
  while (reader->Read(&state)) {
    Keep(state);
    absl::MutexLock lock(&mu_);
    watch_status_ = absl::OkStatus();
  }
  const absl::Status status = FromGrpc(reader->Finish());
  absl::MutexLock lock(&mu_);
  watch_context_ = nullptr;
  watch_status_ = status.ok() ? absl::UnavailableError("the room's stream ended") : status;
  return !stopping_ && !absl::IsNotFound(status) && !absl::IsPermissionDenied(status);
}

}  // namespace trix::bots
