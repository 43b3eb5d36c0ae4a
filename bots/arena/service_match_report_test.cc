#include <string>
#include <vector>

#include "bots/arena/service_match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::arena {
namespace {

using ::testing::HasSubstr;

// A finished complex-partner record: `players` at seats 0..3, team totals given
// (each seat half its team's).
v1::GameRecord Record(const std::vector<std::string>& players, int team0, int team1) {
  v1::GameRecord record;
  record.set_game_id("t1");
  for (const std::string& p : players) {
    v1::SeatAssignment* seat = record.add_seats();
    seat->set_player_id(p);
    seat->set_bot(p.rfind("bot", 0) == 0 || p.rfind("autopilot", 0) == 0);
  }
  for (int s = 0; s < 4; ++s) record.mutable_result()->add_totals((s % 2 ? team1 : team0) / 2);
  record.mutable_result()->add_team_totals(team0);
  record.mutable_result()->add_team_totals(team1);
  return record;
}

const std::array<std::string, 2> kParty = {"alice", "bob"};
const std::vector<std::string> kBots = {"bot-1", "bot-2"};

TEST(BookGame, CreditsEachStrategyWithItsTeamsTotal) {
  // The party at seats 1 and 3 (team 1), B's people: B gets team 1's total.
  absl::StatusOr<ServiceGame> game =
      BookGame(Record({"bot-1", "alice", "bot-2", "bob"}, 250, -250), kParty, kBots, 1);
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_EQ(game->team_points[1], -250);
  EXPECT_EQ(game->team_points[0], 250);
  EXPECT_EQ(game->people_side, 1);
  EXPECT_EQ(game->table_id, "t1");
}

TEST(BookGame, RefusesAnAutopilotSeat) {
  absl::StatusOr<ServiceGame> game =
      BookGame(Record({"alice", "bot-1", "bob", "autopilot-3"}, 0, 0), kParty, kBots, 0);
  EXPECT_EQ(game.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(game.status().message(), HasSubstr("autopilot-3"));
}

TEST(BookGame, RefusesOneAccountTwiceAndAPartySplitAcrossTeams) {
  EXPECT_FALSE(
      BookGame(Record({"alice", "bot-1", "bob", "bot-1"}, 0, 0), kParty, kBots, 0).ok());
  absl::StatusOr<ServiceGame> split =
      BookGame(Record({"alice", "bob", "bot-1", "bot-2"}, 0, 0), kParty, kBots, 0);
  EXPECT_THAT(split.status().message(), HasSubstr("partners"));
}

TEST(BookGame, RefusesARecordWithoutAResult) {
  v1::GameRecord record = Record({"alice", "bot-1", "bob", "bot-2"}, 0, 0);
  record.mutable_result()->clear_totals();
  EXPECT_FALSE(BookGame(record, kParty, kBots, 0).ok());
}

TEST(BookGame, CreditsEachStrategyWithItsSeatsInASoloGame) {
  // Solo: no teams; the people may sit side by side, each strategy gets its two
  // seats' totals.
  v1::GameRecord record = Record({"alice", "bob", "bot-1", "bot-2"}, 0, 0);
  record.mutable_result()->clear_team_totals();
  record.mutable_result()->clear_totals();
  for (int total : {-100, 300, -500, -200}) record.mutable_result()->add_totals(total);
  absl::StatusOr<ServiceGame> game = BookGame(record, kParty, kBots, 0);
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_EQ(game->team_points[0], 200);
  EXPECT_EQ(game->team_points[1], -700);
}

TEST(ServiceMatchReport, SplitsEachStrategysPointsByRole) {
  ServiceMatchReport report;
  report.games.push_back({.table_id = "a", .people_side = 0, .team_points = {100, -100}});
  report.games.push_back({.table_id = "b", .people_side = 1, .team_points = {300, -300}});
  EXPECT_DOUBLE_EQ(report.Points(0).mean, 200);
  EXPECT_DOUBLE_EQ(report.Points(0, 1).mean, 100);  // A as the party
  EXPECT_DOUBLE_EQ(report.Points(0, 0).mean, 300);  // A as the bot accounts
  EXPECT_DOUBLE_EQ(report.Points(1, 1).mean, -300);
  EXPECT_DOUBLE_EQ(report.Margin().mean, 400);
  EXPECT_EQ(report.Margin().n, 2);
  EXPECT_EQ(report.Rated(), 0);
}

}  // namespace
}  // namespace trix::arena
