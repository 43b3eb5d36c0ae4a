#include "services/common/credentials.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/auth.h"
#include "services/common/caller_flags.h"

namespace trix::service {
namespace {

using ::testing::HasSubstr;

std::string Entry(const std::string& name, const std::string& token,
                  const std::string& scopes) {
  return "{\"name\":\"" + name + "\",\"sha256\":\"" + TokenHash(token) +
         "\",\"scopes\":[" + scopes + "]}";
}

std::string File(const std::string& entries) {
  return "{\"credentials\":[" + entries + "]}";
}

class CredentialsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/credentials-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    path_ = std::string(dir) + "/credentials.json";
  }
  void Write(const std::string& contents) {
    const std::string next = path_ + ".next";
    std::ofstream(next) << contents;
    std::rename(next.c_str(), path_.c_str());
  }
  std::shared_ptr<const ServiceCredentials> Load() {
    auto c = ServiceCredentials::Load({.file = path_, .recheck = absl::ZeroDuration()});
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : nullptr;
  }
  std::string path_;
};

TEST_F(CredentialsFileTest, ATokenProvesItsCredentialAndItsScopes) {
  Write(File(Entry("matchmaking", "mm-token", "\"tables:create\", \"ledger:hold\"") + "," +
             Entry("operator", "op-token", "\"bots:admin\"")));
  auto creds = Load();
  absl::StatusOr<ServiceCaller> mm = creds->Require("Bearer mm-token", kTablesCreate);
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_EQ(mm->name, "matchmaking");
  EXPECT_TRUE(mm->Holds(kLedgerHold));
  EXPECT_FALSE(mm->Holds(kLedgerWrite));
  EXPECT_EQ(creds->Require("Bearer op-token", kBotsAdmin)->name, "operator");
}

// A credential bound to a client certificate: its token alone proves nothing.
TEST_F(CredentialsFileTest, ABoundCredentialNeedsItsClientCertificate) {
  std::string bound = Entry("matchmaking", "mm-token", "\"tables:create\"");
  bound.insert(bound.size() - 1, ",\"client_cert\":\"matchmaking.internal\"");
  Write(File(bound + "," + Entry("operator", "op-token", "\"bots:admin\"")));
  auto creds = Load();
  absl::StatusOr<ServiceCaller> mm = creds->Require(
      "Bearer mm-token", kTablesCreate, {"matchmaking", "matchmaking.internal"});
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_EQ(mm->name, "matchmaking");
  for (const std::vector<std::string>& names :
       {std::vector<std::string>{}, std::vector<std::string>{"stranger.internal"}}) {
    absl::StatusOr<ServiceCaller> r = creds->Authenticate("Bearer mm-token", names);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated);
    EXPECT_THAT(r.status().message(), HasSubstr("bound to the client certificate"));
    EXPECT_THAT(r.status().message(), HasSubstr("matchmaking.internal"));
  }
  EXPECT_FALSE(mm->holds_need_consent);
  // An entry without client_cert is a bearer credential, certificate or not.
  EXPECT_TRUE(creds->Authenticate("Bearer op-token").ok());
  EXPECT_TRUE(creds->Authenticate("Bearer op-token", {"stranger.internal"}).ok());
}

TEST_F(CredentialsFileTest, AMissingScopeIsPermissionDeniedNamingIt) {
  Write(File(Entry("matchmaking", "mm-token", "\"tables:create\"")));
  absl::StatusOr<ServiceCaller> r = Load()->Require("Bearer mm-token", kLedgerWrite);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(r.status().message(), HasSubstr("ledger:write"));
  EXPECT_THAT(r.status().message(), HasSubstr("matchmaking"));
}

TEST_F(CredentialsFileTest, UnknownOrMalformedTokensAreUnauthenticated) {
  Write(File(Entry("matchmaking", "mm-token", "\"tables:create\"")));
  auto creds = Load();
  for (const char* authorization :
       {"", "mm-token", "Bearer ", "Basic mm-token", "Bearer mm-toke", "Bearer mm-token2"}) {
    EXPECT_EQ(creds->Authenticate(authorization).status().code(),
              absl::StatusCode::kUnauthenticated)
        << authorization;
  }
}

TEST_F(CredentialsFileTest, TheFileIsReReadWhenItChangesAndTwoTokensOverlap) {
  Write(File(Entry("matchmaking", "old", "\"tables:create\"")));
  auto creds = Load();
  ASSERT_TRUE(creds->Authenticate("Bearer old").ok());
  // Rotation: the new token is added next to the old one, then the old one goes.
  Write(File(Entry("matchmaking", "old", "\"tables:create\"") + "," +
             Entry("matchmaking", "new", "\"tables:create\"")));
  EXPECT_TRUE(creds->Authenticate("Bearer old").ok());
  EXPECT_TRUE(creds->Authenticate("Bearer new").ok());
  Write(File(Entry("matchmaking", "new", "\"tables:create\"")));
  EXPECT_FALSE(creds->Authenticate("Bearer old").ok());
  EXPECT_TRUE(creds->Authenticate("Bearer new").ok());
}

TEST_F(CredentialsFileTest, ABadEditKeepsThePreviousCredentials) {
  Write(File(Entry("matchmaking", "mm-token", "\"tables:create\"")));
  auto creds = Load();
  Write("{\"credentials\": [ not json");
  EXPECT_TRUE(creds->Authenticate("Bearer mm-token").ok());
}

TEST_F(CredentialsFileTest, ADeletedOrEmptiedFileTrustsNothingUntilItIsBack) {
  const std::string good = File(Entry("matchmaking", "mm-token", "\"tables:create\""));
  Write(good);
  auto creds = Load();
  ASSERT_TRUE(creds->Authenticate("Bearer mm-token").ok());
  ASSERT_EQ(std::remove(path_.c_str()), 0);
  EXPECT_EQ(creds->Authenticate("Bearer mm-token").status().code(),
            absl::StatusCode::kUnauthenticated);
  Write(good);
  EXPECT_TRUE(creds->Authenticate("Bearer mm-token").ok());
  Write("");
  EXPECT_EQ(creds->Authenticate("Bearer mm-token").status().code(),
            absl::StatusCode::kUnauthenticated);
  Write(" \n");
  EXPECT_FALSE(creds->Authenticate("Bearer mm-token").ok());
  Write(good);
  EXPECT_TRUE(creds->Authenticate("Bearer mm-token").ok());
}

TEST_F(CredentialsFileTest, BadFilesDoNotLoadAndSayWhy) {
  const std::pair<std::string, std::string> bad[] = {
      {"[]", "credentials"},
      {File("{\"sha256\":\"" + TokenHash("t") + "\",\"scopes\":[]}"), "name"},
      {File("{\"name\":\"a\",\"sha256\":\"abc\",\"scopes\":[]}"), "64 hex"},
      {File(Entry("a", "t", "\"tables:everything\"")), "tables:everything"},
      {File("{\"name\":\"a\",\"sha256\":\"" + TokenHash("t") + "\"}"), "scopes"},
      {File("{\"name\":\"a\",\"sha256\":\"" + TokenHash("t") +
            "\",\"scopes\":[],\"client_cert\":\"\"}"),
       "client_cert"},
      {File("{\"name\":\"a\",\"sha256\":\"" + TokenHash("t") +
            "\",\"scopes\":[],\"holds_need_consent\":\"yes\"}"),
       "holds_need_consent"},
  };
  for (const auto& [contents, why] : bad) {
    Write(contents);
    auto c = ServiceCredentials::Load({.file = path_});
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << contents;
    EXPECT_THAT(c.status().message(), HasSubstr(why));
  }
  EXPECT_FALSE(ServiceCredentials::Load({.file = path_ + ".absent"}).ok());
}

TEST(CredentialsTest, TheLegacyTokenHoldsEveryScopeAndOneOfThemIsRequired) {
  absl::StatusOr<Callers> legacy = LoadCallers({.legacy_token = "single"});
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->player_tokens, nullptr);
  for (const std::string& scope : AllScopes()) {
    EXPECT_TRUE(legacy->credentials->Require("Bearer single", scope).ok()) << scope;
  }
  EXPECT_EQ(LoadCallers({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadCallers({.legacy_token = "single",
                         .player_tokens = {.jwks_file = "/nonexistent"}})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);  // no issuer, no audience
  auto none = ServiceCredentials::Load({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->Authenticate("Bearer single").status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(CredentialsTest, ATokenFileHoldsOneToken) {
  char dir[] = "/tmp/credential-token-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/token";
  std::ofstream(path) << "s3cret\n";
  EXPECT_EQ(*ReadCredentialToken(path), "s3cret");
  std::ofstream(path, std::ios::trunc) << "\n";
  EXPECT_EQ(ReadCredentialToken(path).status().code(), absl::StatusCode::kInvalidArgument);
  std::ofstream(path, std::ios::trunc) << "two tokens\n";
  EXPECT_EQ(ReadCredentialToken(path).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trix::service
