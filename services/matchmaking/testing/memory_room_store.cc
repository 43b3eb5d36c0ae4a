#include "services/matchmaking/testing/memory_room_store.h"

namespace trix::matchmaking {

absl::Status MemoryRoomStore::Create(Room& room) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, s] : rooms_) {
    if (s.code == room.code())
      return absl::AlreadyExistsError("the invite code is taken");
  }
  rooms_[room.room_id()] = {.text = room.Serialize(),
                            .code = room.code(),
                            .code_expires = room.code_expires(),
                            .version = 1,
                            .empty = room.empty(),
                            .changed = absl::Now()};
  room.set_version(1);
  return absl::OkStatus();
}

absl::StatusOr<Room> MemoryRoomStore::Load(const std::string& room_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rooms_.find(room_id);
  if (it == rooms_.end()) return absl::NotFoundError("no such room");
  absl::StatusOr<Room> room = Room::Parse(it->second.text);
  if (room.ok()) room->set_version(it->second.version);
  return room;
}

absl::StatusOr<std::string> MemoryRoomStore::RoomOfCode(const std::string& code,
                                                        absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, s] : rooms_) {
    if (s.code == code && s.code_expires > now) return id;
  }
  return absl::NotFoundError("no room has this code (or it expired)");
}

absl::Status MemoryRoomStore::Save(Room& room, const RoomWrite& write) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rooms_.find(room.room_id());
  if (it == rooms_.end()) return absl::NotFoundError("no such room");
  Stored& s = it->second;
  if (s.version != room.version()) {
    return absl::AbortedError("the room changed meanwhile; try again");
  }
  s.text = room.Serialize();
  s.version = room.version() + 1;
  s.empty = room.empty();
  s.playing = room.playing();
  s.changed = absl::Now();
  for (const AssignmentRow& a : write.seats)
    seats_.emplace(std::make_pair(a.table_id, a.seat), a);
  if (!write.finished_table.empty()) finished_.insert(write.finished_table);
  room.set_version(s.version);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> MemoryRoomStore::Playing() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, s] : rooms_) {
    if (s.playing) ids.push_back(id);
  }
  return ids;
}

absl::StatusOr<int> MemoryRoomStore::ExpireIdle(absl::Time before) {
  std::lock_guard<std::mutex> lock(mu_);
  int gone = 0;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    if (it->second.empty && !it->second.playing && it->second.changed < before) {
      it = rooms_.erase(it);
      ++gone;
    } else {
      ++it;
    }
  }
  return gone;
}

std::vector<AssignmentRow> MemoryRoomStore::Seats(const std::string& table_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AssignmentRow> rows;
  for (const auto& [key, a] : seats_) {
    if (key.first == table_id) rows.push_back(a);
  }
  return rows;
}

bool MemoryRoomStore::finished(const std::string& table_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_.count(table_id) > 0;
}

}  // namespace trix::matchmaking
