// How trix-play takes part in a private room (rooms.proto) as one member: the
// calls that change the room (open, join, sit, ready, start, rematch, leave) and
// the room's WatchRoom stream, read on a thread of its own and kept as the state
// with the highest version (the calls' answers count too).
//
//   RoomClient room({.address = "127.0.0.1:50053", .player = "p1", .bearer = token});
//   absl::StatusOr<v1::RoomState> opened = room.Create(v1::EMPTY_SEATS_BOTS, "");
//   room.Watch(opened->room_id());
//   std::optional<v1::RoomState> now = room.Latest();
#ifndef TRIX_BOTS_PLAY_ROOM_CLIENT_H_
#define TRIX_BOTS_PLAY_ROOM_CLIENT_H_

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "trix/v1/rooms.grpc.pb.h"

namespace trix::bots {

struct RoomMemberOptions {
  std::string address;  // the matchmaking service, host:port
  std::string player;   // the member's player id
  std::string display_name;
  std::string bearer;   // a player token or a service credential (matchmaking:play)
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // null: plaintext
};

class RoomClient {
 public:
  explicit RoomClient(RoomMemberOptions options);
  ~RoomClient();

  // `mode` by name ("complex-partner", ...); empty: the room's default.
  absl::StatusOr<v1::RoomState> Create(v1::EmptySeats empty_seats, const std::string& mode);
  absl::StatusOr<v1::RoomState> Join(const std::string& code);
  absl::StatusOr<v1::RoomState> TakeSeat(int seat);  // -1 stands up
  absl::StatusOr<v1::RoomState> SetReady(bool ready);
  absl::StatusOr<v1::RoomState> StartGame();
  absl::StatusOr<v1::RoomState> Rematch();
  absl::Status Leave();

  // Follows the room from now on (a stream cut off is opened again, a second
  // later, until the room is gone or the member is out of it).
  void Watch(const std::string& room_id);
  // The room as last seen (nullopt before the first state).
  std::optional<v1::RoomState> Latest();
  // Why watching stopped or stalls; OK while it runs.
  absl::Status WatchStatus();
  // Blocks until a state newer than `version` or `timeout`.
  bool AwaitNewer(int64_t version, absl::Duration timeout);
  const std::string& player() const { return options_.player; }

 private:
  template <typename Request>
  absl::StatusOr<v1::RoomState> Call(
      grpc::Status (v1::Rooms::Stub::*method)(grpc::ClientContext*, const Request&,
                                              v1::RoomState*),
      Request request);
  void Prepare(grpc::ClientContext* context) const;
  void Keep(const v1::RoomState& state);
  void WatchLoop();
  bool WatchOnce();

  const RoomMemberOptions options_;
  std::unique_ptr<v1::Rooms::Stub> stub_;
  std::string room_id_;
  std::thread watcher_;
  absl::Mutex mu_;
  std::optional<v1::RoomState> latest_ ABSL_GUARDED_BY(mu_);
  absl::Status watch_status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* watch_context_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_ROOM_CLIENT_H_
