// End to end: whole games between trix-bot processes on a table-service process,
// checked through the service's own record of each game. Each test has its own
// database, service process and loopback port, so the tests run in parallel.
#include <signal.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/common/child_process.h"
#include "bots/sdk/seat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/wire/wire.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/pg/testing/database_test.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

constexpr char kServiceToken[] = "e2e-service-token";
// Every game must end well within this (they take a few seconds).
constexpr absl::Duration kGameTimeout = absl::Seconds(50);

class BotGamesTest : public pg::DatabaseTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    char dir[] = "/tmp/trix-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    StartService();  // on a port the kernel picks
    channel_ = TableChannel(address_);
    stub_ = v1::TableService::NewStub(channel_);
    ASSERT_TRUE(WaitServing()) << ReadFile(ServiceLog());
  }

  void TearDown() override {
    for (auto& bot : bots_) bot.reset();
    service_.reset();
    if (dir_.empty()) return;
    if (HasFailure()) {
      std::cerr << "--- table-service log\n" << ReadFile(ServiceLog());
      for (int s = 0; s < 4; ++s)
        std::cerr << "--- bot " << s << "\n" << ReadFile(BotLog(s));
    }
    std::filesystem::remove_all(dir_);
  }

  std::string ServiceLog() const { return dir_ + "/table-service.log"; }
  std::string BotLog(int seat) const { return absl::StrCat(dir_, "/bot", seat, ".log"); }

  // Listens on port_ (0 at first: any free port, then the same one again, as a
  // restarted pod behind its Service) and learns the port from --port_file.
  void StartService() {
    service_ = StartInstance("e2e-1", &port_, ServiceLog());
    address_ = absl::StrCat("127.0.0.1:", port_);
  }

  // An instance named `name` on *port (0: any; set to the bound port).
  std::unique_ptr<ChildProcess> StartInstance(const std::string& name, int* port,
                                              const std::string& log) {
    const std::string port_file = absl::StrCat(dir_, "/", name, ".port");
    unlink(port_file.c_str());
    ChildProcess::Options options;
    options.argv = {
        BuildPath("bin/table-service"), absl::StrCat("--listen=127.0.0.1:", *port),
        "--port_file=" + port_file, "--migrations_dir=" + SourcePath("migrations"),
        "--instance_id=" + name, "--metrics_port=-1", "--lease_ttl=3s",
        // Every bot comes from 127.0.0.1, one client address.
        "--peer_rate=100000", "--peer_burst=100000", "--log_level=info"};
    options.env = {{"MAMLAKA_DATABASE_URL", db_->url()},
                   {"MAMLAKA_SERVICE_TOKEN", kServiceToken}};
    options.output_path = log;
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
    EXPECT_TRUE(child.ok()) << child.status();
    if (!child.ok()) return nullptr;
    for (const absl::Time until = absl::Now() + absl::Seconds(30);
         absl::Now() < until && !(*child)->Poll();) {
      std::ifstream in(port_file);
      if (in >> *port && *port > 0) break;
      absl::SleepFor(absl::Milliseconds(20));
    }
    EXPECT_GT(*port, 0) << ReadFile(log);
    return *std::move(child);
  }

  // The service answers UNAVAILABLE until its database is ready; then an unknown
  // table is NOT_FOUND.
  bool WaitServing() {
    const absl::Time until = absl::Now() + absl::Seconds(30);
    while (absl::Now() < until) {
      if (service_->Poll()) return false;
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
      // Fail-fast calls would keep answering the last connection error for a
      // while after the port opens.
      context.set_wait_for_ready(true);
      v1::GetTableRequest request;
      request.set_table_id("00000000-0000-0000-0000-000000000000");
      v1::TableView view;
      const grpc::Status s = stub_->GetTable(&context, request, &view);
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE &&
          s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
        return true;
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
    return false;
  }

  v1::CreateTableResponse CreateTable(const std::string& mode,
                                      const std::array<int64_t, 4>& stakes = {},
                                      bool seat_seeds = false) {
    v1::CreateTableRequest request;
    request.set_seat_seeds(seat_seeds);
    request.set_request_id(absl::StrCat("e2e-", mode, "-", port_));
    request.set_public_spectating(true);  // the test follows it with GetTable
    *request.mutable_mode() = wire::ModeFromName(mode).value();
    request.mutable_clocks()->set_contract_ms(5000);
    request.mutable_clocks()->set_doubling_ms(5000);
    request.mutable_clocks()->set_card_ms(5000);
    for (int s = 0; s < 4; ++s) {
      v1::SeatAssignment* seat = request.add_seats();
      seat->set_player_id(absl::StrCat("e2e-player-", port_, "-", s));
      seat->set_display_name(absl::StrCat("Player ", s));
      seat->set_bot(stakes[s] == 0);
      seat->set_stake(stakes[s]);
    }
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kServiceToken));
    v1::CreateTableResponse response;
    const grpc::Status s = stub_->CreateTable(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(response.seat_tokens_size(), 4);
    return response;
  }

  // Seats 0 and 2 heuristic, 1 and 3 random (the first `seats` of them); they dial
  // `address` (default: the service's).
  void StartBots(const v1::CreateTableResponse& table, const std::string& think = "0s",
                 std::string address = "", int seats = 4) {
    if (address.empty()) address = address_;
    for (int s = 0; s < seats; ++s) {
      ChildProcess::Options options;
      options.argv = {BuildPath("bin/trix-bot")};
      options.env = {{"TRIX_BOT_ADDRESS", address},
                     {"TRIX_BOT_TABLE", table.table_id()},
                     {"TRIX_BOT_TOKEN", table.seat_tokens(s)},
                     {"TRIX_BOT_STRATEGY", s % 2 == 0 ? "heuristic" : "random"},
                     {"TRIX_BOT_THINK", think},
                     {"TRIX_BOT_LOG_LEVEL", "info"}};
      options.output_path = BotLog(s);
      absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
      ASSERT_TRUE(child.ok()) << child.status();
      bots_[s] = *std::move(child);
    }
  }

  // Waits for the four bots; each must exit 0 having printed its result line.
  std::array<nlohmann::json, 4> WaitBots() {
    std::array<nlohmann::json, 4> lines;
    const absl::Time until = absl::Now() + kGameTimeout;
    for (int s = 0; s < 4; ++s) {
      absl::StatusOr<int> status = bots_[s]->Wait(until - absl::Now());
      EXPECT_TRUE(status.ok()) << "bot " << s << ": " << status.status();
      if (!status.ok()) continue;
      EXPECT_EQ(*status, 0) << "bot " << s;
      // The last line of the bot's output that is its result (JSON with "seat").
      std::istringstream log(ReadFile(BotLog(s)));
      for (std::string line; std::getline(log, line);) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.contains("seat") && j.contains("actions"))
          lines[s] = j;
      }
      EXPECT_FALSE(lines[s].is_null()) << "bot " << s << " printed no result";
    }
    return lines;
  }

  v1::GameRecord Record(const std::string& table_id) {
    grpc::ClientContext context;
    v1::GetGameRecordRequest request;
    request.set_game_id(table_id);
    v1::GameRecord record;
    const grpc::Status s = stub_->GetGameRecord(&context, request, &record);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return record;
  }

  std::string dir_;
  int port_ = 0;
  std::string address_;
  std::unique_ptr<ChildProcess> service_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TableService::Stub> stub_;
  std::array<std::unique_ptr<ChildProcess>, 4> bots_;
};

// The result every finished game must have.
void ExpectConsistentResult(const v1::GameRecord& record, bool partner) {
  const v1::GameResult& r = record.result();
  ASSERT_EQ(r.totals_size(), 4);
  ASSERT_EQ(r.places_size(), 4);
  int sum = 0;
  for (int t : r.totals()) sum += t;
  EXPECT_EQ(sum, 0);
  if (partner) {
    ASSERT_EQ(r.team_totals_size(), 2);
    EXPECT_EQ(r.team_totals(0), r.totals(0) + r.totals(2));
    EXPECT_EQ(r.team_totals(1), r.totals(1) + r.totals(3));
    EXPECT_EQ(r.team_totals(0), -r.team_totals(1));
    const int winner = r.team_totals(0) > 0 ? 0 : r.team_totals(0) < 0 ? 1 : -1;
    EXPECT_EQ(r.winner_team(), winner);
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(r.places(s), winner < 0 || s % 2 == winner ? 1 : 2) << "seat " << s;
    }
  } else {
    for (int s = 0; s < 4; ++s) {
      int better = 0;
      for (int o = 0; o < 4; ++o) better += r.totals(o) > r.totals(s);
      EXPECT_EQ(r.places(s), better + 1) << "seat " << s;
    }
  }
  ASSERT_GT(record.events_size(), 0);
  EXPECT_TRUE(record.events(record.events_size() - 1).has_game_ended());
}

TEST_F(BotGamesTest, FourBotProcessesFinishAPartnerGame) {
  const absl::Time start = absl::Now();
  const v1::CreateTableResponse table = CreateTable("complex-partner");
  StartBots(table);
  const std::array<nlohmann::json, 4> lines = WaitBots();
  const v1::GameRecord record = Record(table.table_id());
  ExpectConsistentResult(record, /*partner=*/true);
  for (int s = 0; s < 4; ++s) {
    if (lines[s].is_null()) continue;
    EXPECT_EQ(lines[s]["seat"], s);
    EXPECT_EQ(lines[s]["total"], record.result().totals(s));
    // Nothing the bots sent was refused: they only answer the server's options.
    EXPECT_EQ(lines[s]["rejected"], 0) << "bot " << s;
    EXPECT_GT(lines[s]["actions"].get<int>(), 20) << "bot " << s;
  }
  EXPECT_LT(absl::Now() - start, kGameTimeout);
}

TEST_F(BotGamesTest, AStakedSoloGameSharesThePot) {
  // Seats 0, 1 and 2 are people who stake (bots never do): pot 450, 70/30/0.
  const v1::CreateTableResponse table = CreateTable("classic-solo", {100, 50, 300, 0});
  StartBots(table);
  WaitBots();
  const v1::GameRecord record = Record(table.table_id());
  ExpectConsistentResult(record, /*partner=*/false);
  double paid = 0;
  for (double p : record.result().payouts()) paid += p;
  EXPECT_NEAR(paid, 450.0, 0.01);
  EXPECT_EQ(record.result().payouts(3), 0.0);  // not a staker

  // The players' histories list the game.
  grpc::ClientContext context;
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::ListPlayerGamesRequest request;
  request.set_player_id(record.seats(0).player_id());
  v1::ListPlayerGamesResponse games;
  ASSERT_TRUE(stub_->ListPlayerGames(&context, request, &games).ok());
  ASSERT_EQ(games.games_size(), 1);
  EXPECT_EQ(games.games(0).game_id(), table.table_id());
  EXPECT_EQ(games.games(0).total(), record.result().totals(0));
}

// The service drains and restarts in the middle of the game (a rolling update):
// the bots' streams end UNAVAILABLE, they resume after the last event they saw,
// and the game finishes as if nothing happened.
TEST_F(BotGamesTest, BotsSurviveAServiceRestart) {
  const v1::CreateTableResponse table = CreateTable("complex-solo");
  StartBots(table, /*think=*/"15ms");
  // Mid-game for certain: the bots are held once the game has made progress, so
  // it cannot end before the restart (the clocks are 5 s).
  const absl::Time until = absl::Now() + kGameTimeout;
  while (Record(table.table_id()).events_size() < 40 && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  for (auto& bot : bots_) bot->Signal(SIGSTOP);
  const v1::GameRecord before = Record(table.table_id());
  ASSERT_GE(before.events_size(), 40);
  ASSERT_FALSE(before.events(before.events_size() - 1).has_game_ended());
  service_->Signal(SIGTERM);
  absl::StatusOr<int> drained = service_->Wait(absl::Seconds(20));
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(*drained, 0);
  StartService();  // the same port
  ASSERT_TRUE(WaitServing());
  for (auto& bot : bots_) bot->Signal(SIGCONT);

  const std::array<nlohmann::json, 4> lines = WaitBots();
  ExpectConsistentResult(Record(table.table_id()), /*partner=*/false);
  int resubscribes = 0;
  for (const nlohmann::json& line : lines) {
    if (!line.is_null()) resubscribes += line["resubscribes"].get<int>();
  }
  EXPECT_GE(resubscribes, 4);  // every bot resumed at least once
}

// SIGTERM stops a seat's bot: it leaves the seat to the table's autopilot and
// exits 0, rather than being ended by the signal on one of gRPC's threads.
TEST_F(BotGamesTest, ABotStopsOnSigterm) {
  const v1::CreateTableResponse table = CreateTable("complex-solo");
  StartBots(table, /*think=*/"15ms");
  const absl::Time until = absl::Now() + kGameTimeout;
  while (Record(table.table_id()).events_size() < 20 && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  bots_[0]->Signal(SIGTERM);
  absl::StatusOr<int> stopped = bots_[0]->Wait(absl::Seconds(10));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(*stopped, 0) << ReadFile(BotLog(0));
  EXPECT_THAT(ReadFile(BotLog(0)), ::testing::HasSubstr("autopilot plays the seat"));
}

// Two instances, as behind a load balancer: the bots dial the second, which does
// not host their table and sends them to the first; when the first drains, they
// come back to the second, which adopts the table, and the game finishes.
TEST_F(BotGamesTest, BotsFollowTheirTableAcrossInstances) {
  int other_port = 0;
  std::unique_ptr<ChildProcess> other =
      StartInstance("e2e-2", &other_port, dir_ + "/other.log");
  ASSERT_NE(other, nullptr);
  const std::string other_address = absl::StrCat("127.0.0.1:", other_port);
  const v1::CreateTableResponse table = CreateTable("complex-partner");  // on e2e-1
  StartBots(table, /*think=*/"15ms", other_address);
  const absl::Time until = absl::Now() + kGameTimeout;
  while (Record(table.table_id()).events_size() < 40 && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  service_->Signal(SIGTERM);  // drains: releases the lease
  ASSERT_TRUE(service_->Wait(absl::Seconds(20)).ok());
  channel_ = TableChannel(other_address);
  stub_ = v1::TableService::NewStub(channel_);

  const std::array<nlohmann::json, 4> lines = WaitBots();
  ExpectConsistentResult(Record(table.table_id()), /*partner=*/true);
  for (const nlohmann::json& line : lines) {
    if (!line.is_null()) {
      EXPECT_GE(line["moves"].get<int>(), 1) << line.dump();
    }
  }
  if (HasFailure()) std::cerr << "--- e2e-2 log\n" << ReadFile(dir_ + "/other.log");
}

// A bot built outside the repository against the installed SDK (bots/sdk/example,
// built by the test bots.sdk_example_builds) plays seat 3 to the end.
// At a table that deals from everyone's seeds, too: the SDK gives each seat's
// seed itself, trix-bot's and the installed SDK's example's alike.
TEST_F(BotGamesTest, TheSdkExampleBotPlaysASeat) {
  const v1::CreateTableResponse table = CreateTable("classic-solo", {}, /*seat_seeds=*/true);
  StartBots(table, "0s", /*address=*/"", /*seats=*/3);
  ChildProcess::Options options;
  options.argv = {BuildPath(LOWEST_BOT_BINARY), absl::StrCat("--address=", address_),
                  absl::StrCat("--table=", table.table_id()),
                  absl::StrCat("--token=", table.seat_tokens(3))};
  options.output_path = BotLog(3);
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
  ASSERT_TRUE(child.ok()) << child.status();
  bots_[3] = *std::move(child);

  const absl::Time until = absl::Now() + kGameTimeout;
  for (int s = 0; s < 4; ++s) {
    absl::StatusOr<int> status = bots_[s]->Wait(until - absl::Now());
    ASSERT_TRUE(status.ok()) << "bot " << s << ": " << status.status();
    EXPECT_EQ(*status, 0) << "bot " << s;
  }
  const v1::GameRecord record = Record(table.table_id());
  ExpectConsistentResult(record, /*partner=*/false);
  ASSERT_EQ(record.deal_proof().seat_seeds_size(), 4);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(record.deal_proof().seat_seeds(s).size(), 32u) << "seat " << s << " gave no seed";
  }
  // The example prints the result it was sent: the recorded one.
  EXPECT_NE(ReadFile(BotLog(3)).find(record.result().ShortDebugString()),
            std::string::npos)
      << ReadFile(BotLog(3));
}

}  // namespace
}  // namespace trix::bots
