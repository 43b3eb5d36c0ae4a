#include "services/matchmaking/player_auth.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/player_tokens.h"
#include "services/common/testing/test_tokens.h"

namespace trix::matchmaking {
namespace {

class PlayerAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The process's own file: test processes run side by side, each with its own key.
    const std::string jwks =
        absl::StrCat(::testing::TempDir(), "/player-auth-jwks-", getpid(), ".json");
    service::ReplaceFile(jwks, service::Jwks({login_}));
    auto tokens = service::PlayerTokens::Open(
        {.jwks_file = jwks, .issuer = "login.trix", .audience = "trix"});
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    auto credentials = service::ServiceCredentials::Load(
        {.fixed = {service::CredentialFor("frontend", "frontend-token",
                                          {service::kMatchmakingPlay}),
                   service::CredentialFor("operator", "operator-token",
                                          {service::kBotsAdmin})}});
    auth_ = std::make_unique<PlayerAuth>(
        PlayerAuthOptions{.credentials = *credentials, .player_tokens = *tokens});
  }
  std::string Player(const std::string& id) const {
    return "Bearer " + service::SignToken(login_, service::GoodClaims(id, absl::Now()));
  }

  const service::TestKey login_ = service::NewTestKey("EdDSA", "login-1");
  std::unique_ptr<PlayerAuth> auth_;
};

TEST_F(PlayerAuthTest, AValidPlayerTokenNamesItsPlayer) {
  absl::StatusOr<Caller> caller = auth_->Authenticate(Player("alice"));
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_FALSE(caller->service);
  EXPECT_EQ(caller->player_id, "alice");
  EXPECT_EQ(*ActingFor(*caller, ""), "alice");
  EXPECT_EQ(*ActingFor(*caller, "alice"), "alice");
  EXPECT_EQ(ActingFor(*caller, "bob").status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(PlayerAuthTest, OnlyACredentialWithMatchmakingPlayActsForAnyone) {
  absl::StatusOr<Caller> frontend = auth_->Authenticate("Bearer frontend-token");
  ASSERT_TRUE(frontend.ok());
  EXPECT_TRUE(frontend->service);
  EXPECT_EQ(frontend->credential, "frontend");
  EXPECT_EQ(*ActingFor(*frontend, "bob"), "bob");
  EXPECT_EQ(ActingFor(*frontend, "").status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<Caller> op = auth_->Authenticate("Bearer operator-token");
  ASSERT_TRUE(op.ok());
  absl::StatusOr<std::string> refused = ActingFor(*op, "bob");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("matchmaking:play"), absl::string_view::npos);
}

TEST_F(PlayerAuthTest, BotAdministrationNeedsBotsAdmin) {
  EXPECT_TRUE(auth_->CheckService("Bearer operator-token", service::kBotsAdmin).ok());
  absl::Status s = auth_->CheckService("Bearer frontend-token", service::kBotsAdmin);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("bots:admin"), absl::string_view::npos);
  EXPECT_EQ(auth_->CheckService(Player("alice"), service::kBotsAdmin).code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(PlayerAuthTest, BadTokensAreUnauthenticated) {
  const service::TestKey forger = service::NewTestKey("EdDSA", "login-1");
  const std::string forged = service::SignToken(forger, service::GoodClaims("alice", absl::Now()));
  for (const std::string& authorization :
       {std::string(""), std::string("Basic abc"), std::string("Bearer "),
        std::string("Bearer not.a.token"), "Bearer " + forged}) {
    EXPECT_EQ(auth_->Authenticate(authorization).status().code(),
              absl::StatusCode::kUnauthenticated)
        << authorization;
  }
}

TEST(PlayerAuthOffTest, WithoutPlayerTokensOnlyCredentialsAreTaken) {
  PlayerAuth auth({.credentials = *service::ServiceCredentials::Load({})});
  EXPECT_EQ(auth.Authenticate("Bearer anything").status().code(),
            absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace trix::matchmaking
