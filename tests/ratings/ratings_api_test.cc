// The real ratings-service process over gRPC: the ledger's calls and their exact
// status codes, a kill -9 in the middle of the outbox, and how soon an idle service
// rates a finished game.
#include <signal.h>

#include <filesystem>
#include <memory>
#include <pqxx/pqxx>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/testing/read_file.h"
#include "services/ratings/testing/ratings_db_test.h"
#include "tests/load/metrics_scrape.h"
#include "tests/ratings/ratings_process.h"

namespace trix::ratings {
namespace {


class RatingsApiTest : public RatingsDbTest {
 protected:
  void SetUp() override {
    RatingsDbTest::SetUp();
    if (HasFatalFailure()) return;
    log_ = absl::StrCat(::testing::TempDir(), "ratings-", db_->name(), ".log");
    std::filesystem::remove(log_);
    StartService();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "--- ratings-service log\n" << ReadFile(log_);
    service_.reset();
    RatingsDbTest::TearDown();
  }
  void StartService(const std::vector<std::string>& flags = {}) {
    absl::StatusOr<std::unique_ptr<RatingsProcess>> p =
        RatingsProcess::Start(db_->url(), log_, flags);
    ASSERT_TRUE(p.ok()) << p.status();
    service_ = *std::move(p);
  }
  grpc::Status Credit(const std::string& request_id, const std::string& player, int64_t amount,
                      v1::TransferResponse* response) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::TransferRequest request;
    request.set_request_id(request_id);
    request.set_player_id(player);
    request.set_amount(amount);
    return service_->stub().Credit(&context, request, response);
  }
  v1::Balance Balance(const std::string& player) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetBalanceRequest request;
    request.set_player_id(player);
    v1::Balance balance;
    const grpc::Status s = service_->stub().GetBalance(&context, request, &balance);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return balance;
  }
  grpc::Status Hold(const std::string& request_id, const std::string& player, int64_t amount,
                    v1::Hold* hold) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::HoldStakeRequest request;
    request.set_request_id(request_id);
    request.set_player_id(player);
    request.set_amount(amount);
    return service_->stub().HoldStake(&context, request, hold);
  }
  int64_t AppliedGames() {
    return Sql("SELECT count(*) FROM ratings.applied_games")[0][0].as<int64_t>();
  }

  std::string log_;
  std::unique_ptr<RatingsProcess> service_;
};

TEST_F(RatingsApiTest, CallersWithoutACredentialAreRefused) {
  v1::GetBalanceRequest request;
  request.set_player_id("p");
  v1::Balance balance;
  {
    grpc::ClientContext context;
    EXPECT_EQ(service_->stub().GetBalance(&context, request, &balance).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::ClientContext context;
    // A token that is no credential's proves nobody (scopes: service_scopes_test).
    context.AddMetadata("authorization", "Bearer wrong");
    EXPECT_EQ(service_->stub().GetBalance(&context, request, &balance).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
}

TEST_F(RatingsApiTest, InsufficientBalanceAndAReleasedHold) {
  v1::TransferResponse credit;
  ASSERT_TRUE(Credit("buy-1", "p", 100, &credit).ok());
  EXPECT_EQ(credit.balance().available(), 100);
  EXPECT_EQ(Credit("buy-1", "p", 100, &credit).error_code(), grpc::StatusCode::OK);
  EXPECT_EQ(Credit("buy-1", "p", 99, &credit).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Credit("buy-2", "p", -5, &credit).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::Hold hold;
  EXPECT_EQ(Hold("ticket-1", "p", 150, &hold).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Hold("ticket-1", "nobody", 1, &hold).error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(Hold("ticket-2", "p", 60, &hold).ok());
  EXPECT_EQ(hold.state(), v1::HOLD_STATE_HELD);
  EXPECT_EQ(Balance("p").held(), 60);
  EXPECT_EQ(Balance("p").available(), 40);
  {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::TransferRequest debit;
    debit.set_request_id("out-1");
    debit.set_player_id("p");
    debit.set_amount(41);
    v1::TransferResponse response;
    EXPECT_EQ(service_->stub().Debit(&context, debit, &response).error_code(),
              grpc::StatusCode::FAILED_PRECONDITION);
  }
  {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::ReleaseHoldRequest release;
    release.set_hold_id(hold.hold_id());
    v1::Hold released;
    ASSERT_TRUE(service_->stub().ReleaseHold(&context, release, &released).ok());
    EXPECT_EQ(released.state(), v1::HOLD_STATE_RELEASED);
  }
  EXPECT_EQ(Balance("p").available(), 100);
  EXPECT_EQ(Balance("p").held(), 0);
  {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::AttachHoldRequest attach;
    attach.set_hold_id(hold.hold_id());
    attach.set_table_id("t1");
    v1::Hold attached;
    EXPECT_EQ(service_->stub().AttachHold(&context, attach, &attached).error_code(),
              grpc::StatusCode::FAILED_PRECONDITION);
  }
  {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetStatementRequest request;
    request.set_player_id("p");
    v1::GetStatementResponse statement;
    ASSERT_TRUE(service_->stub().GetStatement(&context, request, &statement).ok());
    ASSERT_EQ(statement.lines_size(), 1);
    EXPECT_EQ(statement.lines(0).kind(), v1::ENTRY_KIND_CREDIT);
    EXPECT_EQ(statement.lines(0).amount(), 100);
  }
  {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetLeaderboardRequest request;  // no mode
    v1::GetLeaderboardResponse response;
    EXPECT_EQ(service_->stub().GetLeaderboard(&context, request, &response).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  CheckLedger();
}

TEST_F(RatingsApiTest, AnAttachedHoldIsReleasedByNamingItsTable) {
  v1::TransferResponse credit;
  ASSERT_TRUE(Credit("buy-1", "p", 100, &credit).ok());
  v1::Hold hold;
  ASSERT_TRUE(Hold("ticket-1", "p", 60, &hold).ok());
  auto attach = [&](const std::string& table, v1::Hold* out) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::AttachHoldRequest request;
    request.set_hold_id(hold.hold_id());
    request.set_table_id(table);
    return service_->stub().AttachHold(&context, request, out);
  };
  auto release = [&](const std::string& table, v1::Hold* out) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::ReleaseHoldRequest request;
    request.set_hold_id(hold.hold_id());
    request.set_table_id(table);
    return service_->stub().ReleaseHold(&context, request, out);
  };
  v1::Hold out;
  ASSERT_TRUE(attach("t1", &out).ok());
  EXPECT_EQ(release("", &out).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(release("t2", &out).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Balance("p").held(), 60);
  ASSERT_TRUE(release("t1", &out).ok());
  EXPECT_EQ(out.state(), v1::HOLD_STATE_RELEASED);
  EXPECT_EQ(Balance("p").held(), 0);
  EXPECT_TRUE(release("t1", &out).ok());  // a no-op
  CheckLedger();
}

TEST_F(RatingsApiTest, ADatabaseErrorIsLoggedAndAnsweredWithItsId) {
  v1::TransferResponse credit;
  ASSERT_TRUE(Credit("buy-1", "p", 100, &credit).ok());
  v1::Hold hold;
  ASSERT_TRUE(Hold("ticket-1", "p", 60, &hold).ok());
  Sql("ALTER TABLE ratings.holds ADD CONSTRAINT no_boom CHECK (table_id IS DISTINCT FROM 'boom')");
  grpc::ClientContext context;
  service_->Authorize(context);
  v1::AttachHoldRequest request;
  request.set_hold_id(hold.hold_id());
  request.set_table_id("boom");
  v1::Hold out;
  const grpc::Status s = service_->stub().AttachHold(&context, request, &out);
  ASSERT_FALSE(s.ok());
  const std::string message = s.error_message();
  EXPECT_EQ(message.find("no_boom"), std::string::npos) << message;
  EXPECT_EQ(message.find("DETAIL"), std::string::npos) << message;
  const size_t at = message.find("database error ");
  ASSERT_NE(at, std::string::npos) << message;
  const std::string id = message.substr(at + 15, 16);
  const absl::Time until = absl::Now() + absl::Seconds(5);
  while (ReadFile(log_).find(id) == std::string::npos && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  const std::string log = ReadFile(log_);
  const size_t line = log.find(id);
  ASSERT_NE(line, std::string::npos);
  EXPECT_NE(log.find("no_boom", log.rfind('\n', line)), std::string::npos);
}

TEST_F(RatingsApiTest, AnIdleServiceRatesAFinishedGameWithinASecond) {
  // Let the consumer go idle (waiting on LISTEN) first.
  absl::SleepFor(absl::Milliseconds(300));
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  const absl::Time written = absl::Now();
  while (AppliedGames() == 0 && absl::Now() - written < absl::Seconds(5)) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_LT(absl::Now() - written, absl::Seconds(1));
  grpc::ClientContext context;
  service_->Authorize(context);
  v1::GetPlayerRatingsRequest request;
  request.set_player_id("a");
  v1::GetPlayerRatingsResponse response;
  ASSERT_TRUE(service_->stub().GetPlayerRatings(&context, request, &response).ok());
  ASSERT_EQ(response.ratings_size(), 4);
  EXPECT_EQ(response.ratings(2).games(), 1);  // complex-solo
  EXPECT_NEAR(response.ratings(2).mu(), 27.795252672501135, 1e-9);
}

TEST_F(RatingsApiTest, MetricsCountRatedGamesLedgerEntriesAndLag) {
  service_.reset();
  StartService({"--metrics_port=0"});
  const int port = service_->metrics_port();
  ASSERT_GT(port, 0);
  v1::TransferResponse credit;
  ASSERT_TRUE(Credit("buy-1", "a", 10, &credit).ok());
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4}),
         OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {4, 3, 2, 1})});
  while (AppliedGames() < 2) absl::SleepFor(absl::Milliseconds(10));
  absl::StatusOr<load::MetricValues> m;
  const absl::Time until = absl::Now() + absl::Seconds(5);
  do {  // the counters are updated just after the batch commits
    m = load::ScrapeMetrics(absl::StrCat("127.0.0.1:", port));
    ASSERT_TRUE(m.ok()) << m.status();
  } while ((*m)["trix_ratings_games_rated_total"] < 2 && absl::Now() < until);
  EXPECT_EQ((*m)["trix_ratings_games_rated_total"], 2);
  EXPECT_EQ((*m)["trix_ratings_ledger_entries_total{kind=\"credit\"}"], 1);
  EXPECT_TRUE(m->count("trix_ratings_consumer_lag_seconds"));
  EXPECT_EQ((*m)["trix_ratings_consumer_pending_games"], 0);
  EXPECT_TRUE(m->count("trix_ratings_holds_past_ttl"));
  EXPECT_TRUE(m->count("trix_ratings_oldest_open_hold_seconds"));
  EXPECT_TRUE(m->count("trix_ratings_unheld_stakes_total"));
}

TEST_F(RatingsApiTest, RateLimitRefusalsAreCountedByMethodAndLimit) {
  service_.reset();
  StartService({"--metrics_port=0", "--credential_rate=0.01", "--credential_burst=2",
                "--peer_rate=0.01", "--peer_burst=1"});
  int refused = 0;
  for (int i = 0; i < 5; ++i) {
    grpc::ClientContext context;
    service_->Authorize(context);
    v1::GetBalanceRequest request;
    request.set_player_id("p");
    v1::Balance balance;
    const grpc::Status s = service_->stub().GetBalance(&context, request, &balance);
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
  }
  EXPECT_EQ(refused, 3);         // the burst of 2 let through, at 0.01/s nothing refilled
  for (int i = 0; i < 3; ++i) {  // no credential: the address's bucket (burst 1)
    grpc::ClientContext context;
    v1::GetLeaderboardRequest request;
    v1::GetLeaderboardResponse response;
    service_->stub().GetLeaderboard(&context, request, &response);
  }
  absl::StatusOr<load::MetricValues> m =
      load::ScrapeMetrics(absl::StrCat("127.0.0.1:", service_->metrics_port()));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(
      (*m)["trix_ratings_rate_limited_total{limit=\"credential\",method=\"GetBalance\"}"],
      3);
  EXPECT_EQ((*m)["trix_ratings_rate_limited_total{limit=\"address\",method="
                 "\"GetLeaderboard\"}"],
            2);
  EXPECT_FALSE(m->count(
      "trix_ratings_rate_limited_total{limit=\"player\",method=\"GetBalance\"}"));
}

TEST_F(RatingsApiTest, KillNineMidOutboxChangesNothingTwice) {
  service_.reset();
  std::mt19937_64 rng(5);
  std::vector<OutboxGame> games;
  for (int i = 0; i < 6000; ++i) {
    std::array<std::string, 4> players;
    for (int s = 0; s < 4; ++s) players[s] = absl::StrCat("p", s * 50 + rng() % 50);
    OutboxGame g = OutboxGame::Solo(absl::StrCat("g", i), players, {1, 2, 3, 4});
    if (i % 2) g = OutboxGame::Partner(g.game_id, players, static_cast<int>(rng() % 2));
    games.push_back(g);
  }
  Write(games);
  StartService({"--batch_size=300"});
  while (AppliedGames() == 0) absl::SleepFor(absl::Milliseconds(1));
  service_->process().Signal(SIGKILL);
  ASSERT_TRUE(service_->process().Wait(absl::Seconds(10)).ok());
  const int64_t partial = AppliedGames();
  EXPECT_LT(partial, 6000) << "the service finished before the kill; nothing was tested";
  // What a batch left: every applied game has its four history rows and its
  // outbox row consumed, and nothing else is consumed.
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int64_t>(), 4 * partial);
  EXPECT_EQ(Sql("SELECT count(*) FROM game_results WHERE consumed_at IS NOT NULL")[0][0]
                .as<int64_t>(),
            partial);
  StartService({"--batch_size=300"});
  const absl::Time until = absl::Now() + absl::Seconds(60);
  while (AppliedGames() < 6000 && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(AppliedGames(), 6000);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int64_t>(), 24000);
  service_.reset();
  // The same ratings as applying the whole outbox once, from scratch.
  const std::string query =
      "SELECT string_agg(mode || player_id || mu::text || sigma::text || games::text, ',' "
      "ORDER BY mode, player_id) FROM ratings.player_ratings";
  const std::string after_kill = Sql(query)[0][0].as<std::string>();
  Sql("DELETE FROM ratings.rating_history; DELETE FROM ratings.player_ratings; "
      "DELETE FROM ratings.applied_games; UPDATE ratings.consumer_state SET owner = ''; UPDATE game_results SET consumed_at = NULL");
  Drain();
  EXPECT_EQ(Sql(query)[0][0].as<std::string>(), after_kill);
}

}  // namespace
}  // namespace trix::ratings
