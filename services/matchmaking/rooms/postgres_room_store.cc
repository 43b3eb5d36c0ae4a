#include "services/matchmaking/rooms/postgres_room_store.h"

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"

namespace trix::matchmaking {
namespace {

double Seconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

// The seats of a game's table, as the matcher writes Quick Play's: the placement
// id stands for the token, which is not stored.
void InsertSeats(pqxx::work& tx, const std::vector<AssignmentRow>& seats) {
  for (const AssignmentRow& a : seats) {
    tx.exec_params0(
        "INSERT INTO mm_assignments (table_id, seat, player_id, bot, address, "
        "seat_token, "
        "team, format, stake, possible, bot_stream, placement_id) "
        "VALUES ($1, $2, $3, $4, $5, '', $6, $7, $8, to_timestamp($9), "
        "NULLIF($10, ''), $11) ON CONFLICT (table_id, seat) DO NOTHING",
        a.table_id, a.seat, a.player_id, a.bot, a.address, a.team, a.format, a.stake,
        Seconds(a.possible), a.bot_stream, a.placement_id);
  }
}

}  // namespace

absl::Status PostgresRoomStore::Create(Room& room) {
  return db_->Run("creating a room", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    pqxx::result r = tx.exec_params(
        "INSERT INTO mm_rooms (room_id, code, code_expires, version, room, members) "
        "VALUES ($1, $2, to_timestamp($3), 1, $4, $5) ON CONFLICT (code) DO NOTHING "
        "RETURNING version",
        room.room_id(), room.code(), Seconds(room.code_expires()), room.Serialize(),
        static_cast<int>(room.members().size()));
    if (r.empty()) return absl::AlreadyExistsError("the invite code is taken");
    tx.commit();
    room.set_version(1);
    return absl::OkStatus();
  });
}

absl::StatusOr<Room> PostgresRoomStore::Load(const std::string& room_id) {
  absl::StatusOr<Room> room = absl::NotFoundError("no such room");
  absl::Status s = db_->Run("loading a room", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    pqxx::result r =
        tx.exec_params("SELECT room, version FROM mm_rooms WHERE room_id = $1", room_id);
    if (r.empty()) return absl::OkStatus();
    room = Room::Parse(r[0][0].as<std::string>());
    if (room.ok()) room->set_version(r[0][1].as<int64_t>());
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return room;
}

absl::StatusOr<std::string> PostgresRoomStore::RoomOfCode(const std::string& code,
                                                          absl::Time now) {
  std::string room_id;
  absl::Status s = db_->Run("looking up an invite code", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    pqxx::result r = tx.exec_params(
        "SELECT room_id FROM mm_rooms WHERE code = $1 AND code_expires > "
        "to_timestamp($2)",
        code, Seconds(now));
    if (!r.empty()) room_id = r[0][0].as<std::string>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (room_id.empty())
    return absl::NotFoundError("no room has this code (or it expired)");
  return room_id;
}

absl::Status PostgresRoomStore::Save(Room& room, const RoomWrite& write) {
  return db_->Run("saving a room", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    pqxx::result r = tx.exec_params(
        "UPDATE mm_rooms SET version = version + 1, room = $3, members = $4, "
        "playing = $5, changed = now() WHERE room_id = $1 AND version = $2 "
        "RETURNING version",
        room.room_id(), room.version(), room.Serialize(),
        static_cast<int>(room.members().size()), room.playing());
    if (r.empty()) {
      pqxx::result there =
          tx.exec_params("SELECT 1 FROM mm_rooms WHERE room_id = $1", room.room_id());
      if (there.empty()) return absl::NotFoundError("no such room");
      return absl::AbortedError("the room changed meanwhile; try again");
    }
    InsertSeats(tx, write.seats);
    if (!write.finished_table.empty()) {
      tx.exec_params0("UPDATE mm_assignments SET finished = true WHERE table_id = $1",
                      write.finished_table);
    }
    tx.commit();
    room.set_version(r[0][0].as<int64_t>());
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<std::string>> PostgresRoomStore::Playing() {
  std::vector<std::string> rooms;
  absl::Status s = db_->Run("reading the rooms playing", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec("SELECT room_id FROM mm_rooms WHERE playing")) {
      rooms.push_back(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rooms;
}

absl::StatusOr<int> PostgresRoomStore::ExpireIdle(absl::Time before) {
  int gone = 0;
  absl::Status s = db_->Run("expiring idle rooms", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    pqxx::result r = tx.exec_params(
        "DELETE FROM mm_rooms WHERE members = 0 AND NOT playing "
        "AND changed < to_timestamp($1)",
        Seconds(before));
    gone = static_cast<int>(r.affected_rows());
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return gone;
}

}  // namespace trix::matchmaking
