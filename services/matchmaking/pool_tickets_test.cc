// PoolTickets: the ticket rows of a leased pool turned into who plays whom, with no
// database: parties queued once both members have, a member leaving, a whole read
// of the pool, and grouped tickets kept until forgotten.
#include "services/matchmaking/pool_tickets.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::matchmaking {
namespace {

using ::testing::ElementsAre;

const absl::Time kStart = absl::FromUnixSeconds(1700000000);

TicketRow Row(const std::string& ticket_id, const std::string& party_id = "",
              int rating = 1500) {
  return {.ticket_id = ticket_id,
          .player_id = "player-" + ticket_id,
          .display_name = ticket_id,
          .rating = rating,
          .party_id = party_id,
          .queued = kStart};
}

std::vector<std::string> TicketIdsOf(const std::vector<TicketRow>& rows) {
  std::vector<std::string> ids;
  for (const TicketRow& r : rows) ids.push_back(r.ticket_id);
  return ids;
}

TEST(PoolTicketsTest, ALoneTicketWaitsInThePoolOnce) {
  PoolTickets tickets(PoolOptions{});
  tickets.Add(Row("t1"));
  tickets.Add(Row("t1"));
  EXPECT_EQ(tickets.size(), 1u);
  EXPECT_EQ(tickets.players(), 1u);
  EXPECT_TRUE(tickets.Holds("t1"));
  EXPECT_THAT(TicketIdsOf(tickets.RowsOf("t1")), ElementsAre("t1"));
}

TEST(PoolTicketsTest, APartyWaitsAsOneTicketOnceBothMembersHaveQueued) {
  PoolTickets tickets(PoolOptions{});
  tickets.Add(Row("a", "party"));
  EXPECT_EQ(tickets.size(), 0u);
  EXPECT_TRUE(tickets.Holds("a"));
  tickets.Add(Row("b", "party"));
  EXPECT_EQ(tickets.size(), 1u);
  EXPECT_EQ(tickets.players(), 2u);
  EXPECT_THAT(TicketIdsOf(tickets.RowsOf("party")), ElementsAre("a", "b"));
}

TEST(PoolTicketsTest, AMemberWhoLeavesTakesThePartyOutAndThePartnerWaitsAgain) {
  PoolTickets tickets(PoolOptions{});
  tickets.Add(Row("a", "party"));
  tickets.Add(Row("b", "party"));
  tickets.Remove("a");
  EXPECT_EQ(tickets.size(), 0u);
  EXPECT_FALSE(tickets.Holds("a"));
  EXPECT_TRUE(tickets.Holds("b"));
  tickets.Add(Row("a", "party"));
  EXPECT_EQ(tickets.size(), 1u);
  EXPECT_THAT(TicketIdsOf(tickets.RowsOf("party")), ElementsAre("b", "a"));
  tickets.Remove("b");
  tickets.Remove("a");
  EXPECT_FALSE(tickets.Holds("a"));
  EXPECT_FALSE(tickets.Holds("b"));
  tickets.Remove("nobody");  // not held: nothing to do
  EXPECT_EQ(tickets.size(), 0u);
}

TEST(PoolTicketsTest, AWholeReadKeepsExactlyTheTicketsRead) {
  PoolTickets tickets(PoolOptions{});
  tickets.Add(Row("gone"));
  tickets.Add(Row("stays"));
  tickets.Add(Row("half", "party"));
  tickets.Sync({Row("stays"), Row("new")});
  EXPECT_FALSE(tickets.Holds("gone"));
  EXPECT_FALSE(tickets.Holds("half"));
  EXPECT_TRUE(tickets.Holds("stays"));
  EXPECT_TRUE(tickets.Holds("new"));
  EXPECT_EQ(tickets.size(), 2u);
}

TEST(PoolTicketsTest, GroupedTicketsKeepTheirRowsUntilForgotten) {
  PoolTickets tickets(PoolOptions{.partner = false});
  for (const char* id : {"t1", "t2", "t3"}) tickets.Add(Row(id));
  tickets.Add(Row("a", "party"));
  tickets.Add(Row("b", "party"));
  std::vector<Group> groups = tickets.Match(kStart);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].bots, 0);
  EXPECT_EQ(tickets.size(), 1u);  // a full table of four seats; one ticket left
  std::vector<std::string> seated;
  for (const Ticket& t : groups[0].tickets) {
    for (const TicketRow& r : tickets.RowsOf(t.ticket_id)) seated.push_back(r.ticket_id);
    tickets.Forget(t.ticket_id);
  }
  EXPECT_EQ(seated.size(), 4u);
  for (const std::string& id : seated) EXPECT_FALSE(tickets.Holds(id));
  // A grouped ticket put back (its claim failed) comes back with the next read.
  tickets.Add(Row(seated.front()));
  EXPECT_TRUE(tickets.Holds(seated.front()));
}

}  // namespace
}  // namespace trix::matchmaking
