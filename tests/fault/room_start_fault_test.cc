// The fault of a staked room's start: matchmaking (the real build/bin/
// matchmaking-service) dies by SIGKILL between StartGame and the game's seats
// (the failpoint rooms.after_create_table: the members' stakes held, the table
// made, nothing saved of it), and is started again. The restarted process
// resumes the start: the room plays at exactly one table, each member has one
// hold, attached to their seat at it, and none is left held; the game is then
// played and settled. Real PostgreSQL, table service (in-process) and ratings
// service (a child process).
#include <fstream>
#include <memory>

#include "gtest/gtest.h"
#include "tests/integration/matchmaking_replica.h"
#include "tests/integration/staked_rooms_fixture.h"

namespace trix::matchmaking {
namespace {

class RoomStartFaultTest : public StakedRoomsTest {
 protected:
  // A matchmaking process with the ratings service and a keeper that resumes a
  // start after a second; `failpoints` kill it where they name.
  std::unique_ptr<Replica> StartReplica(const std::string& name,
                                        const std::string& failpoints = "") {
    // Matchmaking's own credential for the ratings service; the legacy one (every
    // scope) for the table instance.
    const std::string dir = ::testing::TempDir() + "/room-start-" + db_->name();
    const std::string ratings_token = dir + "-ratings.token",
                      table_token = dir + "-table.token";
    std::ofstream(ratings_token) << table::kMatchmakingToken;
    std::ofstream(table_token) << table::kServiceToken;
    std::vector<std::pair<std::string, std::string>> env;
    if (!failpoints.empty()) env.push_back({"MAMLAKA_FAILPOINTS", failpoints});
    auto replica = std::make_unique<Replica>(
        db_->url(),
        ::testing::TempDir() + "/room-start-" + name + "-" + db_->name() + ".log", "60s",
        env,
        std::vector<std::string>{"--ratings_address=" + RatingsAddress(),
                                 "--stake_levels=100", "--room_resume_after=1s",
                                 "--ratings_call_timeout=8s",
                                 "--credential_file=" + ratings_token,
                                 "--table_credential_file=" + table_token});
    const int port = replica->WaitPort();
    EXPECT_GT(port, 0);
    UseRooms("127.0.0.1:" + std::to_string(port));
    return replica;
  }
};

TEST_F(RoomStartFaultTest, AStartCutShortByACrashResumesWithOneTableAndItsHolds) {
  Credit("alice", 500);
  Credit("bob", 500);
  std::string room;
  {
    std::unique_ptr<Replica> dying = StartReplica("dying", "rooms.after_create_table");
    room = ReadyStakedRoom();
    grpc::Status cut = Calls().Start("alice", room);
    EXPECT_FALSE(cut.ok());           // the process died answering it
    ASSERT_TRUE(dying->Wait().ok());  // at the failpoint
  }
  // Cut short: the table made, the stakes held, no seat saved.
  ASSERT_EQ(Count("SELECT count(DISTINCT game_id) FROM game_seats"), 1);
  ASSERT_EQ(Count("SELECT count(*) FROM mm_assignments"), 0);
  EXPECT_EQ(Holds("alice", v1::HOLD_STATE_HELD), 1);
  EXPECT_EQ(Holds("bob", v1::HOLD_STATE_HELD), 1);

  std::unique_ptr<Replica> again = StartReplica("again");
  RoomWatch alice(rooms_.get(), "alice", room), bob(rooms_.get(), "bob", room);
  auto playing = [](const v1::RoomState& s) {
    return s.game().state() == v1::ROOM_GAME_PLAYING && s.has_assignment();
  };
  std::optional<v1::RoomState> a = alice.WaitFor(playing, absl::Seconds(30)),
                               b = bob.WaitFor(playing, absl::Seconds(5));
  ASSERT_TRUE(a.has_value() && b.has_value());
  const std::string table = a->assignment().table_id();
  EXPECT_EQ(Count("SELECT count(DISTINCT game_id) FROM game_seats"),
            1);  // no second table
  EXPECT_GT(Count("SELECT count(*) FROM game_seats WHERE game_id = '" + table + "'"), 0);
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Count("SELECT count(*) FROM ratings.holds WHERE state = 2") < 2 &&
       absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  for (const std::string player : {"alice", "bob"}) {
    EXPECT_EQ(
        Count("SELECT count(*) FROM ratings.holds WHERE player_id = '" + player + "'"), 1)
        << player;  // the start's own hold, not a second one
    EXPECT_EQ(Holds(player, v1::HOLD_STATE_ATTACHED, table), 1) << player;
    EXPECT_EQ(Holds(player, v1::HOLD_STATE_HELD), 0) << player;
  }
  // The game is played and settled against its table.
  std::vector<std::unique_ptr<table::SeatClient>> seats;
  seats.push_back(Play(a->assignment()));
  seats.push_back(Play(b->assignment()));
  for (auto& seat : seats) {
    grpc::Status end = seat->WaitDone(absl::Seconds(90));
    ASSERT_TRUE(end.ok()) << end.error_message();
  }
  EXPECT_TRUE(HeldBecomes("alice", 0, absl::Seconds(30)));
  EXPECT_TRUE(HeldBecomes("bob", 0, absl::Seconds(5)));
  EXPECT_EQ(Balance("alice").balance() + Balance("bob").balance(), 1000);
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.holds WHERE state = 4 AND table_id = '" +
                  table + "'"),
            2);
}

}  // namespace
}  // namespace trix::matchmaking
