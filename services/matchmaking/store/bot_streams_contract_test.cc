// SharedBotStreams' contract (bot_store.h), checked against PostgreSQL
// (PostgresBotStreams) and against the in-memory fake the bot roster's tests use
// (testing/memory_bot_store.h): a replica lends other replicas' live streams
// with room, never its own, the account given a seat least recently first, and
// never a revoked account's.
#include "services/matchmaking/store/bot_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "services/matchmaking/store/postgres_bot_streams.h"
#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/matchmaking/testing/memory_bot_store.h"
#include "services/pg/testing/test_database.h"

namespace trix::matchmaking {
namespace {

constexpr char kMode[] = "complex-partner";

// The shared bot streams to check, as replicas "a" and "b" see them, with the
// accounts they serve.
class BotsUnderTest {
 public:
  virtual ~BotsUnderTest() = default;
  virtual SharedBotStreams& replica(const std::string& name) = 0;
  virtual void AddBot(const std::string& bot_id, const std::string& key_hash,
                      const std::string& level = "") = 0;
  virtual void Revoke(const std::string& bot_id) = 0;
  // Every stream's heartbeat made `age` older.
  virtual void Silence(absl::Duration age) = 0;
};

class MemoryBots : public BotsUnderTest {
 public:
  SharedBotStreams& replica(const std::string& name) override {
    return name == "a" ? a_ : b_;
  }
  void AddBot(const std::string& bot_id, const std::string& key_hash,
              const std::string& level) override {
    db_.AddBot({.bot_id = bot_id, .name = "Bot " + bot_id, .level = level}, key_hash);
  }
  void Revoke(const std::string& bot_id) override { db_.Revoke(bot_id); }
  void Silence(absl::Duration age) override { db_.Silence(age); }

 private:
  MemoryBotDatabase db_;
  MemoryBotStreams a_{&db_, "a"}, b_{&db_, "b"};
};

class PostgresBots : public BotsUnderTest {
 public:
  explicit PostgresBots(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)),
        tickets_(db_->url(), 2, SeatTokens("bot streams key")),
        a_(&tickets_.pool(), "a"),
        b_(&tickets_.pool(), "b") {}

  SharedBotStreams& replica(const std::string& name) override {
    return name == "a" ? a_ : b_;
  }
  void AddBot(const std::string& bot_id, const std::string& key_hash,
              const std::string& level) override {
    EXPECT_TRUE(tickets_
                    .RegisterBot({.bot_id = bot_id, .name = "Bot " + bot_id,
                                  .owner = "owner", .modes = {kMode}, .level = level},
                                 key_hash)
                    .ok());
  }
  void Revoke(const std::string& bot_id) override {
    EXPECT_TRUE(tickets_.RevokeBot(bot_id).ok());
  }
  void Silence(absl::Duration age) override {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_bot_streams SET heartbeat = heartbeat - make_interval(secs => $1)",
        absl::ToDoubleSeconds(age));
    tx.commit();
  }

 private:
  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  PostgresTicketStore tickets_;
  PostgresBotStreams a_, b_;
};

class BotStreamsContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "Memory") {
      bots_ = std::make_unique<MemoryBots>();
    } else {
      absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db =
          pg::TestDatabase::Create();
      ASSERT_TRUE(db.ok()) << db.status();
      bots_ = std::make_unique<PostgresBots>(*std::move(db));
    }
  }

  // Opens `stream` of `bot` on `replica`, with `room`.
  void Open(const std::string& replica, const std::string& stream, const std::string& bot,
            int room, const std::string& mode = kMode) {
    ASSERT_TRUE(bots_->replica(replica)
                    .Open(stream, {.bot_id = bot, .name = "Bot " + bot}, {mode}, room)
                    .ok());
  }

  // The stream `replica` is lent a seat of, or "" for none.
  std::string Lend(const std::string& replica, const std::vector<std::string>& taken = {}) {
    absl::StatusOr<std::optional<BotSeat>> seat =
        bots_->replica(replica).ReserveElsewhere(kMode, taken);
    EXPECT_TRUE(seat.ok()) << seat.status();
    return seat.ok() && seat->has_value() ? (*seat)->stream_id : "";
  }

  std::unique_ptr<BotsUnderTest> bots_;
};

// A seat asked at a level goes to an account of that level only, on whichever
// replica its stream is.
TEST_P(BotStreamsContractTest, ASeatAskedAtALevelIsLentFromAnAccountOfThatLevel) {
  bots_->AddBot("casual", "h1", "casual");
  bots_->AddBot("expert", "h2", "expert");
  Open("a", "s-casual", "casual", 1);
  Open("a", "s-expert", "expert", 1);
  auto lend_at = [&](const std::string& level) {
    absl::StatusOr<std::optional<BotSeat>> seat =
        bots_->replica("b").ReserveElsewhere(kMode, {}, level);
    EXPECT_TRUE(seat.ok()) << seat.status();
    return seat.ok() && seat->has_value() ? (*seat)->bot_id : "";
  };
  absl::StatusOr<std::optional<BotSeat>> expert =
      bots_->replica("b").ReserveElsewhere(kMode, {}, "expert");
  ASSERT_TRUE(expert.ok() && expert->has_value());
  EXPECT_EQ((*expert)->bot_id, "expert");
  EXPECT_EQ((*expert)->level, "expert");
  EXPECT_EQ(lend_at("expert"), "");  // its one seat lent; the casual one is not
  EXPECT_EQ(lend_at("strong"), "");
  EXPECT_EQ(lend_at(""), "casual");  // any level
}

TEST_P(BotStreamsContractTest, AnotherReplicasStreamIsLentUntilItsRoomIsGone) {
  bots_->AddBot("b1", "h1");
  Open("a", "s1", "b1", 2);
  EXPECT_EQ(Lend("a"), "");  // its own
  absl::StatusOr<std::optional<BotSeat>> seat =
      bots_->replica("b").ReserveElsewhere(kMode, {});
  ASSERT_TRUE(seat.ok() && seat->has_value());
  EXPECT_EQ((*seat)->bot_id, "b1");
  EXPECT_EQ((*seat)->name, "Bot b1");
  EXPECT_EQ(Lend("b"), "s1");
  EXPECT_EQ(Lend("b"), "");  // room 2, both lent
  // Its replica writes its room again (a table over): lent again.
  ASSERT_TRUE(bots_->replica("a").Heartbeat({{"s1", 1}}).ok());
  EXPECT_EQ(Lend("b"), "s1");
}

TEST_P(BotStreamsContractTest, TheAccountLentLeastRecentlyComesFirst) {
  bots_->AddBot("b1", "h1");
  bots_->AddBot("b2", "h2");
  Open("a", "s1", "b1", 10);
  Open("a", "s2", "b2", 5);
  EXPECT_EQ(Lend("b"), "s1");  // neither lent yet: the most room
  EXPECT_EQ(Lend("b"), "s2");
  EXPECT_EQ(Lend("b"), "s1");
  EXPECT_EQ(Lend("b", {"b1"}), "s2");  // b1 already at the table
}

TEST_P(BotStreamsContractTest, OtherModesSilentStreamsAndRevokedAccountsAreNotLent) {
  bots_->AddBot("b1", "h1");
  bots_->AddBot("b2", "h2");
  Open("a", "classic", "b1", 3, "classic-solo");
  EXPECT_EQ(Lend("b"), "");
  Open("a", "s2", "b2", 3);
  bots_->Silence(absl::Seconds(30));
  EXPECT_EQ(Lend("b"), "");
  ASSERT_TRUE(bots_->replica("a").Heartbeat({{"s2", 3}}).ok());
  EXPECT_EQ(Lend("b"), "s2");
  bots_->Revoke("b2");
  EXPECT_EQ(Lend("b"), "");
}

TEST_P(BotStreamsContractTest, AClosedStreamIsNotLentAndAStreamNeedsAnAccount) {
  bots_->AddBot("b1", "h1");
  Open("a", "s1", "b1", 3);
  ASSERT_TRUE(bots_->replica("a").Close("s1").ok());
  EXPECT_EQ(Lend("b"), "");
  EXPECT_FALSE(bots_->replica("a").Open("s2", {.bot_id = "nobody"}, {kMode}, 1).ok());
}

TEST_P(BotStreamsContractTest, AHeartbeatWritesOnlyItsOwnReplicasRooms) {
  bots_->AddBot("b1", "h1");
  Open("a", "s1", "b1", 1);
  ASSERT_TRUE(bots_->replica("b").Heartbeat({{"s1", 0}}).ok());  // not b's
  EXPECT_EQ(Lend("b"), "s1");
}

TEST_P(BotStreamsContractTest, KeysInForceLeaveOutRevokedAccounts) {
  bots_->AddBot("b1", "h1");
  bots_->AddBot("b2", "h2");
  bots_->Revoke("b2");
  absl::StatusOr<std::map<std::string, std::string>> keys =
      bots_->replica("a").KeysInForce({"b1", "b2", "b3"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(*keys, (std::map<std::string, std::string>{{"b1", "h1"}}));
}

INSTANTIATE_TEST_SUITE_P(Stores, BotStreamsContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
