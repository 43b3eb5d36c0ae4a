// RoomStore's contract (room_store.h), checked against PostgreSQL and against
// the in-memory fake the room service's tests use (testing/memory_room_store.h):
// rooms created under unique codes, codes that expire, saves under a version (of
// two saves from one version, one applies), the seats of a game's table written
// and finished with the room, the rooms playing, idle empty rooms expired.
#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "services/matchmaking/rooms/postgres_room_store.h"
#include "services/matchmaking/rooms/room_store.h"
#include "services/matchmaking/testing/memory_room_store.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/test_database.h"

namespace trix::matchmaking {
namespace {

// The store to check, with what a test reads beside it: a table's seats
// (written, and how many finished).
class RoomsUnderTest {
 public:
  virtual ~RoomsUnderTest() = default;
  virtual RoomStore& store() = 0;
  virtual int SeatsOf(const std::string& table_id) = 0;
  virtual bool Finished(const std::string& table_id) = 0;
};

class MemoryRooms : public RoomsUnderTest {
 public:
  RoomStore& store() override { return store_; }
  int SeatsOf(const std::string& table_id) override {
    return static_cast<int>(store_.Seats(table_id).size());
  }
  bool Finished(const std::string& table_id) override {
    return store_.finished(table_id);
  }

 private:
  MemoryRoomStore store_;
};

class PostgresRooms : public RoomsUnderTest {
 public:
  explicit PostgresRooms(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)), pool_(db_->url(), 2, "room store test"), store_(&pool_) {}

  RoomStore& store() override { return store_; }
  int SeatsOf(const std::string& table_id) override {
    return Count("SELECT count(*) FROM mm_assignments WHERE table_id = $1", table_id);
  }
  bool Finished(const std::string& table_id) override {
    return Count("SELECT count(*) FROM mm_assignments WHERE table_id = $1 AND finished",
                 table_id) > 0;
  }

 private:
  int Count(const std::string& sql, const std::string& arg) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec_params1(sql, arg)[0].as<int>();
  }

  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  pg::ConnectionPool pool_;
  PostgresRoomStore store_;
};

class RoomStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "Memory") {
      rooms_ = std::make_unique<MemoryRooms>();
    } else {
      absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db =
          pg::TestDatabase::Create();
      ASSERT_TRUE(db.ok()) << db.status();
      rooms_ = std::make_unique<PostgresRooms>(*std::move(db));
    }
  }

  RoomStore& store() { return rooms_->store(); }

  // A room "<id>" of alice's, its code "<code>", valid for `valid`.
  Room Created(const std::string& id, const std::string& code,
               absl::Duration valid = absl::Hours(1)) {
    RoomSettings settings;
    settings.mode.set_team(v1::TEAM_PARTNER);
    settings.mode.set_format(v1::FORMAT_COMPLEX);
    Room room(id, code, absl::Now() + valid, settings, {"alice", "Alice"}, absl::Now());
    absl::Status s = store().Create(room);
    EXPECT_TRUE(s.ok()) << s;
    return room;
  }

  std::unique_ptr<RoomsUnderTest> rooms_;
};

TEST_P(RoomStoreContractTest, ARoomIsFoundByItsIdAndByItsCodeUntilTheCodeExpires) {
  Room room = Created("room-1", "ABCD2345");
  EXPECT_EQ(room.version(), 1);
  absl::StatusOr<Room> loaded = store().Load("room-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->owner(), "alice");
  EXPECT_EQ(loaded->version(), 1);
  absl::StatusOr<std::string> found = store().RoomOfCode("ABCD2345", absl::Now());
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, "room-1");
  EXPECT_TRUE(absl::IsNotFound(
      store().RoomOfCode("ABCD2345", absl::Now() + absl::Hours(2)).status()));
  EXPECT_TRUE(absl::IsNotFound(store().RoomOfCode("ZZZZ2345", absl::Now()).status()));
  EXPECT_TRUE(absl::IsNotFound(store().Load("room-2").status()));
}

TEST_P(RoomStoreContractTest, ATakenCodeIsRefused) {
  Created("room-1", "ABCD2345");
  RoomSettings settings;
  Room other("room-2", "ABCD2345", absl::Now() + absl::Hours(1), settings, {"bob", "Bob"},
             absl::Now());
  EXPECT_TRUE(absl::IsAlreadyExists(store().Create(other)));
  EXPECT_TRUE(absl::IsNotFound(store().Load("room-2").status()));
}

TEST_P(RoomStoreContractTest, OfTwoSavesFromOneVersionOneApplies) {
  Created("room-1", "ABCD2345");
  absl::StatusOr<Room> first = store().Load("room-1");
  absl::StatusOr<Room> second = store().Load("room-1");
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(first->Join({"bob", "Bob"}).ok());
  ASSERT_TRUE(store().Save(*first).ok());
  EXPECT_EQ(first->version(), 2);
  ASSERT_TRUE(second->Join({"carol", "Carol"}).ok());
  EXPECT_TRUE(absl::IsAborted(store().Save(*second)));
  absl::StatusOr<Room> now = store().Load("room-1");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->version(), 2);
  EXPECT_TRUE(now->IsMember("bob"));
  EXPECT_FALSE(now->IsMember("carol"));
  Room missing("room-9", "QQQQ2345", absl::Now(), RoomSettings(), {"x", "X"},
               absl::Now());
  EXPECT_TRUE(absl::IsNotFound(store().Save(missing)));
}

TEST_P(RoomStoreContractTest, AGamesSeatsAreWrittenWithTheRoomAndFinishedWithItsEnd) {
  Room room = Created("room-1", "ABCD2345");
  room.BeginGame("room-1/1", absl::Now());
  ASSERT_TRUE(store().Save(room).ok());
  absl::StatusOr<std::vector<std::string>> playing = store().Playing();
  ASSERT_TRUE(playing.ok());
  EXPECT_EQ(*playing, std::vector<std::string>{"room-1"});
  room.GameCreated("table-1", "host:1");
  RoomWrite write;
  for (int s : {0, 2}) {
    write.seats.push_back({.table_id = "table-1",
                           .seat = s,
                           .player_id = s == 0 ? "alice" : "bot-1",
                           .bot = s == 2,
                           .address = "host:1",
                           .placement_id = "room-1/1",
                           .team = 2,
                           .format = 2,
                           .possible = absl::Now(),
                           .bot_stream = s == 2 ? "stream-1" : ""});
  }
  ASSERT_TRUE(store().Save(room, write).ok());
  EXPECT_EQ(rooms_->SeatsOf("table-1"), 2);
  EXPECT_FALSE(rooms_->Finished("table-1"));
  ASSERT_TRUE(room.GameEnded("table-1", nullptr));
  ASSERT_TRUE(store().Save(room, {.finished_table = "table-1"}).ok());
  EXPECT_TRUE(rooms_->Finished("table-1"));
  playing = store().Playing();
  ASSERT_TRUE(playing.ok());
  EXPECT_TRUE(playing->empty());
  absl::StatusOr<Room> loaded = store().Load("room-1");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->series().games_size(), 1);
}

TEST_P(RoomStoreContractTest, OnlyEmptyIdleRoomsExpire) {
  Room kept = Created("room-1", "ABCD2345");
  Room left = Created("room-2", "EFGH2345");
  ASSERT_TRUE(left.Leave("alice").ok());
  ASSERT_TRUE(store().Save(left).ok());
  absl::StatusOr<int> gone = store().ExpireIdle(absl::Now() - absl::Hours(1));
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_EQ(*gone, 0);  // not idle long enough
  gone = store().ExpireIdle(absl::Now() + absl::Seconds(1));
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, 1);
  EXPECT_TRUE(absl::IsNotFound(store().Load("room-2").status()));
  EXPECT_TRUE(store().Load("room-1").ok());
}

INSTANTIATE_TEST_SUITE_P(Stores, RoomStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
