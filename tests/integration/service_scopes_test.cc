// Scoped service credentials over real gRPC on all three services: the real
// table-service and ratings-service binaries and the matchmaking server, all
// reading one credentials file. Each scope-guarded RPC is called with a credential
// holding every scope but its own (PERMISSION_DENIED naming the missing scope) and
// with one holding only its own (past the check). Then the ratings service's rate
// limits by verified identity, and player tokens on the table service with keys
// rotated by rewriting the key set while it runs.
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/credentials.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/test_tokens.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/service_process.h"
#include "tests/ratings/ratings_process.h"
#include "trix/v1/ratings.grpc.pb.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::matchmaking {
namespace {

using ::testing::HasSubstr;

std::string Only(const std::string& scope) { return "only-" + scope + "-token"; }
std::string AllBut(const std::string& scope) { return "all-but-" + scope + "-token"; }

// For every scope, a credential with just it and one with all the others.
std::vector<table::TestCredential> ScopeCredentials() {
  std::vector<table::TestCredential> entries;
  for (const std::string& scope : service::AllScopes()) {
    entries.push_back({.name = "only-" + scope, .token = Only(scope), .scopes = {scope}});
    std::vector<std::string> others;
    for (const std::string& s : service::AllScopes()) {
      if (s != scope) others.push_back(s);
    }
    entries.push_back({.name = "all-but-" + scope, .token = AllBut(scope), .scopes = others});
  }
  return entries;
}

struct GuardedCall {
  std::string rpc;
  std::string scope;
  std::function<grpc::Status(grpc::ClientContext*)> call;
};

// Calls each RPC as "all but its scope" and as "only its scope".
void ExpectScopesGuard(const std::vector<GuardedCall>& calls) {
  for (const GuardedCall& c : calls) {
    grpc::ClientContext denied;
    denied.AddMetadata("authorization", "Bearer " + AllBut(c.scope));
    denied.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const grpc::Status refused = c.call(&denied);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << c.rpc;
    EXPECT_THAT(refused.error_message(), HasSubstr(c.scope)) << c.rpc;
    grpc::ClientContext allowed;
    allowed.AddMetadata("authorization", "Bearer " + Only(c.scope));
    allowed.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const grpc::Status passed = c.call(&allowed);
    EXPECT_NE(passed.error_code(), grpc::StatusCode::PERMISSION_DENIED)
        << c.rpc << ": " << passed.error_message();
    EXPECT_NE(passed.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << c.rpc << ": " << passed.error_message();
  }
}

class ServiceScopesTest : public MatchmakingTest {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (HasFatalFailure()) return;
    credentials_ = ::testing::TempDir() + "/scopes-credentials-" + db_->name() + ".json";
    table::WriteCredentialsFile(credentials_, ScopeCredentials());
  }
  std::unique_ptr<table::ServiceProcess> StartTable(std::vector<std::string> extra = {}) {
    extra.push_back("--service_credentials=" + credentials_);
    return table::ServiceProcess::StartServing(
        {.binary = BuildPath("bin/table-service"),
         .db_url = db_->url(),
         .instance_id = "scopes",
         .dir = ::testing::TempDir(),
         .migrations_dir = SourcePath("migrations"),
         .extra = extra});
  }
  std::unique_ptr<ratings::RatingsProcess> StartRatings(std::vector<std::string> extra = {}) {
    extra.push_back("--service_credentials=" + credentials_);
    auto p = ratings::RatingsProcess::Start(
        db_->url(), ::testing::TempDir() + "/scopes-ratings-" + db_->name() + ".log", extra);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : nullptr;
  }
  std::string credentials_;
};

TEST_F(ServiceScopesTest, TheTableServiceRefusesEachScopeOutsideItsRpcs) {
  auto table = StartTable();
  ASSERT_NE(table, nullptr);
  auto stub = v1::TableService::NewStub(table->NewChannel());
  v1::CreateTableRequest create;
  create.set_request_id("scoped-create");
  *create.mutable_mode() = table::MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX);
  create.mutable_rules()->set_kingdoms(1);
  for (int s = 0; s < 4; ++s) create.add_seats()->set_player_id("p" + std::to_string(s));
  ExpectScopesGuard({
      {"CreateTable", service::kTablesCreate,
       [&](grpc::ClientContext* c) {
         v1::CreateTableResponse r;
         return stub->CreateTable(c, create, &r);
       }},
      {"ListPlayerTables", service::kTablesRead,
       [&](grpc::ClientContext* c) {
         v1::ListPlayerTablesRequest q;
         q.set_player_id("p0");
         v1::ListPlayerTablesResponse r;
         return stub->ListPlayerTables(c, q, &r);
       }},
      {"ListPlayerGames", service::kTablesRead,
       [&](grpc::ClientContext* c) {
         v1::ListPlayerGamesRequest q;
         q.set_player_id("p0");
         v1::ListPlayerGamesResponse r;
         return stub->ListPlayerGames(c, q, &r);
       }},
      {"VoidTable", service::kTablesVoid,
       [&](grpc::ClientContext* c) {
         v1::VoidTableRequest q;
         q.set_table_id("00000000-0000-4000-8000-000000000000");
         q.set_reason("scope check");
         v1::VoidTableResponse r;
         return stub->VoidTable(c, q, &r);
       }},
  });
}

TEST_F(ServiceScopesTest, TheRatingsServiceRefusesEachScopeOutsideItsRpcs) {
  auto ratings = StartRatings();
  ASSERT_NE(ratings, nullptr);
  v1::RatingsService::Stub& stub = ratings->stub();
  v1::Mode mode = table::MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX);
  ExpectScopesGuard({
      {"GetPlayerRatings", service::kRatingsRead,
       [&](grpc::ClientContext* c) {
         v1::GetPlayerRatingsRequest q;
         q.set_player_id("p0");
         v1::GetPlayerRatingsResponse r;
         return stub.GetPlayerRatings(c, q, &r);
       }},
      {"GetRatings", service::kRatingsRead,
       [&](grpc::ClientContext* c) {
         v1::GetRatingsRequest q;
         *q.mutable_mode() = mode;
         q.add_player_ids("p0");
         v1::GetRatingsResponse r;
         return stub.GetRatings(c, q, &r);
       }},
      {"GetLeaderboard", service::kRatingsRead,
       [&](grpc::ClientContext* c) {
         v1::GetLeaderboardRequest q;
         *q.mutable_mode() = mode;
         v1::GetLeaderboardResponse r;
         return stub.GetLeaderboard(c, q, &r);
       }},
      {"GetRatingHistory", service::kRatingsRead,
       [&](grpc::ClientContext* c) {
         v1::GetRatingHistoryRequest q;
         q.set_player_id("p0");
         *q.mutable_mode() = mode;
         v1::GetRatingHistoryResponse r;
         return stub.GetRatingHistory(c, q, &r);
       }},
      {"Credit", service::kLedgerWrite,
       [&](grpc::ClientContext* c) {
         v1::TransferRequest q;
         q.set_request_id("credit-1");
         q.set_player_id("p0");
         q.set_amount(500);
         v1::TransferResponse r;
         return stub.Credit(c, q, &r);
       }},
      {"Debit", service::kLedgerWrite,
       [&](grpc::ClientContext* c) {
         v1::TransferRequest q;
         q.set_request_id("debit-1");
         q.set_player_id("p0");
         q.set_amount(1);
         v1::TransferResponse r;
         return stub.Debit(c, q, &r);
       }},
      {"GetBalance", service::kLedgerRead,
       [&](grpc::ClientContext* c) {
         v1::GetBalanceRequest q;
         q.set_player_id("p0");
         v1::Balance r;
         return stub.GetBalance(c, q, &r);
       }},
      {"GetStatement", service::kLedgerRead,
       [&](grpc::ClientContext* c) {
         v1::GetStatementRequest q;
         q.set_player_id("p0");
         v1::GetStatementResponse r;
         return stub.GetStatement(c, q, &r);
       }},
      {"HoldStake", service::kLedgerHold,
       [&](grpc::ClientContext* c) {
         v1::HoldStakeRequest q;
         q.set_request_id("hold-1");
         q.set_player_id("p0");
         q.set_amount(10);
         v1::Hold r;
         return stub.HoldStake(c, q, &r);
       }},
      {"AttachHold", service::kLedgerHold,
       [&](grpc::ClientContext* c) {
         v1::AttachHoldRequest q;
         q.set_hold_id("no-such-hold");
         q.set_table_id("t");
         v1::Hold r;
         return stub.AttachHold(c, q, &r);
       }},
      {"ReleaseHold", service::kLedgerHold,
       [&](grpc::ClientContext* c) {
         v1::ReleaseHoldRequest q;
         q.set_hold_id("no-such-hold");
         v1::Hold r;
         return stub.ReleaseHold(c, q, &r);
       }},
      {"KeepHold", service::kLedgerHold,
       [&](grpc::ClientContext* c) {
         v1::KeepHoldRequest q;
         q.set_hold_id("no-such-hold");
         v1::Hold r;
         return stub.KeepHold(c, q, &r);
       }},
  });
}

TEST_F(ServiceScopesTest, MatchmakingRefusesEachScopeOutsideItsRpcs) {
  MatchmakingConfig config = TestConfig(db_->url());
  auto credentials = service::ServiceCredentials::Load({.file = credentials_});
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  config.auth.credentials = *credentials;
  StartMatchmaking(config);
  v1::MatchmakingService::Stub& stub = *stub_;
  ExpectScopesGuard({
      {"RegisterBot", service::kBotsAdmin,
       [&](grpc::ClientContext* c) {
         v1::RegisterBotRequest q;
         q.set_name("scoped-bot");
         v1::RegisterBotResponse r;
         return stub.RegisterBot(c, q, &r);
       }},
      {"RotateBotKey", service::kBotsAdmin,
       [&](grpc::ClientContext* c) {
         v1::RotateBotKeyRequest q;
         q.set_bot_id("bot-none");
         v1::RegisterBotResponse r;
         return stub.RotateBotKey(c, q, &r);
       }},
      {"RevokeBot", service::kBotsAdmin,
       [&](grpc::ClientContext* c) {
         v1::RevokeBotRequest q;
         q.set_bot_id("bot-none");
         v1::RevokeBotResponse r;
         return stub.RevokeBot(c, q, &r);
       }},
      {"GetAssignment", service::kMatchmakingPlay,
       [&](grpc::ClientContext* c) {
         v1::GetAssignmentRequest q;
         q.set_player_id("p0");
         v1::Assignment r;
         return stub.GetAssignment(c, q, &r);
       }},
      {"CreateParty", service::kMatchmakingPlay,
       [&](grpc::ClientContext* c) {
         v1::CreatePartyRequest q;
         q.set_player_id("p0");
         v1::Party r;
         return stub.CreateParty(c, q, &r);
       }},
      {"JoinParty", service::kMatchmakingPlay,
       [&](grpc::ClientContext* c) {
         v1::JoinPartyRequest q;
         q.set_player_id("p1");
         q.set_code("NOSUCHCD");
         v1::Party r;
         return stub.JoinParty(c, q, &r);
       }},
      {"LeaveParty", service::kMatchmakingPlay,
       [&](grpc::ClientContext* c) {
         v1::LeavePartyRequest q;
         q.set_player_id("p1");
         q.set_party_id("no-such-party");
         v1::LeavePartyResponse r;
         return stub.LeaveParty(c, q, &r);
       }},
  });
  // FindTable is a stream: its refusal is its status.
  TicketClient refused(stub_.get(), Request("p2"),
                       "Bearer " + AllBut(service::kMatchmakingPlay));
  ASSERT_TRUE(refused.WaitDone());
  EXPECT_EQ(refused.status().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.status().error_message(), HasSubstr(service::kMatchmakingPlay));
  TicketClient queued(stub_.get(), Request("p3"), "Bearer " + Only(service::kMatchmakingPlay));
  EXPECT_TRUE(queued.WaitQueued(1)) << queued.status().error_message();
}

TEST_F(ServiceScopesTest, RatingsRateLimitsEachVerifiedIdentityApart) {
  auto ratings = StartRatings({"--credential_rate=0.01", "--credential_burst=3",
                               "--peer_rate=0.01", "--peer_burst=2"});
  ASSERT_NE(ratings, nullptr);
  auto leaderboard = [&](const std::string& token) {
    grpc::ClientContext c;
    if (!token.empty()) c.AddMetadata("authorization", "Bearer " + token);
    v1::GetLeaderboardRequest q;
    *q.mutable_mode() = table::MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX);
    v1::GetLeaderboardResponse r;
    return ratings->stub().GetLeaderboard(&c, q, &r).error_code();
  };
  const std::string reader = Only(service::kRatingsRead);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(leaderboard(reader), grpc::StatusCode::OK) << i;
  EXPECT_EQ(leaderboard(reader), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // Another credential has its own bucket, whatever the first one did.
  EXPECT_EQ(leaderboard(AllBut(service::kLedgerWrite)), grpc::StatusCode::OK);
  // Unverified callers share their address's bucket, and are still refused.
  EXPECT_EQ(leaderboard("made-up"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(leaderboard(""), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(leaderboard("made-up-2"), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // And while their address's bucket is spent, every call from it is refused
  // before its token is verified, a verified credential's too.
  EXPECT_EQ(leaderboard(AllBut(service::kLedgerWrite)), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(ServiceScopesTest, RatingsTakePlayerTokensForThePlayersOwnAndLimitEachPlayer) {
  service::TestKey login = service::NewTestKey("RS256", "login-1");
  const std::string jwks = ::testing::TempDir() + "/scopes-ratings-jwks-" + db_->name();
  service::ReplaceFile(jwks, service::Jwks({login}));
  auto ratings = StartRatings({"--jwks_file=" + jwks, "--jwt_issuer=login.trix",
                               "--jwt_audience=trix", "--player_rate=0.01",
                               "--player_burst=2"});
  ASSERT_NE(ratings, nullptr);
  auto balance = [&](const std::string& as, const std::string& of) {
    grpc::ClientContext c;
    c.AddMetadata("authorization",
                  "Bearer " + service::SignToken(login, service::GoodClaims(as, absl::Now())));
    v1::GetBalanceRequest q;
    q.set_player_id(of);
    v1::Balance r;
    return ratings->stub().GetBalance(&c, q, &r).error_code();
  };
  for (const std::string player : {"alice", "bob"}) {  // accounts to read
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer " + Only(service::kLedgerWrite));
    v1::TransferRequest q;
    q.set_request_id("open-" + player);
    q.set_player_id(player);
    q.set_amount(100);
    v1::TransferResponse r;
    ASSERT_TRUE(ratings->stub().Credit(&c, q, &r).ok());
  }
  EXPECT_EQ(balance("alice", "alice"), grpc::StatusCode::OK);
  EXPECT_EQ(balance("alice", "bob"), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(balance("alice", "alice"), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(balance("bob", "bob"), grpc::StatusCode::OK);
  // A player token never moves money.
  grpc::ClientContext c;
  c.AddMetadata("authorization",
                "Bearer " + service::SignToken(login, service::GoodClaims("carol", absl::Now())));
  v1::TransferRequest q;
  q.set_request_id("self-credit");
  q.set_player_id("carol");
  q.set_amount(1000);
  v1::TransferResponse r;
  EXPECT_EQ(ratings->stub().Credit(&c, q, &r).error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

TEST_F(ServiceScopesTest, AKeyFileDeletedOrEmptiedStopsVerifyingAndSaysSo) {
  service::TestKey login = service::NewTestKey("ES256", "login-1");
  const std::string jwks = ::testing::TempDir() + "/scopes-gone-jwks-" + db_->name();
  service::ReplaceFile(jwks, service::Jwks({login}));
  auto table = StartTable({"--jwks_file=" + jwks, "--jwt_issuer=login.trix",
                           "--jwt_audience=trix"});
  ASSERT_NE(table, nullptr);
  auto stub = v1::TableService::NewStub(table->NewChannel());
  auto list = [&] {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer " + service::SignToken(
                                       login, service::GoodClaims("alice", absl::Now())));
    v1::ListPlayerTablesRequest q;
    q.set_player_id("alice");
    v1::ListPlayerTablesResponse r;
    return stub->ListPlayerTables(&c, q, &r).error_code();
  };
  auto void_table = [&] {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer " + Only(service::kTablesVoid));
    v1::VoidTableRequest q;
    q.set_table_id("00000000-0000-4000-8000-000000000000");
    q.set_reason("why");
    v1::VoidTableResponse r;
    return stub->VoidTable(&c, q, &r).error_code();
  };
  auto gone_lines = [&] {
    const std::string log = table->Log();
    int n = 0;
    for (size_t at = log.find("is gone or empty"); at != std::string::npos;
         at = log.find("is gone or empty", at + 1)) {
      ++n;
    }
    return n;
  };
  ASSERT_EQ(list(), grpc::StatusCode::OK);
  ASSERT_NE(void_table(), grpc::StatusCode::UNAUTHENTICATED);
  const int before = gone_lines();  // the log may hold an earlier run's lines

  ASSERT_EQ(std::remove(credentials_.c_str()), 0);
  service::ReplaceFile(jwks, "");
  absl::SleepFor(absl::Milliseconds(1100));  // the files are looked at once a second
  EXPECT_EQ(void_table(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(gone_lines(), before + 2) << table->Log();

  // Back: trusted again.
  table::WriteCredentialsFile(credentials_, ScopeCredentials());
  service::ReplaceFile(jwks, service::Jwks({login}));
  absl::SleepFor(absl::Milliseconds(1100));
  EXPECT_NE(void_table(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list(), grpc::StatusCode::OK);
  // Every key removed from the set is a removal too.
  service::ReplaceFile(jwks, "{\"keys\": []}");
  absl::SleepFor(absl::Milliseconds(1100));
  EXPECT_EQ(list(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(gone_lines(), before + 3);
}

TEST_F(ServiceScopesTest, ThePlayerListsTheirOwnTablesWithKeysRotatedWhileServing) {
  service::TestKey first = service::NewTestKey("ES256", "login-1");
  service::TestKey second = service::NewTestKey("EdDSA", "login-2");
  const std::string jwks = ::testing::TempDir() + "/scopes-table-jwks-" + db_->name();
  service::ReplaceFile(jwks, service::Jwks({first}));
  auto table = StartTable({"--jwks_file=" + jwks, "--jwt_issuer=login.trix",
                           "--jwt_audience=trix"});
  ASSERT_NE(table, nullptr);
  auto stub = v1::TableService::NewStub(table->NewChannel());
  auto list = [&](const service::TestKey& key) {
    grpc::ClientContext c;
    c.AddMetadata("authorization",
                  "Bearer " + service::SignToken(key, service::GoodClaims("alice", absl::Now())));
    v1::ListPlayerTablesRequest q;
    q.set_player_id("alice");
    v1::ListPlayerTablesResponse r;
    return stub->ListPlayerTables(&c, q, &r);
  };
  EXPECT_TRUE(list(first).ok()) << list(first).error_message();
  EXPECT_EQ(list(second).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  service::ReplaceFile(jwks, service::Jwks({first, second}));
  absl::SleepFor(absl::Milliseconds(1100));  // the file is looked at once a second
  EXPECT_TRUE(list(first).ok());
  EXPECT_TRUE(list(second).ok());
  service::ReplaceFile(jwks, service::Jwks({second}));
  absl::SleepFor(absl::Milliseconds(1100));
  EXPECT_EQ(list(first).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(list(second).ok());
}

TEST_F(ServiceScopesTest, PlayerTokensWithoutIssuerOrAudienceDoNotStart) {
  service::TestKey key = service::NewTestKey("ES256", "login-1");
  const std::string jwks = ::testing::TempDir() + "/scopes-nostart-jwks-" + db_->name();
  service::ReplaceFile(jwks, service::Jwks({key}));
  EXPECT_EQ(table::ServiceProcess::Start(
                {.binary = BuildPath("bin/table-service"),
                 .db_url = db_->url(),
                 .instance_id = "no-issuer",
                 .dir = ::testing::TempDir(),
                 .migrations_dir = SourcePath("migrations"),
                 .extra = {"--jwks_file=" + jwks, "--jwt_audience=trix"}}),
            nullptr);
  EXPECT_FALSE(ratings::RatingsProcess::Start(
                   db_->url(), ::testing::TempDir() + "/scopes-nostart.log",
                   {"--jwks_file=" + jwks, "--jwt_issuer=login.trix"})
                   .ok());
}

}  // namespace
}  // namespace trix::matchmaking
