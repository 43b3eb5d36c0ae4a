// The plan of an outbox batch without a database: games rated in outbox order from
// the ratings given, unreadable rows quarantined with why, a game id met twice
// applied once, bots rated as players, a voided staked table releasing its holds,
// an unrated staked game settled and rated for nobody, and a staked game's two
// entries each summing to zero.
#include "services/ratings/consumer_plan.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/ratings/testing/outbox_games.h"

namespace trix::ratings {
namespace {

const RateOptions kModel;

OutboxRow RowOf(int64_t id, const OutboxGame& g) { return {id, g.game_id, g.Payload()}; }

BatchPlan Plan(const std::vector<OutboxRow>& rows,
               const std::set<std::string>& applied = {},
               const std::map<PlayerKey, StoredRating>& ratings = {}) {
  return PlanBatch(rows, ParsePending(rows, applied), ratings, kModel);
}

int64_t Sum(const std::map<std::string, int64_t>& lines) {
  int64_t sum = 0;
  for (const auto& [account, amount] : lines) sum += amount;
  return sum;
}

TEST(ConsumerPlanTest, ASoloGameRatesFourPlayersFromTheDefault) {
  const BatchPlan plan =
      Plan({RowOf(1, OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {2, 1, 4, 3}))});
  ASSERT_EQ(plan.games.size(), 1u);
  EXPECT_TRUE(plan.games[0].rated);
  EXPECT_EQ(plan.games[0].settlement.settlement.outcome, "unstaked");
  EXPECT_EQ(plan.rated, 1);
  EXPECT_EQ(plan.consumed, std::vector<int64_t>{1});
  const PlayerState& a = plan.players.at({"complex-solo", "a"});
  EXPECT_NEAR(a.skill.mu, 26.55291815138952,
              1e-9);  // as ConsumerTest and OpenSkill have it
  EXPECT_NEAR(a.skill.sigma, 8.17961798837266, 1e-9);
  EXPECT_EQ(a.games, 1);
  EXPECT_TRUE(a.changed);
  EXPECT_FALSE(a.stored);
  ASSERT_EQ(plan.history.size(), 4u);
  EXPECT_EQ(plan.history[0].before.mu, 25);
  EXPECT_EQ(plan.history[0].game_id, "g1");
  EXPECT_EQ(plan.history[0].outbox_id, 1);
}

TEST(ConsumerPlanTest, APartnerGameRatesTwoTeamsFromTheStoredRatings) {
  const std::map<PlayerKey, StoredRating> ratings = {
      {{"complex-partner", "a"}, {{30, 5}, 7}}};
  const BatchPlan plan =
      Plan({RowOf(1, OutboxGame::Partner("g1", {"a", "b", "c", "d"}, 0))}, {}, ratings);
  const PlayerState& a = plan.players.at({"complex-partner", "a"});
  const PlayerState& c = plan.players.at({"complex-partner", "c"});
  EXPECT_TRUE(a.stored);
  EXPECT_EQ(a.games, 8);
  EXPECT_GT(a.skill.mu, 30);
  EXPECT_GT(c.skill.mu, 25);
  EXPECT_LT(plan.players.at({"complex-partner", "b"}).skill.mu, 25);
  EXPECT_EQ(plan.history.size(), 4u);
}

TEST(ConsumerPlanTest, AnUnreadableRowIsQuarantinedWithWhy) {
  const BatchPlan plan =
      Plan({{1, "g1", "{\"not\": \"a game\"}"},
            RowOf(2, OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4}))});
  ASSERT_EQ(plan.games.size(), 2u);
  EXPECT_FALSE(plan.games[0].game.ok());
  EXPECT_FALSE(plan.games[0].rated);
  EXPECT_EQ(plan.games[0].settlement.settlement.outcome, "unsettled");
  EXPECT_FALSE(plan.games[0].settlement.settlement.note.empty());
  EXPECT_TRUE(plan.games[1].rated);
  EXPECT_EQ(plan.quarantined, 1);
  EXPECT_EQ(plan.rated, 1);
}

TEST(ConsumerPlanTest, APlayerInTwoSeatsIsNotRated) {
  const BatchPlan plan =
      Plan({RowOf(1, OutboxGame::Solo("g1", {"a", "a", "c", "d"}, {1, 2, 3, 4}))});
  ASSERT_EQ(plan.games.size(), 1u);
  EXPECT_FALSE(plan.games[0].rated);
  EXPECT_EQ(plan.games[0].unrated_why, kPlayerInTwoSeats);
  EXPECT_TRUE(plan.history.empty());
  EXPECT_EQ(plan.quarantined, 1);
}

TEST(ConsumerPlanTest, AGameAppliedBeforeOrTwiceInTheBatchIsAppliedOnce) {
  const OutboxGame g1 = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  const OutboxGame g2 = OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  const BatchPlan plan = Plan({RowOf(1, g1), RowOf(2, g2), RowOf(3, g2)}, {"g1"});
  ASSERT_EQ(plan.games.size(), 1u);
  EXPECT_EQ(plan.games[0].row.id, 2);
  EXPECT_EQ(plan.consumed, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(plan.players.at({"complex-solo", "a"}).games, 1);
  EXPECT_EQ(plan.history.size(), 4u);
}

TEST(ConsumerPlanTest, ABotIsRatedAndMarked) {
  OutboxGame g = OutboxGame::Solo("g1", {"a", "bot-1", "c", "d"}, {1, 2, 3, 4});
  g.seats[1].bot = true;
  const BatchPlan plan = Plan({RowOf(1, g)});
  const PlayerState& bot = plan.players.at({"complex-solo", "bot-1"});
  EXPECT_TRUE(bot.bot);
  EXPECT_TRUE(bot.changed);
  EXPECT_FALSE(plan.players.at({"complex-solo", "a"}).bot);
  EXPECT_TRUE(plan.games[0].rated);
}

TEST(ConsumerPlanTest, AVoidedStakedTableIsNotRatedAndReleasesItsHolds) {
  OutboxGame g = OutboxGame::StakedSolo("g1");
  g.void_reason = "dealer misconfigured";
  const BatchPlan plan = Plan({RowOf(1, g)});
  ASSERT_EQ(plan.games.size(), 1u);
  const GamePlan& voided = plan.games[0];
  EXPECT_FALSE(voided.rated);
  EXPECT_EQ(voided.settlement.settlement.outcome, "voided");
  EXPECT_EQ(voided.settlement.settlement.note, "dealer misconfigured");
  for (int64_t held : voided.settlement.held) EXPECT_EQ(held, 0);  // every hold released
  EXPECT_TRUE(voided.settlement.stakes.empty());
  EXPECT_TRUE(voided.settlement.payouts.empty());
  EXPECT_TRUE(plan.players.empty());
  EXPECT_EQ(plan.rated + plan.quarantined, 0);
}

TEST(ConsumerPlanTest, AnUnratedStakedGameIsSettledAndRatesNobody) {
  OutboxGame g = OutboxGame::StakedSolo("g1");
  g.unrated = true;
  const std::map<PlayerKey, StoredRating> ratings = {{{"complex-solo", "a"}, {{30, 5}, 7}}};
  const std::vector<OutboxRow> rows = {RowOf(1, g)};
  std::vector<PendingGame> pending = ParsePending(rows, {});
  EXPECT_TRUE(PlayersOf(pending).empty());  // no rating is read
  const BatchPlan plan = PlanBatch(rows, std::move(pending), ratings, kModel);
  ASSERT_EQ(plan.games.size(), 1u);
  const GamePlan& unrated = plan.games[0];
  EXPECT_FALSE(unrated.rated);
  EXPECT_EQ(unrated.unrated_why, "");  // not a failure: nothing logged as one
  EXPECT_TRUE(plan.players.empty());
  EXPECT_TRUE(plan.history.empty());
  EXPECT_EQ(plan.rated + plan.quarantined, 0);
  EXPECT_EQ(plan.consumed, std::vector<int64_t>{1});
  const SettlementPlan& s = unrated.settlement;
  EXPECT_EQ(s.settlement.outcome, "settled");
  EXPECT_EQ(s.stakes.at("pot:g1"), 400);
  EXPECT_EQ(s.payouts.at("player:a"), 240);
  EXPECT_EQ(Sum(s.payouts), 0);
}

TEST(ConsumerPlanTest, AnUnratedGameBesideARatedOneLeavesOnlyTheRatedOnesPlayers) {
  OutboxGame unrated = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
  unrated.unrated = true;
  const BatchPlan plan =
      Plan({RowOf(1, unrated), RowOf(2, OutboxGame::Solo("g2", {"a", "e", "f", "g"},
                                                         {4, 3, 2, 1}))});
  ASSERT_EQ(plan.games.size(), 2u);
  EXPECT_FALSE(plan.games[0].rated);
  EXPECT_TRUE(plan.games[1].rated);
  EXPECT_EQ(plan.rated, 1);
  EXPECT_EQ(plan.players.at({"complex-solo", "a"}).games, 1);  // g2 only
  EXPECT_EQ(plan.players.count({"complex-solo", "b"}), 0u);
  ASSERT_EQ(plan.history.size(), 4u);
  for (const HistoryRow& h : plan.history) EXPECT_EQ(h.game_id, "g2");
}

TEST(ConsumerPlanTest, AStakedGamesTwoEntriesEachSumToZero) {
  const BatchPlan plan = Plan({RowOf(1, OutboxGame::StakedSolo("g1"))});
  const SettlementPlan& s = plan.games[0].settlement;
  EXPECT_EQ(s.settlement.outcome, "settled");
  EXPECT_EQ(s.held, (std::array<int64_t, kSeats>{100, 100, 100, 100}));
  EXPECT_EQ(Sum(s.stakes), 0);
  EXPECT_EQ(Sum(s.payouts), 0);
  EXPECT_EQ(s.stakes.at("player:a"), -100);
  EXPECT_EQ(s.stakes.at("pot:g1"), 400);
  EXPECT_EQ(s.payouts.at("player:a"), 240);
  EXPECT_EQ(s.payouts.at("player:c"), 40);
  EXPECT_EQ(s.payouts.count("player:d"), 0u);
  EXPECT_EQ(s.payouts.at("pot:g1"), -400);
  EXPECT_TRUE(plan.games[0].rated);  // money and rating are independent
}

TEST(ConsumerPlanTest, AStakeWithoutItsHoldIsLeftOutOfThePot) {
  OutboxGame g = OutboxGame::StakedSolo("g1");
  const absl::StatusOr<FinishedGame> game = ParseFinishedGame(1, g.Payload());
  ASSERT_TRUE(game.ok()) << game.status();
  std::vector<HoldInfo> holds = ExpectedHolds(*game);
  holds.erase(holds.begin() + 3);  // seat 3 (d) staked without a hold
  const SettlementPlan s = PlanSettlement(*game, holds);
  EXPECT_EQ(s.settlement.outcome, "unheld");
  EXPECT_EQ(s.settlement.unheld_seats, 1);
  EXPECT_EQ(s.held[3], 0);
  EXPECT_EQ(s.stakes.count("player:d"), 0u);
  EXPECT_EQ(s.stakes.at("pot:g1"), 300);
  EXPECT_EQ(Sum(s.stakes), 0);
  EXPECT_EQ(Sum(s.payouts), 0);
}

TEST(ConsumerPlanTest, PayoutsThatDoNotSumToThePotMoveNothing) {
  OutboxGame g = OutboxGame::StakedSolo("g1");
  g.seats[0].payout = 300;
  const BatchPlan plan = Plan({RowOf(1, g)});
  const SettlementPlan& s = plan.games[0].settlement;
  EXPECT_EQ(s.settlement.outcome, "unsettled");
  EXPECT_TRUE(s.stakes.empty());
  EXPECT_TRUE(s.payouts.empty());
  EXPECT_TRUE(plan.games[0].rated);
}

}  // namespace
}  // namespace trix::ratings
