// Private rooms end to end (rooms.proto) with real PostgreSQL, the real table
// service and matchmaking in-process over real gRPC: a room created and joined by
// its code, seats taken and swapped, the refusals (a taken seat, a full room, an
// unknown or expired code, a kick by a member who is not the owner, too many
// code lookups), two StartGame at once making one table, a game played to its
// end by two members and two lent bot accounts (each seat answered with random
// legal moves), then a Rematch at a second table and a series of two games; a
// room's bots of the level its owner chose; an unrated room's game rated for
// nobody by the real ratings service, and listed unrated.
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/room_client.h"
#include "tests/integration/seat_client.h"
#include "tests/ratings/ratings_process.h"
#include "trix/v1/rooms.grpc.pb.h"

namespace trix::matchmaking {
namespace {

class MatchmakingRoomsTest : public MatchmakingTest {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (HasFatalFailure()) return;
    MatchmakingConfig config = TestConfig(db_->url());
    config.rooms.check_every = absl::Milliseconds(50);
    StartMatchmaking(config);
    rooms_ = v1::Rooms::NewStub(
        grpc::CreateChannel(matchmaking_->address(), grpc::InsecureChannelCredentials()));
  }

  template <typename Request, typename Response, typename Call>
  grpc::Status Call_(Call call, const Request& request, Response* response,
                     const std::string& authorization = kServiceBearer) {
    return RoomCalls(rooms_.get()).Call_(call, request, response, authorization);
  }
  v1::RoomState Create(const std::string& player,
                       v1::EmptySeats empty = v1::EMPTY_SEATS_BOTS) {
    v1::CreateRoomRequest r;
    r.set_empty_seats(empty);
    return Create(player, r);
  }
  v1::RoomState Create(const std::string& player, const v1::CreateRoomRequest& r) {
    return RoomCalls(rooms_.get()).Create(player, r);
  }
  grpc::Status Join(const std::string& player, const std::string& code,
                    v1::RoomState* state = nullptr,
                    const std::string& authorization = kServiceBearer) {
    return RoomCalls(rooms_.get()).Join(player, code, state, authorization);
  }
  grpc::Status TakeSeat(const std::string& player, const std::string& room, int seat) {
    return RoomCalls(rooms_.get()).TakeSeat(player, room, seat);
  }
  grpc::Status Ready(const std::string& player, const std::string& room) {
    return RoomCalls(rooms_.get()).Ready(player, room);
  }
  grpc::Status Start(const std::string& player, const std::string& room,
                     bool rematch = false) {
    return RoomCalls(rooms_.get()).Start(player, room, rematch);
  }
  v1::RegisterBotResponse RegisterBot(const std::string& name,
                                      v1::BotLevel level = v1::BOT_LEVEL_UNSPECIFIED) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", kServiceBearer);
    v1::RegisterBotRequest request;
    request.set_name(name);
    request.set_level(level);
    v1::RegisterBotResponse response;
    EXPECT_TRUE(stub_->RegisterBot(&context, request, &response).ok());
    return response;
  }
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  // Plays a seat with random legal moves until its game ends.
  std::unique_ptr<table::SeatClient> Play(const std::string& table_id,
                                          const std::string& address,
                                          const std::string& token, int seat) {
    auto client = std::make_unique<table::SeatClient>(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()), table_id, token,
        seat);
    client->OpenPlay(0, /*play_seed=*/100 + seat);
    return client;
  }

  // Waits until `n` bot streams are connected to matchmaking.
  void WaitBots(int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (matchmaking_->bots().connected() < n && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_EQ(matchmaking_->bots().connected(), n);
  }
  // `player`'s finished games as the table service lists them.
  v1::ListPlayerGamesResponse GamesOf(const std::string& player) {
    auto history = v1::TableService::NewStub(
        grpc::CreateChannel(tables_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.AddMetadata("authorization", std::string("Bearer ") + table::kServiceToken);
    v1::ListPlayerGamesRequest request;
    request.set_player_id(player);
    v1::ListPlayerGamesResponse games;
    grpc::Status s = history->ListPlayerGames(&context, request, &games);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return games;
  }

  std::unique_ptr<v1::Rooms::Stub> rooms_;
};

TEST_F(MatchmakingRoomsTest, MembersJoinByCodeChooseSeatsAndBadMovesAreRefused) {
  const v1::RoomState created = Create("alice");
  ASSERT_EQ(created.code().size(), 8u);
  EXPECT_EQ(created.code().find_first_of("0O1IL"), std::string::npos);
  EXPECT_EQ(created.owner(), "alice");
  const std::string room = created.room_id();
  v1::RoomState state;
  // Read out, a code may come back in lower case.
  ASSERT_TRUE(Join("bob", absl::AsciiStrToLower(created.code()), &state).ok());
  EXPECT_EQ(state.seats(1).player_id(), "bob");
  ASSERT_TRUE(Join("carol", created.code()).ok());
  ASSERT_TRUE(Join("dave", created.code()).ok());
  EXPECT_EQ(Join("erin", created.code()).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Join("erin", "ZZZZ2345").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Join("erin", "0000").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // A taken seat; a swap that makes alice and bob partners (opposite seats).
  EXPECT_EQ(TakeSeat("bob", room, 0).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  v1::SwapSeatsRequest swap;
  swap.set_player_id("bob");
  swap.set_room_id(room);
  swap.set_seat_a(1);
  swap.set_seat_b(2);
  ASSERT_TRUE(Call_(&v1::Rooms::Stub::SwapSeats, swap, &state).ok());
  EXPECT_EQ(state.seats(2).player_id(), "bob");
  EXPECT_EQ(state.seats(1).player_id(), "carol");
  // Only the owner kicks; a kicked member is out, and their seat empty.
  v1::KickRequest kick;
  kick.set_player_id("carol");
  kick.set_room_id(room);
  kick.set_member("dave");
  EXPECT_EQ(Call_(&v1::Rooms::Stub::Kick, kick, &state).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  kick.set_player_id("alice");
  ASSERT_TRUE(Call_(&v1::Rooms::Stub::Kick, kick, &state).ok());
  EXPECT_EQ(state.members_size(), 3);
  EXPECT_EQ(state.seats(3).player_id(), "");
  EXPECT_EQ(TakeSeat("dave", room, 3).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // The owner leaves: the earliest member left owns the room.
  v1::LeaveRoomRequest leave;
  leave.set_player_id("alice");
  leave.set_room_id(room);
  v1::LeaveRoomResponse left;
  ASSERT_TRUE(Call_(&v1::Rooms::Stub::LeaveRoom, leave, &left).ok());
  RoomWatch watch(rooms_.get(), "bob", room);
  std::optional<v1::RoomState> now =
      watch.WaitFor([](const v1::RoomState& s) { return s.owner() == "bob"; });
  ASSERT_TRUE(now.has_value());
  // An expired code finds nothing.
  pqxx::connection c(db_->url());
  pqxx::work tx(c);
  tx.exec_params0(
      "UPDATE mm_rooms SET code_expires = now() - interval '1 second' "
      "WHERE room_id = $1",
      room);
  tx.commit();
  EXPECT_EQ(Join("erin", created.code()).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(MatchmakingRoomsTest, CallersAreCheckedAsMatchmakingChecksThem) {
  v1::CreateRoomRequest r;
  v1::RoomState state;
  EXPECT_EQ(Call_(&v1::Rooms::Stub::CreateRoom, r, &state, "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  r.set_player_id("alice");
  // Matchmaking's own table credential may not act for players (matchmaking:play).
  EXPECT_EQ(Call_(&v1::Rooms::Stub::CreateRoom, r, &state,
                  std::string("Bearer ") + table::kMatchmakingTableToken)
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  // A player acts for themself only.
  const std::string alice = PlayerToken("alice", 600);
  r.set_player_id("bob");
  EXPECT_EQ(Call_(&v1::Rooms::Stub::CreateRoom, r, &state, alice).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  r.clear_player_id();
  ASSERT_TRUE(Call_(&v1::Rooms::Stub::CreateRoom, r, &state, alice).ok());
  EXPECT_EQ(state.owner(), "alice");
  // This matchmaking has no ratings service: a staked room is refused as a
  // staked ticket is.
  r.set_stake(100);
  grpc::Status staked = Call_(&v1::Rooms::Stub::CreateRoom, r, &state, alice);
  EXPECT_EQ(staked.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(staked.error_message(), "staking needs the ratings service");
}

TEST_F(MatchmakingRoomsTest, CodeLookupsAreLimitedPerPlayer) {
  const std::string token = PlayerToken("mallory", 600);
  grpc::Status last;
  for (int i = 0; i < 12 && last.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED;
       ++i) {
    last = Join("mallory", "ABCD2345", nullptr, token);
    if (last.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
      EXPECT_EQ(last.error_code(), grpc::StatusCode::NOT_FOUND) << last.error_message();
    }
  }
  EXPECT_EQ(last.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(MatchmakingRoomsTest, TwoStartsMakeOneTableAGameIsPlayedAndARematchMakesASeries) {
  v1::RegisterBotResponse b1 = RegisterBot("room-bot-1"), b2 = RegisterBot("room-bot-2");
  BotClient bot1(stub_.get(), b1.key(), 2), bot2(stub_.get(), b2.key(), 2);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (matchmaking_->bots().connected() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(matchmaking_->bots().connected(), 2);
  const v1::RoomState created = Create("alice");
  const std::string room = created.room_id();
  ASSERT_TRUE(Join("bob", created.code()).ok());
  ASSERT_TRUE(TakeSeat("bob", room, 2).ok());  // alice's partner
  EXPECT_EQ(Start("alice", room).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  ASSERT_TRUE(Ready("alice", room).ok());
  ASSERT_TRUE(Ready("bob", room).ok());
  RoomWatch alice(rooms_.get(), "alice", room), bob(rooms_.get(), "bob", room);
  // Two StartGame at once: one table.
  RoomCalls(rooms_.get()).StartAtOnce("alice", "bob", room);
  std::set<std::string> tables;
  for (int game = 1; game <= 2; ++game) {
    if (game == 2) {
      ASSERT_TRUE(Start("bob", room, /*rematch=*/true).ok());
    }
    auto playing = [game](const v1::RoomState& s) {
      return s.game().number() == game && s.game().state() == v1::ROOM_GAME_PLAYING &&
             s.has_assignment();
    };
    std::optional<v1::RoomState> a = alice.WaitFor(playing), b = bob.WaitFor(playing);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_EQ(a->assignment().seat(), 0);
    EXPECT_EQ(b->assignment().seat(), 2);
    EXPECT_NE(a->assignment().seat_token(), b->assignment().seat_token());
    const std::string table_id = a->assignment().table_id();
    EXPECT_EQ(b->assignment().table_id(), table_id);
    tables.insert(table_id);
    {  // The seat is the player's live assignment, as a Quick Play seat is.
      grpc::ClientContext context;
      context.AddMetadata("authorization", kServiceBearer);
      v1::GetAssignmentRequest request;
      request.set_player_id("alice");
      v1::Assignment live;
      ASSERT_TRUE(stub_->GetAssignment(&context, request, &live).ok());
      EXPECT_EQ(live.table_id(), table_id);
      EXPECT_EQ(live.seat_token(), a->assignment().seat_token());
    }
    // The two empty seats went to the two bot accounts, which were sent them.
    ASSERT_TRUE(bot1.WaitAssignments(game) && bot2.WaitAssignments(game));
    std::vector<std::unique_ptr<table::SeatClient>> seats;
    for (const v1::Assignment& x :
         {bot1.assignments()[game - 1], bot2.assignments()[game - 1]}) {
      ASSERT_EQ(x.table_id(), table_id);
      seats.push_back(Play(x.table_id(), x.address(), x.seat_token(), x.seat()));
    }
    for (const v1::RoomState* s : {&*a, &*b}) {
      seats.push_back(Play(table_id, s->assignment().address(),
                           s->assignment().seat_token(), s->assignment().seat()));
    }
    for (auto& seat : seats) {
      grpc::Status end = seat->WaitDone(absl::Seconds(60));
      ASSERT_TRUE(end.ok()) << end.error_message();
    }
    std::optional<v1::RoomState> over = alice.WaitFor(
        [game](const v1::RoomState& s) { return s.series().games_played() == game; });
    ASSERT_TRUE(over.has_value());
    EXPECT_EQ(over->game().state(), v1::ROOM_GAME_OVER);
    EXPECT_FALSE(over->has_assignment());
  }
  EXPECT_EQ(tables.size(), 2u);
  EXPECT_EQ(Count("SELECT count(DISTINCT table_id) FROM mm_assignments"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_assignments WHERE NOT finished"), 0);
  std::optional<v1::RoomState> last =
      bob.WaitFor([](const v1::RoomState& s) { return s.series().games_played() == 2; });
  ASSERT_TRUE(last.has_value());
  const v1::Series& series = last->series();
  ASSERT_EQ(series.games_size(), 2);
  EXPECT_EQ(series.games(0).players(0), "alice");
  EXPECT_EQ(series.games(0).players(2), "bob");
  int team_wins = 0;
  for (int w : series.team_wins()) team_wins += w;
  int64_t totals = 0;
  for (int s = 0; s < 4; ++s) totals += series.totals(s);
  for (const v1::SeriesGame& g : series.games()) {
    EXPECT_FALSE(g.voided());
    EXPECT_EQ(g.result().totals_size(), 4);
  }
  // Each game has a winning team unless drawn; the running totals are the games'.
  EXPECT_LE(team_wins, 2);
  int64_t sum = 0;
  for (const v1::SeriesGame& g : series.games()) {
    for (int t : g.result().totals()) sum += t;
  }
  EXPECT_EQ(totals, sum);
  // The room's games are in each member's history like any other.
  std::set<std::string> played;
  const v1::ListPlayerGamesResponse games = GamesOf("bob");
  for (const v1::GameSummary& g : games.games()) {
    played.insert(g.game_id());
    EXPECT_FALSE(g.unrated());
  }
  EXPECT_EQ(played, tables);
}

TEST_F(MatchmakingRoomsTest, ARoomsEmptySeatsGoOnlyToBotsOfTheLevelItsOwnerChose) {
  v1::RegisterBotResponse casual = RegisterBot("room-casual", v1::BOT_LEVEL_CASUAL);
  v1::RegisterBotResponse strong = RegisterBot("room-strong", v1::BOT_LEVEL_STRONG);
  EXPECT_EQ(strong.level(), v1::BOT_LEVEL_STRONG);
  BotClient casual_bot(stub_.get(), casual.key(), 4), strong_bot(stub_.get(), strong.key(), 4);
  WaitBots(2);
  v1::CreateRoomRequest r;
  r.set_bot_level(v1::BOT_LEVEL_STRONG);
  const v1::RoomState created = Create("alice", r);
  EXPECT_EQ(created.bot_level(), v1::BOT_LEVEL_STRONG);
  ASSERT_TRUE(Ready("alice", created.room_id()).ok());
  RoomWatch alice(rooms_.get(), "alice", created.room_id());
  ASSERT_TRUE(Start("alice", created.room_id()).ok());
  std::optional<v1::RoomState> playing = alice.WaitFor([](const v1::RoomState& s) {
    return s.game().state() == v1::ROOM_GAME_PLAYING && s.has_assignment();
  });
  ASSERT_TRUE(playing.has_value());
  // The one strong account takes one seat; a table has each account once, so the
  // other two seats go to the autopilot, never to the casual account.
  const auto& seats = playing->game().seats();
  EXPECT_EQ(seats[1].player_id(), strong.bot_id());
  EXPECT_TRUE(seats[1].bot());
  EXPECT_EQ(seats[1].bot_level(), v1::BOT_LEVEL_STRONG);
  for (int s : {2, 3}) {
    EXPECT_TRUE(seats[s].autopilot()) << s;
    EXPECT_EQ(seats[s].bot_level(), v1::BOT_LEVEL_UNSPECIFIED);
  }
  ASSERT_TRUE(strong_bot.WaitAssignments(1));
  EXPECT_EQ(strong_bot.assignments()[0].table_id(), playing->assignment().table_id());
  EXPECT_TRUE(casual_bot.assignments().empty());
  // Both play it out, so that the table ends before the test does.
  auto me = Play(playing->assignment().table_id(), playing->assignment().address(),
                 playing->assignment().seat_token(), playing->assignment().seat());
  const v1::Assignment b = strong_bot.assignments()[0];
  auto bot = Play(b.table_id(), b.address(), b.seat_token(), b.seat());
  EXPECT_TRUE(me->WaitDone(absl::Seconds(60)).ok());
  EXPECT_TRUE(bot->WaitDone(absl::Seconds(60)).ok());
}

// With the real ratings service consuming the table service's outbox.
class MatchmakingRoomsRatingsTest : public MatchmakingRoomsTest {
 protected:
  void SetUp() override {
    MatchmakingRoomsTest::SetUp();
    if (HasFatalFailure()) return;
    auto ratings = ratings::RatingsProcess::Start(
        db_->url(), ::testing::TempDir() + "/mm-rooms-ratings-" + db_->name() + ".log");
    ASSERT_TRUE(ratings.ok()) << ratings.status();
    ratings_ = *std::move(ratings);
  }
  v1::Rating PartnerRating(const std::string& player) {
    grpc::ClientContext context;
    ratings_->Authorize(context);
    v1::GetPlayerRatingsRequest request;
    request.set_player_id(player);
    v1::GetPlayerRatingsResponse response;
    grpc::Status s = ratings_->stub().GetPlayerRatings(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    for (const v1::Rating& r : response.ratings()) {
      if (r.mode().team() == v1::TEAM_PARTNER && r.mode().format() == v1::FORMAT_COMPLEX)
        return r;
    }
    ADD_FAILURE() << "no complex-partner rating for " << player;
    return {};
  }
  // Whether the ratings service applied the game at `table` (within 30 s).
  bool Applied(const std::string& table) {
    const std::string sql =
        "SELECT count(*) FROM ratings.applied_games WHERE game_id = '" + table + "'";
    for (absl::Time until = absl::Now() + absl::Seconds(30); absl::Now() < until;
         absl::SleepFor(absl::Milliseconds(100))) {
      if (Count(sql) > 0) return true;
    }
    return false;
  }

  std::unique_ptr<ratings::RatingsProcess> ratings_;
};

TEST_F(MatchmakingRoomsRatingsTest, AnUnratedRoomsGameRatesNobodyAndIsListedUnrated) {
  const v1::Rating before = PartnerRating("alice");
  v1::CreateRoomRequest r;
  r.set_unrated(true);
  r.set_empty_seats(v1::EMPTY_SEATS_AUTOPILOT);
  const v1::RoomState created = Create("alice", r);
  EXPECT_TRUE(created.unrated());
  ASSERT_TRUE(Join("bob", created.code()).ok());
  ASSERT_TRUE(TakeSeat("bob", created.room_id(), 2).ok());
  ASSERT_TRUE(Ready("alice", created.room_id()).ok());
  ASSERT_TRUE(Ready("bob", created.room_id()).ok());
  RoomWatch alice(rooms_.get(), "alice", created.room_id()),
      bob(rooms_.get(), "bob", created.room_id());
  ASSERT_TRUE(Start("alice", created.room_id()).ok());
  auto playing = [](const v1::RoomState& s) {
    return s.game().state() == v1::ROOM_GAME_PLAYING && s.has_assignment();
  };
  std::optional<v1::RoomState> a = alice.WaitFor(playing), b = bob.WaitFor(playing);
  ASSERT_TRUE(a.has_value() && b.has_value());
  const std::string table = a->assignment().table_id();
  std::vector<std::unique_ptr<table::SeatClient>> seats;
  for (const v1::RoomState* s : {&*a, &*b}) {
    seats.push_back(Play(table, s->assignment().address(), s->assignment().seat_token(),
                         s->assignment().seat()));
  }
  for (auto& seat : seats) ASSERT_TRUE(seat->WaitDone(absl::Seconds(60)).ok());
  std::optional<v1::RoomState> over =
      alice.WaitFor([](const v1::RoomState& s) { return s.series().games_played() == 1; });
  ASSERT_TRUE(over.has_value());
  EXPECT_TRUE(over->series().games(0).unrated());
  EXPECT_EQ(over->series().games(0).result().totals_size(), 4);

  ASSERT_TRUE(Applied(table));
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.applied_games WHERE game_id = '" + table +
                  "' AND NOT rated"),
            1);
  for (const char* player : {"alice", "bob"}) {
    const v1::Rating after = PartnerRating(player);
    EXPECT_EQ(after.games(), 0) << player;
    EXPECT_EQ(after.mu(), before.mu()) << player;
    EXPECT_EQ(after.sigma(), before.sigma()) << player;
    const v1::ListPlayerGamesResponse games = GamesOf(player);
    ASSERT_EQ(games.games_size(), 1) << player;  // listed like any other game
    EXPECT_EQ(games.games(0).game_id(), table);
    EXPECT_TRUE(games.games(0).unrated());
    EXPECT_EQ(games.games(0).result().totals_size(), 4);
  }
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.rating_history WHERE game_id = '" + table +
                  "'"),
            0);
}

}  // namespace
}  // namespace trix::matchmaking
