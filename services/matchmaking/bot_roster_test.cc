// The bot roster on the in-memory bot store (testing/memory_bot_store.h): how
// bot seats are spread over the accounts and their streams, the quotas, seats
// taken from another replica's streams, the room each stream shares, revoked
// accounts and finished games, bot fill by rating and by level.
#include "services/matchmaking/bot_roster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "services/matchmaking/testing/eventually.h"
#include "services/matchmaking/testing/fake_ratings_client.h"
#include "services/matchmaking/testing/memory_bot_store.h"

namespace trix::matchmaking {
namespace {

constexpr char kMode[] = "complex-partner";

class BotRosterTest : public ::testing::Test {
 protected:
  BotRosterTest() {
    mode_.set_team(v1::TEAM_PARTNER);
    mode_.set_format(v1::FORMAT_COMPLEX);
    for (const std::string bot : {"b1", "b2", "b3"}) db_.AddBot(Account(bot), "key-" + bot);
  }
  ~BotRosterTest() override { roster_.Stop(); }

  static BotAccount Account(const std::string& bot_id, const std::string& level = "") {
    return {.bot_id = bot_id, .name = "Bot " + bot_id, .modes = {kMode}, .level = level};
  }

  // A stream of `bot` on this replica, offering `capacity` tables.
  absl::Status Connect(const std::string& bot, int capacity,
                       const std::vector<AssignmentRow>& live = {},
                       const std::string& level = "") {
    return roster_.Connect(Account(bot, level), "key-" + bot, capacity, {kMode},
                           std::make_shared<BotRoster::Outbox>(), live);
  }

  // The account given the next seat of a table whose people's mean rating is
  // `rating` (a room's `level` when given).
  std::string ReserveNear(std::optional<int> rating, const std::string& level = "") {
    std::optional<BotSeat> seat =
        roster_.Reserve(BotAsk{.mode = mode_, .near_rating = rating, .level = level});
    return seat ? seat->bot_id : "";
  }

  // The account given the next seat here ("" for none), `taken` at its table.
  std::string Reserve(const std::vector<std::string>& taken = {}) {
    std::optional<BotSeat> seat = roster_.Reserve(mode_, taken);
    return seat ? seat->bot_id : "";
  }

  // This replica's only stream's room as last shared.
  int SharedRoom() {
    std::map<std::string, int> rooms = db_.Rooms("here");
    EXPECT_EQ(rooms.size(), 1u);
    return rooms.empty() ? -1 : rooms.begin()->second;
  }

  v1::Mode mode_;
  MemoryBotDatabase db_;
  MemoryBotStreams here_{&db_, "here"}, there_{&db_, "there"};
  std::atomic<bool> games_over_{false};
  BotRoster roster_{absl::Milliseconds(20),
                    [this](const std::string&, const std::string&) { return games_over_.load(); },
                    &db_, &here_, BotQuota{.max_streams = 2, .max_capacity = 10},
                    absl::Milliseconds(10)};
};

TEST_F(BotRosterTest, SeatsGoToTheAccountGivenOneLeastRecently) {
  ASSERT_TRUE(Connect("b1", 8).ok());
  ASSERT_TRUE(Connect("b2", 1).ok());
  // Neither given one yet, nothing in play: the first connected. Then b2, given
  // none yet; then b1 again, b2 having room for one table only.
  EXPECT_EQ(Reserve(), "b1");
  EXPECT_EQ(Reserve(), "b2");
  EXPECT_EQ(Reserve(), "b1");
  EXPECT_EQ(Reserve(), "b1");
  EXPECT_EQ(Reserve({"b1"}), "");  // b2 is full, b1 at the table already
}

TEST_F(BotRosterTest, AnAccountAlreadyAtTheTableIsPassedOver) {
  ASSERT_TRUE(Connect("b1", 5).ok());
  ASSERT_TRUE(Connect("b2", 5).ok());
  EXPECT_EQ(Reserve({"b1"}), "b2");
  EXPECT_EQ(Reserve({"b2"}), "b1");
}

TEST_F(BotRosterTest, WithNoRoomHereASeatIsTakenFromAnotherReplica) {
  ASSERT_TRUE(there_.Open("s-there", Account("b3"), {kMode}, 1).ok());
  std::optional<BotSeat> seat = roster_.Reserve(mode_, {});
  ASSERT_TRUE(seat.has_value());
  EXPECT_EQ(seat->bot_id, "b3");
  EXPECT_EQ(seat->stream_id, "s-there");
  EXPECT_EQ(db_.Rooms("there").at("s-there"), 0);
  EXPECT_EQ(Reserve(), "");  // none left anywhere: the autopilot's
}

TEST_F(BotRosterTest, AnAccountsStreamsAndTablesAreCapped) {
  ASSERT_TRUE(Connect("b1", 4).ok());
  EXPECT_EQ(Connect("b1", 7).code(), absl::StatusCode::kResourceExhausted);  // 11 > 10
  ASSERT_TRUE(Connect("b1", 6).ok());
  EXPECT_EQ(Connect("b1", 0).code(), absl::StatusCode::kResourceExhausted);  // 3 streams
  EXPECT_TRUE(Connect("b2", 10).ok());  // another account's quota
  EXPECT_EQ(roster_.connected(), 3);
}

TEST_F(BotRosterTest, TheRoomSharedCountsSeatsReservedAndDelivered) {
  ASSERT_TRUE(Connect("b1", 3).ok());
  EXPECT_EQ(SharedRoom(), 3);
  roster_.Start();
  std::optional<BotSeat> seat = roster_.Reserve(mode_, {});
  ASSERT_TRUE(seat.has_value());
  ASSERT_TRUE(Eventually([&] { return SharedRoom() == 2; }));
  // The seat's assignment, committed: no longer reserved, but a table in play.
  roster_.Deliver({{.table_id = "t1", .seat = 1, .player_id = "b1", .bot = true,
                    .bot_stream = seat->stream_id}});
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(SharedRoom(), 2);
}

TEST_F(BotRosterTest, ASeatAnotherReplicaGaveIsTakenIntoPlayOnce) {
  ASSERT_TRUE(Connect("b1", 3).ok());
  const std::string stream = db_.Rooms("here").begin()->first;
  db_.Seat({.table_id = "t1", .seat = 2, .player_id = "b1", .bot = true,
            .bot_stream = stream});
  roster_.Start();
  ASSERT_TRUE(Eventually([&] { return SharedRoom() == 2; }));
  absl::SleepFor(absl::Milliseconds(50));  // read again: not counted twice
  EXPECT_EQ(SharedRoom(), 2);
}

TEST_F(BotRosterTest, TheSeatsOfGamesOverAreFinishedAndFreed) {
  ASSERT_TRUE(Connect("b1", 2, {{.table_id = "t1", .player_id = "b1", .bot = true,
                                 .address = "table:1"}})
                  .ok());
  roster_.Start();
  ASSERT_TRUE(Eventually([&] { return SharedRoom() == 1; }));
  games_over_ = true;
  ASSERT_TRUE(Eventually([&] { return SharedRoom() == 2; }));
  EXPECT_EQ(db_.finished(), std::set<std::string>{"t1"});
}

TEST_F(BotRosterTest, TheStreamsOfARevokedOrRotatedAccountEnd) {
  ASSERT_TRUE(Connect("b1", 2).ok());
  ASSERT_TRUE(Connect("b2", 2).ok());
  ASSERT_TRUE(Connect("b3", 2).ok());
  roster_.Start();
  db_.Revoke("b1");
  db_.SetKey("b2", "another key");
  ASSERT_TRUE(Eventually([&] { return roster_.connected() == 1; }));
  EXPECT_TRUE(Eventually([&] { return db_.Rooms("here").size() == 1u; }));  // rows closed
  EXPECT_EQ(Reserve(), "b3");
}

TEST_F(BotRosterTest, BotFillPicksTheAccountRatedNearestThePeople) {
  FakeRatings ratings;
  ratings.SetRating("b1", 800);
  ratings.SetRating("b2", 1500);
  ratings.SetRating("b3", 2100);
  roster_.SetRatings(&ratings);
  for (const std::string bot : {"b1", "b2", "b3"}) ASSERT_TRUE(Connect(bot, 4).ok());
  roster_.RefreshRatings();
  EXPECT_EQ(ReserveNear(2300), "b3");
  EXPECT_EQ(ReserveNear(2300), "b3");  // nearest wins over least recently given
  EXPECT_EQ(ReserveNear(700), "b1");
  EXPECT_EQ(ReserveNear(1400), "b2");
  EXPECT_EQ(ReserveNear(1150), "b1");  // 350 from b1 and b2: the one given longest ago
}

TEST_F(BotRosterTest, AmongAccountsWithRoomTheNearestRatedIsPicked) {
  FakeRatings ratings;
  ratings.SetRating("b1", 800);
  ratings.SetRating("b2", 1500);
  roster_.SetRatings(&ratings);
  ASSERT_TRUE(Connect("b1", 4).ok());
  ASSERT_TRUE(Connect("b2", 1).ok());
  roster_.RefreshRatings();
  EXPECT_EQ(ReserveNear(1600), "b2");
  EXPECT_EQ(ReserveNear(1600), "b1");  // b2 is full
}

TEST_F(BotRosterTest, WithoutRatingsBotFillKeepsItsOrder) {
  ASSERT_TRUE(Connect("b1", 4).ok());
  ASSERT_TRUE(Connect("b2", 4).ok());
  EXPECT_EQ(ReserveNear(2000), "b1");
  EXPECT_EQ(ReserveNear(2000), "b2");
  FakeRatings ratings;
  ratings.SetAway(true);
  roster_.SetRatings(&ratings);
  roster_.RefreshRatings();  // the service away: nothing learnt, nothing lost
  EXPECT_EQ(ReserveNear(2000), "b1");
}

TEST_F(BotRosterTest, AnAskForALevelIsServedOnlyByAccountsOfThatLevel) {
  ASSERT_TRUE(Connect("b1", 4, {}, "beginner").ok());
  ASSERT_TRUE(Connect("b2", 4, {}, "expert").ok());
  EXPECT_EQ(ReserveNear(std::nullopt, "expert"), "b2");
  EXPECT_EQ(ReserveNear(std::nullopt, "expert"), "b2");
  EXPECT_EQ(ReserveNear(std::nullopt, "beginner"), "b1");
  EXPECT_EQ(ReserveNear(std::nullopt, "strong"), "");  // none here, none lent
}

TEST(BotLevelNameTest, LevelsAreStoredByTheirNames) {
  EXPECT_EQ(BotLevelName(v1::BOT_LEVEL_UNSPECIFIED), "");
  EXPECT_EQ(BotLevelName(v1::BOT_LEVEL_BEGINNER), "beginner");
  EXPECT_EQ(BotLevelName(v1::BOT_LEVEL_EXPERT), "expert");
}

}  // namespace
}  // namespace trix::matchmaking
