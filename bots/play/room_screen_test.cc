#include "bots/play/room_screen.h"

#include <string>

#include "absl/strings/str_join.h"
#include "bots/play/screen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A partner room: Ann (owner, seat 0, ready), Bob (seat 2), Cy standing.
v1::RoomState Lobby() {
  v1::RoomState room;
  room.set_room_id("room-1");
  room.set_code("ABCD2345");
  room.set_owner("ann");
  *room.mutable_mode() = wire::ModeFromName("complex-partner").value();
  room.set_empty_seats(v1::EMPTY_SEATS_BOTS);
  const struct { const char* id; const char* name; int seat; bool ready; } members[] = {
      {"ann", "Ann", 0, true}, {"bob", "Bob", 2, false}, {"cy", "", -1, false}};
  for (const auto& m : members) {
    v1::RoomMember* member = room.add_members();
    member->set_player_id(m.id);
    member->set_display_name(m.name);
    member->set_seat(m.seat);
    member->set_ready(m.ready);
  }
  return room;
}

// Lobby() after two games: 0+2 won the first (+30 -10 +20 -40), 1+3 the second.
v1::RoomState AfterTwoGames() {
  v1::RoomState room = Lobby();
  v1::RoomGame* game = room.mutable_game();
  game->set_number(2);
  game->set_state(v1::ROOM_GAME_OVER);
  const int totals[2][4] = {{30, -10, 20, -40}, {-50, 15, -5, 40}};
  v1::Series* series = room.mutable_series();
  for (int g = 0; g < 2; ++g) {
    v1::SeriesGame* played = series->add_games();
    played->set_number(g + 1);
    for (int seat = 0; seat < 4; ++seat) played->mutable_result()->add_totals(totals[g][seat]);
    played->mutable_result()->set_winner_team(g);
  }
  series->set_games_played(2);
  for (int w : {1, 1, 1, 1}) series->add_seat_wins(w);
  for (int w : {1, 1}) series->add_team_wins(w);
  for (int64_t t : {-20, 5, 15, 0}) series->add_totals(t);
  return room;
}

std::string Draw(const v1::RoomState& room, const std::string& me, bool color = false) {
  return absl::StrJoin(RoomScreenLines(room, {.me = me, .color = color}), "\n");
}

TEST(RoomScreenTest, TheLobbyShowsTheCodeTheSeatsTheMembersAndTheKeys) {
  const std::string screen = Draw(Lobby(), "bob");
  EXPECT_THAT(screen, HasSubstr("room ABCD2345 · complex-partner · no game yet"));
  EXPECT_THAT(screen, HasSubstr("Invite code: ABCD2345"));
  EXPECT_THAT(screen, HasSubstr("empty seats: bots"));
  EXPECT_THAT(screen, HasSubstr("seat 0  Ann (owner)"));
  EXPECT_THAT(screen, HasSubstr("seat 2  Bob (you)"));
  EXPECT_THAT(screen, HasSubstr("seat 1  - empty -"));
  EXPECT_THAT(screen, HasSubstr("standing: cy"));
  EXPECT_THAT(screen, HasSubstr("(team 1+3)"));
  // Ann's row says ready; Bob's not ready.
  const size_t ann = screen.find("seat 0  Ann");
  EXPECT_THAT(screen.substr(ann, screen.find('\n', ann) - ann), HasSubstr(" ready"));
  const size_t bob = screen.find("seat 2  Bob");
  EXPECT_THAT(screen.substr(bob, screen.find('\n', bob) - bob), HasSubstr("not ready"));
  EXPECT_THAT(screen, HasSubstr("Keys: 0-3 take a seat · u stand up · r ready · g start"));
  EXPECT_THAT(screen, Not(HasSubstr("Series")));
}

TEST(RoomScreenTest, AGameBeingPlayedShowsWhoPlaysEachSeat) {
  v1::RoomState room = Lobby();
  v1::RoomGame* game = room.mutable_game();
  game->set_number(1);
  game->set_state(v1::ROOM_GAME_PLAYING);
  game->set_table_id("t-9");
  game->set_address("127.0.0.1:7");
  const char* const players[] = {"Ann", "bot-3", "Bob", "autopilot-3"};
  for (int s = 0; s < 4; ++s) {
    v1::RoomSeat* seat = game->add_seats();
    seat->set_seat(s);
    seat->set_player_id(players[s]);
  }
  const std::string screen = Draw(room, "ann");
  EXPECT_THAT(screen, HasSubstr("game 1 playing"));
  EXPECT_THAT(screen, HasSubstr("seats: 0 Ann · 1 bot-3 · 2 Bob · 3 autopilot-3"));
  EXPECT_THAT(screen, HasSubstr("table t-9 at 127.0.0.1:7"));
  EXPECT_THAT(screen, HasSubstr("Keys: q leave the room"));
  EXPECT_FALSE(RoomGameOver(room));
}

TEST(RoomScreenTest, AfterAGameTheSeriesAndRematchAreOffered) {
  const v1::RoomState room = AfterTwoGames();
  ASSERT_TRUE(RoomGameOver(room));
  const std::string screen = Draw(room, "ann");
  EXPECT_THAT(screen, HasSubstr("game 2 over"));
  EXPECT_THAT(screen, HasSubstr("Series: 2 games played"));
  EXPECT_THAT(screen, HasSubstr("game 1     +30    -10    +20    -40  won by 0+2"));
  EXPECT_THAT(screen, HasSubstr("game 2     -50    +15     -5    +40  won by 1+3"));
  EXPECT_THAT(screen, HasSubstr("totals     -20     +5    +15     +0"));
  EXPECT_THAT(screen, HasSubstr("team wins: seats 0+2 1 · seats 1+3 1"));
  EXPECT_THAT(screen, HasSubstr("Keys: r Rematch"));
}

TEST(RoomScreenTest, AVoidedGameIsSaidAndColourIsOnlyStyle) {
  v1::RoomState room = AfterTwoGames();
  v1::SeriesGame* voided = room.mutable_series()->add_games();
  voided->set_number(3);
  voided->set_voided(true);
  const std::string screen = Draw(room, "ann");
  EXPECT_THAT(screen, HasSubstr("game 3  voided"));
  const std::string colored = Draw(room, "ann", /*color=*/true);
  EXPECT_THAT(colored, HasSubstr("\x1b[1m"));
  EXPECT_EQ(StripAnsi(colored), screen);
}

}  // namespace
}  // namespace trix::bots
