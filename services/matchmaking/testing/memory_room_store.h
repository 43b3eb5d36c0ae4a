// Rooms in memory (rooms/room_store.h), for the room service's tests: the same
// versions, codes, expiry and seats as PostgreSQL (the contract test checks both).
//
//   MemoryRoomStore store;
//   RoomService rooms(&store, ...);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_ROOM_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_ROOM_STORE_H_

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "services/matchmaking/rooms/room_store.h"

namespace trix::matchmaking {

class MemoryRoomStore : public RoomStore {
 public:
  absl::Status Create(Room& room) override;
  absl::StatusOr<Room> Load(const std::string& room_id) override;
  absl::StatusOr<std::string> RoomOfCode(const std::string& code,
                                         absl::Time now) override;
  absl::Status Save(Room& room, const RoomWrite& write) override;
  absl::StatusOr<std::vector<std::string>> Playing() override;
  absl::StatusOr<int> ExpireIdle(absl::Time before) override;

  // The seats written for `table_id` (in seat order), and those finished.
  std::vector<AssignmentRow> Seats(const std::string& table_id) const;
  bool finished(const std::string& table_id) const;

 private:
  struct Stored {
    std::string text;  // Room::Serialize()
    std::string code;
    absl::Time code_expires;
    int64_t version = 0;
    bool empty = false, playing = false;
    absl::Time changed;
  };
  mutable std::mutex mu_;
  std::map<std::string, Stored> rooms_;
  std::map<std::pair<std::string, int>, AssignmentRow> seats_;
  std::set<std::string> finished_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_ROOM_STORE_H_
