// The ratings service's history reads on a read replica: the real ratings-service
// binary with --read_database_url pointing at a real streaming standby of the test
// server (scripts/pg.sh standby). With the standby's replay paused, money moved
// and a game rated on the primary are missing from the statement, the ladder and
// the rating history, which proves those are read from the standby, while the
// balance, the current ratings and a hold's balance check already see them (the
// primary); once replay resumes, they appear within the replay lag. With the
// standby gone, the history reads fail UNAVAILABLE and the ledger works on. A read
// URL that is not one stops the service at start, saying so.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/ratings/testing/ratings_db_test.h"
#include "tests/integration/replica_standby.h"
#include "tests/ratings/ratings_process.h"

namespace trix::ratings {
namespace {

// Whether `done` holds within 10 s (polled every 20 ms).
bool Within10s(const std::function<bool()>& done) {
  const absl::Time start = absl::Now();
  while (absl::Now() - start < absl::Seconds(10)) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return done();
}

class RatingsHistoryReplicaTest : public RatingsDbTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RatingsDbTest::SetUp());
    absl::StatusOr<std::unique_ptr<Standby>> standby = Standby::Start(*db_);
    ASSERT_TRUE(standby.ok()) << standby.status();
    standby_ = *std::move(standby);
    log_ = absl::StrCat(::testing::TempDir(), "ratings-replica-", db_->name(), ".log");
    std::filesystem::remove(log_);
    absl::StatusOr<std::unique_ptr<RatingsProcess>> p = RatingsProcess::Start(
        db_->url(), log_, {"--read_database_url=" + standby_->url(), "--poll_interval=50ms"});
    ASSERT_TRUE(p.ok()) << p.status();
    service_ = *std::move(p);
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "--- ratings-service log\n" << ReadFile(log_);
    service_.reset();
    standby_.reset();
    RatingsDbTest::TearDown();
  }

  grpc::Status CreditOver(const std::string& request_id, const std::string& player,
                          int64_t amount) {
    return service_->Credit(request_id, player, amount);
  }
  grpc::Status Hold(const std::string& request_id, const std::string& player,
                    int64_t amount) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::HoldStakeRequest request;
    request.set_request_id(request_id);
    request.set_player_id(player);
    request.set_amount(amount);
    v1::Hold hold;
    return service_->stub().HoldStake(&context, request, &hold);
  }
  grpc::Status Balance(const std::string& player, v1::Balance* balance) {
    return service_->GetBalance(player, balance);
  }
  grpc::Status Statement(const std::string& player, v1::GetStatementResponse* statement) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetStatementRequest request;
    request.set_player_id(player);
    return service_->stub().GetStatement(&context, request, statement);
  }
  // The history reads: -1 if the read failed (polled while the standby catches up,
  // so a failure is not one of the test's own).
  int StatementLines(const std::string& player) {
    v1::GetStatementResponse statement;
    const grpc::Status s = Statement(player, &statement);
    return s.ok() ? statement.lines_size() : -1;
  }
  grpc::Status Ladder(v1::GetLeaderboardResponse* ladder) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetLeaderboardRequest request;
    request.mutable_mode()->set_team(v1::TEAM_SOLO);
    request.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
    request.set_include_provisional(true);
    return service_->stub().GetLeaderboard(&context, request, ladder);
  }
  int LadderEntries() {
    v1::GetLeaderboardResponse ladder;
    const grpc::Status s = Ladder(&ladder);
    return s.ok() ? ladder.entries_size() : -1;
  }
  int HistoryChanges(const std::string& player) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetRatingHistoryRequest request;
    request.set_player_id(player);
    request.mutable_mode()->set_team(v1::TEAM_SOLO);
    request.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
    v1::GetRatingHistoryResponse history;
    const grpc::Status s = service_->stub().GetRatingHistory(&context, request, &history);
    return s.ok() ? history.changes_size() : -1;
  }
  // Games rated, by the primary's current ratings (GetPlayerRatings).
  int GamesOf(const std::string& player) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetPlayerRatingsRequest request;
    request.set_player_id(player);
    v1::GetPlayerRatingsResponse ratings;
    const grpc::Status s = service_->stub().GetPlayerRatings(&context, request, &ratings);
    EXPECT_TRUE(s.ok()) << s.error_message();
    int games = 0;
    for (const v1::Rating& r : ratings.ratings()) games += r.games();
    return games;
  }

  std::unique_ptr<Standby> standby_;
  std::string log_;
  std::unique_ptr<RatingsProcess> service_;
};

TEST_F(RatingsHistoryReplicaTest, WhileReplayIsPausedHistoryLagsAndEveryWriteUsesThePrimary) {
  ASSERT_TRUE(CreditOver("c1", "alice", 100).ok());
  ASSERT_TRUE(Within10s([&] { return StatementLines("alice") == 1; }));
  standby_->Run("SELECT pg_wal_replay_pause()");

  // Money in, on the primary: the balance sees it, and so does a hold's check,
  // which could not take 150 from the 100 the standby knows.
  ASSERT_TRUE(CreditOver("c2", "alice", 100).ok());
  v1::Balance balance;
  ASSERT_TRUE(Balance("alice", &balance).ok());
  EXPECT_EQ(balance.balance(), 200);
  grpc::Status held = Hold("h1", "alice", 150);
  EXPECT_TRUE(held.ok()) << held.error_message();
  ASSERT_TRUE(Balance("alice", &balance).ok());
  EXPECT_EQ(balance.available(), 50);
  // A game rated on the primary: its current ratings count it.
  Write({OutboxGame::Solo("g1", {"alice", "bob", "carol", "dave"}, {1, 2, 3, 4})});
  ASSERT_TRUE(Within10s([&] { return GamesOf("alice") == 1; }));

  // ...but the standby, where the history is read, has none of it yet.
  EXPECT_EQ(StatementLines("alice"), 1);
  EXPECT_EQ(LadderEntries(), 0);
  EXPECT_EQ(HistoryChanges("alice"), 0);

  standby_->Run("SELECT pg_wal_replay_resume()");
  const absl::Time resumed = absl::Now();
  ASSERT_TRUE(Within10s([&] { return LadderEntries() == 4; }))
      << "not on the standby 10 s after replay resumed";
  std::printf("the rated game was on the standby %s after replay resumed\n",
              absl::FormatDuration(absl::Now() - resumed).c_str());
  EXPECT_EQ(StatementLines("alice"), 2);
  EXPECT_EQ(HistoryChanges("alice"), 1);
  CheckLedger();
}

TEST_F(RatingsHistoryReplicaTest, WithTheStandbyGoneHistoryIsUnavailableAndTheLedgerWorksOn) {
  ASSERT_TRUE(CreditOver("c1", "erin", 100).ok());
  standby_->Stop();
  v1::GetStatementResponse statement;
  const grpc::Status read = Statement("erin", &statement);
  EXPECT_EQ(read.error_code(), grpc::StatusCode::UNAVAILABLE) << read.error_message();
  v1::GetLeaderboardResponse ladder;
  const grpc::Status ranked = Ladder(&ladder);
  EXPECT_EQ(ranked.error_code(), grpc::StatusCode::UNAVAILABLE) << ranked.error_message();
  // The primary's work goes on.
  EXPECT_TRUE(CreditOver("c2", "erin", 50).ok());
  EXPECT_TRUE(Hold("h1", "erin", 120).ok());
  v1::Balance balance;
  ASSERT_TRUE(Balance("erin", &balance).ok());
  EXPECT_EQ(balance.balance(), 150);
  EXPECT_EQ(balance.held(), 120);
}

TEST(RatingsHistoryReplicaFlagTest, ABadReadUrlStopsTheServiceAndSaysWhy) {
  const std::string command =
      absl::StrCat("timeout 20 ", BuildPath("bin/ratings-service"),
                   " --database_url=postgresql://postgres@127.0.0.1:1/x",
                   " --read_database_url='host=standby bogus=1' --listen=127.0.0.1:0",
                   " --metrics_port=-1 2>&1");
  const CommandRun run = RunCommand(command);
  ASSERT_NE(run.status, -1) << "cannot run " << command;
  const int status = run.status;
  const std::string& output = run.output;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status << output;
  EXPECT_NE(output.find("--read_database_url: bad database url"), std::string::npos)
      << output;
  EXPECT_NE(output.find("invalid connection option \\\"bogus\\\""), std::string::npos)
      << output;
}

}  // namespace
}  // namespace trix::ratings
