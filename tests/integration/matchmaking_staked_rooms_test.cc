// Staked private rooms end to end: real PostgreSQL, the real table service, the
// real ratings service (a child process) and matchmaking in-process over real
// gRPC. Two members' room plays a staked game against the autopilot: two
// StartGame at once make one table and one hold per member, attached to their
// seats; the ratings service settles the game from the table's outbox and the
// balances move as the result says (the pot conserved, every ledger entry
// two-sided). A member whose balance cannot cover the stake is named, and
// nobody's hold is left. Where matchmaking's credential holds stakes only with
// consent, saying ready consents: with the player's own token, or a backend's
// stake_consent; a member who gave none is named.
#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/staked_rooms_fixture.h"

namespace trix::matchmaking {
namespace {

class MatchmakingStakedRoomsTest : public StakedRoomsTest {
 protected:
  void SetUp() override {
    StakedRoomsTest::SetUp();
    if (HasFatalFailure()) return;
    StartStakedMatchmaking();
  }
};

TEST_F(MatchmakingStakedRoomsTest, AStakedGameHoldsOncePerMemberAndIsSettledByItsResult) {
  Credit("alice", 500);
  Credit("bob", 500);
  const std::string room = ReadyStakedRoom();
  RoomWatch alice(rooms_.get(), "alice", room), bob(rooms_.get(), "bob", room);
  Calls().StartAtOnce("alice", "bob", room);
  auto playing = [](const v1::RoomState& s) {
    return s.game().state() == v1::ROOM_GAME_PLAYING && s.has_assignment();
  };
  std::optional<v1::RoomState> a = alice.WaitFor(playing), b = bob.WaitFor(playing);
  ASSERT_TRUE(a.has_value() && b.has_value());
  const std::string table = a->assignment().table_id();
  EXPECT_EQ(b->assignment().table_id(), table);
  EXPECT_EQ(Count("SELECT count(DISTINCT game_id) FROM game_seats"), 1);  // one table
  // One hold per member, attached to their seat; the autopilot holds nothing.
  for (const std::string player : {"alice", "bob"}) {
    EXPECT_EQ(
        Count("SELECT count(*) FROM ratings.holds WHERE player_id = '" + player + "'"), 1)
        << player;
  }
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Holds("alice", v1::HOLD_STATE_ATTACHED, table) +
               Holds("bob", v1::HOLD_STATE_ATTACHED, table) <
           2 &&
       absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.holds WHERE state = 2 AND table_id = '" +
                  table +
                  "' AND ((player_id = 'alice' AND seat = 0) OR "
                  "(player_id = 'bob' AND seat = 1))"),
            2);
  EXPECT_EQ(Balance("alice").held(), kStake);
  std::vector<std::unique_ptr<table::SeatClient>> seats;
  seats.push_back(Play(a->assignment()));
  seats.push_back(Play(b->assignment()));
  for (auto& seat : seats) {
    grpc::Status end = seat->WaitDone(absl::Seconds(90));
    ASSERT_TRUE(end.ok()) << end.error_message();
  }
  std::optional<v1::RoomState> over = alice.WaitFor(
      [](const v1::RoomState& s) { return s.series().games_played() == 1; });
  ASSERT_TRUE(over.has_value());
  const v1::GameResult& result = over->series().games(0).result();
  ASSERT_EQ(result.payouts_size(), 4);
  EXPECT_EQ(result.payouts(0) + result.payouts(1), 2 * kStake);  // the whole pot
  EXPECT_EQ(result.payouts(2) + result.payouts(3), 0);           // the autopilot's seats
  ASSERT_TRUE(HeldBecomes("alice", 0, absl::Seconds(30)) &&
              HeldBecomes("bob", 0, absl::Seconds(5)));
  EXPECT_EQ(Balance("alice").balance(), 500 - kStake + result.payouts(0));
  EXPECT_EQ(Balance("bob").balance(), 500 - kStake + result.payouts(1));
  EXPECT_EQ(Holds("alice", v1::HOLD_STATE_SETTLED, table), 1);
  EXPECT_EQ(Holds("bob", v1::HOLD_STATE_SETTLED, table), 1);
  // The stake and the payout: each entry's lines sum to zero, the pot is empty.
  const std::string entries =
      "SELECT entry_id FROM ratings.entries WHERE game_id = '" + table + "'";
  EXPECT_GE(Count("SELECT count(*) FROM (" + entries + ") e"), 2);
  EXPECT_EQ(
      Count(
          "SELECT count(*) FROM (SELECT entry_id FROM ratings.lines WHERE entry_id IN (" +
          entries + ") GROUP BY entry_id HAVING sum(amount) <> 0 OR count(*) < 2) x"),
      0);
  EXPECT_EQ(
      Count(
          "SELECT COALESCE(sum(amount), 0) FROM ratings.lines WHERE account_id = 'pot:" +
          table + "'"),
      0);
}

TEST_F(MatchmakingStakedRoomsTest, AMemberWhoCannotCoverTheStakeIsNamedAndNoHoldIsLeft) {
  Credit("alice", 500);
  Credit("bob", 50);
  const std::string room = ReadyStakedRoom();
  grpc::Status s = Calls().Start("alice", room);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("bob"));
  EXPECT_TRUE(HeldBecomes("alice", 0, absl::Seconds(10)));
  EXPECT_EQ(Balance("bob").held(), 0);
  EXPECT_EQ(Holds("alice", v1::HOLD_STATE_HELD), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM game_seats"), 0);  // no table
  RoomWatch watch(rooms_.get(), "alice", room);
  std::optional<v1::RoomState> state =
      watch.WaitFor([](const v1::RoomState& s) { return s.members_size() == 2; });
  ASSERT_TRUE(state.has_value());
  EXPECT_FALSE(state->has_game());
  for (const v1::RoomMember& m : state->members()) {
    EXPECT_EQ(m.ready(), m.player_id() == "alice") << m.player_id();  // bob is told
  }
  // A staked room at a stake that is no stake level is refused as Quick Play's.
  v1::CreateRoomRequest odd;
  odd.set_player_id("carol");
  odd.set_stake(77);
  v1::RoomState ignored;
  EXPECT_EQ(Calls().Call_(&v1::Rooms::Stub::CreateRoom, odd, &ignored).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(MatchmakingStakedRoomsTest,
       ReadyConsentsToTheStakeWhereTheRatingsServiceAsksForIt) {
  StartRatings(/*consent=*/true);
  ASSERT_FALSE(HasFatalFailure());
  StartStakedMatchmaking();
  Credit("alice", 500);
  Credit("bob", 500);
  const std::string room = StakedRoom();
  // alice's app says ready with her token; bob's through a backend, without his.
  ASSERT_TRUE(Calls().Ready("alice", room, PlayerToken("alice", 600)).ok());
  ASSERT_TRUE(Calls().Ready("bob", room).ok());
  grpc::Status s = Calls().Start("alice", room);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("bob"));
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("consent"));
  EXPECT_TRUE(HeldBecomes("alice", 0, absl::Seconds(10)));
  EXPECT_EQ(Count("SELECT count(*) FROM game_seats"), 0);
  // The backend shows bob's own token (PlayerToken answers "Bearer <jwt>").
  ASSERT_TRUE(
      Calls().Ready("bob", room, kServiceBearer, PlayerToken("bob", 600).substr(7)).ok());
  s = Calls().Start("bob", room);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_TRUE(HeldBecomes("alice", kStake, absl::Seconds(5)));
  EXPECT_EQ(Balance("bob").held(), kStake);
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Count("SELECT count(*) FROM ratings.holds WHERE state = 2") < 2 &&
       absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Holds("alice", v1::HOLD_STATE_ATTACHED),
            1);  // the consent carried to the seat
  EXPECT_EQ(Holds("bob", v1::HOLD_STATE_ATTACHED), 1);
}

}  // namespace
}  // namespace trix::matchmaking
