// RoomService on the in-memory room store, with a table service and table ends
// of the test's own: two starts at once make one table, a start whose answer was
// lost is finished by the keeper with the same table, one refused everywhere is
// undone, a game's end goes into the series with its seats finished, each
// watcher gets their own seat token only, idle empty rooms expire. A staked
// room (on the ratings fake and Quick Play's hold releases on memory) holds each
// member's stake before its table and attaches it to their seat after; a member
// who cannot cover the stake undoes the start and nobody's hold is left; a
// resumed start reuses the holds of the first.
#include "services/matchmaking/rooms/room_service.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "services/matchmaking/testing/fake_ratings_client.h"
#include "services/matchmaking/testing/memory_hold_release_store.h"
#include "services/matchmaking/testing/memory_room_store.h"
#include "services/matchmaking/testing/memory_ticket_store.h"

namespace trix::matchmaking {
namespace {

// Makes one table per request id (asked again: the same one), or fails with
// `failure` while it is set.
class Tables : public TableClient {
 public:
  std::vector<Placed> CreateTables(
      const std::vector<v1::CreateTableRequest>& requests) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Placed> placed;
    for (const v1::CreateTableRequest& r : requests) {
      asked.push_back(r);
      Placed p;
      p.status = failure;
      if (failure.ok()) {
        std::string& table = tables[r.request_id()];
        if (table.empty()) table = "table-" + std::to_string(tables.size());
        p.address = "host:1";
        p.response.set_table_id(table);
      }
      placed.push_back(p);
    }
    return placed;
  }
  absl::Status VoidTable(const std::string&, const std::string&,
                         const std::string&) override {
    return absl::OkStatus();
  }
  std::mutex mu_;
  absl::Status failure;
  std::vector<v1::CreateTableRequest> asked;
  std::map<std::string, std::string> tables;  // by request id
};

class Ends : public TableStates {
 public:
  TableGame GameAt(const std::string&, const std::string& table_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ends.find(table_id);
    return it == ends.end() ? TableGame{.end = TableEnd::kLive} : it->second;
  }
  std::mutex mu_;
  std::map<std::string, TableGame> ends;
};

class Sink : public RoomSink {
 public:
  void Send(const v1::RoomState& state) override {
    std::lock_guard<std::mutex> lock(mu_);
    states.push_back(state);
  }
  void End(const absl::Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    ended = status;
  }
  v1::RoomState last() {
    std::lock_guard<std::mutex> lock(mu_);
    return states.back();
  }
  std::mutex mu_;
  std::vector<v1::RoomState> states;
  std::optional<absl::Status> ended;
};

class RoomServiceTest : public ::testing::Test {
 protected:
  RoomServiceTest() { Make({}); }
  void Make(RoomsOptions options) {
    service_.reset();
    options.stake_levels = {100};
    service_ = std::make_unique<RoomService>(
        options, &store_, &tables_, &ends_, &tokens_,
        BotLending{
            .reserve = [this](const BotAsk& ask) -> std::optional<BotSeat> {
              asks_.push_back(ask);
              // One account per level: "bot-1" of none, "bot-strong" of strong.
              if (!ask.taken.empty()) return std::nullopt;
              if (ask.level.empty()) return BotSeat{"bot-1", "Bot", "stream-1"};
              if (ask.level == "strong")
                return BotSeat{"bot-strong", "Strong", "stream-2", "strong"};
              return std::nullopt;
            },
            .deliver =
                [this](const std::vector<AssignmentRow>& rows) {
                  for (const AssignmentRow& a : rows) delivered_.push_back(a);
                },
            .people_rating = [this](const v1::Mode&, const std::vector<std::string>& people)
                -> std::optional<int> {
              rated_people_ = people;
              return 1234;
            }},
        RoomHolds{.ratings = &ratings_, .releases = &releases_});
  }
  // alice's room with bob at seat 2, both ready (at `stake`).
  std::string ReadyRoom(int64_t stake = 0) {
    v1::CreateRoomRequest request;
    request.set_stake(stake);
    absl::StatusOr<Room> room = service_->Create({"alice", "Alice"}, request);
    EXPECT_TRUE(room.ok()) << room.status();
    EXPECT_TRUE(service_->Join({"bob", "Bob"}, room->code()).ok());
    const std::string id = room->room_id();
    for (auto change : std::vector<std::function<absl::Status(Room&)>>{
             [](Room& r) { return r.TakeSeat("bob", 2); },
             [](Room& r) { return r.SetReady("bob", true); },
             [](Room& r) { return r.SetReady("alice", true); }}) {
      EXPECT_TRUE(service_->Change(id, "alice", change).ok());
    }
    return id;
  }

  // The state of every hold the fake ledger made.
  std::vector<v1::Hold> Holds() {
    std::vector<v1::Hold> holds;
    for (int i = 1; i <= ratings_.holds_made(); ++i) {
      holds.push_back(*ratings_.HoldOf("hold-" + std::to_string(i)));
    }
    return holds;
  }

  MemoryRoomStore store_;
  MemoryTicketStore tickets_;
  FakeRatings ratings_;
  prometheus::Registry registry_;
  HoldReleases releases_{std::make_unique<MemoryHoldReleaseStore>(&tickets_),
                         ratings_.Client(), HoldReleasesOptions{}, &registry_};
  Tables tables_;
  Ends ends_;
  SeatTokens tokens_{"room service test key"};
  std::vector<AssignmentRow> delivered_;
  std::vector<BotAsk> asks_;
  std::vector<std::string> rated_people_;
  std::unique_ptr<RoomService> service_;
};

TEST_F(RoomServiceTest, AStakeIsAStakeLevel) {
  v1::CreateRoomRequest staked;
  staked.set_stake(70);
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Create({"a", "A"}, staked).status()));
  staked.set_stake(-100);
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Create({"a", "A"}, staked).status()));
  staked.set_stake(100);
  absl::StatusOr<Room> room = service_->Create({"a", "A"}, staked);
  ASSERT_TRUE(room.ok()) << room.status();
  EXPECT_EQ(room->settings().stake, 100);
}

TEST_F(RoomServiceTest, AnUnratedRoomMakesUnratedTablesAndSaysSoInItsSeries) {
  v1::CreateRoomRequest request;
  request.set_unrated(true);
  absl::StatusOr<Room> room = service_->Create({"alice", "Alice"}, request);
  ASSERT_TRUE(room.ok()) << room.status();
  const std::string id = room->room_id();
  ASSERT_TRUE(service_->Change(id, "alice", [](Room& r) { return r.SetReady("alice", true); })
                  .ok());
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  ASSERT_EQ(tables_.asked.size(), 1u);
  EXPECT_TRUE(tables_.asked[0].unrated());
  TableGame over{.end = TableEnd::kOver};
  for (int t : {5, -5, 5, -5}) over.result.add_totals(t);
  ends_.ends[tables_.tables.begin()->second] = over;
  service_->Keep();
  absl::StatusOr<Room> ended = store_.Load(id);
  ASSERT_TRUE(ended.ok());
  const v1::RoomState state = service_->View(*ended, "alice");
  EXPECT_TRUE(state.unrated());
  ASSERT_EQ(state.series().games_size(), 1);
  EXPECT_TRUE(state.series().games(0).unrated());
  EXPECT_EQ(state.series().games_played(), 1);  // played all the same

  ASSERT_TRUE(service_->StartGame(ReadyRoom(), "alice", false).ok());  // rated: the default
  EXPECT_FALSE(tables_.asked.back().unrated());
}

TEST(RoomServiceWithoutRatingsTest, AStakedRoomNeedsTheRatingsService) {
  MemoryRoomStore store;
  SeatTokens tokens{"key"};
  RoomService service(RoomsOptions{.stake_levels = {100}}, &store, nullptr, nullptr,
                      &tokens, {});
  v1::CreateRoomRequest staked;
  staked.set_stake(100);
  absl::Status s = service.Create({"a", "A"}, staked).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
}

TEST_F(RoomServiceTest, AStakedStartHoldsEachMembersStakeAndAttachesItToTheirSeat) {
  ratings_.SetBalance("alice", 500);
  ratings_.SetBalance("bob", 500);
  const std::string id = ReadyRoom(100);
  absl::StatusOr<Room> room = service_->StartGame(id, "alice", false);
  ASSERT_TRUE(room.ok()) << room.status();
  const std::string table = tables_.tables.begin()->second;
  std::vector<v1::Hold> holds = Holds();
  ASSERT_EQ(holds.size(), 2u);  // the bot and the autopilot hold nothing
  std::map<std::string, int> seats;
  for (const v1::Hold& h : holds) {
    EXPECT_EQ(h.state(), v1::HOLD_STATE_ATTACHED);
    EXPECT_EQ(h.amount(), 100);
    EXPECT_EQ(h.table_id(), table);
    seats[h.player_id()] = h.seat();
  }
  EXPECT_EQ(seats, (std::map<std::string, int>{{"alice", 0}, {"bob", 2}}));
  const v1::CreateTableRequest& made = tables_.asked.front();
  for (int seat : {0, 1, 2, 3}) EXPECT_EQ(made.seats(seat).stake(), seat % 2 ? 0 : 100);
  EXPECT_TRUE(store_.Load(id)->game()->stakes_attached);
  EXPECT_EQ(releases_.ReleaseDue(), 0);  // nothing left to give back
  EXPECT_EQ(Holds()[0].state(), v1::HOLD_STATE_ATTACHED);
}

TEST_F(RoomServiceTest, AMemberWhoCannotCoverTheStakeUndoesTheStartAndNoHoldIsLeft) {
  ratings_.SetBalance("alice", 500);
  ratings_.SetBalance("bob", 50);
  const std::string id = ReadyRoom(100);
  absl::Status s = service_->StartGame(id, "alice", false).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("bob"), absl::string_view::npos) << s;
  EXPECT_TRUE(tables_.asked.empty());
  absl::StatusOr<Room> room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_FALSE(room->game().has_value());
  for (const RoomMember& m : room->members()) EXPECT_EQ(m.ready, m.player_id == "alice");
  releases_.ReleaseDue();
  for (const v1::Hold& h : Holds()) EXPECT_EQ(h.state(), v1::HOLD_STATE_RELEASED);
  // bob tops up and says ready: the next start holds anew, once per member.
  ratings_.SetBalance("bob", 500);
  ASSERT_TRUE(
      service_->Change(id, "bob", [](Room& r) { return r.SetReady("bob", true); }).ok());
  ASSERT_TRUE(service_->StartGame(id, "bob", false).ok());
  int attached = 0;
  for (const v1::Hold& h : Holds()) attached += h.state() == v1::HOLD_STATE_ATTACHED;
  EXPECT_EQ(attached, 2);
}

TEST_F(RoomServiceTest, AResumedStakedStartReusesItsHolds) {
  RoomsOptions options;
  options.resume_after = absl::ZeroDuration();
  Make(options);
  ratings_.SetBalance("alice", 100);
  ratings_.SetBalance("bob", 100);
  const std::string id = ReadyRoom(100);
  tables_.failure = absl::UnavailableError("answer lost");
  EXPECT_TRUE(absl::IsUnavailable(service_->StartGame(id, "alice", false).status()));
  ASSERT_EQ(ratings_.holds_made(), 2);
  for (const v1::Hold& h : Holds()) EXPECT_EQ(h.state(), v1::HOLD_STATE_HELD);
  tables_.failure = absl::OkStatus();
  service_->Keep();
  EXPECT_EQ(store_.Load(id)->game()->state, v1::ROOM_GAME_PLAYING);
  ASSERT_EQ(ratings_.holds_made(), 2);  // the same holds, not a second pair
  for (const v1::Hold& h : Holds()) EXPECT_EQ(h.state(), v1::HOLD_STATE_ATTACHED);
}

TEST_F(RoomServiceTest, AStakedStartRefusedEverywhereGivesItsHoldsBack) {
  ratings_.SetBalance("alice", 100);
  ratings_.SetBalance("bob", 100);
  const std::string id = ReadyRoom(100);
  tables_.failure = absl::ResourceExhaustedError("no instance has room");
  EXPECT_TRUE(absl::IsUnavailable(service_->StartGame(id, "alice", false).status()));
  releases_.ReleaseDue();
  for (const v1::Hold& h : Holds()) EXPECT_EQ(h.state(), v1::HOLD_STATE_RELEASED);
  tables_.failure = absl::OkStatus();
  ASSERT_TRUE(
      service_->StartGame(id, "alice", false).ok());  // the balance covers it again
  EXPECT_EQ(ratings_.holds_made(), 4);
}

TEST_F(RoomServiceTest, AVoidedStakedGameGivesItsHoldsBack) {
  ratings_.SetBalance("alice", 100);
  ratings_.SetBalance("bob", 100);
  const std::string id = ReadyRoom(100);
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  ends_.ends[tables_.tables.begin()->second] = TableGame{.end = TableEnd::kVoided};
  service_->Keep();
  EXPECT_EQ(store_.Load(id)->game()->state, v1::ROOM_GAME_OVER);
  ASSERT_EQ(ratings_.holds_made(), 2);
  for (const v1::Hold& h : Holds()) EXPECT_EQ(h.state(), v1::HOLD_STATE_RELEASED);
}

TEST_F(RoomServiceTest, TwoStakedStartsAtOnceHoldOnceForEachMember) {
  ratings_.SetBalance("alice", 500);
  ratings_.SetBalance("bob", 500);
  const std::string id = ReadyRoom(100);
  absl::Status first, second;
  std::thread a([&] { first = service_->StartGame(id, "alice", false).status(); });
  std::thread b([&] { second = service_->StartGame(id, "bob", false).status(); });
  a.join();
  b.join();
  EXPECT_NE(first.ok(), second.ok()) << first << " / " << second;
  EXPECT_EQ(tables_.tables.size(), 1u);
  EXPECT_EQ(ratings_.holds_made(), 2);
}

TEST_F(RoomServiceTest, TwoStartsAtOnceMakeOneTable) {
  const std::string id = ReadyRoom();
  absl::Status first, second;
  std::thread a([&] { first = service_->StartGame(id, "alice", false).status(); });
  std::thread b([&] { second = service_->StartGame(id, "bob", false).status(); });
  a.join();
  b.join();
  EXPECT_NE(first.ok(), second.ok()) << first << " / " << second;
  EXPECT_TRUE(absl::IsFailedPrecondition(first.ok() ? second : first));
  EXPECT_EQ(tables_.tables.size(), 1u);
  absl::StatusOr<Room> room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_EQ(room->game()->state, v1::ROOM_GAME_PLAYING);
  // Seats 1 and 3: the one bot account, then the autopilot.
  const v1::CreateTableRequest& made = tables_.asked.front();
  EXPECT_EQ(made.seats(1).player_id(), "bot-1");
  EXPECT_TRUE(made.seats(3).autopilot());
  EXPECT_EQ(made.seats(3).seat_token(), "");
  ASSERT_EQ(delivered_.size(), 1u);
  EXPECT_EQ(delivered_[0].seat_token, made.seats(1).seat_token());
  EXPECT_EQ(store_.Seats(room->game()->table_id).size(), 3u);  // alice, bot, bob
}

TEST_F(RoomServiceTest, AnyLevelAsksForTheBotNearestTheSeatedMembersRating) {
  const std::string id = ReadyRoom();
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  ASSERT_EQ(asks_.size(), 2u);  // seats 1 and 3
  EXPECT_EQ(asks_[0].level, "");
  EXPECT_EQ(asks_[0].near_rating, 1234);
  EXPECT_EQ(asks_[1].taken, std::vector<std::string>{"bot-1"});
  EXPECT_EQ(rated_people_, (std::vector<std::string>{"alice", "bob"}));
  const v1::RoomState state = service_->View(*store_.Load(id), "alice");
  EXPECT_EQ(state.bot_level(), v1::BOT_LEVEL_UNSPECIFIED);
  EXPECT_TRUE(state.game().seats(1).bot());
  EXPECT_EQ(state.game().seats(1).bot_level(), v1::BOT_LEVEL_UNSPECIFIED);
}

TEST_F(RoomServiceTest, ALevelIsAskedExactlyAndASeatNoBotOfItTakesGoesToTheAutopilot) {
  v1::CreateRoomRequest request;
  request.set_bot_level(v1::BOT_LEVEL_STRONG);
  absl::StatusOr<Room> room = service_->Create({"alice", "Alice"}, request);
  ASSERT_TRUE(room.ok()) << room.status();
  const std::string id = room->room_id();
  ASSERT_TRUE(service_->Change(id, "alice", [](Room& r) { return r.SetReady("alice", true); })
                  .ok());
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  ASSERT_EQ(asks_.size(), 3u);  // seats 1, 2 and 3
  for (const BotAsk& ask : asks_) {
    EXPECT_EQ(ask.level, "strong");
    EXPECT_FALSE(ask.near_rating.has_value());  // the level decides, not ratings
  }
  EXPECT_TRUE(rated_people_.empty());
  const v1::CreateTableRequest& made = tables_.asked.front();
  EXPECT_EQ(made.seats(1).player_id(), "bot-strong");
  EXPECT_TRUE(made.seats(2).autopilot());
  EXPECT_TRUE(made.seats(3).autopilot());
  // Stored and shown: the room's level, and which seats are bots of which level.
  const v1::RoomState state = service_->View(*store_.Load(id), "alice");
  EXPECT_EQ(state.bot_level(), v1::BOT_LEVEL_STRONG);
  EXPECT_FALSE(state.game().seats(0).bot());
  EXPECT_TRUE(state.game().seats(1).bot());
  EXPECT_FALSE(state.game().seats(1).autopilot());
  EXPECT_EQ(state.game().seats(1).bot_level(), v1::BOT_LEVEL_STRONG);
  EXPECT_TRUE(state.game().seats(2).autopilot());
  EXPECT_EQ(state.game().seats(2).bot_level(), v1::BOT_LEVEL_UNSPECIFIED);

  request.set_bot_level(static_cast<v1::BotLevel>(9));
  EXPECT_TRUE(absl::IsInvalidArgument(service_->Create({"bob", "Bob"}, request).status()));
}

TEST_F(RoomServiceTest, EachWatcherIsSentTheirOwnSeatOnly) {
  const std::string id = ReadyRoom();
  auto alice = std::make_shared<Sink>(), bob = std::make_shared<Sink>();
  ASSERT_TRUE(service_->Watch(id, "alice", alice).ok());
  ASSERT_TRUE(service_->Watch(id, "bob", bob).ok());
  EXPECT_TRUE(
      absl::IsPermissionDenied(service_->Watch(id, "zed", std::make_shared<Sink>())));
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  const v1::CreateTableRequest& made = tables_.asked.front();
  EXPECT_EQ(alice->last().assignment().seat(), 0);
  EXPECT_EQ(alice->last().assignment().seat_token(), made.seats(0).seat_token());
  EXPECT_EQ(bob->last().assignment().seat(), 2);
  EXPECT_EQ(bob->last().assignment().seat_token(), made.seats(2).seat_token());
  // Kicked, bob's stream ends.
  ASSERT_TRUE(
      service_->Change(id, "alice", [](Room& r) { return r.Kick("alice", "bob"); }).ok());
  ASSERT_TRUE(bob->ended.has_value());
  EXPECT_TRUE(absl::IsPermissionDenied(*bob->ended));
}

TEST_F(RoomServiceTest, AStartWhoseAnswerWasLostIsFinishedWithTheSameTable) {
  RoomsOptions options;
  options.resume_after = absl::ZeroDuration();
  Make(options);
  const std::string id = ReadyRoom();
  tables_.failure = absl::UnavailableError("answer lost");
  EXPECT_TRUE(absl::IsUnavailable(service_->StartGame(id, "alice", false).status()));
  absl::StatusOr<Room> room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_EQ(room->game()->state, v1::ROOM_GAME_STARTING);
  tables_.failure = absl::OkStatus();
  service_->Keep();
  room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_EQ(room->game()->state, v1::ROOM_GAME_PLAYING);
  ASSERT_EQ(tables_.asked.size(), 2u);
  EXPECT_EQ(tables_.asked[0].DebugString(), tables_.asked[1].DebugString());  // the same
}

TEST_F(RoomServiceTest, AStartRefusedEverywhereIsUndone) {
  const std::string id = ReadyRoom();
  tables_.failure = absl::ResourceExhaustedError("no instance has room");
  EXPECT_TRUE(absl::IsUnavailable(service_->StartGame(id, "alice", false).status()));
  absl::StatusOr<Room> room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_FALSE(room->game().has_value());
  tables_.failure = absl::OkStatus();
  EXPECT_TRUE(service_->StartGame(id, "alice", false).ok());  // still ready
}

TEST_F(RoomServiceTest, AGameOverGoesIntoTheSeriesAndFinishesItsSeats) {
  const std::string id = ReadyRoom();
  ASSERT_TRUE(service_->StartGame(id, "alice", false).ok());
  const std::string table = tables_.tables.begin()->second;
  service_->Keep();  // still on
  EXPECT_FALSE(store_.finished(table));
  TableGame over{.end = TableEnd::kOver};
  for (int t : {5, -5, 5, -5}) over.result.add_totals(t);
  over.result.set_winner_team(0);
  ends_.ends[table] = over;
  service_->Keep();
  absl::StatusOr<Room> room = store_.Load(id);
  ASSERT_TRUE(room.ok());
  EXPECT_EQ(room->series().games_played(), 1);
  EXPECT_EQ(room->series().team_wins(0), 1);
  EXPECT_TRUE(store_.finished(table));
  EXPECT_TRUE(service_->StartGame(id, "bob", true).ok());  // a rematch
  EXPECT_EQ(tables_.tables.size(), 2u);
}

TEST_F(RoomServiceTest, AnEmptyRoomExpiresAfterItsIdleTime) {
  RoomsOptions options;
  options.idle_ttl = absl::ZeroDuration();
  Make(options);
  absl::StatusOr<Room> kept = service_->Create({"carol", "Carol"}, {});
  absl::StatusOr<Room> room = service_->Create({"alice", "Alice"}, {});
  ASSERT_TRUE(room.ok() && kept.ok());
  ASSERT_TRUE(
      service_->Change(room->room_id(), "alice", [](Room& r) { return r.Leave("alice"); })
          .ok());
  absl::SleepFor(absl::Milliseconds(2));
  service_->Keep();
  EXPECT_TRUE(absl::IsNotFound(store_.Load(room->room_id()).status()));
  EXPECT_TRUE(absl::IsNotFound(service_->Join({"bob", "Bob"}, room->code()).status()));
  EXPECT_TRUE(store_.Load(kept->room_id()).ok());  // carol is still in hers
}

TEST(RoomCodeTest, CodesAreEightUnambiguousCharactersAndReadBackInAnyCase) {
  std::set<std::string> codes;
  for (int i = 0; i < 200; ++i) {
    const std::string code = NewRoomCode();
    ASSERT_EQ(code.size(), kRoomCodeLength);
    EXPECT_EQ(code.find_first_of("0O1IL"), std::string::npos) << code;
    codes.insert(code);
    absl::StatusOr<std::string> back = CheckRoomCode(absl::AsciiStrToLower(code));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, code);
  }
  EXPECT_EQ(codes.size(), 200u);
  EXPECT_TRUE(absl::IsInvalidArgument(CheckRoomCode("ABCD0123").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(CheckRoomCode("ABC").status()));
}

}  // namespace
}  // namespace trix::matchmaking
