// Two matchmaking replicas (the real build/bin/matchmaking-service processes) on
// one database: tickets queued on either are grouped together, and after kill -9
// of one replica its clients resubmit to the other, which resumes their tickets
// and takes the dead replica's pools over; nobody is seated twice.
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <pqxx/pqxx>
#include <regex>
#include <set>
#include <sstream>

#include "bots/demo/child_process.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"

namespace trix::matchmaking {
namespace {

class Replica {
 public:
  Replica(const std::string& db_url, const std::string& log,
          const std::string& bot_fill_wait = "60s",
          std::vector<std::pair<std::string, std::string>> env = {})
      : log_(log) {
    std::remove(log.c_str());  // the port is read from this run's log
    auto child = bots::ChildProcess::Start(
        {.argv = {MATCHMAKING_SERVICE_BINARY, "--listen=127.0.0.1:0",
                  "--database_url=" + db_url,
                  std::string("--service_token=") + table::kServiceToken,
                  "--migrations_dir=" MIGRATIONS_DIR, "--metrics_port=-1",
                  "--lease_retry=200ms", "--poll_every=50ms",
                  "--bot_fill_wait=" + bot_fill_wait},
         .env = std::move(env),
         .output_path = log});
    EXPECT_TRUE(child.ok()) << child.status();
    if (child.ok()) process_ = *std::move(child);
  }
  // The port from the "serving" log line, once it is there (0 on timeout).
  int WaitPort() {
    const std::regex serving("\"msg\":\"serving\".*\"port\":([0-9]+)");
    for (absl::Time deadline = absl::Now() + absl::Seconds(20); absl::Now() < deadline;
         absl::SleepFor(absl::Milliseconds(20))) {
      std::ifstream in(log_);
      std::string line;
      while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, serving)) return std::stoi(m[1]);
      }
    }
    return 0;
  }
  std::unique_ptr<v1::MatchmakingService::Stub> Stub() {
    int port = WaitPort();
    EXPECT_GT(port, 0);
    return v1::MatchmakingService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  void KillNine() {
    process_->Signal(SIGKILL);
    (void)process_->Wait(absl::Seconds(10));
  }
  // Waits for the process to end by itself; its exit status or an error.
  absl::StatusOr<int> Wait() { return process_->Wait(absl::Seconds(20)); }

 private:
  std::string log_;
  std::unique_ptr<bots::ChildProcess> process_;
};

class MatchmakingReplicasTest : public MatchmakingTest {
 protected:
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  int SeatedTwice() {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec("SELECT player_id FROM mm_assignments WHERE NOT bot "
                   "GROUP BY player_id HAVING count(*) > 1")
        .size();
  }
};

void ExpectOneTable(const std::vector<TicketClient*>& clients) {
  std::set<std::string> tables;
  std::set<int> seats;
  for (TicketClient* c : clients) {
    ASSERT_TRUE(c->WaitDone());
    ASSERT_TRUE(c->status().ok()) << c->status().error_message();
    tables.insert(c->assignment().table_id());
    seats.insert(c->assignment().seat());
  }
  EXPECT_EQ(tables.size(), 1u);
  EXPECT_EQ(seats.size(), 4u);
}

TEST_F(MatchmakingReplicasTest, TicketsOnEitherReplicaShareTablesAndSurviveKillNine) {
  const std::string dir = ::testing::TempDir();
  Replica a(db_->url(), dir + "/mm-replica-a.log");
  auto stub_a = a.Stub();
  Replica b(db_->url(), dir + "/mm-replica-b.log");
  auto stub_b = b.Stub();

  // Two players on each replica: one table, whichever replica matched it.
  {
    TicketClient p1(stub_a.get(), Request("a1"), kServiceBearer);
    TicketClient p2(stub_a.get(), Request("a2"), kServiceBearer);
    TicketClient p3(stub_b.get(), Request("b1"), kServiceBearer);
    TicketClient p4(stub_b.get(), Request("b2"), kServiceBearer);
    ExpectOneTable({&p1, &p2, &p3, &p4});
  }

  // Two players queue on A, which dies; they resubmit the same requests to B.
  std::string ticket;
  {
    TicketClient k1(stub_a.get(), Request("k1", "keep"), kServiceBearer);
    TicketClient k2(stub_a.get(), Request("k2", "keep"), kServiceBearer);
    ASSERT_TRUE(k1.WaitQueued(1));
    ASSERT_TRUE(k2.WaitQueued(1));
    ticket = k1.queued()[0].ticket_id();
    a.KillNine();
    ASSERT_TRUE(k1.WaitDone());
    EXPECT_EQ(k1.status().error_code(), grpc::StatusCode::UNAVAILABLE);
  }
  TicketClient k1(stub_b.get(), Request("k1", "keep"), kServiceBearer);
  TicketClient k2(stub_b.get(), Request("k2", "keep"), kServiceBearer);
  TicketClient n1(stub_b.get(), Request("n1"), kServiceBearer);
  TicketClient n2(stub_b.get(), Request("n2"), kServiceBearer);
  ExpectOneTable({&k1, &k2, &n1, &n2});
  EXPECT_EQ(k1.assignment().ticket_id(), ticket);  // the same ticket, resumed
  EXPECT_EQ(SeatedTwice(), 0);
}

// kill -9 between creating a table and committing its assignments (a failpoint
// there): the pool's next matcher finishes the placement. The player gets the
// table that was made, and no second table is made for the same ticket (which the
// autopilot would otherwise play to the end, rated and staked, for nobody).
TEST_F(MatchmakingReplicasTest, APlacementCutShortByACrashIsFinishedByTheNextMatcher) {
  const std::string dir = ::testing::TempDir();
  const std::string tables_of_solo =
      "SELECT count(*) FROM game_seats WHERE player_id = 'solo'";
  {
    Replica a(db_->url(), dir + "/mm-crash-a.log", "200ms",
              {{"MAMLAKA_FAILPOINTS", "matcher.after_create_tables"}});
    auto stub_a = a.Stub();
    TicketClient p(stub_a.get(), Request("solo", "cut"), kServiceBearer);
    ASSERT_TRUE(p.WaitDone());
    EXPECT_EQ(p.status().error_code(), grpc::StatusCode::UNAVAILABLE);
    ASSERT_TRUE(a.Wait().ok());  // it died at the failpoint
  }
  ASSERT_EQ(Count(tables_of_solo), 1);
  ASSERT_EQ(Count("SELECT count(*) FROM mm_placements"), 1);
  ASSERT_EQ(Count("SELECT count(*) FROM mm_assignments"), 0);

  // The next matcher finishes the placement on its own; then the player, back,
  // finds the seat. (A resubmission racing that commit is another matter: it may
  // be admitted as a new ticket, see services/matchmaking/README.md.)
  Replica b(db_->url(), dir + "/mm-crash-b.log", "200ms");
  auto stub_b = b.Stub();
  for (absl::Time until = absl::Now() + absl::Seconds(20);
       Count("SELECT count(*) FROM mm_placements") > 0 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(Count("SELECT count(*) FROM mm_assignments WHERE player_id = 'solo'"), 1);
  TicketClient again(stub_b.get(), Request("solo", "cut"), kServiceBearer);
  ASSERT_TRUE(again.WaitDone());
  ASSERT_TRUE(again.status().ok()) << again.status().error_message();
  EXPECT_EQ(Count(tables_of_solo), 1);  // the same table, not a second one
  pqxx::connection c(db_->url());
  pqxx::read_transaction tx(c);
  EXPECT_EQ(again.assignment().table_id(),
            tx.exec1("SELECT game_id FROM game_seats WHERE player_id = 'solo'")[0]
                .as<std::string>());
  EXPECT_EQ(tx.exec1("SELECT count(*) FROM mm_placements")[0].as<int64_t>(), 0);
  EXPECT_EQ(SeatedTwice(), 0);
}

}  // namespace
}  // namespace trix::matchmaking
