// The table service's history reads on a read replica: the real table-service
// binary with --read_database_url pointing at a real streaming standby of the test
// server (scripts/pg.sh standby: a base backup that streams from the primary).
// With the standby's replay paused, a game that just finished on the primary is
// missing from the history, which proves the history is read from the standby,
// while the live table (GetTable) already shows it over; once replay resumes, the
// game appears within the replay lag. With the standby gone, the history fails
// UNAVAILABLE and live tables play on. A read URL that is not one stops the
// service at start, saying so.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/replica_standby.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"

namespace trix::table {
namespace {

// Calls with the service token.
void AsBackend(grpc::ClientContext& context) {
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
}

// A player of the table CreateRequest(..., seed) seats.
std::string PlayerOf(uint64_t seed) { return absl::StrCat("player-", seed, "-0"); }

class HistoryReplicaTest : public TableServiceTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(TableServiceTest::SetUp());
    StopService();  // the real binary instead
    absl::StatusOr<std::unique_ptr<Standby>> standby = Standby::Start(*db_);
    ASSERT_TRUE(standby.ok()) << standby.status();
    standby_ = *std::move(standby);
    service_ =
        ServiceProcess::Start({.binary = BuildPath("bin/table-service"),
                               .db_url = db_->url(),
                               .instance_id = "history-replica",
                               .dir = ::testing::TempDir(),
                               .migrations_dir = SourcePath("migrations"),
                               .extra = {"--read_database_url=" + standby_->url()}});
    ASSERT_NE(service_, nullptr);
    ASSERT_TRUE(service_->WaitServing(absl::Seconds(30))) << service_->Log();
    stub_ = v1::TableService::NewStub(service_->NewChannel());
  }
  void TearDown() override {
    service_.reset();
    standby_.reset();
    TableServiceTest::TearDown();
  }
  v1::CreateTableResponse CreateFinishedTable(uint64_t seed) {
    v1::CreateTableResponse table;
    {
      grpc::ClientContext context;
      AsBackend(context);
      grpc::Status s = stub_->CreateTable(
          &context, CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), seed),
          &table);
      EXPECT_TRUE(s.ok()) << s.error_message();
    }
    v1::VoidTableRequest request;
    request.set_table_id(table.table_id());
    request.set_reason("history replica test");
    v1::VoidTableResponse voided;
    grpc::ClientContext context;
    AsBackend(context);
    grpc::Status s = stub_->VoidTable(&context, request, &voided);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return table;
  }
  grpc::Status ListGames(const std::string& player_id,
                         v1::ListPlayerGamesResponse* response) {
    v1::ListPlayerGamesRequest request;
    request.set_player_id(player_id);
    grpc::ClientContext context;
    AsBackend(context);
    return stub_->ListPlayerGames(&context, request, response);
  }
  grpc::Status Record(const std::string& game_id, v1::GameRecord* record) {
    v1::GetGameRecordRequest request;
    request.set_game_id(game_id);
    grpc::ClientContext context;
    AsBackend(context);
    return stub_->GetGameRecord(&context, request, record);
  }
  v1::TableView LiveTable(const std::string& table_id) {
    v1::GetTableRequest request;
    request.set_table_id(table_id);
    v1::TableView view;
    grpc::ClientContext context;
    AsBackend(context);
    grpc::Status s = stub_->GetTable(&context, request, &view);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return view;
  }

  std::unique_ptr<Standby> standby_;
  std::unique_ptr<ServiceProcess> service_;
  std::unique_ptr<v1::TableService::Stub> stub_;
};

TEST_F(HistoryReplicaTest, AFinishedGameIsMissingWhileReplayIsPausedAndAppearsAfterIt) {
  // A first game reaches the standby: the history is served once replicated.
  const v1::CreateTableResponse first = CreateFinishedTable(1);
  const std::string player = PlayerOf(1);
  standby_->Run("SELECT pg_wal_replay_pause()");
  const v1::CreateTableResponse paused = CreateFinishedTable(2);
  const std::string paused_player = PlayerOf(2);

  // Over on the primary (the live read)...
  EXPECT_TRUE(LiveTable(paused.table_id()).voided());
  // ...but not yet on the standby, where the history is read.
  v1::ListPlayerGamesResponse games;
  ASSERT_TRUE(ListGames(paused_player, &games).ok());
  EXPECT_EQ(games.games_size(), 0);
  v1::GameRecord record;
  EXPECT_EQ(Record(paused.table_id(), &record).error_code(), grpc::StatusCode::NOT_FOUND);

  standby_->Run("SELECT pg_wal_replay_resume()");
  const absl::Time resumed = absl::Now();
  while (absl::Now() - resumed < absl::Seconds(10)) {
    games.Clear();
    ASSERT_TRUE(ListGames(paused_player, &games).ok());
    if (games.games_size() > 0) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(games.games_size(), 1) << "not on the standby 10 s after replay resumed";
  std::printf("the finished game was on the standby %s after replay resumed\n",
              absl::FormatDuration(absl::Now() - resumed).c_str());
  EXPECT_EQ(games.games(0).game_id(), paused.table_id());
  EXPECT_TRUE(games.games(0).voided());
  ASSERT_TRUE(Record(paused.table_id(), &record).ok());
  EXPECT_TRUE(record.voided());
  games.Clear();
  ASSERT_TRUE(ListGames(player, &games).ok());
  EXPECT_EQ(games.games_size(), 1);
}

TEST_F(HistoryReplicaTest, WithTheStandbyGoneHistoryIsUnavailableAndTablesPlayOn) {
  const v1::CreateTableResponse before = CreateFinishedTable(3);
  standby_->Stop();
  v1::ListPlayerGamesResponse games;
  grpc::Status listed = ListGames(PlayerOf(3), &games);
  EXPECT_EQ(listed.error_code(), grpc::StatusCode::UNAVAILABLE) << listed.error_message();
  v1::GameRecord record;
  grpc::Status loaded = Record(before.table_id(), &record);
  EXPECT_EQ(loaded.error_code(), grpc::StatusCode::UNAVAILABLE) << loaded.error_message();
  // The primary's work goes on: the service stays SERVING, tables are made and
  // finished.
  EXPECT_EQ(HealthStatus(service_->NewChannel(), ""), 1);
  const v1::CreateTableResponse after = CreateFinishedTable(4);
  EXPECT_TRUE(LiveTable(after.table_id()).voided());
}

TEST(HistoryReplicaFlagTest, ABadReadUrlStopsTheServiceAndSaysWhy) {
  const std::string command = absl::StrCat(
      "timeout 20 ", BuildPath("bin/table-service"),
      " --database_url=postgresql://postgres@127.0.0.1:1/x",
      " --read_database_url='host=standby bogus=1' --listen=127.0.0.1:0 2>&1");
  const CommandRun run = RunCommand(command);
  ASSERT_NE(run.status, -1) << "cannot run " << command;
  const int status = run.status;
  const std::string& output = run.output;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << output;
  EXPECT_NE(output.find("cannot open the history's store (--read_database_url)"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("invalid connection option \\\"bogus\\\""), std::string::npos)
      << output;
}

}  // namespace
}  // namespace trix::table
