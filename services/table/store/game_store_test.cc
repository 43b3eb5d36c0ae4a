// GameStore: options, games, the log, game ends. Group commit is tested in
// log_writer_test.cc; leases, listings and outages in game_store_leases_test.cc.
#include "services/table/store/game_store.h"

#include <pqxx/result>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/pg/connection_pool.h"
#include "services/table/store/testing/sample_games.h"
#include "services/table/store/testing/store_test.h"
#include "services/pg/testing/test_database.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

TEST(GameStoreOpenTest, RejectsBadOptions) {
  EXPECT_EQ(GameStore::Open({.url = "", .instance_id = "t"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      GameStore::Open({.url = "postgresql://h/db", .instance_id = ""}).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      GameStore::Open({.url = "postgresql://h/db", .instance_id = "t", .connections = 0})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  const absl::Status bad_url =
      GameStore::Open({.url = "postgresql://h/db?nosuchoption=1", .instance_id = "t"})
          .status();
  EXPECT_EQ(bad_url.code(), absl::StatusCode::kInvalidArgument) << bad_url;
  EXPECT_NE(bad_url.message().find("nosuchoption"), absl::string_view::npos) << bad_url;
}

TEST(GameStoreOpenTest, OpensWithoutADatabaseAndReportsUnavailable) {
  // Port 1 refuses connections: the store opens, and its calls say UNAVAILABLE.
  absl::StatusOr<std::unique_ptr<GameStore>> store = GameStore::Open(
      {.url = "postgresql://postgres@127.0.0.1:1/none", .instance_id = "t"});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->CheckReady().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->LoadGame("g").status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->AppendSync(SampleAppend("g", 0, 1)).code(),
            absl::StatusCode::kUnavailable);
}

class GameStoreTest : public StoreTest {};

TEST_F(GameStoreTest, CreateAndLoadRoundTrip) {
  const table::NewGame game = SampleGame("g1", "create-1");
  const absl::Time before = absl::Now();
  ASSERT_OK(store_->CreateGame(game));
  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->game.game_id, "g1");
  EXPECT_EQ(stored->game.request_id, "create-1");
  EXPECT_EQ(stored->game.mode, "complex-partner");
  EXPECT_EQ(stored->game.config, game.config);
  EXPECT_EQ(stored->game.config.size(), std::string("config of g1").size() + 3);
  for (int seat = 0; seat < 4; ++seat) {
    SCOPED_TRACE(seat);
    const table::SeatRecord& got = stored->game.seats[seat];
    EXPECT_EQ(got.player_id, "p" + std::to_string(seat));
    EXPECT_EQ(got.display_name, game.seats[seat].display_name);
    EXPECT_EQ(got.bot, seat == 3);
    EXPECT_EQ(got.stake, 100 * (seat + 1));
    EXPECT_EQ(got.token_hash, "hash-g1-" + std::to_string(seat));
  }
  EXPECT_GE(stored->created, before - absl::Seconds(5));
  EXPECT_LE(stored->created, absl::Now() + absl::Seconds(5));
  EXPECT_TRUE(stored->entries.empty());
  EXPECT_FALSE(stored->deadline.has_value());
  EXPECT_FALSE(stored->finished);
  EXPECT_EQ(stored->result, "");
}

TEST_F(GameStoreTest, AGameIsCreatedWithItsFirstEntriesAndItsClock) {
  table::NewGame game = SampleGame("g1", "create-1");
  game.entries = SampleAppend("g1", 0, 2).entries;
  game.deadline = absl::FromUnixMicros(1'700'000'000'123'456);
  ASSERT_OK(store_->CreateGame(game));
  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->entries.size(), 2u);
  EXPECT_EQ(stored->entries[1].payload, game.entries[1].payload);
  EXPECT_EQ(stored->entries[1].time, game.entries[1].time);
  EXPECT_EQ(stored->deadline, game.deadline);
  // The log continues at index 2: index 1 is taken.
  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 1, 1)).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 2, 1)));
  EXPECT_EQ(store_->LoadGame("g1")->entries.size(), 3u);

  table::NewGame gap = SampleGame("g2");
  gap.entries = SampleAppend("g2", 1, 1).entries;  // a log starts at 0
  EXPECT_EQ(store_->CreateGame(gap).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->LoadGame("g2").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(GameStoreTest, LoadingAnUnknownGameIsNotFound) {
  EXPECT_EQ(store_->LoadGame("nope").status().code(), absl::StatusCode::kNotFound);
}

// A batch read gives each game in its place, with its own seats and entries, and
// an unknown one NOT_FOUND on its own.
TEST_F(GameStoreTest, GamesAreLoadedInABatchEachInItsPlace) {
  for (int g = 1; g <= 3; ++g) {
    table::NewGame game = SampleGame("g" + std::to_string(g));
    game.entries = SampleAppend(game.game_id, 0, g).entries;
    ASSERT_OK(store_->CreateGame(game));
  }
  absl::StatusOr<std::vector<absl::StatusOr<table::StoredGame>>> loaded =
      store_->LoadGames({"g3", "nope", "g1", "g2"});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 4u);
  EXPECT_EQ((*loaded)[1].status().code(), absl::StatusCode::kNotFound);
  for (int i : {0, 2, 3}) {
    ASSERT_TRUE((*loaded)[i].ok()) << (*loaded)[i].status();
    const table::StoredGame& game = *(*loaded)[i];
    const int g = i == 0 ? 3 : i - 1;
    EXPECT_EQ(game.game.game_id, "g" + std::to_string(g));
    EXPECT_EQ(game.entries.size(), static_cast<size_t>(g));
    EXPECT_EQ(game.game.seats[2].token_hash, "hash-" + game.game.game_id + "-2");
    const absl::StatusOr<table::StoredGame> alone = store_->LoadGame(game.game.game_id);
    ASSERT_TRUE(alone.ok());
    ASSERT_EQ(alone->entries.size(), game.entries.size());
    for (size_t e = 0; e < game.entries.size(); ++e) {
      EXPECT_EQ(alone->entries[e].payload, game.entries[e].payload);
    }
  }
  EXPECT_TRUE(store_->LoadGames({})->empty());
}

TEST_F(GameStoreTest, ARepeatedRequestIdReturnsTheExistingGame) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1", "req-7")));
  std::string existing = "stale";
  const absl::Status status = store_->CreateGame(SampleGame("g2", "req-7"), &existing);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_EQ(existing, "g1");
  EXPECT_EQ(store_->LoadGame("g2").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Sql("SELECT count(*) FROM game_seats")[0][0].as<int>(), 4);
}

TEST_F(GameStoreTest, ARepeatedGameIdIsAlreadyExistsWithoutAnExistingId) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1", "req-1")));
  std::string existing = "stale";
  const absl::Status status = store_->CreateGame(SampleGame("g1", "req-2"), &existing);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_EQ(existing, "");
}

TEST_F(GameStoreTest, GamesWithoutRequestIdsDoNotClash) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->CreateGame(SampleGame("g2")));
  EXPECT_EQ(Sql("SELECT count(*) FROM games WHERE request_id IS NULL")[0][0].as<int>(),
            2);
  EXPECT_EQ(store_->CreateGame(SampleGame("")).code(),
            absl::StatusCode::kInvalidArgument);
}

// CreateGame from one thread per game, all at once; each call's answer and
// existing game id, in order.
std::vector<std::pair<absl::Status, std::string>> CreateAtOnce(
    GameStore& store, const std::vector<table::NewGame>& games) {
  std::vector<std::pair<absl::Status, std::string>> answers(games.size());
  absl::Notification go;
  std::vector<std::thread> callers;
  for (size_t i = 0; i < games.size(); ++i) {
    callers.emplace_back([&, i] {
      go.WaitForNotification();
      answers[i].first = store.CreateGame(games[i], &answers[i].second);
    });
  }
  go.Notify();
  for (std::thread& t : callers) t.join();
  return answers;
}

TEST_F(GameStoreTest, ConcurrentCreationsShareStatementsAndKeepTheirOwnAnswers) {
  // The first caller writes alone; the others queue behind it and share the next
  // statements. Four of them send one request id: one game, three replays.
  constexpr int kCallers = 32;
  std::vector<table::NewGame> games;
  for (int i = 0; i < kCallers; ++i) {
    const std::string id = "g" + std::to_string(i);
    games.push_back(SampleGame(id, i < 4 ? "same-request" : "req-" + id));
  }
  const auto answers = CreateAtOnce(*store_, games);

  std::string winner;
  for (int i = 0; i < 4; ++i) {
    if (!answers[i].first.ok()) continue;
    EXPECT_EQ(winner, "") << "two games for one request id";
    winner = games[i].game_id;
  }
  ASSERT_NE(winner, "");
  for (int i = 0; i < 4; ++i) {
    if (games[i].game_id == winner) continue;
    EXPECT_EQ(answers[i].first.code(), absl::StatusCode::kAlreadyExists) << answers[i].first;
    EXPECT_EQ(answers[i].second, winner);
  }
  for (int i = 4; i < kCallers; ++i) {
    ASSERT_OK(answers[i].first);
    absl::StatusOr<table::StoredGame> stored = store_->LoadGame(games[i].game_id);
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->game.request_id, games[i].request_id);
    EXPECT_EQ(stored->game.seats[2].token_hash, games[i].seats[2].token_hash);
  }
  EXPECT_EQ(Sql("SELECT count(*) FROM game_seats")[0][0].as<int>(), 4 * (kCallers - 3));
  // Games written by one statement share its transaction id.
  EXPECT_LT(Sql("SELECT count(DISTINCT xmin::text) FROM games")[0][0].as<int>(),
            kCallers - 3);
}

TEST_F(GameStoreTest, AGameTheDatabaseRefusesFailsAloneInItsBatch) {
  std::vector<table::NewGame> games;
  for (int i = 0; i < 8; ++i) games.push_back(SampleGame("g" + std::to_string(i)));
  games[5].seats[1].display_name = std::string("bad\0name", 8);  // text has no NUL
  const auto answers = CreateAtOnce(*store_, games);
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    if (i == 5) {
      EXPECT_FALSE(answers[i].first.ok());
      EXPECT_NE(answers[i].first.code(), absl::StatusCode::kUnavailable) << answers[i].first;
      EXPECT_EQ(store_->LoadGame("g5").status().code(), absl::StatusCode::kNotFound);
      continue;
    }
    ASSERT_OK(answers[i].first);
    EXPECT_TRUE(store_->LoadGame(games[i].game_id).ok());
  }
  EXPECT_EQ(Sql("SELECT count(*) FROM game_seats")[0][0].as<int>(), 4 * 7);
}

TEST_F(GameStoreTest, AppendsComeBackInOrderWithEveryField) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 1, 3)));
  table::AppendRequest server = SampleAppend("g1", 4, 1);
  server.entries[0].seat = -1;
  server.entries[0].request_id = "";
  ASSERT_OK(store_->AppendSync(server));

  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->entries.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const table::LogEntry want = SampleEntry("g1", i);
    const table::LogEntry& got = stored->entries[i];
    EXPECT_EQ(got.index, i);
    EXPECT_EQ(got.seat, want.seat);
    EXPECT_EQ(got.request_id, want.request_id);
    EXPECT_EQ(got.payload, want.payload);
    EXPECT_EQ(got.response, want.response);
    EXPECT_EQ(got.time, want.time);
  }
  EXPECT_EQ(stored->entries[4].seat, -1);
  EXPECT_EQ(stored->entries[4].request_id, "");
  ASSERT_TRUE(stored->deadline.has_value());
  EXPECT_EQ(*stored->deadline, SampleEntry("g1", 4).time + absl::Minutes(1));

  // No clock after an append: the deadline is cleared.
  table::AppendRequest no_clock = SampleAppend("g1", 5, 1);
  no_clock.deadline.reset();
  ASSERT_OK(store_->AppendSync(no_clock));
  stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_FALSE(stored->deadline.has_value());
  EXPECT_EQ(stored->entries.size(), 6u);
}

TEST_F(GameStoreTest, AppendsThatDoNotContinueTheLogAreRefused) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 2)));

  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 1, 1)).code(),
            absl::StatusCode::kAlreadyExists);
  // Past the log's end: entries the caller took as durable are not there.
  const absl::Status shorter = store_->AppendSync(SampleAppend("g1", 3, 1));
  EXPECT_EQ(shorter.code(), absl::StatusCode::kDataLoss) << shorter;
  EXPECT_THAT(shorter.message(), HasSubstr("log is shorter than acknowledged"));
  table::AppendRequest skipping = SampleAppend("g1", 2, 2);
  skipping.entries[1].index = 5;
  EXPECT_EQ(store_->AppendSync(skipping).code(), absl::StatusCode::kInvalidArgument);
  table::AppendRequest bad_seat = SampleAppend("g1", 2, 1);
  bad_seat.entries[0].seat = 4;
  EXPECT_EQ(store_->AppendSync(bad_seat).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->AppendSync(SampleAppend("nope", 0, 1)).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->AppendSync(SampleAppend("", 0, 1)).code(),
            absl::StatusCode::kInvalidArgument);

  // None of them wrote anything, and the log still continues at 2.
  EXPECT_EQ(Sql("SELECT count(*) FROM game_log")[0][0].as<int>(), 2);
  EXPECT_EQ(Sql("SELECT log_length FROM games")[0][0].as<int>(), 2);
  EXPECT_OK(store_->AppendSync(SampleAppend("g1", 2, 1)));
}

TEST_F(GameStoreTest, ARepeatedClientRequestIdIsAlreadyExists) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  table::AppendRequest retry = SampleAppend("g1", 1, 1);
  retry.entries[0].seat = 0;
  retry.entries[0].request_id = "g1-r0";  // seat 0's request of entry 0
  const absl::Status status = store_->AppendSync(retry);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  // The same request id from another seat is a different request.
  retry.entries[0].seat = 1;
  EXPECT_OK(store_->AppendSync(retry));
}

TEST_F(GameStoreTest, AGameEndWritesResultSeatsAndOutboxWithTheLastEntries) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 3)));
  table::AppendRequest last = SampleAppend("g1", 3, 2);
  last.deadline.reset();
  last.end = SampleEnd("g1");
  ASSERT_OK(store_->AppendSync(last));

  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(stored->finished);
  EXPECT_EQ(stored->entries.size(), 5u);
  EXPECT_FALSE(stored->deadline.has_value());
  // jsonb keeps the value, not the spelling: keys sorted by length, then bytes.
  EXPECT_EQ(stored->result, R"({"game": "g1", "totals": [10, 20, 30, 40]})");
  const pqxx::result seats =
      Sql("SELECT seat, total, place FROM game_seats ORDER BY seat");
  ASSERT_EQ(seats.size(), 4u);
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_EQ(seats[seat][1].as<int>(), 10 * (seat + 1));
    EXPECT_EQ(seats[seat][2].as<int>(), 4 - seat);
  }
  const pqxx::result outbox =
      Sql("SELECT game_id, payload->>'mode', consumed_at IS NULL, "
          "created = (SELECT finished FROM games) FROM game_results");
  ASSERT_EQ(outbox.size(), 1u);
  EXPECT_EQ(outbox[0][0].as<std::string>(), "g1");
  EXPECT_EQ(outbox[0][1].as<std::string>(), "complex-partner");
  EXPECT_TRUE(outbox[0][2].as<bool>());
  EXPECT_TRUE(outbox[0][3].as<bool>());  // one transaction: one now()

  const absl::Status after = store_->AppendSync(SampleAppend("g1", 5, 1));
  EXPECT_EQ(after.code(), absl::StatusCode::kFailedPrecondition) << after;
  EXPECT_NE(after.message().find("has ended"), absl::string_view::npos) << after;
}

TEST_F(GameStoreTest, ABadGameEndWritesNothingOfItsAppend) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  table::AppendRequest last = SampleAppend("g1", 1, 2);
  last.end = SampleEnd("g1");
  last.end->outbox_payload = "{not json";
  const absl::Status status = store_->AppendSync(last);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;

  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_FALSE(stored->finished);
  EXPECT_EQ(stored->entries.size(), 1u);
  EXPECT_EQ(Sql("SELECT count(*) FROM game_results")[0][0].as<int>(), 0);
  EXPECT_EQ(
      Sql("SELECT count(*) FROM game_seats WHERE total IS NOT NULL")[0][0].as<int>(), 0);
}

TEST_F(GameStoreTest, CheckReadyAfterMigrate) {
  ASSERT_OK(store_->Migrate(pg::TestDatabase::MigrationsDir()));
  EXPECT_OK(store_->CheckReady());
}

}  // namespace
}  // namespace trix::table
