// Two matchmaking replicas (the real build/bin/matchmaking-service processes) on
// one database: tickets queued on either are grouped together, and after kill -9
// of one replica its clients resubmit to the other, which resumes their tickets
// and takes the dead replica's pools over; nobody is seated twice.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bots/common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/frozen_backend.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/matchmaking_replica.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_process.h"

namespace trix::matchmaking {
namespace {

class MatchmakingReplicasTest : public MatchmakingTest {
 protected:
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  // The in-process table instance gives way to a table-service process with
  // `options` (its binary, database and migrations filled in here), serving,
  // and the only registered instance; null (and a failure) otherwise.
  std::unique_ptr<table::ServiceProcess> TableProcess(table::ServiceProcess::Options options) {
    tables_->Shutdown();
    {
      pqxx::connection c(db_->url());
      pqxx::work tx(c);
      tx.exec0("DELETE FROM table_instances");
      tx.commit();
    }
    options.binary = BuildPath("bin/table-service");
    options.db_url = db_->url();
    options.migrations_dir = SourcePath("migrations");
    return table::ServiceProcess::StartServing(options);
  }
  using Tickets = std::vector<std::unique_ptr<TicketClient>>;
  // Each request queued as a ticket of its own (with the service's token) on the
  // replica beside it.
  static Tickets Queue(
      const std::vector<std::pair<v1::MatchmakingService::Stub*, v1::FindTableRequest>>&
          requests) {
    Tickets tickets;
    for (const auto& [stub, request] : requests) {
      tickets.push_back(std::make_unique<TicketClient>(stub, request, kServiceBearer));
    }
    return tickets;
  }
  // One solo ticket per player id, all on `stub`.
  static Tickets Queue(v1::MatchmakingService::Stub* stub,
                       const std::vector<std::string>& players) {
    std::vector<std::pair<v1::MatchmakingService::Stub*, v1::FindTableRequest>> requests;
    for (const std::string& player : players) requests.emplace_back(stub, Request(player));
    return Queue(requests);
  }
  int SeatedTwice() {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec("SELECT player_id FROM mm_assignments WHERE NOT bot "
                   "GROUP BY player_id HAVING count(*) > 1")
        .size();
  }
};

void ExpectOneTable(const std::vector<std::unique_ptr<TicketClient>>& clients) {
  std::set<std::string> tables;
  std::set<int> seats;
  for (const auto& c : clients) {
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
  ExpectOneTable(Queue({{stub_a.get(), Request("a1")},
                        {stub_a.get(), Request("a2")},
                        {stub_b.get(), Request("b1")},
                        {stub_b.get(), Request("b2")}}));

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
  const Tickets resumed = Queue({{stub_b.get(), Request("k1", "keep")},
                                 {stub_b.get(), Request("k2", "keep")},
                                 {stub_b.get(), Request("n1")},
                                 {stub_b.get(), Request("n2")}});
  ExpectOneTable(resumed);
  EXPECT_EQ(resumed[0]->assignment().ticket_id(), ticket);  // the same ticket, resumed
  EXPECT_EQ(SeatedTwice(), 0);
}

// A primary that stops answering without closing its connections (SIGSTOP, a
// paused VM): the matcher gives up on its connection at the stall limit and opens
// another instead of waiting on the frozen server. Here the frozen server process
// still holds the pool's lock (a promoted standby would not), so matching waits
// until it is let go on, finds its client gone and ends; then the matcher takes
// the pool back and groups tables again, with no restart.
TEST_F(MatchmakingReplicasTest, AMatcherGivesUpOnAServerThatStopsAnswering) {
  const std::string dir = ::testing::TempDir();
  Replica a(db_->url(), dir + "/mm-frozen-db.log");
  auto stub = a.Stub();
  ExpectOneTable(Queue(stub.get(), {"f1", "f2", "f3", "f4"}));
  const std::string name = "mamlaka matcher";
  {
    absl::StatusOr<std::unique_ptr<pg::FrozenBackend>> frozen =
        pg::FrozenBackend::Freeze(db_->admin_url(), db_->name(), name);
    ASSERT_TRUE(frozen.ok()) << frozen.status();
    const absl::Time deadline = absl::Now() + pg::kStallLimit + absl::Seconds(10);
    while (pg::ConnectionsNamed(db_->admin_url(), db_->name(), name) < 2 &&
           absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(100));
    }
    EXPECT_EQ(pg::ConnectionsNamed(db_->admin_url(), db_->name(), name), 2)
        << "no new connection beside the frozen one";
    EXPECT_EQ(a.LogLines("matcher lost its database connection"), 1);
  }
  ExpectOneTable(Queue(stub.get(), {"t1", "t2", "t3", "t4"}));
  EXPECT_EQ(SeatedTwice(), 0);
}

// The replica that matches the pool learns of the other's tickets from its reads
// of the newest tickets alone: here it reads the pool whole only once, when it
// leases it. Two rounds: the second after reads that found tickets.
TEST_F(MatchmakingReplicasTest, TicketsQueuedElsewhereAreReadWithoutReadingThePoolWhole) {
  const std::string dir = ::testing::TempDir();
  const std::vector<std::string> flags = {"--pool_full_read_every=1h"};
  Replica a(db_->url(), dir + "/mm-newest-a.log", "60s", {}, flags);
  auto stub_a = a.Stub();
  Replica b(db_->url(), dir + "/mm-newest-b.log", "60s", {}, flags);
  auto stub_b = b.Stub();
  for (const std::string round : {"r1-", "r2-"}) {
    ExpectOneTable(Queue({{stub_a.get(), Request(round + "a1")},
                          {stub_a.get(), Request(round + "a2")},
                          {stub_b.get(), Request(round + "b1")},
                          {stub_b.get(), Request(round + "b2")}}));
  }
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
  {
    // The placement is recorded without the seat tokens it asked for.
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    v1::CreateTableRequest recorded;
    ASSERT_TRUE(recorded.ParseFromString(
        pqxx::binarystring(tx.exec1("SELECT request FROM mm_placements")[0]).str()));
    ASSERT_EQ(recorded.seats_size(), 4);
    for (const v1::SeatAssignment& seat : recorded.seats()) EXPECT_EQ(seat.seat_token(), "");
  }

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
  EXPECT_EQ(tx.exec1("SELECT count(*) FROM mm_assignments WHERE seat_token <> ''")[0]
                .as<int64_t>(),
            0);
  EXPECT_EQ(SeatedTwice(), 0);
  // The token the next matcher derived again is the one the table was made with.
  const v1::Assignment seat = again.assignment();
  table::SeatClient client(grpc::CreateChannel(seat.address(), grpc::InsecureChannelCredentials()),
                           seat.table_id(), seat.seat_token(), seat.seat());
  client.Open(0);
  EXPECT_TRUE(client.WaitUntil([](const auto& updates) { return !updates.empty(); },
                               absl::Seconds(10)));
  EXPECT_TRUE(client.act_errors().empty());
}

// The table service makes the table but its answer is lost (a failpoint answers
// UNAVAILABLE, twice): the matcher keeps the placement and asks again with the
// same request and seat tokens, so the four players get the one table that was
// made, and can play it; none is made for them twice.
TEST_F(MatchmakingReplicasTest, APlacementWhoseAnswerWasLostGetsTheTableThatWasMade) {
  const std::string dir = ::testing::TempDir();
  std::unique_ptr<table::ServiceProcess> tables = TableProcess(
      {.instance_id = "lossy",
       .dir = dir,
       .env = {{"MAMLAKA_FAILPOINTS", "table.lose_create_answer=2"}}});
  ASSERT_NE(tables, nullptr);
  Replica a(db_->url(), dir + "/mm-lost-answer.log");
  auto stub = a.Stub();

  const Tickets players = Queue(stub.get(), {"lost1", "lost2", "lost3", "lost4"});
  ExpectOneTable(players);
  const std::string table_id = players[0]->assignment().table_id();
  EXPECT_NE(tables->Log().find("CreateTable answer lost"), std::string::npos);
  EXPECT_EQ(Count("SELECT count(*) FROM games"), 1);  // one table, made once
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM games WHERE id = '", table_id,
                               "' AND request_id IS NOT NULL")),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_placements"), 0);
  EXPECT_EQ(SeatedTwice(), 0);

  // Their seat tokens are the table's: every seat plays.
  std::vector<std::unique_ptr<table::SeatClient>> seats;
  for (const auto& p : players) {
    const v1::Assignment& seat = p->assignment();
    seats.push_back(std::make_unique<table::SeatClient>(
        grpc::CreateChannel(seat.address(), grpc::InsecureChannelCredentials()),
        seat.table_id(), seat.seat_token(), seat.seat()));
    seats.back()->Open(0, /*play_seed=*/40 + seat.seat());
  }
  const std::string acted = absl::StrCat(
      "SELECT count(DISTINCT seat) FROM game_log WHERE game_id = '", table_id,
      "' AND request_id <> ''");
  for (absl::Time until = absl::Now() + absl::Seconds(30);
       Count(acted) < 4 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Count(acted), 4) << tables->Log();
  for (const auto& seat : seats) EXPECT_TRUE(seat->act_errors().empty());
}

// A refusal that proves no table was made (no instance has room) returns the
// group's tickets to the queue at once, to be grouped again; nothing is asked for
// again, and the players are still matching.
TEST_F(MatchmakingReplicasTest, ARefusalThatProvesNoTableReturnsTheTicketsToTheQueue) {
  const std::string dir = ::testing::TempDir();
  std::unique_ptr<table::ServiceProcess> tables =
      TableProcess({.instance_id = "full", .dir = dir, .extra = {"--max_tables=0"}});
  ASSERT_NE(tables, nullptr);
  Replica a(db_->url(), dir + "/mm-full.log");
  auto stub = a.Stub();

  const Tickets players = Queue(stub.get(), {"full1", "full2", "full3", "full4"});
  for (absl::Time until = absl::Now() + absl::Seconds(20);
       a.LogLines("\"cannot place a table\"") < 2 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  // Placed twice: the first refusal put the tickets back, and they were grouped anew.
  EXPECT_GE(a.LogLines("\"cannot place a table\""), 2);
  EXPECT_EQ(a.LogLines("asking again"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM games"), 0);
  for (const auto& p : players) {
    EXPECT_FALSE(p->WaitDone(absl::ZeroDuration())) << p->status().error_message();
  }
}

// A bot connected to one replica fills seats of the pools another replica
// matches: its stream is shared through mm_bot_streams, the matcher takes a seat of
// it there, and the bot's own replica sends it the committed assignment.
TEST_F(MatchmakingReplicasTest, ABotOnTheOtherReplicaFillsTheSeat) {
  const std::string dir = ::testing::TempDir();
  const std::vector<std::string> flags = {"--card_ms=300"};  // the player never moves
  Replica a(db_->url(), dir + "/mm-share-a.log", "200ms", {}, flags);
  auto stub_a = a.Stub();
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       a.LogLines("\"matching pool\"") < 4 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(a.LogLines("\"matching pool\""), 4);  // A matches every pool
  Replica b(db_->url(), dir + "/mm-share-b.log", "200ms", {}, flags);
  auto stub_b = b.Stub();

  grpc::ClientContext context;
  context.AddMetadata("authorization", kServiceBearer);
  v1::RegisterBotRequest request;
  request.set_name("bot-on-b");
  v1::RegisterBotResponse bot;
  ASSERT_TRUE(stub_b->RegisterBot(&context, request, &bot).ok());
  auto process = bots::ChildProcess::Start(
      {.argv = {BuildPath("bin/trix-bot"),
                "--matchmaking=127.0.0.1:" + std::to_string(b.WaitPort()), "--capacity=2",
                "--strategy=random", "--metrics_port=-1"},
       .env = {{"TRIX_BOT_BOT_KEY", bot.key()}},
       .output_path = dir + "/mm-share-bot.log"});
  ASSERT_TRUE(process.ok()) << process.status();
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Count("SELECT count(*) FROM mm_bot_streams WHERE room = 2") == 0 &&
       absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(Count("SELECT count(*) FROM mm_bot_streams WHERE room = 2"), 1);

  TicketClient player(stub_a.get(), Request("alone"), kServiceBearer);
  ASSERT_TRUE(player.WaitDone());
  ASSERT_TRUE(player.status().ok()) << player.status().error_message();
  EXPECT_EQ(b.LogLines("\"matching pool\""), 0);  // so A placed it
  const std::string table = player.assignment().table_id();
  const std::string seat_of_bot =
      absl::StrCat("SELECT seat FROM mm_assignments WHERE player_id = '", bot.bot_id(),
                   "' AND table_id = '", table, "'");
  ASSERT_EQ(Count(absl::StrCat("SELECT count(*) FROM (", seat_of_bot, ") AS s")), 1);
  // The bot plays its seat: an action of its own (not the autopilot's, which
  // carries no request id) reaches the table's log.
  const std::string acted =
      absl::StrCat("SELECT count(*) FROM game_log WHERE game_id = '", table,
                   "' AND request_id <> '' AND seat = (", seat_of_bot, ")");
  for (absl::Time until = absl::Now() + absl::Seconds(30);
       Count(acted) == 0 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_GT(Count(acted), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_bot_streams WHERE room = 1"), 1);
}


// One ServeBot stream with `key`, read on its own thread until it ends.
class ServedBot {
 public:
  ServedBot(v1::MatchmakingService::Stub* stub, const std::string& key) {
    context_.AddMetadata("authorization", "Bearer " + key);
    v1::ServeBotRequest request;
    request.set_capacity(2);
    thread_ = std::thread([this, stub, request] {
      auto reader = stub->ServeBot(&context_, request);
      v1::BotUpdate update;
      while (reader->Read(&update)) {
        if (update.has_assignment()) assigned_ = true;
      }
      grpc::Status status = reader->Finish();
      absl::MutexLock lock(&mu_);
      status_ = std::move(status);
    });
  }
  ~ServedBot() {
    context_.TryCancel();
    thread_.join();
  }
  // How the stream ended, or nullopt if it is still open after `timeout`.
  std::optional<grpc::Status> WaitEnded(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto ended = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return status_.has_value(); };
    mu_.AwaitWithTimeout(absl::Condition(&ended), timeout);
    return status_;
  }
  bool assigned() const { return assigned_.load(); }

 private:
  grpc::ClientContext context_;
  absl::Mutex mu_;
  std::optional<grpc::Status> status_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> assigned_{false};
  std::thread thread_;
};

// RevokeBot and RotateBotKey bite on the streams already open: within seconds
// they end UNAUTHENTICATED, their keys are refused, and the revoked account gets
// no seat; the rotated account's new key serves.
TEST_F(MatchmakingReplicasTest, ARevokedOrRotatedBotKeyEndsItsStreamsAndGetsNoSeat) {
  Replica a(db_->url(), ::testing::TempDir() + "/mm-revoke.log", "200ms");
  auto stub = a.Stub();
  auto admin = [&](auto call) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", kServiceBearer);
    return call(&context);
  };
  auto register_bot = [&](const std::string& name) {
    v1::RegisterBotRequest request;
    request.set_name(name);
    request.set_level(v1::BOT_LEVEL_CASUAL);
    v1::RegisterBotResponse bot;
    EXPECT_TRUE(admin([&](grpc::ClientContext* c) {
                  return stub->RegisterBot(c, request, &bot);
                }).ok());
    return bot;
  };
  const v1::RegisterBotResponse revoked = register_bot("revoked-bot");
  const v1::RegisterBotResponse rotated = register_bot("rotated-bot");
  ServedBot revoked_stream(stub.get(), revoked.key());
  ServedBot rotated_stream(stub.get(), rotated.key());
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Count("SELECT count(*) FROM mm_bot_streams") < 2 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(Count("SELECT count(*) FROM mm_bot_streams"), 2);

  v1::RevokeBotRequest revoke;
  revoke.set_bot_id(revoked.bot_id());
  v1::RevokeBotResponse revoke_response;
  ASSERT_TRUE(admin([&](grpc::ClientContext* c) {
                return stub->RevokeBot(c, revoke, &revoke_response);
              }).ok());
  v1::RotateBotKeyRequest rotate;
  rotate.set_bot_id(rotated.bot_id());
  v1::RegisterBotResponse rotated_again;
  ASSERT_TRUE(admin([&](grpc::ClientContext* c) {
                return stub->RotateBotKey(c, rotate, &rotated_again);
              }).ok());
  EXPECT_EQ(rotated_again.level(), v1::BOT_LEVEL_CASUAL);  // the account's, unchanged
  std::optional<grpc::Status> ended = revoked_stream.WaitEnded(absl::Seconds(5));
  ASSERT_TRUE(ended.has_value()) << "the revoked bot's stream is still open";
  EXPECT_EQ(ended->error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ended->error_message(), "the bot account was revoked");
  ended = rotated_stream.WaitEnded(absl::Seconds(5));
  ASSERT_TRUE(ended.has_value()) << "the old key's stream is still open";
  EXPECT_EQ(ended->error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(ended->error_message(), ::testing::HasSubstr("rotated"));
  EXPECT_EQ(a.LogLines("bot stream ended: key no longer valid"), 2);
  // Neither old key serves again.
  for (const std::string& key : {revoked.key(), rotated.key()}) {
    ServedBot again(stub.get(), key);
    ended = again.WaitEnded(absl::Seconds(5));
    ASSERT_TRUE(ended.has_value());
    EXPECT_EQ(ended->error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }

  // The rotated account's new key serves; a lone player's empty seat goes to it,
  // never to the revoked account.
  ServedBot renewed(stub.get(), rotated_again.key());
  for (absl::Time until = absl::Now() + absl::Seconds(10);
       Count("SELECT count(*) FROM mm_bot_streams") < 1 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(Count("SELECT count(*) FROM mm_bot_streams"), 1);
  TicketClient player(stub.get(), Request("alone"), kServiceBearer);
  ASSERT_TRUE(player.WaitDone());
  ASSERT_TRUE(player.status().ok()) << player.status().error_message();
  const std::string table = player.assignment().table_id();
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM mm_assignments WHERE table_id = '",
                               table, "' AND player_id = '", rotated.bot_id(), "'")),
            1);
  EXPECT_FALSE(revoked_stream.assigned());
  EXPECT_FALSE(rotated_stream.assigned());
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM mm_assignments WHERE player_id = '",
                               revoked.bot_id(), "'")),
            0);
}

}  // namespace
}  // namespace trix::matchmaking
