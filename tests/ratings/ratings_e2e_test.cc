// End to end: a staked game played to the end by four trix-bot processes on a
// table-service process is rated and settled by a ratings-service process, exactly
// once, even when the ratings service is killed and the outbox replayed.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/common/child_process.h"
#include "gtest/gtest.h"
#include "proto/wire/outbox_row.h"
#include "proto/wire/wire.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/ratings/testing/ratings_db_test.h"
#include "tests/ratings/ratings_process.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::ratings {
namespace {

constexpr char kTableToken[] = "e2e-table-token";


class RatingsEndToEndTest : public RatingsDbTest {
 protected:
  void SetUp() override {
    RatingsDbTest::SetUp();
    if (HasFatalFailure()) return;
    char dir[] = "/tmp/trix-ratings-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    const std::string port_file = dir_ + "/table-service.port";
    bots::ChildProcess::Options options;
    options.argv = {
        BuildPath("bin/table-service"), "--listen=127.0.0.1:0",
        "--port_file=" + port_file,     "--migrations_dir=" + SourcePath("migrations"),
        "--instance_id=ratings-e2e",    "--metrics_port=-1",
        "--peer_rate=100000",           "--peer_burst=100000"};
    options.env = {{"MAMLAKA_DATABASE_URL", db_->url()}, {"MAMLAKA_SERVICE_TOKEN", kTableToken}};
    options.output_path = dir_ + "/table-service.log";
    absl::StatusOr<std::unique_ptr<bots::ChildProcess>> table = bots::ChildProcess::Start(options);
    ASSERT_TRUE(table.ok()) << table.status();
    table_service_ = *std::move(table);
    int port = 0;  // written once the service listens
    for (absl::Time until = absl::Now() + absl::Seconds(30); port == 0 && absl::Now() < until;
         absl::SleepFor(absl::Milliseconds(20))) {
      std::ifstream in(port_file);
      if (!(in >> port)) port = 0;
    }
    ASSERT_GT(port, 0) << "table-service did not start";
    address_ = absl::StrCat("127.0.0.1:", port);
    tables_ = v1::TableService::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
    StartRatings();
  }
  void TearDown() override {
    for (auto& bot : bots_) bot.reset();
    if (HasFailure()) {
      std::cerr << "--- table-service\n" << ReadFile(dir_ + "/table-service.log");
      std::cerr << "--- ratings-service\n" << ReadFile(dir_ + "/ratings-service.log");
    }
    ratings_.reset();
    table_service_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    RatingsDbTest::TearDown();
  }
  void StartRatings(const std::vector<std::string>& flags = {},
                    const std::vector<std::pair<std::string, std::string>>& env = {}) {
    absl::StatusOr<std::unique_ptr<RatingsProcess>> p =
        RatingsProcess::Start(db_->url(), dir_ + "/ratings-service.log", flags, env);
    ASSERT_TRUE(p.ok()) << p.status();
    ratings_ = *std::move(p);
  }
  v1::CreateTableResponse CreateTable(const std::array<std::string, 4>& players,
                                      const std::array<int64_t, 4>& stakes) {
    v1::CreateTableRequest request;
    request.set_request_id(absl::StrCat("ratings-e2e-", players[0], "-", ++tables_made_));
    *request.mutable_mode() = wire::ModeFromName("classic-solo").value();
    for (int s = 0; s < 4; ++s) {
      v1::SeatAssignment* seat = request.add_seats();
      seat->set_player_id(players[s]);
      seat->set_bot(stakes[s] == 0);
      seat->set_stake(stakes[s]);
    }
    v1::CreateTableResponse response;
    const absl::Time until = absl::Now() + absl::Seconds(30);
    for (;;) {  // UNAVAILABLE until the table service has its database
      grpc::ClientContext context;
      context.AddMetadata("authorization", absl::StrCat("Bearer ", kTableToken));
      context.set_wait_for_ready(true);
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
      const grpc::Status s = tables_->CreateTable(&context, request, &response);
      if (s.ok()) break;
      EXPECT_TRUE(s.error_code() == grpc::StatusCode::UNAVAILABLE ||
                  s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
          << s.error_message();
      if (absl::Now() > until || HasFailure()) return response;
      absl::SleepFor(absl::Milliseconds(100));
    }
    return response;
  }
  void PlayToTheEnd(const v1::CreateTableResponse& table) {
    for (int s = 0; s < 4; ++s) {
      bots::ChildProcess::Options options;
      options.argv = {BuildPath("bin/trix-bot")};
      options.env = {{"TRIX_BOT_ADDRESS", address_},
                     {"TRIX_BOT_TABLE", table.table_id()},
                     {"TRIX_BOT_TOKEN", table.seat_tokens(s)},
                     {"TRIX_BOT_STRATEGY", s % 2 == 0 ? "heuristic" : "random"},
                     {"TRIX_BOT_THINK", "0s"}};
      options.output_path = absl::StrCat(dir_, "/bot", s, ".log");
      absl::StatusOr<std::unique_ptr<bots::ChildProcess>> bot = bots::ChildProcess::Start(options);
      ASSERT_TRUE(bot.ok()) << bot.status();
      bots_[s] = *std::move(bot);
    }
    for (int s = 0; s < 4; ++s) {
      absl::StatusOr<int> status = bots_[s]->Wait(absl::Seconds(60));
      ASSERT_TRUE(status.ok()) << status.status();
      EXPECT_EQ(*status, 0) << ReadFile(absl::StrCat(dir_, "/bot", s, ".log"));
    }
  }
  template <typename Request, typename Response, typename Call>
  Response Ask(Call call, const Request& request) {
    grpc::ClientContext context;
    ratings_->Authorize(context);
    Response response;
    const grpc::Status s = (ratings_->stub().*call)(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response;
  }
  v1::Balance Balance(const std::string& player) {
    v1::GetBalanceRequest r;
    r.set_player_id(player);
    return Ask<v1::GetBalanceRequest, v1::Balance>(&v1::RatingsService::Stub::GetBalance, r);
  }
  int64_t Applied() {
    return Sql("SELECT count(*) FROM ratings.applied_games")[0][0].as<int64_t>();
  }
  // Waits up to `within` for `n` games applied; the count then.
  int64_t AwaitApplied(int64_t n, absl::Duration within) {
    const absl::Time until = absl::Now() + within;
    while (Applied() < n && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
    return Applied();
  }
  void Credit(const std::string& player, int64_t amount) {
    v1::TransferRequest credit;
    credit.set_request_id("buy-" + player);
    credit.set_player_id(player);
    credit.set_amount(amount);
    Ask<v1::TransferRequest, v1::TransferResponse>(&v1::RatingsService::Stub::Credit, credit);
  }
  // Each player of `stakes` above 0 holds it and attaches the hold to their seat
  // of `table_id`, as matchmaking does.
  void HoldAndAttach(const std::array<std::string, 4>& players,
                     const std::array<int64_t, 4>& stakes, const std::string& table_id) {
    for (int s = 0; s < 4; ++s) {
      if (stakes[s] == 0) continue;
      v1::HoldStakeRequest hold;
      hold.set_request_id(absl::StrCat("ticket-", players[s]));
      hold.set_player_id(players[s]);
      hold.set_amount(stakes[s]);
      v1::AttachHoldRequest attach;
      attach.set_hold_id(
          Ask<v1::HoldStakeRequest, v1::Hold>(&v1::RatingsService::Stub::HoldStake, hold)
              .hold_id());
      attach.set_table_id(table_id);
      attach.set_seat(s);
      const v1::Hold attached =
          Ask<v1::AttachHoldRequest, v1::Hold>(&v1::RatingsService::Stub::AttachHold, attach);
      EXPECT_EQ(attached.state(), v1::HOLD_STATE_ATTACHED);
    }
  }
  // A table where each player of `stakes` above 0 stakes it, their holds attached;
  // the others are bots.
  v1::CreateTableResponse StakedTable(const std::array<std::string, 4>& players,
                                      const std::array<int64_t, 4>& stakes) {
    const v1::CreateTableResponse table = CreateTable(players, stakes);
    if (!table.table_id().empty()) HoldAndAttach(players, stakes, table.table_id());
    return table;
  }
  // What each seat's balance is once `game_id` is settled, from its outbox row.
  std::array<int64_t, 4> SettledBalances(const std::string& game_id,
                                         const std::array<int64_t, 4>& credits) {
    const absl::StatusOr<v1::internal::FinishedGame> payload = wire::OutboxRowFromJson(
        Sql("SELECT payload::text FROM game_results WHERE game_id = '" + game_id + "'")[0][0]
            .as<std::string>());
    EXPECT_TRUE(payload.ok()) << payload.status();
    std::array<int64_t, 4> expected = credits;
    if (!payload.ok()) return expected;
    for (const v1::internal::FinishedSeat& seat : payload->seats()) {
      expected[seat.seat()] += seat.payout() - seat.stake();
    }
    return expected;
  }

  std::string dir_;
  std::string address_;
  std::unique_ptr<bots::ChildProcess> table_service_;
  std::unique_ptr<v1::TableService::Stub> tables_;
  std::unique_ptr<RatingsProcess> ratings_;
  std::array<std::unique_ptr<bots::ChildProcess>, 4> bots_;
  int tables_made_ = 0;
};

TEST_F(RatingsEndToEndTest, AStakedGamePlayedToTheEndIsRatedAndSettledOnce) {
  // Three people stake 100 each (70/30/0 of 300, ties split evenly: always whole);
  // seat 3 is a bot. Each person has a hold attached to their seat.
  const std::string tag = db_->name().substr(db_->name().size() - 6);
  const std::array<std::string, 4> players = {"ann-" + tag, "bo-" + tag, "cy-" + tag,
                                              "bot-" + tag};
  for (int s = 0; s < 3; ++s) Credit(players[s], 1000);
  const v1::CreateTableResponse table = StakedTable(players, {100, 100, 100, 0});
  ASSERT_FALSE(table.table_id().empty());
  PlayToTheEnd(table);
  if (HasFatalFailure()) return;
  ASSERT_EQ(AwaitApplied(1, absl::Seconds(10)), 1);
  EXPECT_EQ(Sql("SELECT settlement FROM ratings.applied_games")[0][0].as<std::string>(), "settled");

  const absl::StatusOr<v1::internal::FinishedGame> payload = wire::OutboxRowFromJson(
      Sql("SELECT payload::text FROM game_results")[0][0].as<std::string>());
  ASSERT_TRUE(payload.ok()) << payload.status();
  std::array<int64_t, 4> expected{};
  for (const v1::internal::FinishedSeat& seat : payload->seats()) {
    expected[seat.seat()] = 1000 - seat.stake() + seat.payout();
  }
  for (int s = 0; s < 3; ++s) {
    const v1::Balance b = Balance(players[s]);
    EXPECT_EQ(b.balance(), expected[s]) << players[s];
    EXPECT_EQ(b.held(), 0);
  }
  for (int s = 0; s < 4; ++s) {
    v1::GetRatingHistoryRequest r;
    r.set_player_id(players[s]);
    *r.mutable_mode() = wire::ModeFromName("classic-solo").value();
    const v1::GetRatingHistoryResponse history =
        Ask<v1::GetRatingHistoryRequest, v1::GetRatingHistoryResponse>(
            &v1::RatingsService::Stub::GetRatingHistory, r);
    ASSERT_EQ(history.changes_size(), 1) << players[s];
    EXPECT_EQ(history.changes(0).game_id(), table.table_id());
    EXPECT_EQ(history.changes(0).seat(), s);
    EXPECT_EQ(history.changes(0).place(), payload->seats(s).place());
  }
  CheckLedger();

  // kill -9 and a replay of the whole outbox: nothing moves again.
  ratings_->process().Signal(SIGKILL);
  ASSERT_TRUE(ratings_->process().Wait(absl::Seconds(10)).ok());
  Sql("UPDATE game_results SET consumed_at = NULL");
  StartRatings();
  const absl::Time replayed = absl::Now() + absl::Seconds(10);
  while (Sql("SELECT count(*) FROM game_results WHERE consumed_at IS NULL")[0][0].as<int>() > 0 &&
         absl::Now() < replayed) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(Sql("SELECT count(*) FROM game_results WHERE consumed_at IS NULL")[0][0].as<int>(), 0);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(Balance(players[s]).balance(), expected[s]);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 4);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.entries WHERE game_id IS NOT NULL")[0][0].as<int>(),
            2);
  CheckLedger();
}

// Two players stake their whole balance (100 of 100), a third 100 of 150: the game
// settles, and the unstaked game after it is rated.
TEST_F(RatingsEndToEndTest, AStakeOfAWholeBalanceSettlesAndTheNextGameIsRated) {
  const std::string tag = db_->name().substr(db_->name().size() - 6);
  const std::array<std::string, 4> players = {"ann-" + tag, "bo-" + tag, "cy-" + tag,
                                              "bot-" + tag};
  const std::array<int64_t, 4> credits = {100, 100, 150, 0};
  for (int s = 0; s < 3; ++s) Credit(players[s], credits[s]);
  const v1::CreateTableResponse staked = StakedTable(players, {100, 100, 100, 0});
  ASSERT_FALSE(staked.table_id().empty());
  PlayToTheEnd(staked);
  if (HasFatalFailure()) return;
  ASSERT_EQ(AwaitApplied(1, absl::Seconds(10)), 1);
  EXPECT_EQ(Sql("SELECT settlement FROM ratings.applied_games")[0][0].as<std::string>(), "settled");
  const std::array<int64_t, 4> expected = SettledBalances(staked.table_id(), credits);
  for (int s = 0; s < 3; ++s) {
    const v1::Balance b = Balance(players[s]);
    EXPECT_EQ(b.balance(), expected[s]) << players[s];
    EXPECT_EQ(b.held(), 0) << players[s];
  }

  const v1::CreateTableResponse next = CreateTable(players, {0, 0, 0, 0});
  ASSERT_FALSE(next.table_id().empty());
  PlayToTheEnd(next);
  if (HasFatalFailure()) return;
  ASSERT_EQ(AwaitApplied(2, absl::Seconds(10)), 2);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history WHERE game_id = '" +
                next.table_id() + "'")[0][0]
                .as<int>(),
            4);
  CheckLedger();
}

// The ratings service with its first settlement refused by the database (the
// failpoint consumer.settlement_fails): that game is set aside, the 100 games
// after it are rated without waiting, and the retry settles it.
TEST_F(RatingsEndToEndTest, ARefusedSettlementDoesNotDelayTheNextHundredGames) {
  ratings_.reset();
  StartRatings({"--set_aside_retry=1s"}, {{"MAMLAKA_FAILPOINTS", "consumer.settlement_fails=1"}});
  const std::array<std::string, 4> players = {"ann", "bo", "cy", "di"};
  for (const std::string& p : players) Credit(p, 1000);
  HoldAndAttach(players, {100, 100, 100, 100}, "staked");
  OutboxGame game = OutboxGame::Solo("staked", players, {1, 2, 3, 4});
  const std::array<int64_t, 4> payouts = {240, 120, 40, 0};
  for (int s = 0; s < 4; ++s) {
    game.seats[s].stake = 100;
    game.seats[s].payout = payouts[s];
  }
  std::vector<OutboxGame> games = {game};
  for (int i = 0; i < 100; ++i) {
    games.push_back(OutboxGame::Solo(absl::StrCat("after-", i), players, {4, 3, 2, 1}));
  }
  Write(games);
  EXPECT_EQ(AwaitApplied(101, absl::Seconds(20)), 101);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 404);
  const pqxx::result aside = Sql("SELECT error FROM ratings.set_aside_settlements");
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_NE(aside[0][0].as<std::string>().find("consumer.settlement_fails"), std::string::npos)
      << aside[0][0].as<std::string>();

  const absl::Time until = absl::Now() + absl::Seconds(15);
  while (Sql("SELECT settlement FROM ratings.applied_games WHERE game_id = 'staked'")[0][0]
                 .as<std::string>() != "settled" &&
         absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.set_aside_settlements WHERE resolved IS NOT NULL")
                [0][0]
                    .as<int>(),
            1);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(Balance(players[s]).balance(), 1000 - 100 + payouts[s]) << players[s];
  }
  CheckLedger();
}

}  // namespace
}  // namespace trix::ratings
