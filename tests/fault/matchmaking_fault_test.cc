// Fault tests of the whole deployment (those of a replicated PostgreSQL below): the real
// table-service, ratings-service and matchmaking-service binaries as child
// processes on a fresh database of the test's own (FaultStackTest), and real
// clients as child processes. A fault strikes mid-flow:
//
//   ClientDrop   four people's clients (resuming_client.py, staked) whose
//                connections drop: each closes its FindTable stream once queued
//                and reopens it with the same request id; the matchmaking service
//                runs with the failpoint matcher.after_assign, so it dies the
//                moment the table's assignments are committed, before anyone is
//                told, and is started again on its port (the clients retry
//                FindTable and get the assignment that was committed); then each
//                drops its table stream twice mid-game, asks matchmaking again
//                (FindTable with the same request id, then GetAssignment: the same
//                assignment) and resumes with after_seq (exactly the missed
//                events, no snapshot, nothing twice);
//   BadRequests  while trix-demo's games are played (seven players queue through
//                matchmaking: a party of two, four at a staked table, one alone;
//                bot accounts' trix-bot processes fill the empty seats),
//                bad_requests.py sends malformed, oversized, unauthenticated and
//                undecodable calls at every RPC of the three services for 15 s
//                from three threads: each must be answered with its status
//                (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAUTHENTICATED, ...) and a
//                message, and change nothing (its one table, seats flood-0..3, is
//                played out by the autopilot after); garbage_bytes.py sends random
//                bytes to the three ports meanwhile;
//   PgDown       PostgreSQL (a server of the test's own) is stopped with pg_ctl
//                -m immediate (a crash) while tickets wait for bots and a staked
//                game is being played, kept down for 5 s (past the table lease,
//                3 s), and started again: each service's gRPC health says
//                NOT_SERVING while it is away and SERVING again by itself once it
//                is back, and a ticket waiting at the outage is seated after it;
//   MmKill9      (trix-demo's games, as in BadRequests) the matchmaking service is
//                killed with SIGKILL while tickets wait for bots to fill their
//                tables (the staked table of four people is placed by then), and
//                started again on the same port a second later (the players'
//                FindTable calls retry with the same request ids; the bot
//                accounts' ServeBot streams reconnect);
//   RatingsKill9 the ratings service is killed with SIGKILL as soon as the first
//                game has finished, while the others finish, and started again
//                once another game has finished, three seconds at the least (it
//                must rate and settle each game once);
//   BotKill9     every bot account's trix-bot process is killed with SIGKILL
//                mid-game and started again by its supervisor
//                (fault-supervised-bot, supervised_bot_main.cc) a second later: it
//                takes its live assignments back and finishes its seats (the
//                table's autopilot covers the gap).
//
// Each scenario ends with the checks: every client exits 0 (seated, its game ended
// and nothing went wrong); the games were assigned and all of them finished; every
// ticket matched has its seat in mm_assignments, no ticket is left waiting, and
// every game's four seats are the ones matchmaking assigned; every game's stored
// log replays through trix-replay's engine to its recorded result, each game was
// rated once and its money moved once, every stake held until its game settled
// it; and that the fault was felt (the failpoint struck, every client's accepted
// actions are in its seat's log and every drop happened; nothing of the flood's
// players is in the database and the three services still run; a ticket waiting
// when matchmaking died was seated by the restarted one; the ratings service
// served again and a game finished while it was down; the bots were restarted).
//
// On a replicated PostgreSQL of the test's own (DatabaseFailoverTest; PG_HA=sync, the
// default, or async: a three-node Patroni cluster of scripts/pg-ha.sh), with
// table-load playing 40 more tables beside trix-demo's games, the primary is struck
// while a staked game is played and tickets wait:
//
//   PgKill9      its postmaster is killed with SIGKILL: Patroni promotes a standby,
//                and every service follows it through its multi-host connection
//                string; with PG_HA=async the standby may lack the last commits: the
//                table service must find each table whose log is now shorter than
//                it acknowledged, rebuild it and play on;
//   PgFreeze     the primary node (Patroni and PostgreSQL) is stopped with SIGSTOP
//                for 25 s (PG_FREEZE_SECONDS; past Patroni's 20 s TTL: a standby is
//                promoted meanwhile), then continued: it must come back as a standby;
//   PgSwitchover an operator's planned switchover (patronictl switchover).
//
// Each ends with the checks above and: no acknowledged action missing from the log
// (each person's client's count of accepted actions against its seat's entries,
// and table-load's check at its 40 tables; with PG_HA=async, each one missing must
// be at a table the table service logged as rewound and rebuilt, and how many were
// lost is printed), no service restarted and each saying SERVING at the end, the
// cluster with a new primary and its three members again; and it prints the time
// from the fault to each table's first action committed after it (p50, p99, max;
// from PostgreSQL's commit timestamps) and the calls the clients saw refused
// meanwhile, by code. CTest runs them as fault_database_failover_test (sync, the
// three) and fault_database_async_failover_test (async, PgKill9).
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/read_file.h"
#include "tests/fault/fault_checks.h"
#include "tests/fault/fault_stack.h"
#include "tests/fault/pg_ha_cluster.h"
#include "tests/integration/own_cluster.h"
#include "tests/integration/service_fixture.h"

namespace trix::matchmaking {
namespace {

using fault::WaitFor;
using ::testing::IsEmpty;

class MatchmakingFaultTest : public FaultStackTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(FaultStackTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(StartTable());
    ASSERT_NO_FATAL_FAILURE(StartRatings("", kNoPeerLimits));
  }
  void TearDown() override {
    clients_.clear();
    demo_.reset();
    FaultStackTest::TearDown();
  }
  // The three services by name, for a HealthWatch.
  std::map<std::string, std::string> ServiceAddresses() const {
    return {{"table", Address(table_port_)},
            {"matchmaking", Address(matchmaking_port_)},
            {"ratings", Address(ratings_port_)}};
  }
  // Bots fill seats after 8 s: longer than a bot account's reconnect backoff (5 s
  // at most), so that after a restart every account is back before seats are given
  // out.
  void StartMatchmaking(const std::string& failpoint = "") {
    std::vector<std::string> flags = {"--stake_levels=100", "--bot_fill_wait=8s"};
    flags.insert(flags.end(), kNoPeerLimits.begin(), kNoPeerLimits.end());
    FaultStackTest::StartMatchmaking(failpoint, flags);
  }

  // Person `i`'s client (player drop-i), which drops its table stream at seat
  // events 15 + 7i and 60 + 9i; its output in client-i.log.
  void StartClient(int i) {
    auto client = bots::ChildProcess::Start(
        {.argv = {"/usr/bin/python3", "-u", SourcePath("tests/fault/resuming_client.py"),
                  "--matchmaking=" + Address(matchmaking_port_),
                  "--ratings=" + Address(ratings_port_),
                  absl::StrCat("--player=drop-", i),
                  std::string("--token=") + table::kServiceToken, "--stake=100",
                  "--credit=1000",
                  absl::StrCat("--drop_at=", 15 + 7 * i, ",", 60 + 9 * i)},
         .env = {{"PYTHONPATH", BuildPath("python") + ":" + SourcePath("bots/python")}},
         .output_path = ClientLog(i)});
    ASSERT_TRUE(client.ok()) << client.status();
    clients_.push_back(*std::move(client));
  }
  std::string ClientLog(int i) const { return absl::StrCat(dir_, "/client-", i, ".log"); }
  // The lines of client i's output that are JSON objects holding `key`.
  std::vector<nlohmann::json> ClientLines(int i, const std::string& key) const {
    std::ifstream in(ClientLog(i));
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains(key)) lines.push_back(j);
    }
    return lines;
  }
  int Queued(int i) const {
    int n = 0;
    for (const nlohmann::json& j : ClientLines(i, "event")) n += j["event"] == "queued";
    return n;
  }
  // Four clients, started one by one: the next once the last one's ticket was
  // queued again after its drop. The fourth fills the table, so it may be seated
  // (and even play to the end) without queueing again: nobody waits for it.
  void StartClients() {
    for (int i = 1; i <= 4; ++i) {
      ASSERT_NO_FATAL_FAILURE(StartClient(i));
      if (i == 4) break;
      bots::ChildProcess& client = *clients_.back();
      ASSERT_TRUE(WaitFor([&] { return Queued(i) >= 2 || client.Poll().has_value(); }, 10,
                          absl::StrCat("client ", i, " is queued again after its drop")));
      ASSERT_FALSE(client.Poll().has_value())
          << "client " << i << " exited before its ticket was queued again";
    }
  }
  // Waits for every client to end; true when each exits 0. The others are stopped
  // when one fails: they could never fill their table without it.
  bool ClientsSucceed(absl::Duration timeout) {
    for (const absl::Time until = absl::Now() + timeout; absl::Now() < until;) {
      bool running = false;
      for (auto& client : clients_) {
        std::optional<int> status = client->Poll();
        if (status.has_value() && *status != 0) return false;
        running = running || !status.has_value();
      }
      if (!running) return true;
      absl::SleepFor(absl::Milliseconds(500));
    }
    return false;
  }
  // Every client's accepted actions are in its seat's log (at most one more per
  // stream break), it dropped its table stream twice, and clients 1-3 dropped
  // their FindTable stream once queued.
  void ExpectClientsKept() {
    for (int i = 1; i <= 4; ++i) {
      std::vector<nlohmann::json> results = ClientLines(i, "drops");
      if (results.empty() || !results.back().contains("table")) {
        ADD_FAILURE() << "client " << i << ": no result";
        continue;
      }
      const nlohmann::json& r = results.back();
      const int64_t actions = r["actions"], breaks = r["resubscribes"];
      const int64_t logged = std::stoll(fault::Scalar(
          url_,
          "SELECT count(*) FROM game_log WHERE game_id = $1 AND seat = $2 AND "
          "request_id <> ''",
          r["table"].get<std::string>(), r["seat"].get<int>()));
      EXPECT_TRUE(logged >= actions && logged <= actions + breaks)
          << "client " << i << ": " << actions << " acknowledged, " << logged
          << " in the log, " << breaks << " breaks";
      EXPECT_EQ(r["drops"]["game"], 2) << "client " << i << ": drops mid-game";
      if (i < 4) {
        EXPECT_GE(r["drops"]["queued"], 1)
            << "client " << i << " never dropped while queued";
      }
    }
  }
  // The checks every scenario ends with, on its `games` games.
  // `unassigned`: finished games of the test's own beside them (a flood's table).
  void EndChecks(int games, int unassigned = 0) {
    const std::string url = url_;
    EXPECT_TRUE(fault::GamesMade(url, games)) << "the games made, all finished";
    EXPECT_THAT(fault::AssignmentsKept(url), IsEmpty())
        << "no assignment lost or changed";
    const int64_t orphans = fault::OrphanTables(url);
    if (getenv("STRICT") != nullptr && std::string(getenv("STRICT")) == "1") {
      EXPECT_EQ(orphans, 0) << "tables created with nobody assigned";
    } else if (orphans > 0) {
      // Known defect: a matchmaking service killed between CreateTable and writing
      // the table's assignments leaves that table with nobody assigned; its clocks
      // then play it out by autopilot, and it is rated and settled. Reported, not
      // failed, unless STRICT=1.
      std::cout << "KNOWN: " << orphans
                << " tables created with nobody assigned (the kill struck mid-placement)"
                << std::endl;
    }
    EXPECT_TRUE(fault::GamesReplay(url, dir_ + "/replay", games + unassigned))
        << "every game's log replays to its recorded result";
    EXPECT_TRUE(fault::WaitRated(url)) << "every game was rated once";
    EXPECT_THAT(fault::RatedOnce(url), IsEmpty()) << "every game was rated once";
    EXPECT_THAT(fault::LedgerOnce(url), IsEmpty()) << "every game's money moved once";
    EXPECT_THAT(fault::HoldsSettled(url), IsEmpty())
        << "every stake was held until its game settled it";
  }

  // trix-demo's players and bots (its players' accounts credited first), its
  // output in demo.log; it gives up after 3 minutes. The people think 40 ms (200
  // ms with FAULT_FULL=1: a longer game, so the fault strikes deeper into it).
  // `supervised`: each bot
  // account's trix-bot runs under fault-supervised-bot, which starts it again when
  // it is killed (its pid files and restarts in bots/).
  void StartDemo(bool supervised = false) {
    bots::ChildProcess::Options options = {
        .argv = {BuildPath("bin/trix-demo"),
                 "--matchmaking=" + Address(matchmaking_port_),
                 "--ratings=" + Address(ratings_port_),
                 fault::FullRun() ? "--pace=200ms" : "--pace=40ms",
                 "--log_dir=" + dir_ + "/demo", "--timeout=3m"},
        .env = {{"MAMLAKA_DEMO_SERVICE_TOKEN", table::kServiceToken}},
        .output_path = dir_ + "/demo.log"};
    if (supervised) {
      std::filesystem::create_directories(BotDir());
      options.argv.push_back("--bot_binary=" + BuildPath("bin/fault-supervised-bot"));
      options.env.push_back({"FAULT_BOT_DIR", BotDir()});
      options.env.push_back({"FAULT_TRIX_BOT", BuildPath("bin/trix-bot")});
    }
    auto demo = bots::ChildProcess::Start(options);
    ASSERT_TRUE(demo.ok()) << demo.status();
    demo_ = *std::move(demo);
  }
  std::string BotDir() const { return dir_ + "/bots"; }
  // SIGKILL to every bot account's trix-bot (the pids its supervisor keeps); how
  // many there were.
  int KillBots() {
    int killed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(BotDir())) {
      if (entry.path().extension() != ".pid") continue;
      const pid_t pid = std::stoi(ReadFile(entry.path().string()));
      killed += kill(pid, SIGKILL) == 0;
    }
    return killed;
  }
  // The tickets waiting at `struck` that were seated after it.
  int64_t SeatedAfter(const std::string& struck) {
    return std::stoll(Query("SELECT count(*) FROM mm_assignments a JOIN mm_tickets t "
                            "USING (ticket_id) WHERE t.queued < $1 AND a.matched > $1",
                            struck));
  }
  // Waits up to `seconds` for the query's count to reach `n` while trix-demo runs.
  testing::AssertionResult WaitCount(int64_t n, int seconds, const std::string& sql,
                                     const std::string& what) {
    testing::AssertionResult waited = WaitFor(
        [&] { return demo_->Poll().has_value() || Number(sql) >= n; }, seconds, what);
    if (waited && Number(sql) < n)
      return testing::AssertionFailure() << "trix-demo ended";
    return waited;
  }
  // Mid-flow: the staked table placed, the party or the loner waiting for bots.
  testing::AssertionResult WaitMidFlow() {
    testing::AssertionResult placed =
        WaitCount(4, 60, "SELECT count(*) FROM mm_assignments", "the staked table placed");
    if (!placed) return placed;
    return WaitCount(1, 60, "SELECT count(*) FROM mm_tickets WHERE status = 'waiting'",
                     "a ticket waiting for bots");
  }
  // trix-demo exits 0: every person got a seat, every game ended with a consistent
  // result and every person was rated.
  testing::AssertionResult DemoSucceeds() {
    return fault::ExitsZero(*demo_, absl::Minutes(4), "trix-demo", dir_ + "/demo.log");
  }

  std::vector<std::unique_ptr<bots::ChildProcess>> clients_;
  std::unique_ptr<bots::ChildProcess> demo_;
};

TEST_F(MatchmakingFaultTest, ClientDrop) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("matcher.after_assign"));
  ASSERT_NO_FATAL_FAILURE(StartClients());
  // Until the failpoint kills matchmaking (the clients' table committed).
  EXPECT_TRUE(MatchmakingDied(60, "matchmaking died once the seats were committed"));
  const std::string struck = Query("SELECT now()");
  const bool logged =
      matchmaking_->LogLines("\"failpoint\":\"matcher.after_assign\"") > 0;
  (void)matchmaking_->Wait();
  absl::SleepFor(absl::Seconds(1));
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  EXPECT_TRUE(ClientsSucceed(absl::Minutes(3)))
      << "every player seated, every game consistent and rated (every client exits 0)";
  EndChecks(1);
  EXPECT_TRUE(logged) << "the failpoint killed matchmaking";
  EXPECT_EQ(
      Query("SELECT count(*) FROM mm_assignments a JOIN games g ON g.id = a.table_id "
            "WHERE a.matched < $1",
            struck),
      "4")
      << "the failpoint killed matchmaking once the seats were committed";
  ExpectClientsKept();
}

// Nothing of the flood's players is in the database beyond its one table and its
// one credited account.
std::vector<std::string> FloodLeftNothing(const std::string& url) {
  return fault::NoneOf(
      url,
      {{"tickets of flood players",
        "SELECT count(*) FROM mm_tickets WHERE player_id LIKE 'flood-%'"},
       {"parties of flood players",
        "SELECT count(*) FROM mm_parties p "
        "WHERE EXISTS (SELECT 1 FROM unnest(p.members) m WHERE m LIKE 'flood-%')"},
       {"bot accounts of the flood",
        "SELECT count(*) FROM mm_bots WHERE name LIKE 'flood-%'"},
       {"holds of flood players",
        "SELECT count(*) FROM ratings.holds WHERE player_id LIKE 'flood-%'"},
       {"flood accounts beyond flood-rich",
        "SELECT count(*) FROM ratings.accounts WHERE account_id LIKE 'player:flood-%' "
        "AND account_id <> 'player:flood-rich'"},
       {"entries of flood-rich beyond its credit",
        "SELECT count(*) - 1 FROM ratings.lines WHERE account_id = 'player:flood-rich'"},
       {"flood tables beyond the one",
        "SELECT count(DISTINCT game_id) - 1 FROM game_seats WHERE player_id LIKE "
        "'flood-%'"}});
}

TEST_F(MatchmakingFaultTest, BadRequests) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(StartDemo());
  EXPECT_TRUE(
      WaitCount(4, 60, "SELECT count(*) FROM mm_assignments", "the staked table placed"))
      << "the fault could not strike mid-flow";
  // Random bytes at all three ports meanwhile (table_fault_test.cc's Garbage aims
  // at the table port alone).
  auto garbage = bots::ChildProcess::Start(
      {.argv = {"/usr/bin/python3", SourcePath("tests/fault/garbage_bytes.py"), "10",
                absl::StrCat(table_port_), absl::StrCat(matchmaking_port_),
                absl::StrCat(ratings_port_)},
       .output_path = dir_ + "/garbage.out"});
  ASSERT_TRUE(garbage.ok()) << garbage.status();
  const int flood = fault::RunToEnd(
      {.argv = {"/usr/bin/python3", SourcePath("tests/fault/bad_requests.py"),
                "--table=" + Address(table_port_),
                "--matchmaking=" + Address(matchmaking_port_),
                "--ratings=" + Address(ratings_port_),
                std::string("--token=") + table::kServiceToken, "--seconds=15"},
       .env = {{"PYTHONPATH", BuildPath("python")}},
       .output_path = dir_ + "/flood.out"},
      absl::Minutes(2));
  absl::StatusOr<int> garbage_status = (*garbage)->Wait(absl::Minutes(1));
  std::cout << ReadFile(dir_ + "/flood.out") << ReadFile(dir_ + "/garbage.out");
  EXPECT_TRUE(DemoSucceeds())
      << "every player seated, every game consistent and rated (trix-demo exit 0)";
  EndChecks(3, /*unassigned=*/1);  // the flood's own table, played out by the autopilot
  EXPECT_TRUE(flood == 0 && garbage_status.ok() && *garbage_status == 0)
      << "every bad request got its status and a message, and changed nothing";
  EXPECT_THAT(FloodLeftNothing(url_), IsEmpty())
      << "nothing of the flood's players is in the database";
  EXPECT_TRUE(table_->Running() && matchmaking_->Running() && RatingsRunning())
      << "the three services are still running";
}

// Polls the gRPC health (the overall status) of services every 200 ms on a thread
// of its own and keeps each one's changes: SERVING, NOT_SERVING, or FAILED when
// the call failed (the process away).
class HealthWatch {
 public:
  explicit HealthWatch(const std::map<std::string, std::string>& addresses) {
    for (const auto& [name, address] : addresses) {
      channels_[name] = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~HealthWatch() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<std::string> Seen(const std::string& name) {
    absl::MutexLock lock(&mu_);
    return seen_[name];
  }

 private:
  void Run() {
    while (!stop_) {
      for (const auto& [name, channel] : channels_) {
        const int status = table::HealthStatus(channel, "");
        const std::string seen = status == 1   ? "SERVING"
                                 : status == 2 ? "NOT_SERVING"
                                               : "FAILED";
        absl::MutexLock lock(&mu_);
        if (seen_[name].empty() || seen_[name].back() != seen)
          seen_[name].push_back(seen);
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
  }

  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
  absl::Mutex mu_;
  std::map<std::string, std::vector<std::string>> seen_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The service said SERVING, then NOT_SERVING (the database away), then SERVING,
// and SERVING last.
testing::AssertionResult WentAndCameBack(const std::vector<std::string>& seen) {
  std::string all = " ";
  for (const std::string& s : seen) absl::StrAppend(&all, s, " ");
  const size_t away = all.find(" SERVING NOT_SERVING ");
  if (away != std::string::npos &&
      all.find(" SERVING ", away + strlen(" SERVING NOT_SERVING") - 1) !=
          std::string::npos &&
      seen.back() == "SERVING") {
    return testing::AssertionSuccess() << all;
  }
  return testing::AssertionFailure() << "its health went" << all;
}

class DatabaseDownTest : public MatchmakingFaultTest {
 protected:
  std::string Database() override { return cluster_.Start(); }

  table::OwnCluster cluster_{"pgdown"};
};

TEST_F(DatabaseDownTest, PgDown) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(StartDemo());
  HealthWatch health(ServiceAddresses());
  // The staked table in play, the party and the loner waiting for bots.
  EXPECT_TRUE(WaitMidFlow()) << "the fault could not strike mid-flow";
  const std::string struck = Query("SELECT now()");
  ASSERT_TRUE(cluster_.Crash()) << "PostgreSQL crashed";
  absl::SleepFor(absl::Seconds(5));  // past the table lease (3 s)
  ASSERT_FALSE(cluster_.Start().empty()) << "PostgreSQL started again";
  EXPECT_TRUE(DemoSucceeds())
      << "every player seated, every game consistent and rated (trix-demo exit 0)";
  health.Stop();
  EndChecks(3);
  for (const std::string name : {"table", "matchmaking", "ratings"}) {
    std::cout << "  " << name << ":";
    for (const std::string& s : health.Seen(name)) std::cout << " " << s;
    std::cout << std::endl;
    EXPECT_TRUE(WentAndCameBack(health.Seen(name)))
        << name << " said NOT_SERVING while the database was down, then SERVING";
  }
  EXPECT_GT(SeatedAfter(struck), 0)
      << "a ticket waiting at the outage was seated after it";
}

// The staked table placed, the party and the loner still waiting for bots.
TEST_F(MatchmakingFaultTest, MmKill9) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(StartDemo());
  EXPECT_TRUE(WaitMidFlow()) << "the fault could not strike mid-flow";
  const std::string struck = Query("SELECT now()");
  matchmaking_->KillNine();
  absl::SleepFor(absl::Seconds(1));
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  EXPECT_TRUE(DemoSucceeds())
      << "every player seated, every game consistent and rated (trix-demo exit 0)";
  EndChecks(3);
  EXPECT_GT(SeatedAfter(struck), 0)
      << "a ticket waiting at the kill was seated by the restarted service";
}

// As soon as the first game has finished, while the others finish.
TEST_F(MatchmakingFaultTest, RatingsKill9) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(StartDemo());
  EXPECT_TRUE(WaitCount(1, 120, "SELECT count(*) FROM games WHERE finished IS NOT NULL",
                        "a game finished"))
      << "the fault could not strike mid-flow";
  const std::string struck = Query("SELECT now()");
  ratings_->process().Signal(SIGKILL);
  (void)ratings_->process().Wait(absl::Seconds(10));
  // Down at least three seconds and until one more game has finished, so its
  // result waits in the outbox (a fixed pause could end before any game does).
  absl::SleepFor(absl::Seconds(3));
  EXPECT_TRUE(WaitCount(
      1, 120,
      absl::StrCat("SELECT count(*) FROM game_results WHERE created > '", struck, "'"),
      "another game finished"))
      << "the fault could not strike mid-flow";
  const std::string back = Query("SELECT now()");
  ASSERT_NO_FATAL_FAILURE(StartRatings("", kNoPeerLimits));
  EXPECT_TRUE(DemoSucceeds())
      << "every player seated, every game consistent and rated (trix-demo exit 0)";
  EndChecks(3);
  const std::string log = ReadFile(dir_ + "/ratings.log");
  int starts = 0;
  for (size_t at = log.find("\"msg\":\"serving\""); at != std::string::npos;
       at = log.find("\"msg\":\"serving\"", at + 1)) {
    ++starts;
  }
  EXPECT_GT(starts, 1) << "the ratings service served again after the kill";
  EXPECT_GT(Number(absl::StrCat("SELECT count(*) FROM game_results WHERE created > '",
                                struck, "' AND created < '", back, "'")),
            0)
      << "a game finished while the ratings service was down";
}

// A game with bot seats under way.
TEST_F(MatchmakingFaultTest, BotKill9) {
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(StartDemo(/*supervised=*/true));
  EXPECT_TRUE(WaitCount(1, 60,
                        "SELECT count(*) FROM games g WHERE finished IS NULL AND "
                        "log_length > 40 AND EXISTS (SELECT 1 FROM game_seats s "
                        "WHERE s.game_id = g.id AND s.bot)",
                        "a game with bot seats under way"))
      << "the fault could not strike mid-flow";
  std::cout << "  " << KillBots() << " bot accounts' trix-bot killed" << std::endl;
  EXPECT_TRUE(DemoSucceeds())
      << "every player seated, every game consistent and rated (trix-demo exit 0)";
  EndChecks(3);
  EXPECT_FALSE(ReadFile(BotDir() + "/restarts").empty())
      << "the bot accounts' processes were restarted";
}

// The primary of a replicated PostgreSQL (a cluster of the test's own,
// scripts/pg-ha.sh: three Patroni-managed servers; PG_HA=sync, the default, or
// async) struck while trix-demo's games are played and table-load plays 40 more
// tables; every service follows the new primary through its multi-host URL.
class DatabaseFailoverTest : public MatchmakingFaultTest {
 protected:
  std::string Database() override { return cluster_.Start(Async() ? "async" : "sync"); }
  void TearDown() override {
    load_.reset();
    MatchmakingFaultTest::TearDown();
  }
  static bool Async() {
    const char* mode = getenv("PG_HA");
    return mode != nullptr && std::string(mode) == "async";
  }

  // Forty more tables in play beside trix-demo's three (seats load-*), each
  // acknowledged action checked in the log at the end; its output in load.out.
  // They are left unfinished (--keep_tables): voided when table-load ends, they
  // would be finished games with no result, and the end checks, which read every
  // finished game, would see them or not depending on whether trix-demo's games
  // or table-load ended first.
  void StartLoad() {
    auto load = bots::ChildProcess::Start(
        {.argv = {BuildPath("bin/table-load"), "--target=" + Address(table_port_),
                  "--tables=40", "--rate=150", "--warmup=1s", "--duration=50s",
                  "--drain=15s", "--target_rate=1", "--target_p99_ms=1000000",
                  "--keep_tables"},
         .env = {{"MAMLAKA_LOAD_SERVICE_TOKEN", table::kServiceToken}},
         .output_path = dir_ + "/load.out"});
    ASSERT_TRUE(load.ok()) << load.status();
    load_ = *std::move(load);
  }
  // Mid-flow: the staked table placed, a ticket waiting for bots, and table-load's
  // forty tables under way.
  testing::AssertionResult WaitAllInPlay() {
    testing::AssertionResult mid = WaitMidFlow();
    if (!mid) return mid;
    return WaitCount(
        40, 60,
        "SELECT count(*) FROM games g WHERE log_length > 20 AND EXISTS (SELECT 1 "
        "FROM game_seats s WHERE s.game_id = g.id AND s.player_id LIKE 'load-%')",
        "table-load's tables under way");
  }

  // Each service still runs its first process, served once and says SERVING last.
  void ExpectServingUnrestarted(HealthWatch& health) {
    const auto serving_lines = [](const std::string& log) {
      int n = 0;
      for (size_t at = log.find("\"msg\":\"serving\""); at != std::string::npos;
           at = log.find("\"msg\":\"serving\"", at + 1)) {
        ++n;
      }
      return n;
    };
    const std::map<std::string, std::pair<bool, int>> services = {
        {"table", {table_->Running(), serving_lines(table_->Log())}},
        {"matchmaking",
         {matchmaking_->Running(), matchmaking_->LogLines("\"msg\":\"serving\"")}},
        {"ratings",
         {RatingsRunning(), serving_lines(ReadFile(dir_ + "/ratings.log"))}}};
    for (const auto& [name, state] : services) {
      const std::vector<std::string> seen = health.Seen(name);
      EXPECT_TRUE(state.first && state.second == 1 && !seen.empty() &&
                  seen.back() == "SERVING")
          << name << " was not restarted and says SERVING (running " << state.first
          << ", " << state.second << " serving lines, last health "
          << (seen.empty() ? "none" : seen.back()) << ")";
    }
  }
  // Another node is primary now and all three members run (the old primary back
  // as a standby), within a minute.
  testing::AssertionResult ClusterWhole(const std::string& old_primary) {
    std::string now;
    testing::AssertionResult whole = WaitFor(
        [&] {
          now = cluster_.Primary();
          return !now.empty() && now != old_primary && cluster_.RunningMembers() == 3;
        },
        60, "a new primary and three members running");
    if (whole) {
      std::cout << "  primary " << old_primary << ", now " << now << "; 3 members running"
                << std::endl;
    } else {
      std::cout << cluster_.List() << std::endl;
    }
    return whole;
  }

  // PG_HA=async: the tables the table service found shorter than acknowledged and
  // rebuilt (its error log lines), and the entries they lost.
  std::set<std::string> Rewinds(int64_t* lost) {
    std::set<std::string> tables;
    std::istringstream log(table_->Log());
    for (std::string line; std::getline(log, line);) {
      const size_t brace = line.find('{');
      if (brace == std::string::npos ||
          line.find("log is shorter than acknowledged") == std::string::npos)
        continue;
      const nlohmann::json j = nlohmann::json::parse(line.substr(brace), nullptr, false);
      // The refused append's own warning says so further into its message.
      if (!j.is_object() ||
          !absl::StartsWith(j.value("msg", ""), "log is shorter than acknowledged"))
        continue;
      tables.insert(j["table"].get<std::string>());
      *lost += Integer(j["acknowledged"]) - Integer(j["stored"]);
    }
    return tables;
  }
  static int64_t Integer(const nlohmann::json& j) {
    return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<int64_t>();
  }
  // table-load's durability check (its last JSON line): sync, every action it saw
  // acknowledged is in the log (exit 0); async, no more missing than the rewinds
  // lost, and nothing else wrong.
  void ExpectLoadKept(int64_t lost) {
    absl::StatusOr<int> status = load_->Wait(absl::Minutes(2));
    nlohmann::json last;
    std::ifstream in(dir_ + "/load.out");
    for (std::string line; std::getline(in, line);) {
      if (line.find("durability") != std::string::npos ||
          line.find("targets") != std::string::npos)
        std::cout << line << std::endl;
      if (absl::StartsWith(line, "{")) last = nlohmann::json::parse(line, nullptr, false);
    }
    if (!Async()) {
      EXPECT_TRUE(status.ok() && *status == 0)
          << "every action table-load saw acknowledged at its 40 tables is in the log";
      return;
    }
    ASSERT_TRUE(last.is_object() && last.contains("durability")) << "table-load's report";
    const nlohmann::json& d = last["durability"];
    std::cout << "  table-load: " << d["acked"] << " acknowledged actions, "
              << d["missing"] << " missing (rewinds lost " << lost << " entries)"
              << std::endl;
    const int64_t missing = d["missing"].get<int64_t>();
    EXPECT_TRUE(d["foreign"] == 0 && d["record_errors"] == 0 && missing <= lost &&
                status.ok() && (*status == 0 || missing > 0))
        << "table-load's lost actions are no more than the rewinds counted";
  }

  // From the fault to each table's first action committed after it, for the tables
  // in play then (PostgreSQL's commit timestamps), and the calls the clients saw
  // refused meanwhile, by code.
  void FailoverReport(const std::string& struck) {
    std::cout << Query(R"sql(
      SELECT format('  %s tables in play: first action after the fault p50 %s s, p99 %s s, max %s s',
          count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY w)::numeric, 2),
          round(percentile_cont(0.99) WITHIN GROUP (ORDER BY w)::numeric, 2),
          round(max(w)::numeric, 2))
        FROM (SELECT extract(epoch FROM min(pg_xact_commit_timestamp(l.xmin)) - $1::timestamptz) AS w
              FROM games g JOIN game_log l ON l.game_id = g.id
              WHERE g.created < $1::timestamptz
                AND (g.finished IS NULL OR g.finished > $1::timestamptz)
                AND pg_xact_commit_timestamp(l.xmin) > $1::timestamptz
              GROUP BY g.id) t)sql",
                       struck)
              << std::endl;
    std::cout << "  refused meanwhile, by code:";
    for (const auto& [code, n] : RefusedByCode()) std::cout << " " << code << " " << n;
    std::cout << std::endl;
  }
  // The refusals trix-demo's clients logged ("action refused: UNAVAILABLE", ...)
  // and table-load's ("table-load: action ... seat 2: 14 ...", the code's number).
  std::map<std::string, int> RefusedByCode() {
    static const std::regex kClient(
        "(action refused|action failed|resyncing): ([A-Z_]+)");
    static const std::regex kLoad("^table-load: action .* seat [0-3]: ([0-9]+) ");
    std::map<std::string, int> codes;
    std::vector<std::string> logs = {dir_ + "/demo.log"};
    for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/demo"))
      if (entry.path().extension() == ".log") logs.push_back(entry.path().string());
    for (const std::string& path : logs) {
      std::ifstream in(path);
      for (std::string line; std::getline(in, line);) {
        for (std::sregex_iterator m(line.begin(), line.end(), kClient), end; m != end;
             ++m) {
          ++codes[(*m)[2]];
        }
      }
    }
    std::ifstream load(dir_ + "/load.out");
    std::smatch m;
    for (std::string line; std::getline(load, line);) {
      if (!std::regex_search(line, m, kLoad)) continue;
      // gRPC's codes are absl's, number for number.
      ++codes[absl::StatusCodeToString(static_cast<absl::StatusCode>(std::stoi(m[1])))];
    }
    return codes;
  }

  // The scenario: everything in play, `fault` strikes the primary, then the checks.
  void Scenario(const std::function<bool(const std::string& primary)>& fault) {
    ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
    ASSERT_NO_FATAL_FAILURE(StartLoad());
    ASSERT_NO_FATAL_FAILURE(StartDemo());
    HealthWatch health(ServiceAddresses());
    EXPECT_TRUE(WaitAllInPlay()) << "the fault could not strike mid-flow";
    const std::string struck = Query("SELECT now()");
    const std::string old_primary = cluster_.Primary();
    ASSERT_FALSE(old_primary.empty()) << "no primary to fail";
    EXPECT_TRUE(fault(old_primary)) << "the fault struck " << old_primary;
    std::cout << "  struck " << old_primary << " at " << struck << std::endl;
    EXPECT_TRUE(DemoSucceeds())
        << "every player seated, every game consistent and rated (trix-demo exit 0)";
    health.Stop();
    EndChecks(3);
    int64_t lost = 0;
    const std::set<std::string> rewound =
        Async() ? Rewinds(&lost) : std::set<std::string>{};
    if (Async()) {
      std::cout << "  " << rewound.size()
                << " tables found shorter than acknowledged and rebuilt, " << lost
                << " entries lost" << std::endl;
    }
    // The seven people's seats (trix-bot's result lines in trix-demo's logs).
    const std::vector<fault::SeatResult> seats =
        fault::SeatResults(dir_ + "/demo", ".log");
    EXPECT_EQ(seats.size(), 7u) << "a result line from each person's seat";
    int64_t seats_lost = 0;
    EXPECT_THAT(fault::AcknowledgedKept(url_, seats, rewound, &seats_lost), IsEmpty())
        << (Async() ? "every acknowledged action lost is at a table found and rebuilt"
                    : "no acknowledged action is missing from the log");
    if (Async()) {
      std::cout << "  " << seats_lost << " acknowledged actions of the seat clients lost"
                << std::endl;
    }
    ExpectLoadKept(lost);
    ExpectServingUnrestarted(health);
    EXPECT_TRUE(ClusterWhole(old_primary))
        << "the cluster has a new primary and its three members";
    EXPECT_GT(SeatedAfter(struck), 0)
        << "a ticket waiting at the fault was seated after it";
    FailoverReport(struck);
  }

  fault::PgHaCluster cluster_{"pgha"};
  std::unique_ptr<bots::ChildProcess> load_;
};

// The primary's postmaster killed with SIGKILL: Patroni promotes a standby. With
// PG_HA=async the standby may lack the last commits: the table service must find
// each table whose log is now shorter than it acknowledged, rebuild it and play on.
TEST_F(DatabaseFailoverTest, PgKill9) {
  Scenario([&](const std::string& primary) { return cluster_.KillPostgres(primary); });
}

// The primary node (Patroni and PostgreSQL) stopped with SIGSTOP for 25 s
// (PG_FREEZE_SECONDS; past Patroni's 20 s TTL: a standby is promoted meanwhile),
// then continued: it must come back as a standby.
TEST_F(DatabaseFailoverTest, PgFreeze) {
  const char* seconds = getenv("PG_FREEZE_SECONDS");
  const int frozen = seconds != nullptr ? std::atoi(seconds) : 25;
  Scenario([&](const std::string& primary) {
    if (!cluster_.Freeze(primary)) return false;
    absl::SleepFor(absl::Seconds(frozen));
    return cluster_.Thaw(primary);
  });
}

// An operator's planned switchover (patronictl switchover).
TEST_F(DatabaseFailoverTest, PgSwitchover) {
  Scenario(
      [&](const std::string&) { return cluster_.Switchover(dir_ + "/switchover.out"); });
}

}  // namespace
}  // namespace trix::matchmaking
