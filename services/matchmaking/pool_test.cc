#include "services/matchmaking/pool.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::matchmaking {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1700000000);

Ticket Solo(const std::string& id, int rating, absl::Duration at = absl::ZeroDuration()) {
  return {.ticket_id = id, .members = {{id, id, rating}}, .queued = kStart + at};
}

Ticket Party(const std::string& id, int a, int b,
             absl::Duration at = absl::ZeroDuration()) {
  return {.ticket_id = id,
          .members = {{id + "-a", "", a}, {id + "-b", "", b}},
          .queued = kStart + at};
}

std::vector<std::string> TicketIds(const Group& g) {
  std::vector<std::string> ids;
  for (const Ticket& t : g.tickets) ids.push_back(t.ticket_id);
  return ids;
}

std::string SeatPlayer(const Group& g, int seat) {
  const SeatPlan& s = g.seats[seat];
  if (s.bot()) return "bot";
  return g.tickets[s.ticket].members[s.member].player_id;
}

TEST(WideningCurveTest, GrowsWithWaitUpToTheCap) {
  WideningCurve c{.initial = 100, .per_second = 50, .max = 300};
  EXPECT_EQ(c.Window(absl::ZeroDuration()), 100);
  EXPECT_EQ(c.Window(absl::Seconds(2)), 200);
  EXPECT_EQ(c.Window(absl::Seconds(60)), 300);
  EXPECT_EQ(c.WaitFor(150), absl::Seconds(1));
  EXPECT_EQ(c.WaitFor(50), absl::ZeroDuration());
  EXPECT_EQ(c.WaitFor(301), absl::InfiniteDuration());
}

TEST(PoolTest, FourClosePlayersShareATable) {
  Pool pool({});
  for (int i = 0; i < 3; ++i) pool.Add(Solo("p" + std::to_string(i), 1500 + 10 * i));
  EXPECT_TRUE(pool.Match(kStart).empty());
  pool.Add(Solo("p3", 1480));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_THAT(TicketIds(groups[0]), ::testing::ElementsAre("p0", "p1", "p2", "p3"));
  EXPECT_EQ(groups[0].bots, 0);
  EXPECT_EQ(pool.size(), 0u);
}

TEST(PoolTest, APartySitsOppositeAsPartners) {
  Pool pool({.partner = true});
  pool.Add(Solo("s1", 1500));
  pool.Add(Party("duo", 1500, 1500));
  pool.Add(Solo("s2", 1500));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  const Group& g = groups[0];
  // Seats 0+2 and 1+3 are the teams: the party's members share one of them.
  bool even = SeatPlayer(g, 0).rfind("duo", 0) == 0 && SeatPlayer(g, 2).rfind("duo", 0) == 0;
  bool odd = SeatPlayer(g, 1).rfind("duo", 0) == 0 && SeatPlayer(g, 3).rfind("duo", 0) == 0;
  EXPECT_TRUE(even || odd) << SeatPlayer(g, 0) << SeatPlayer(g, 1) << SeatPlayer(g, 2)
                           << SeatPlayer(g, 3);
}

TEST(PoolTest, TwoPartiesMakeOneTableOfTwoTeams) {
  Pool pool({.partner = true});
  pool.Add(Party("a", 1500, 1500));
  pool.Add(Party("b", 1500, 1500));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(SeatPlayer(groups[0], 0).substr(0, 1), SeatPlayer(groups[0], 2).substr(0, 1));
  EXPECT_EQ(SeatPlayer(groups[0], 1).substr(0, 1), SeatPlayer(groups[0], 3).substr(0, 1));
}

TEST(PoolTest, PartnerTeamsAreBalancedByRating) {
  Pool pool({.partner = true, .curve = {.initial = 1000}});
  pool.Add(Solo("top", 2000));
  pool.Add(Solo("mid1", 1600));
  pool.Add(Solo("mid2", 1400));
  pool.Add(Solo("low", 1000));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(SeatPlayer(groups[0], 0), "top");
  EXPECT_EQ(SeatPlayer(groups[0], 2), "low");
}

TEST(PoolTest, InSoloModesAPartySitsAtTheSameTable) {
  Pool pool({.partner = false});
  pool.Add(Party("duo", 1500, 1500));
  pool.Add(Solo("s1", 1500));
  EXPECT_TRUE(pool.Match(kStart).empty());
  pool.Add(Solo("s2", 1500));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].tickets.size(), 3u);
}

TEST(PoolTest, TheWindowWidensWithWaitingTime) {
  Pool pool({.curve = {.initial = 100, .per_second = 100, .max = 1000}});
  pool.Add(Solo("a", 1500));
  pool.Add(Solo("b", 1500));
  pool.Add(Solo("c", 1500));
  pool.Add(Solo("far", 1800));
  EXPECT_TRUE(pool.Match(kStart + absl::Seconds(1)).empty());  // window 200 < 300
  EXPECT_EQ(pool.WindowFor("a", kStart + absl::Seconds(1)), 200);
  std::vector<Group> groups = pool.Match(kStart + absl::Seconds(2));  // window 300
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].possible, kStart + absl::Seconds(2));
}

TEST(PoolTest, EarlierArrivalsAreSeatedFirst) {
  Pool pool({});
  for (int i = 0; i < 6; ++i) {
    pool.Add(Solo("p" + std::to_string(i), 1500, absl::Milliseconds(i)));
  }
  std::vector<Group> groups = pool.Match(kStart + absl::Milliseconds(10));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_THAT(TicketIds(groups[0]), ::testing::ElementsAre("p0", "p1", "p2", "p3"));
  EXPECT_TRUE(pool.Contains("p4"));
  EXPECT_TRUE(pool.Contains("p5"));
}

TEST(PoolTest, ALaterGroupFormsWhenNoTableForTheOldestIsPossible) {
  Pool pool({.curve = {.initial = 100, .per_second = 0, .max = 100}});
  pool.Add(Solo("lonely", 500));
  for (int i = 0; i < 4; ++i) pool.Add(Solo("p" + std::to_string(i), 1500));
  std::vector<Group> groups = pool.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(pool.Contains("lonely"));
}

TEST(PoolTest, BotsFillTheEmptySeatsAfterTheWait) {
  Pool pool({.bot_fill_wait = absl::Seconds(10)});
  pool.Add(Solo("a", 1500));
  pool.Add(Solo("b", 1520));
  EXPECT_TRUE(pool.Match(kStart + absl::Seconds(9)).empty());
  std::vector<Group> groups = pool.Match(kStart + absl::Seconds(10));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].bots, 2);
  EXPECT_EQ(groups[0].possible, kStart + absl::Seconds(10));
}

TEST(PoolTest, StakedPoolsAreNeverFilledWithBots) {
  Pool pool({.bot_fill = false});
  pool.Add(Solo("a", 1500));
  EXPECT_TRUE(pool.Match(kStart + absl::Hours(1)).empty());
}

TEST(PoolTest, AProvisionalPlayerIsGivenSlack) {
  Pool pool({.curve = {.initial = 100, .per_second = 0, .max = 100},
             .provisional_slack = 200});
  for (int i = 0; i < 3; ++i) pool.Add(Solo("p" + std::to_string(i), 1500));
  Ticket newcomer = Solo("new", 1750);
  newcomer.provisional = true;
  pool.Add(newcomer);
  EXPECT_EQ(pool.Match(kStart).size(), 1u);
}

TEST(PoolTest, ARemovedTicketIsNotGrouped) {
  Pool pool({});
  for (int i = 0; i < 4; ++i) pool.Add(Solo("p" + std::to_string(i), 1500));
  EXPECT_TRUE(pool.Remove("p2"));
  EXPECT_FALSE(pool.Remove("p2"));
  EXPECT_TRUE(pool.Match(kStart).empty());
  EXPECT_EQ(pool.players(), 3u);
}

TEST(PoolTest, ADuplicateTicketIsIgnored) {
  Pool pool({});
  EXPECT_TRUE(pool.Add(Solo("p", 1500)));
  EXPECT_FALSE(pool.Add(Solo("p", 1500)));
  EXPECT_EQ(pool.size(), 1u);
}

}  // namespace
}  // namespace trix::matchmaking
