// PostgresBotStreams against a real PostgreSQL: a replica never lends its own streams to
// itself, never a stream without room, a silent one, or one of an account already
// at the table; and when several matchers take seats of one stream at once, it
// lends exactly as many as it has room for.
#include "services/matchmaking/store/postgres_bot_streams.h"

#include <atomic>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "services/pg/testing/database_test.h"

namespace trix::matchmaking {
namespace {

class BotStreamsTest : public pg::DatabaseTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    for (const char* id : {"bot-1", "bot-2"}) {
      tx.exec_params0(
          "INSERT INTO mm_bots (bot_id, name, modes, key_hash) "
          "VALUES ($1, $1, '{complex-partner}', $1)",
          id);
    }
    tx.commit();
  }
  int Room(const std::string& stream_id) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec_params1("SELECT room FROM mm_bot_streams WHERE stream_id = $1",
                           stream_id)[0]
        .as<int>();
  }
  static BotAccount Bot(const std::string& id) { return {.bot_id = id, .name = id}; }
};

TEST_F(BotStreamsTest, LendsAnotherReplicasStreamWithRoomForTheMode) {
  PostgresBotStreams a(pool_.get(), "replica-a"), b(pool_.get(), "replica-b");
  ASSERT_TRUE(b.Open("s-b", Bot("bot-1"), {"complex-partner"}, 2).ok());

  auto own = b.ReserveElsewhere("complex-partner", {}, "");
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_FALSE(own->has_value());  // b's own stream is b's roster's to give
  auto other_mode = a.ReserveElsewhere("classic-solo", {}, "");
  ASSERT_TRUE(other_mode.ok());
  EXPECT_FALSE(other_mode->has_value());
  auto taken = a.ReserveElsewhere("complex-partner", {"bot-1"}, "");
  ASSERT_TRUE(taken.ok());
  EXPECT_FALSE(taken->has_value());  // the account already sits at this table

  auto seat = a.ReserveElsewhere("complex-partner", {}, "");
  ASSERT_TRUE(seat.ok()) << seat.status();
  ASSERT_TRUE(seat->has_value());
  EXPECT_EQ((*seat)->bot_id, "bot-1");
  EXPECT_EQ((*seat)->stream_id, "s-b");
  EXPECT_EQ(Room("s-b"), 1);

  ASSERT_TRUE(b.Heartbeat({{"s-b", 0}}).ok());  // b's own count wins
  auto none = a.ReserveElsewhere("complex-partner", {}, "");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  ASSERT_TRUE(b.Close("s-b").ok());
  pqxx::connection c(db_->url());
  pqxx::read_transaction tx(c);
  EXPECT_EQ(tx.exec1("SELECT count(*) FROM mm_bot_streams")[0].as<int>(), 0);
}

TEST_F(BotStreamsTest, ASilentStreamIsNotLent) {
  PostgresBotStreams a(pool_.get(), "replica-a");
  PostgresBotStreams b(pool_.get(), "replica-b", absl::Seconds(5));
  ASSERT_TRUE(b.Open("s-b", Bot("bot-1"), {"complex-partner"}, 4).ok());
  {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec0("UPDATE mm_bot_streams SET heartbeat = now() - interval '10 seconds'");
    tx.commit();
  }
  auto seat = a.ReserveElsewhere("complex-partner", {}, "");
  ASSERT_TRUE(seat.ok());
  EXPECT_FALSE(seat->has_value());
}

TEST_F(BotStreamsTest, MatchersTakingSeatsAtOnceNeverOverfillAStream) {
  PostgresBotStreams b(pool_.get(), "replica-b");
  ASSERT_TRUE(b.Open("s-1", Bot("bot-1"), {"complex-partner"}, 3).ok());
  ASSERT_TRUE(b.Open("s-2", Bot("bot-2"), {"complex-partner"}, 2).ok());
  std::atomic<int> lent{0};
  std::vector<std::thread> matchers;
  for (int i = 0; i < 6; ++i) {
    matchers.emplace_back([&, i] {
      PostgresBotStreams mine(pool_.get(), "replica-" + std::to_string(i));
      for (int k = 0; k < 4; ++k) {
        auto seat = mine.ReserveElsewhere("complex-partner", {}, "");
        ASSERT_TRUE(seat.ok()) << seat.status();
        lent += seat->has_value();
      }
    });
  }
  for (std::thread& t : matchers) t.join();
  EXPECT_LE(lent.load(), 5);
  EXPECT_EQ(Room("s-1") + Room("s-2"), 5 - lent.load());
  EXPECT_GE(Room("s-1"), 0);
  EXPECT_GE(Room("s-2"), 0);
}

}  // namespace
}  // namespace trix::matchmaking
