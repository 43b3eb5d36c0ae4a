// Where rooms live, behind an interface so that the room service can be tested
// without PostgreSQL (testing/memory_room_store.h) and run in production on it
// (postgres_room_store.h). Both keep the same contract, which
// rooms/room_store_contract_test.cc checks against each.
//
// A room is saved whole under a version: Save applies only when the stored
// version is still the one the room was loaded with, and raises it by one, so
// that of two changes made from the same version (two StartGame at once) one
// applies and the other is ABORTED, reloads and sees the first. A save may carry
// the seats of a game's table (written to mm_assignments with the room, as the
// matcher writes Quick Play's: bot accounts find their seats there, and a
// player's GetAssignment finds theirs) and the table of a game that ended (its
// seats finished).
//
//   absl::StatusOr<Room> room = store->Load(room_id);
//   room->SetReady(player, true);
//   absl::Status s = store->Save(*room);   // ABORTED: reload and try again
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_STORE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/rooms/room.h"
#include "services/matchmaking/ticket_store.h"

namespace trix::matchmaking {

// What a save writes besides the room, in the same transaction.
struct RoomWrite {
  std::vector<AssignmentRow> seats;  // a game's table was made: its seats
  std::string finished_table;        // a game ended: its seats are finished
};

class RoomStore {
 public:
  virtual ~RoomStore() = default;

  // Stores a new room at version 1 (set on `room`). ALREADY_EXISTS when its
  // code is another room's (draw another code).
  virtual absl::Status Create(Room& room) = 0;
  // NOT_FOUND for a room never made or expired.
  virtual absl::StatusOr<Room> Load(const std::string& room_id) = 0;
  // The room of an invite code; NOT_FOUND for an unknown code, or one whose
  // expiry is past at `now`.
  virtual absl::StatusOr<std::string> RoomOfCode(const std::string& code,
                                                 absl::Time now) = 0;
  // Saves the room if its stored version is room.version(), raising both by
  // one, with `write`. ABORTED when the room changed since it was loaded,
  // NOT_FOUND when it is gone; nothing is written then.
  virtual absl::Status Save(Room& room, const RoomWrite& write = {}) = 0;
  // The rooms whose game is starting or being played.
  virtual absl::StatusOr<std::vector<std::string>> Playing() = 0;
  // Deletes the rooms nobody is in, with no game on, unchanged since `before`;
  // returns how many went.
  virtual absl::StatusOr<int> ExpireIdle(absl::Time before) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_STORE_H_
