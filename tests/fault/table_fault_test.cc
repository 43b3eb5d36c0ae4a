// Fault tests of the table service: the real table-service and ratings-service
// binaries as child processes on a PostgreSQL server of the test's own
// (FaultStackTest), and two games played by trix-table-demo's trix-bot processes
// (one kingdom each, staked, 100 ms a move; with FAULT_FULL=1 four games of four
// kingdoms, 150 ms a move) while a fault strikes mid-game (once a game has more
// than 30 log entries):
//
//   Kill9      the table service is killed with SIGKILL and started again under the
//              same instance id a second later (it resumes its tables once their
//              leases lapse);
//   Sigstop    the table service is stopped (SIGSTOP) for twice its lease, then
//              continued;
//   PgRestart  PostgreSQL is stopped and started again under the running service;
//   Garbage    for ten seconds, connections to the service's port send random
//              bytes, an HTTP/2 preface followed by random frames, or a frame
//              header announcing 16 MiB, then hang up (garbage_bytes.py; the
//              service must shrug them off).
//
// Each scenario ends with the checks: trix-table-demo saw every game end with a
// consistent result (totals sum to zero, places and payouts follow) and every bot
// exit 0; every game is finished in the database; every game's log is dense
// (entries 0..n-1, n = games.log_length); no acknowledged action was lost: each
// seat's client entries in the log are at least the bot's count of accepted
// actions (and at most one more per stream break: an action made durable whose
// answer was lost with the stream); every game's stored log replays through
// trix-replay's engine to the result recorded, and the ratings service (running
// beside the table service throughout) rated each game once and moved its money
// once (the staked game's players have no accounts and so no holds: it is
// recorded unheld and nothing moves); and that the fault was felt: for Kill9 some
// seat reopened its stream, for PgRestart the service saw the database go and
// come back, for Garbage the service still runs. (A paused instance whose lease
// nobody took may renew it before anyone notices: Sigstop has no such check.)
//
// tests/fault/matchmaking_fault_test.cc has the faults of the whole deployment.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/read_file.h"
#include "tests/fault/fault_checks.h"
#include "tests/fault/fault_stack.h"
#include "tests/integration/own_cluster.h"

namespace trix::matchmaking {
namespace {

using fault::WaitFor;
using ::testing::IsEmpty;

// FAULT_FULL=1: longer games, at more tables.
const int kGames = fault::FullRun() ? 4 : 2;

class TableFaultTest : public FaultStackTest {
 protected:
  std::string Database() override { return cluster_.Start(); }
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(FaultStackTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(StartTable());
    ASSERT_NO_FATAL_FAILURE(StartRatings());
    ASSERT_NO_FATAL_FAILURE(StartDemo());
    ASSERT_TRUE(WaitForPlay(30)) << "no game got under way";
  }
  void TearDown() override {
    demo_.reset();
    FaultStackTest::TearDown();
  }

  void StartDemo() {
    auto demo = bots::ChildProcess::Start(
        {.argv = {BuildPath("bin/trix-table-demo"), "--address=" + Address(table_port_),
                  absl::StrCat("--games=", kGames),
                  fault::FullRun() ? "--kingdoms=4" : "--kingdoms=1", "--watch=0",
                  fault::FullRun() ? "--pace=150ms" : "--pace=100ms", "--staked=1",
                  "--modes=complex-partner,classic-solo,complex-solo,classic-partner",
                  "--log_dir=" + DemoDir(), "--timeout=8m", "--wait_for_service=2m"},
         .env = {{"MAMLAKA_TABLE_DEMO_SERVICE_TOKEN", table::kServiceToken}},
         .output_path = dir_ + "/demo.log"});
    ASSERT_TRUE(demo.ok()) << demo.status();
    demo_ = *std::move(demo);
  }
  std::string DemoDir() const { return dir_ + "/demo"; }
  // Until a game has more than `entries` log entries, while trix-table-demo runs.
  bool WaitForPlay(int entries) {
    const std::string sql = absl::StrCat(
        "SELECT count(*) FROM games WHERE finished IS NULL AND log_length > ", entries);
    return WaitFor([&] { return demo_->Poll().has_value() || Number(sql) > 0; }, 60,
                   "a game under way") &&
           Number(sql) > 0;
  }
  // The table service's log lines saying the database is back.
  int DatabaseBack() {
    const std::string log = table_->Log();
    int n = 0;
    for (size_t at = log.find("\"msg\":\"the database is back\"");
         at != std::string::npos;
         at = log.find("\"msg\":\"the database is back\"", at + 1)) {
      ++n;
    }
    return n;
  }
  // trix-table-demo exits 0: every game ended with a consistent result, every bot
  // exited 0.
  testing::AssertionResult DemoSucceeds() {
    return fault::ExitsZero(*demo_, absl::Minutes(9), "trix-table-demo", dir_ + "/demo.log");
  }
  // The seats' clients' result lines, from their logs (table*-seat*.log).
  std::vector<fault::SeatResult> SeatResults() const {
    return fault::SeatResults(DemoDir(), ".log");
  }
  // Each seat's client entries in the log are at least its count of accepted
  // actions and at most one more per stream break; what is wrong, a line each.
  std::vector<std::string> AcknowledgedKept(size_t seats) {
    const std::vector<fault::SeatResult> results = SeatResults();
    if (results.size() != seats)
      return {absl::StrCat("expected ", seats, " seat results, found ", results.size())};
    return fault::AcknowledgedKept(url_, results);
  }
  // The checks every scenario ends with.
  void EndChecks() {
    EXPECT_TRUE(DemoSucceeds())
        << "every game ended with a consistent result, every bot exited 0";
    EXPECT_EQ(Number("SELECT count(*) FROM games WHERE finished IS NULL"), 0)
        << "no game left unfinished";
    EXPECT_EQ(Number("SELECT count(*) FROM games WHERE finished IS NOT NULL"), kGames)
        << "all games finished";
    EXPECT_EQ(Number("SELECT count(*) FROM games g LEFT JOIN (SELECT game_id, count(*) "
                     "AS n, max(idx) + 1 AS m FROM game_log GROUP BY game_id) l ON "
                     "l.game_id = g.id WHERE coalesce(l.n, 0) <> g.log_length OR "
                     "coalesce(l.m, 0) <> g.log_length"),
              0)
        << "every game's log is dense";
    EXPECT_THAT(AcknowledgedKept(kGames * 4), IsEmpty())
        << "every acknowledged action is in the log";
    EXPECT_TRUE(fault::GamesReplay(url_, dir_ + "/replay", kGames))
        << "every game's log replays to its recorded result";
    EXPECT_TRUE(fault::WaitRated(url_, 60)) << "every game was rated once";
    EXPECT_THAT(fault::RatedOnce(url_), IsEmpty()) << "every game was rated once";
    EXPECT_THAT(fault::LedgerOnce(url_), IsEmpty()) << "every game's money moved once";
  }

  table::OwnCluster cluster_{"tablefault"};
  std::unique_ptr<bots::ChildProcess> demo_;
};

TEST_F(TableFaultTest, Kill9) {
  table_->Kill();
  absl::SleepFor(absl::Seconds(1));
  ASSERT_NO_FATAL_FAILURE(StartTable());
  EndChecks();
  int64_t resubscribes = 0;
  for (const fault::SeatResult& r : SeatResults()) resubscribes += r.resubscribes;
  EXPECT_GT(resubscribes, 0) << "the seats felt the fault (streams reopened)";
}

TEST_F(TableFaultTest, Sigstop) {
  table_->Pause();
  absl::SleepFor(absl::Seconds(6));  // twice the lease
  table_->Resume();
  EndChecks();
}

TEST_F(TableFaultTest, PgRestart) {
  const int back_before = DatabaseBack();
  cluster_.Stop();
  absl::SleepFor(absl::Seconds(2));
  ASSERT_FALSE(cluster_.Start().empty()) << "PostgreSQL started again";
  EndChecks();
  // Its streams may well stay open through a short outage (appends wait for the
  // database), so this is the sign that the restart struck mid-game.
  EXPECT_GT(DatabaseBack(), back_before)
      << "the service saw the database go and come back";
}

TEST_F(TableFaultTest, Garbage) {
  EXPECT_EQ(fault::RunToEnd(
                {.argv = {"/usr/bin/python3", SourcePath("tests/fault/garbage_bytes.py"),
                          "10", absl::StrCat(table_port_)},
                 .output_path = dir_ + "/garbage.out"},
                absl::Minutes(1)),
            0)
      << ReadFile(dir_ + "/garbage.out");
  EndChecks();
  EXPECT_TRUE(table_->Running()) << "the table service is still running";
}

}  // namespace
}  // namespace trix::matchmaking
