// The rooms of rooms.proto, without gRPC: every call loads its Room from the
// RoomStore, changes it and saves it under its version, again from a fresh load
// when another change came first (ABORTED), so that changes made at once on any
// replica apply one after the other and two StartGame make one table.
//
// A game starts in steps, each saved before the next: the room's next game is
// claimed (ROOM_GAME_STARTING, its CreateTable request id fixed: the room and the
// game's number), its empty seats are planned (bot accounts lent by the bot
// roster, as Quick Play's, or the autopilot), the table is made through the
// TableClient (Placement) with seat tokens derived from that request id
// (seat_tokens.h), and the game is recorded as being played with its seats
// (mm_assignments, so that the bots' streams and GetAssignment find them). A
// start whose CreateTable was refused in a way that proves no table was made is
// undone; one whose answer may have been lost, or whose process died, is
// finished by the keeper after `resume_after`, asking again with the same request
// (the same table).
//
// A staked room (its stake one of Quick Play's stake levels; a ratings service
// needed) holds every seated member's stake before the table is made, through
// the ratings service and the hold releases that Quick Play's tickets use
// (hold_releases.h): each hold is recorded first (HoldReleases::Expect), keyed by
// the member and this start of the game (HoldRequestId of the game's request id
// and its start time), so that a resumed start finds the same holds and never
// places a second one. A member whose balance cannot cover the stake undoes the
// start: the call is FAILED_PRECONDITION naming them (every such member), their
// ready flags are cleared, and every hold of that start is given back
// (HoldReleases::NotQueued, retried until done), as for a start refused by every table
// instance. Once the table is made the holds are attached to the members' seats
// (AttachHold), and the ratings service settles the game as it settles Quick Play's; the
// keeper attaches again those it could not. Bots and the autopilot never stake.
//
// The keeper (a thread of each replica) also watches the tables of the games
// being played, the way the lobby does (GetTable with matchmaking's table
// credential): a game over, voided or gone goes into the room's series and its
// seats are finished. It sends every watcher (WatchRoom) the room again when its
// version moved, and deletes the rooms nobody has been in for `idle_ttl`.
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_SERVICE_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_SERVICE_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/matchmaking/clients/ratings_client.h"
#include "services/matchmaking/clients/table_states.h"
#include "services/matchmaking/hold_releases.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/placement.h"
#include "services/matchmaking/rooms/room_store.h"
#include "services/matchmaking/seat_tokens.h"
#include "trix/v1/rooms.pb.h"

namespace trix::matchmaking {

struct RoomsOptions {
  absl::Duration code_ttl = absl::Hours(1);         // an invite code joins this long
  absl::Duration idle_ttl = absl::Minutes(30);      // an empty room is deleted after
  absl::Duration check_every = absl::Seconds(1);    // games' ends, watchers, expiry
  absl::Duration resume_after = absl::Seconds(10);  // a start left unfinished
  v1::Clocks clocks;  // of the tables; zero: the table service's
  std::vector<int64_t> stake_levels;  // besides 0 (free): Quick Play's
};

// What a staked room's holds go through: the ratings service (null: staked
// rooms are FAILED_PRECONDITION, as Quick Play's staked tickets are) and
// Quick Play's hold releases.
struct RoomHolds {
  RatingsClient* ratings = nullptr;
  HoldReleases* releases = nullptr;
};

// A WatchRoom stream.
class RoomSink {
 public:
  virtual ~RoomSink() = default;
  virtual void Send(const v1::RoomState& state) = 0;
  virtual void End(const absl::Status& status) = 0;
};

// Bot accounts lent as Quick Play lends them (bot_roster.h): a seat reserved
// on a stream for an ask (the room's mode and bot level, or, for any level, the
// players' mean rating that `people_rating` reads), and the seats made delivered
// to the streams.
struct BotLending {
  std::function<std::optional<BotSeat>(const BotAsk&)> reserve;
  std::function<void(const std::vector<AssignmentRow>&)> deliver;
  // Optional: the mean displayed rating of the players in a mode (nullopt: unknown).
  std::function<std::optional<int>(const v1::Mode&, const std::vector<std::string>&)>
      people_rating;
};

// The invite codes' alphabet: no 0/O, 1/I/L.
inline constexpr char kRoomCodeAlphabet[] = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
inline constexpr size_t kRoomCodeLength = 8;
// A code drawn from OpenSSL's cryptographic generator.
std::string NewRoomCode();
// INVALID_ARGUMENT unless `code` could be a room's (any case); the code in upper case.
absl::StatusOr<std::string> CheckRoomCode(const std::string& code);

class RoomService {
 public:
  RoomService(RoomsOptions options, RoomStore* store, TableClient* tables,
              TableStates* games, const SeatTokens* tokens, BotLending bots,
              RoomHolds holds = {});
  ~RoomService();
  void Start();  // the keeper
  void Stop();   // ends the watchers' streams UNAVAILABLE

  absl::StatusOr<Room> Create(const RoomPlayer& owner,
                              const v1::CreateRoomRequest& request);
  absl::StatusOr<Room> Join(const RoomPlayer& player, const std::string& code);
  // Applies `change` to the room for a member (PERMISSION_DENIED otherwise),
  // saved under its version.
  absl::StatusOr<Room> Change(const std::string& room_id, const std::string& player_id,
                              const std::function<absl::Status(Room&)>& change);
  // StartGame (`rematch` false) or Rematch.
  absl::StatusOr<Room> StartGame(const std::string& room_id, const std::string& player_id,
                                 bool rematch);
  // StartGame on one of the service's own threads (it waits for the table
  // service, which a gRPC callback thread must not), then `done`.
  void StartGameLater(const std::string& room_id, const std::string& player_id,
                      bool rematch, std::function<void(absl::StatusOr<Room>)> done);
  // The room as `player_id` sees it: with their own seat at the game being played.
  v1::RoomState View(const Room& room, const std::string& player_id) const;

  // A member's WatchRoom stream: the room now, then on every change.
  absl::Status Watch(const std::string& room_id, const std::string& player_id,
                     std::shared_ptr<RoomSink> sink);
  void Unwatch(const std::shared_ptr<RoomSink>& sink);

  // One round of the keeper (public for tests).
  void Keep();

 private:
  struct Watcher {
    std::string player_id;
    std::shared_ptr<RoomSink> sink;
    int64_t version = 0;  // the last sent
  };
  // Load, `change`, save; again on ABORTED. `change` answers whether to save.
  absl::StatusOr<Room> Update(const std::string& room_id,
                              const std::function<absl::StatusOr<bool>(Room&)>& change,
                              const RoomWrite& write = {});
  absl::StatusOr<Room> FinishStart(const std::string& room_id, int number);
  absl::StatusOr<Room> PlanEmptySeats(const std::string& room_id, int number);
  // What the starting game's empty seats ask bot fill for: the room's mode and
  // bot level; for any level, the seated members' mean rating.
  BotAsk BotAskFor(const Room& room) const;
  // The starting game's stakes held (see above): the holds by HoldStake request
  // id (none for a free room), UNAVAILABLE while the ratings service does not
  // answer (the keeper resumes the start), or a member's refusal, the start undone.
  absl::StatusOr<std::map<std::string, std::string>> HoldStakes(const Room& room);
  // The holds of a game voided or gone, given back naming its table (once; an
  // attached hold the ratings service's TTL gives back otherwise).
  void ReleaseStakes(const Room& room);
  // Attaches the holds of the game being played to its seats, and records it.
  void AttachStakes(const Room& room);
  // Undoes the starting game (the ready flags of the members `unready`, whose
  // stakes were refused, cleared) and gives back every hold of that start: those
  // of `held` (by request id) at once, any other through the hold releases.
  void UndoStart(const Room& room, const std::vector<std::string>& unready,
                 const std::map<std::string, std::string>& held);
  // Gives back the holds of `held` now; the request ids of those given back.
  std::vector<std::string> GiveBack(const std::map<std::string, std::string>& held);
  // The table made: the game being played with its seats, the bots told.
  absl::StatusOr<Room> SaveCreated(const Room& room, const Placed& placed);
  v1::CreateTableRequest TableRequest(const Room& room) const;
  std::vector<AssignmentRow> SeatRows(const Room& room) const;
  void KeepGame(const std::string& room_id);
  // Sends the room to its watchers who have not seen this version; ends the
  // streams of watchers who are no longer members (or of a room gone: null).
  void Publish(const std::string& room_id, const Room* room);
  void Loop();
  void StartLoop();

  const RoomsOptions options_;
  RoomStore* const store_;
  TableClient* const tables_;
  TableStates* const games_;
  const SeatTokens* const tokens_;
  const BotLending bots_;
  const RoomHolds holds_;
  absl::Mutex mu_;
  std::map<std::string, std::vector<Watcher>> watchers_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::function<void()>> starts_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
  std::vector<std::thread> starters_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_ROOM_SERVICE_H_
