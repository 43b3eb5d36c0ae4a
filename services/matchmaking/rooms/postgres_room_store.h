// RoomStore on PostgreSQL: mm_rooms (migration 0037), and the seats of a room's
// games in mm_assignments, written in the transaction that saves the room.
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_POSTGRES_ROOM_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_POSTGRES_ROOM_STORE_H_

#include "services/matchmaking/rooms/room_store.h"
#include "services/pg/connection_pool.h"

namespace trix::matchmaking {

class PostgresRoomStore : public RoomStore {
 public:
  explicit PostgresRoomStore(pg::ConnectionPool* db) : db_(db) {}

  absl::Status Create(Room& room) override;
  absl::StatusOr<Room> Load(const std::string& room_id) override;
  absl::StatusOr<std::string> RoomOfCode(const std::string& code,
                                         absl::Time now) override;
  absl::Status Save(Room& room, const RoomWrite& write) override;
  absl::StatusOr<std::vector<std::string>> Playing() override;
  absl::StatusOr<int> ExpireIdle(absl::Time before) override;

 private:
  pg::ConnectionPool* const db_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_POSTGRES_ROOM_STORE_H_
