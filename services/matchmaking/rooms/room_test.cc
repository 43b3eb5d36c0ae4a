// Room on its own: membership, seats, readiness, ownership passing on, games
// starting and ending, the series, and its stored form.
#include "services/matchmaking/rooms/room.h"

#include <gtest/gtest.h>

#include "nlohmann/json.hpp"

namespace trix::matchmaking {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1700000000);

RoomSettings Partner() {
  RoomSettings s;
  s.mode.set_team(v1::TEAM_PARTNER);
  s.mode.set_format(v1::FORMAT_COMPLEX);
  return s;
}

Room Make(RoomSettings settings = Partner()) {
  return Room("room-1", "ABCD2345", kNow + absl::Hours(1), settings, {"alice", "Alice"},
              kNow);
}

v1::GameResult PartnerWin(int team, std::vector<int> totals) {
  v1::GameResult r;
  for (int t : totals) r.add_totals(t);
  r.set_winner_team(team);
  return r;
}

TEST(RoomTest, TheOwnerSitsFirstAndJoinersTakeTheEmptySeatsUntilFull) {
  Room room = Make();
  EXPECT_EQ(room.owner(), "alice");
  EXPECT_EQ(room.SeatOf("alice"), 0);
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());  // a member already: nothing changes
  ASSERT_TRUE(room.Join({"carol", "Carol"}).ok());
  ASSERT_TRUE(room.Join({"dave", "Dave"}).ok());
  EXPECT_EQ(room.members().size(), 4u);
  EXPECT_EQ(room.seats(), (std::array<std::string, 4>{"alice", "bob", "carol", "dave"}));
  absl::Status full = room.Join({"erin", "Erin"});
  EXPECT_TRUE(absl::IsFailedPrecondition(full)) << full;
  EXPECT_FALSE(room.IsMember("erin"));
}

TEST(RoomTest, ATakenSeatIsRefusedAndSwapsChoosePartners) {
  Room room = Make();
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());  // seat 1
  EXPECT_TRUE(absl::IsFailedPrecondition(room.TakeSeat("bob", 0)));
  EXPECT_TRUE(absl::IsInvalidArgument(room.TakeSeat("bob", 4)));
  ASSERT_TRUE(room.TakeSeat("bob", 2).ok());  // opposite alice: partners
  EXPECT_EQ(room.SeatOf("bob"), 2);
  EXPECT_EQ(room.seats()[1], "");
  ASSERT_TRUE(room.Join({"carol", "Carol"}).ok());  // the first empty seat: 1
  EXPECT_EQ(room.SeatOf("carol"), 1);
  // Carol may move herself; not Alice and Bob, whose seats are not hers.
  EXPECT_TRUE(absl::IsPermissionDenied(room.SwapSeats("carol", 0, 2)));
  ASSERT_TRUE(room.SetReady("carol", true).ok());
  ASSERT_TRUE(room.SwapSeats("carol", 1, 2).ok());
  EXPECT_EQ(room.SeatOf("carol"), 2);
  EXPECT_EQ(room.SeatOf("bob"), 1);
  EXPECT_FALSE(room.members()[2].ready);            // moved: not ready any more
  EXPECT_TRUE(room.SwapSeats("alice", 0, 3).ok());  // the owner swaps any two
  EXPECT_EQ(room.SeatOf("alice"), 3);
  EXPECT_TRUE(absl::IsInvalidArgument(room.SwapSeats("alice", 3, 3)));
  ASSERT_TRUE(room.TakeSeat("bob", -1).ok());  // stands up
  EXPECT_EQ(room.SeatOf("bob"), -1);
  EXPECT_TRUE(absl::IsFailedPrecondition(room.SetReady("bob", true)));
}

TEST(RoomTest, OwnershipPassesToTheEarliestMemberAndOnlyTheOwnerKicks) {
  Room room = Make();
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(room.Join({"carol", "Carol"}).ok());
  EXPECT_TRUE(absl::IsPermissionDenied(room.Kick("bob", "carol")));
  EXPECT_TRUE(absl::IsInvalidArgument(room.Kick("alice", "alice")));
  EXPECT_TRUE(absl::IsNotFound(room.Kick("alice", "zed")));
  ASSERT_TRUE(room.Leave("alice").ok());
  EXPECT_EQ(room.owner(), "bob");
  ASSERT_TRUE(room.Kick("bob", "carol").ok());
  EXPECT_FALSE(room.IsMember("carol"));
  EXPECT_EQ(room.seats()[2], "");
  ASSERT_TRUE(room.Leave("bob").ok());
  EXPECT_TRUE(room.empty());
  EXPECT_EQ(room.owner(), "");
  EXPECT_TRUE(absl::IsNotFound(room.Leave("bob")));
}

TEST(RoomTest, AGameStartsOnceEverySeatedMemberIsReady) {
  Room room = Make();
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(room.SetReady("alice", true).ok());
  absl::Status waiting = room.CheckStart("alice");
  EXPECT_TRUE(absl::IsFailedPrecondition(waiting));
  EXPECT_NE(waiting.message().find("bob"), absl::string_view::npos) << waiting;
  ASSERT_TRUE(room.SetReady("bob", true).ok());
  ASSERT_TRUE(room.CheckStart("bob").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(room.CheckStart("zed")));
  room.BeginGame("room-1/1", kNow);
  EXPECT_TRUE(room.playing());
  EXPECT_TRUE(room.members()[0].ready);  // until the table is made
  EXPECT_EQ(room.game()->number, 1);
  EXPECT_EQ(room.game()->seats[1].player_id, "bob");
  EXPECT_EQ(room.game()->seats[2].player_id, "");  // not planned yet
  absl::Status again = room.CheckStart("alice");
  EXPECT_TRUE(absl::IsFailedPrecondition(again));
  EXPECT_NE(again.message().find("starting"), absl::string_view::npos) << again;
  EXPECT_TRUE(absl::IsFailedPrecondition(room.TakeSeat("bob", 2)));
  room.GameCreated("table-1", "host:1");
  EXPECT_FALSE(room.members()[0].ready);  // cleared for the next game
  // A member joining now plays from the next game.
  ASSERT_TRUE(room.Join({"carol", "Carol"}).ok());
  EXPECT_EQ(room.game()->seats[2].player_id, "");
}

TEST(RoomTest, ARoomThatWaitsForFourDoesNotStartWithAnEmptySeat) {
  RoomSettings settings = Partner();
  settings.empty_seats = v1::EMPTY_SEATS_WAIT;
  Room room = Make(settings);
  ASSERT_TRUE(room.SetReady("alice", true).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(room.CheckStart("alice")));
}

TEST(RoomTest, EndedGamesMakeTheSeriesAndARematchFollows) {
  Room room = Make();
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(room.CheckRematch("alice")));  // no game yet
  room.BeginGame("room-1/1", kNow);
  std::array<GameSeat, 4> plan = room.game()->seats;
  plan[2] = {
      .player_id = "bot-1", .display_name = "Bot", .bot = true, .bot_stream = "s1"};
  plan[3] = {.player_id = "autopilot-3",
             .display_name = "Autopilot",
             .bot = true,
             .autopilot = true};
  room.PlanSeats(plan);
  room.GameCreated("table-1", "host:1");
  EXPECT_FALSE(room.GameEnded("table-other", nullptr));
  const v1::GameResult first = PartnerWin(1, {-10, 10, -10, 10});
  ASSERT_TRUE(room.GameEnded("table-1", &first));
  EXPECT_FALSE(room.GameEnded("table-1", &first));  // once
  EXPECT_FALSE(room.playing());
  ASSERT_TRUE(room.CheckRematch("bob").ok());
  room.BeginGame("room-1/2", kNow);
  room.GameCreated("table-2", "host:1");
  const v1::GameResult second = PartnerWin(1, {-4, 4, -4, 4});
  ASSERT_TRUE(room.GameEnded("table-2", &second));
  const v1::Series& series = room.series();
  EXPECT_EQ(series.games_played(), 2);
  ASSERT_EQ(series.games_size(), 2);
  EXPECT_EQ(series.games(0).players(2), "bot-1");
  EXPECT_EQ(series.games(1).table_id(), "table-2");
  EXPECT_EQ(series.team_wins(1), 2);
  EXPECT_EQ(series.team_wins(0), 0);
  EXPECT_EQ(series.seat_wins(1), 2);
  EXPECT_EQ(series.seat_wins(3), 2);
  EXPECT_EQ(series.seat_wins(0), 0);
  EXPECT_EQ(series.totals(1), 14);
  EXPECT_EQ(series.totals(0), -14);
}

TEST(RoomTest, AVoidedGameIsRecordedButNotCounted) {
  Room room = Make();
  room.BeginGame("room-1/1", kNow);
  room.GameCreated("table-1", "host:1");
  ASSERT_TRUE(room.GameEnded("table-1", nullptr));
  EXPECT_EQ(room.series().games_played(), 0);
  ASSERT_EQ(room.series().games_size(), 1);
  EXPECT_TRUE(room.series().games(0).voided());
}

TEST(RoomTest, AStartThatMadeNoTableIsUndone) {
  Room room = Make();
  ASSERT_TRUE(room.SetReady("alice", true).ok());
  room.BeginGame("room-1/1", kNow);
  room.CancelStart();
  EXPECT_FALSE(room.game().has_value());
  EXPECT_FALSE(room.playing());
  EXPECT_TRUE(room.CheckStart("alice").ok());  // ready as before
}

TEST(RoomTest, TheStoredFormGivesTheSameRoomBack) {
  Room room = Make();
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(room.SetReady("bob", true).ok());
  room.BeginGame("room-1/1", kNow);
  room.GameCreated("table-1", "host:1");
  const v1::GameResult r = PartnerWin(0, {3, -3, 3, -3});
  room.GameEnded("table-1", &r);
  ASSERT_TRUE(room.SetReady("alice", true).ok());
  absl::StatusOr<Room> back = Room::Parse(room.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  v1::RoomState a, b;
  room.ToProto(&a);
  back->ToProto(&b);
  EXPECT_EQ(a.DebugString(), b.DebugString());
  EXPECT_TRUE(absl::IsDataLoss(Room::Parse("{").status()));
}

TEST(RoomTest, TheBotLevelIsStoredAndARoomStoredWithoutOneReadsAsAnyLevel) {
  RoomSettings settings = Partner();
  settings.bot_level = v1::BOT_LEVEL_CASUAL;
  settings.unrated = true;
  Room room = Make(settings);
  room.BeginGame("room-1/1", kNow);
  std::array<GameSeat, kRoomSeats> seats = room.game()->seats;
  seats[1] = {.player_id = "bot-c", .bot = true, .bot_level = v1::BOT_LEVEL_CASUAL};
  room.PlanSeats(seats);
  absl::StatusOr<Room> back = Room::Parse(room.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->settings().bot_level, v1::BOT_LEVEL_CASUAL);
  EXPECT_TRUE(back->settings().unrated);
  EXPECT_EQ(back->game()->seats[1].bot_level, v1::BOT_LEVEL_CASUAL);
  nlohmann::json old = nlohmann::json::parse(room.Serialize());
  old.erase("level");
  for (nlohmann::json& seat : old["game"]["seats"]) seat.erase("level");
  back = Room::Parse(old.dump());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->settings().bot_level, v1::BOT_LEVEL_UNSPECIFIED);
  EXPECT_EQ(back->game()->seats[1].bot_level, v1::BOT_LEVEL_UNSPECIFIED);
}

// A staked room keeps each member's consent from their last SetReady, stored
// but never shown; not ready forgets it, and a free room keeps none.
TEST(RoomTest, AStakedRoomKeepsTheConsentOfReadyMembersOnly) {
  RoomSettings staked = Partner();
  staked.stake = 100;
  Room room = Make(staked);
  ASSERT_TRUE(room.Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(room.SetReady("alice", true, "alice-token").ok());
  ASSERT_TRUE(room.SetReady("bob", true, "bob-token").ok());
  ASSERT_TRUE(room.SetReady("bob", false).ok());
  absl::StatusOr<Room> back = Room::Parse(room.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->members()[0].consent, "alice-token");
  EXPECT_EQ(back->members()[1].consent, "");
  v1::RoomState state;
  back->ToProto(&state);
  EXPECT_EQ(state.DebugString().find("alice-token"), std::string::npos);
  Room free = Make();
  ASSERT_TRUE(free.SetReady("alice", true, "alice-token").ok());
  EXPECT_EQ(free.members()[0].consent, "");
}

}  // namespace
}  // namespace trix::matchmaking
