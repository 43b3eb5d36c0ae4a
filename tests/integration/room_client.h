// Private rooms as a test calls them (rooms.proto): each member's WatchRoom stream
// read on its own thread, and the calls a member makes, with the integration
// tests' service credential acting for the member.
//
//   RoomCalls calls(stub.get());
//   v1::RoomState room = calls.Create("alice", request);
//   RoomWatch watch(stub.get(), "alice", room.room_id());
#ifndef TRIX_TESTS_INTEGRATION_ROOM_CLIENT_H_
#define TRIX_TESTS_INTEGRATION_ROOM_CLIENT_H_

#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"
#include "trix/v1/rooms.grpc.pb.h"

namespace trix::matchmaking {

// One member's WatchRoom stream, read on its own thread.
class RoomWatch {
 public:
  RoomWatch(v1::Rooms::Stub* stub, const std::string& player,
            const std::string& room_id) {
    context_.AddMetadata("authorization", kServiceBearer);
    v1::WatchRoomRequest request;
    request.set_player_id(player);
    request.set_room_id(room_id);
    thread_ = std::thread([this, stub, request] {
      auto reader = stub->WatchRoom(&context_, request);
      v1::RoomState state;
      while (reader->Read(&state)) {
        absl::MutexLock lock(&mu_);
        states_.push_back(state);
      }
      grpc::Status s = reader->Finish();
      absl::MutexLock lock(&mu_);
      status_ = s;
      done_ = true;
    });
  }
  ~RoomWatch() {
    context_.TryCancel();
    thread_.join();
  }
  // The first state received that satisfies `want` (within `timeout`).
  std::optional<v1::RoomState> WaitFor(std::function<bool(const v1::RoomState&)> want,
                                       absl::Duration timeout = absl::Seconds(60)) {
    absl::MutexLock lock(&mu_);
    std::optional<v1::RoomState> found;
    auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const v1::RoomState& s : states_) {
        if (want(s)) {
          found = s;
          return true;
        }
      }
      return done_;
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    return found;
  }
  std::vector<v1::RoomState> states() {
    absl::MutexLock lock(&mu_);
    return states_;
  }

 private:
  grpc::ClientContext context_;
  absl::Mutex mu_;
  std::vector<v1::RoomState> states_ ABSL_GUARDED_BY(mu_);
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// A member's calls (the service credential acting for them).
class RoomCalls {
 public:
  explicit RoomCalls(v1::Rooms::Stub* stub) : stub_(stub) {}

  template <typename Request, typename Response, typename Call>
  grpc::Status Call_(Call call, const Request& request, Response* response,
                     const std::string& authorization = kServiceBearer) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", authorization);
    return (stub_->*call)(&context, request, response);
  }
  v1::RoomState Create(const std::string& player, v1::CreateRoomRequest r = {}) {
    r.set_player_id(player);
    v1::RoomState state;
    grpc::Status s = Call_(&v1::Rooms::Stub::CreateRoom, r, &state);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return state;
  }
  grpc::Status Join(const std::string& player, const std::string& code,
                    v1::RoomState* state = nullptr,
                    const std::string& authorization = kServiceBearer) {
    v1::JoinRoomRequest r;
    r.set_player_id(player);
    r.set_code(code);
    v1::RoomState ignored;
    return Call_(&v1::Rooms::Stub::JoinRoom, r, state ? state : &ignored, authorization);
  }
  grpc::Status TakeSeat(const std::string& player, const std::string& room, int seat) {
    v1::TakeSeatRequest r;
    r.set_player_id(player);
    r.set_room_id(room);
    r.set_seat(seat);
    v1::RoomState state;
    return Call_(&v1::Rooms::Stub::TakeSeat, r, &state);
  }
  // `consent`: a staked room's SetReadyRequest.stake_consent.
  grpc::Status Ready(const std::string& player, const std::string& room,
                     const std::string& authorization = kServiceBearer,
                     const std::string& consent = "") {
    v1::SetReadyRequest r;
    r.set_player_id(player);
    r.set_room_id(room);
    r.set_ready(true);
    r.set_stake_consent(consent);
    v1::RoomState state;
    return Call_(&v1::Rooms::Stub::SetReady, r, &state, authorization);
  }
  grpc::Status Start(const std::string& player, const std::string& room,
                     bool rematch = false, v1::RoomState* state = nullptr) {
    v1::RoomState ignored;
    if (state == nullptr) state = &ignored;
    if (rematch) {
      v1::RematchRequest r;
      r.set_player_id(player);
      r.set_room_id(room);
      return Call_(&v1::Rooms::Stub::Rematch, r, state);
    }
    v1::StartGameRequest r;
    r.set_player_id(player);
    r.set_room_id(room);
    return Call_(&v1::Rooms::Stub::StartGame, r, state);
  }
  // StartGame by `a` and by `b` at once: at least one answers OK, and any other
  // answer is FAILED_PRECONDITION (the game is starting or being played).
  void StartAtOnce(const std::string& a, const std::string& b, const std::string& room) {
    grpc::Status first, second;
    std::thread t1([&] { first = Start(a, room); });
    std::thread t2([&] { second = Start(b, room); });
    t1.join();
    t2.join();
    EXPECT_TRUE(first.ok() || second.ok())
        << first.error_message() << second.error_message();
    for (const grpc::Status& s : {first, second}) {
      EXPECT_TRUE(s.ok() || s.error_code() == grpc::StatusCode::FAILED_PRECONDITION)
          << s.error_message();
    }
  }

 private:
  v1::Rooms::Stub* const stub_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_INTEGRATION_ROOM_CLIENT_H_
