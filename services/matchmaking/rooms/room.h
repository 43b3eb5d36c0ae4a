// A private room on its own, without storage or network (rooms.proto): who is in
// it, who sits where, who is ready, who owns it, its current game and its series.
// Every change is a method that answers a status and changes nothing when it
// refuses; the room service loads a Room from its RoomStore, changes it and saves
// it back under its version (room_store.h), so that two changes at once never
// both apply to the same version.
//
//   Room room("id", "ABCD2345", expires, settings, {"alice", "Alice"}, now);
//   room.Join({"bob", "Bob"});          // takes the first empty seat
//   room.SetReady("alice", true);
//   if (room.CheckStart("alice").ok()) room.BeginGame(now);
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trix/v1/rooms.pb.h"

namespace trix::matchmaking {

inline constexpr int kRoomSeats = 4;
inline constexpr int kRoomMaxMembers = 4;

struct RoomSettings {
  v1::Mode mode;
  int64_t stake = 0;
  bool unrated = false;
  bool spectators = false;
  v1::EmptySeats empty_seats = v1::EMPTY_SEATS_BOTS;
  v1::BotLevel bot_level = v1::BOT_LEVEL_UNSPECIFIED;  // of the bots lent: any
};

struct RoomPlayer {
  std::string player_id;
  std::string display_name;
};

struct RoomMember {
  std::string player_id;
  std::string display_name;
  bool ready = false;
  // A staked room: the member's consent to the stake's hold, given with their
  // latest SetReady (rooms.proto); never shown to anyone.
  std::string consent;
};

// Who plays one seat of a game: a member, a bot account (lent through the bot
// stream `bot_stream`) or the table's autopilot.
struct GameSeat {
  std::string player_id;  // "" until the seat is planned
  std::string display_name;
  bool member = false;
  bool bot = false;
  bool autopilot = false;
  std::string bot_stream;
  v1::BotLevel bot_level = v1::BOT_LEVEL_UNSPECIFIED;  // the bot account's
};

struct RoomGame {
  int number = 0;
  v1::RoomGameState state = v1::ROOM_GAME_STARTING;
  // The CreateTable request id: the room and the game's number, so that asking
  // again gets the same table (and its seats' derived tokens).
  std::string request_id;
  bool planned = false;  // every empty seat given to a bot or the autopilot
  // A staked room's game being played: its members' holds attached to its seats.
  bool stakes_attached = false;
  std::array<GameSeat, kRoomSeats> seats;
  std::string table_id, address;
  absl::Time started;
};

class Room {
 public:
  Room() = default;
  Room(std::string room_id, std::string code, absl::Time code_expires,
       RoomSettings settings, const RoomPlayer& owner, absl::Time now);

  const std::string& room_id() const { return room_id_; }
  const std::string& code() const { return code_; }
  absl::Time code_expires() const { return code_expires_; }
  const std::string& owner() const { return owner_; }
  const RoomSettings& settings() const { return settings_; }
  const std::vector<RoomMember>& members() const { return members_; }
  // The player id at each seat, "" for an empty one.
  const std::array<std::string, kRoomSeats>& seats() const { return seats_; }
  const std::optional<RoomGame>& game() const { return game_; }
  const v1::Series& series() const { return series_; }
  int64_t version() const { return version_; }
  void set_version(int64_t version) { version_ = version; }

  bool IsMember(const std::string& player_id) const;
  int SeatOf(const std::string& player_id) const;  // -1: none
  bool empty() const { return members_.empty(); }
  // A game starting or being played.
  bool playing() const;

  // Joins, taking the first empty seat if any; a member already: nothing changes.
  // FAILED_PRECONDITION when the room is full.
  absl::Status Join(const RoomPlayer& player);
  // NOT_FOUND for one who is not a member. The earliest member left becomes the
  // owner when the owner leaves.
  absl::Status Leave(const std::string& player_id);
  // `seat` -1 stands up. FAILED_PRECONDITION for a taken seat or during a game.
  absl::Status TakeSeat(const std::string& player_id, int seat);
  // PERMISSION_DENIED for a member who is not the owner and moves someone else.
  absl::Status SwapSeats(const std::string& player_id, int seat_a, int seat_b);
  // In a staked room, `consent` (ready) is kept as the member's consent to the
  // stake's hold; not ready forgets it.
  absl::Status SetReady(const std::string& player_id, bool ready,
                        const std::string& consent = "");
  absl::Status Kick(const std::string& owner, const std::string& member);

  // Whether `player_id` may start the next game now (StartGame).
  absl::Status CheckStart(const std::string& player_id) const;
  // Whether `player_id` may start the next game after the last one (Rematch).
  absl::Status CheckRematch(const std::string& player_id) const;
  // The next game, starting: the members seated now.
  void BeginGame(const std::string& request_id, absl::Time now);
  // The starting game's empty seats, as planned (bots, the autopilot).
  void PlanSeats(const std::array<GameSeat, kRoomSeats>& seats);
  // The starting game's table is made: it is being played; every ready flag is
  // cleared for the next one.
  void GameCreated(const std::string& table_id, const std::string& address);
  // The game being played has its members' stakes attached to its seats.
  void MarkStakesAttached();
  // The starting game could not be made (and was not): back to before it, the
  // ready flags as they were.
  void CancelStart();
  // The game at `table_id` ended, with `result` (null: voided or lost): it goes
  // into the series. False when it is not this room's game being played.
  bool GameEnded(const std::string& table_id, const v1::GameResult* result);

  // The room as rooms.proto shows it (without any member's assignment).
  void ToProto(v1::RoomState* state) const;
  // What the store keeps of a room (without its version), and the room again.
  std::string Serialize() const;
  static absl::StatusOr<Room> Parse(const std::string& text);

 private:
  RoomMember* Member(const std::string& player_id);
  void Score(const v1::GameResult& result);

  std::string room_id_, code_;
  absl::Time code_expires_;
  RoomSettings settings_;
  std::string owner_;
  std::vector<RoomMember> members_;
  std::array<std::string, kRoomSeats> seats_;
  std::optional<RoomGame> game_;
  v1::Series series_;
  int64_t version_ = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_H_
