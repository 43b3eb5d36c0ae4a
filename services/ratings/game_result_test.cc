// Reading the outbox payload, and the OpenSkill game each mode is rated as.
#include "services/ratings/game_result.h"

#include "gtest/gtest.h"
#include "services/ratings/testing/outbox_games.h"

namespace trix::ratings {
namespace {

TEST(ParseFinishedGame, ReadsTheTableServicePayload) {
  OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {2, 1, 1, 4});
  g.seats[3].bot = true;
  g.seats[0].stake = 10;
  g.seats[1].stake = 10;
  g.seats[1].payout = 20;
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(7, g.Payload());
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_EQ(game->outbox_id, 7);
  EXPECT_EQ(game->game_id, "g1");
  EXPECT_EQ(game->mode, "complex-solo");
  EXPECT_EQ(absl::ToUnixMillis(game->finished), 1700000000000);
  EXPECT_EQ(game->seats[2].player_id, "c");
  EXPECT_TRUE(game->seats[3].bot);
  EXPECT_EQ(game->seats[1].payout, 20);
  EXPECT_EQ(game->pot(), 20);
  EXPECT_TRUE(game->staked());
  EXPECT_TRUE(game->money_problem.empty());
  const RatedGame rated = RatedGameOf(*game);
  ASSERT_EQ(rated.teams.size(), 4u);
  EXPECT_EQ(rated.ranks, (std::vector<double>{2, 1, 1, 4}));
}

TEST(ParseFinishedGame, PayoutsAsWholeDoublesAreAccepted) {
  OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  g.seats[0].stake = g.seats[1].stake = 5;
  g.seats[0].payout = 10.0;
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(1, g.Payload());
  ASSERT_TRUE(game.ok());
  EXPECT_TRUE(game->money_problem.empty()) << game->money_problem;
  EXPECT_EQ(game->seats[0].payout, 10);
}

TEST(ParseFinishedGame, NonIntegralPayoutIsAMoneyProblemNotAnError) {
  OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  g.seats[0].stake = g.seats[1].stake = 5;
  g.seats[0].payout = 6.5;
  g.seats[1].payout = 3.5;
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(1, g.Payload());
  ASSERT_TRUE(game.ok());
  EXPECT_NE(game->money_problem.find("6.5"), std::string::npos) << game->money_problem;
}

TEST(ParseFinishedGame, PartnerModesAreTwoTeams) {
  absl::StatusOr<FinishedGame> won =
      ParseFinishedGame(1, OutboxGame::Partner("g", {"a", "b", "c", "d"}, 1).Payload());
  ASSERT_TRUE(won.ok());
  RatedGame g = RatedGameOf(*won);
  EXPECT_EQ(g.teams, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(g.ranks, (std::vector<double>{2, 1}));
  absl::StatusOr<FinishedGame> draw =
      ParseFinishedGame(1, OutboxGame::Partner("g", {"a", "b", "c", "d"}, -1).Payload());
  EXPECT_EQ(RatedGameOf(*draw).ranks, (std::vector<double>{1, 1}));
}

TEST(ParseFinishedGame, RejectsPayloadsThatAreNotFinishedGames) {
  OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  EXPECT_FALSE(ParseFinishedGame(1, "nope").ok());
  EXPECT_FALSE(ParseFinishedGame(1, "[]").ok());
  OutboxGame bad_mode = g;
  bad_mode.mode = "chess";
  EXPECT_FALSE(ParseFinishedGame(1, bad_mode.Payload()).ok());
  OutboxGame no_player = g;
  no_player.seats[2].player_id = "";
  EXPECT_FALSE(ParseFinishedGame(1, no_player.Payload()).ok());
  OutboxGame bad_place = g;
  bad_place.seats[2].place = 0;
  EXPECT_FALSE(ParseFinishedGame(1, bad_place.Payload()).ok());
  OutboxGame bot_stake = g;
  bot_stake.seats[3].bot = true;
  bot_stake.seats[3].stake = 5;
  EXPECT_FALSE(ParseFinishedGame(1, bot_stake.Payload()).ok());
  EXPECT_FALSE(ParseFinishedGame(1, R"({"game_id":"g","mode":"complex-solo","seats":[]})").ok());
}

TEST(ParseFinishedGame, ReadsAVoidedTablesRow) {
  // The contract's row: no result, no totals, places or payouts.
  absl::StatusOr<FinishedGame> game = ParseFinishedGame(
      3, R"({"game_id": "t1", "mode": "classic-partner", "voided": true,
             "reason": "dealer misconfigured", "voided_unix_ms": 1700000001000,
             "seats": [{"seat": 0, "player_id": "a", "bot": false, "team": 0, "stake": 100},
                       {"seat": 1, "player_id": "b", "bot": false, "team": 1, "stake": 100},
                       {"seat": 2, "player_id": "c", "bot": false, "team": 0, "stake": 100},
                       {"seat": 3, "player_id": "d", "bot": false, "team": 1, "stake": 100}]})");
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_TRUE(game->voided);
  EXPECT_EQ(game->void_reason, "dealer misconfigured");
  EXPECT_EQ(absl::ToUnixMillis(game->finished), 1700000001000);
  EXPECT_FALSE(game->staked());  // nothing to settle
  EXPECT_FALSE(ParseFinishedGame(1, R"({"game_id": "t1", "mode": "classic-partner",
                                         "voided": true, "voided_unix_ms": 1})")
                   .ok());  // no reason
  EXPECT_FALSE(ParseFinishedGame(1, R"({"game_id": "t1", "mode": "chess", "voided": true,
                                         "reason": "r", "voided_unix_ms": 1})")
                   .ok());
}

TEST(VariantOf, EveryModeNamesItsVariant) {
  for (const char* mode : kModeNames) EXPECT_EQ(engine::ModeName(VariantOf(mode)), mode);
}

}  // namespace
}  // namespace trix::ratings
