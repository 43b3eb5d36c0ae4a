#include "services/common/player_tokens.h"

#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/test_tokens.h"

namespace trix::service {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

class PlayerTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/player-tokens-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    jwks_ = std::string(dir) + "/jwks.json";
    ReplaceFile(jwks_, Jwks({rsa_, ec_, ed_}));
  }
  std::shared_ptr<const PlayerTokens> Open(PlayerTokenOptions o = {}) {
    o.jwks_file = jwks_;
    if (o.issuer.empty()) o.issuer = "login.trix";
    if (o.audience.empty()) o.audience = "trix";
    o.recheck = absl::ZeroDuration();
    auto t = PlayerTokens::Open(o);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : nullptr;
  }
  // The refusal's message, or "accepted".
  std::string Refusal(const std::string& token, absl::Time now = kNow) {
    absl::StatusOr<std::string> p = tokens_->PlayerOf(token, now);
    if (p.ok()) return "accepted";
    EXPECT_EQ(p.status().code(), absl::StatusCode::kUnauthenticated);
    return std::string(p.status().message());
  }

  TestKey rsa_ = NewTestKey("RS256", "rsa-1");
  TestKey ec_ = NewTestKey("ES256", "ec-1");
  TestKey ed_ = NewTestKey("EdDSA", "ed-1");
  std::string jwks_;
  std::shared_ptr<const PlayerTokens> tokens_ = nullptr;
};

TEST_F(PlayerTokensTest, EachAlgorithmOfTheKeySetNamesThePlayer) {
  tokens_ = Open();
  for (const TestKey* key : {&rsa_, &ec_, &ed_}) {
    absl::StatusOr<std::string> p = tokens_->PlayerOf(SignToken(*key, GoodClaims("alice", kNow)), kNow);
    ASSERT_TRUE(p.ok()) << key->alg << ": " << p.status();
    EXPECT_EQ(*p, "alice");
  }
  nlohmann::json claims = GoodClaims("bob", kNow);
  claims["aud"] = {"other-app", "trix"};
  EXPECT_EQ(*tokens_->PlayerOf(SignToken(ed_, claims), kNow), "bob");
}

TEST_F(PlayerTokensTest, IssuerAndAudienceAreRequiredToStart) {
  EXPECT_EQ(PlayerTokens::Open({.jwks_file = jwks_, .audience = "trix"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlayerTokens::Open({.jwks_file = jwks_, .issuer = "login.trix"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlayerTokens::Open({.issuer = "login.trix", .audience = "trix"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PlayerTokensTest, AnotherIssuerOrAudienceIsRefused) {
  tokens_ = Open();
  // The token that was once accepted: ten years long, from "evil", for "other-app".
  nlohmann::json evil = GoodClaims("alice", kNow);
  evil["iss"] = "evil";
  evil["aud"] = "other-app";
  evil["exp"] = absl::ToUnixSeconds(kNow + absl::Hours(24 * 365 * 10));
  EXPECT_NE(Refusal(SignToken(rsa_, evil)), "accepted");
  nlohmann::json iss = GoodClaims("alice", kNow);
  iss["iss"] = "evil";
  EXPECT_THAT(Refusal(SignToken(rsa_, iss)), HasSubstr("issuer"));
  nlohmann::json aud = GoodClaims("alice", kNow);
  aud["aud"] = "other-app";
  EXPECT_THAT(Refusal(SignToken(rsa_, aud)), HasSubstr("audience"));
  aud.erase("aud");
  EXPECT_THAT(Refusal(SignToken(rsa_, aud)), HasSubstr("audience"));
}

TEST_F(PlayerTokensTest, AlgNoneIsRefused) {
  tokens_ = Open();
  EXPECT_NE(Refusal(SignToken(rsa_, GoodClaims("alice", kNow), {}, "none")), "accepted");
  // "none" with a signature still attached names no key's algorithm.
  nlohmann::json header = {{"alg", "none"}};
  EXPECT_THAT(Refusal(SignToken(rsa_, GoodClaims("alice", kNow), header)),
              HasSubstr("alg \"none\""));
}

TEST_F(PlayerTokensTest, AnRsaPublicKeyIsNeverAnHmacSecret) {
  tokens_ = Open();
  // HS256 signed with the RSA key's public PEM, under the RSA key's kid.
  EXPECT_THAT(Refusal(SignToken(rsa_, GoodClaims("alice", kNow), {}, "HS256")),
              HasSubstr("alg \"HS256\""));
  // Even with HS256 allowed, an RSA key only verifies RS256.
  tokens_ = Open({.allow_hs256 = true});
  EXPECT_NE(Refusal(SignToken(rsa_, GoodClaims("alice", kNow), {}, "HS256")), "accepted");
}

TEST_F(PlayerTokensTest, Hs256KeysOnlyWhenAllowed) {
  TestKey hs = NewTestKey("HS256", "hs-1");
  ReplaceFile(jwks_, Jwks({hs}));
  EXPECT_FALSE(PlayerTokens::Open({.jwks_file = jwks_, .issuer = "i", .audience = "a"}).ok());
  tokens_ = Open({.allow_hs256 = true});
  EXPECT_EQ(Refusal(SignToken(hs, GoodClaims("alice", kNow))), "accepted");
}

TEST_F(PlayerTokensTest, AWrongOrUnknownKidIsRefused) {
  tokens_ = Open();
  // Signed by the EC key but naming the Ed25519 key, with either algorithm.
  EXPECT_THAT(Refusal(SignToken(ec_, GoodClaims("alice", kNow),
                                {{"kid", "ed-1"}, {"alg", "EdDSA"}}, "ES256")),
              HasSubstr("signature"));
  EXPECT_THAT(Refusal(SignToken(ec_, GoodClaims("alice", kNow), {{"kid", "ed-1"}})),
              HasSubstr("alg \"ES256\""));
  TestKey other = NewTestKey("EdDSA", "ed-1");  // same kid, another key
  EXPECT_THAT(Refusal(SignToken(other, GoodClaims("alice", kNow))), HasSubstr("signature"));
  TestKey stranger = NewTestKey("RS256", "rsa-2");
  EXPECT_THAT(Refusal(SignToken(stranger, GoodClaims("alice", kNow))), HasSubstr("unknown key"));
  nlohmann::json no_kid = GoodClaims("alice", kNow);
  EXPECT_THAT(Refusal(SignRawToken(rsa_, R"({"alg":"RS256"})", no_kid.dump())),
              HasSubstr("kid"));
}

TEST_F(PlayerTokensTest, ClockSkewIsForgivenUpToTheLeeway) {
  tokens_ = Open({.leeway = absl::Seconds(30)});
  const std::string token = SignToken(ed_, GoodClaims("alice", kNow));
  EXPECT_EQ(Refusal(token, kNow + absl::Seconds(600 + 30)), "accepted");
  EXPECT_THAT(Refusal(token, kNow + absl::Seconds(600 + 31)), HasSubstr("expired"));
  EXPECT_EQ(Refusal(token, kNow - absl::Seconds(30)), "accepted");
  EXPECT_THAT(Refusal(token, kNow - absl::Seconds(31)), HasSubstr("future"));
  nlohmann::json later = GoodClaims("alice", kNow);
  later["nbf"] = absl::ToUnixSeconds(kNow) + 3600;
  EXPECT_THAT(Refusal(SignToken(ed_, later)), HasSubstr("not valid yet"));
}

TEST_F(PlayerTokensTest, TimeClaimsMustBeIntegers) {
  tokens_ = Open();
  const int64_t t = absl::ToUnixSeconds(kNow);
  const std::string header = R"({"alg":"EdDSA","kid":"ed-1"})";
  auto payload = [&](const std::string& times) {
    return R"({"sub":"alice","iss":"login.trix","aud":"trix",)" + times + "}";
  };
  const std::string iat = "\"iat\":" + std::to_string(t);
  const std::string exp = "\"exp\":" + std::to_string(t + 600);
  EXPECT_EQ(Refusal(SignRawToken(ed_, header, payload(iat + "," + exp))), "accepted");
  // A float nbf an hour ahead, which was once taken for "no nbf".
  EXPECT_THAT(Refusal(SignRawToken(ed_, header,
                                   payload(iat + "," + exp + ",\"nbf\":" +
                                           std::to_string(t + 3600) + ".5"))),
              HasSubstr("nbf that is not an integer"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(iat + ",\"exp\":1.8e9"))),
              HasSubstr("exp that is not an integer"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(exp + ",\"iat\":\"now\""))),
              HasSubstr("iat that is not an integer"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(exp))), HasSubstr("no iat"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(iat))), HasSubstr("no exp"));
}

// exp - iat and exp + leeway on claims near the ends of int64 (or past them, as
// unsigned) once overflowed into a lifetime that passed every check.
TEST_F(PlayerTokensTest, TimeClaimsOutsideTheCalendarAreRefused) {
  tokens_ = Open();
  const std::string header = R"({"alg":"EdDSA","kid":"ed-1"})";
  auto payload = [&](const std::string& iat, const std::string& exp) {
    return R"({"sub":"alice","iss":"login.trix","aud":"trix","iat":)" + iat + R"(,"exp":)" +
           exp + "}";
  };
  const std::string now = std::to_string(absl::ToUnixSeconds(kNow));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload("-200", "9223372036854775707"))),
              HasSubstr("outside the years 1970 to 9999"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(now, "18446744073709551615"))),
              HasSubstr("exp outside the years"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload("-1", now))),
              HasSubstr("iat outside the years"));
  EXPECT_THAT(Refusal(SignRawToken(ed_, header, payload(now, "253402300800"))),
              HasSubstr("exp outside the years"));
}

TEST_F(PlayerTokensTest, ALifetimeLongerThanTheMaximumIsRefused) {
  tokens_ = Open({.max_lifetime = absl::Hours(1)});
  nlohmann::json claims = GoodClaims("alice", kNow);
  claims["exp"] = absl::ToUnixSeconds(kNow + absl::Hours(1));
  EXPECT_EQ(Refusal(SignToken(rsa_, claims)), "accepted");
  claims["exp"] = absl::ToUnixSeconds(kNow + absl::Hours(1) + absl::Seconds(1));
  EXPECT_THAT(Refusal(SignToken(rsa_, claims)), HasSubstr("lifetime"));
}

TEST_F(PlayerTokensTest, MalformedTokensAreRefused) {
  tokens_ = Open();
  for (const std::string& token :
       {std::string(""), std::string("a.b"), std::string("a.b.c.d"), std::string("!!.??.##"),
        SignRawToken(ed_, "[]", "{}"), SignRawToken(ed_, R"({"alg":"EdDSA","kid":"ed-1"})", "7")}) {
    EXPECT_NE(Refusal(token), "accepted") << token;
  }
  nlohmann::json nobody = GoodClaims("", kNow);
  EXPECT_THAT(Refusal(SignToken(ed_, nobody)), HasSubstr("sub"));
}

TEST_F(PlayerTokensTest, KeysRotateByRewritingTheKeySet) {
  tokens_ = Open();
  TestKey next = NewTestKey("ES256", "ec-2");
  const std::string old_token = SignToken(ec_, GoodClaims("alice", kNow));
  const std::string new_token = SignToken(next, GoodClaims("alice", kNow));
  EXPECT_THAT(Refusal(new_token), HasSubstr("unknown key"));
  ReplaceFile(jwks_, Jwks({ec_, next}));  // overlap: both keys
  EXPECT_EQ(Refusal(old_token), "accepted");
  EXPECT_EQ(Refusal(new_token), "accepted");
  ReplaceFile(jwks_, Jwks({next}));  // the old key retired
  EXPECT_THAT(Refusal(old_token), HasSubstr("unknown key"));
  EXPECT_EQ(Refusal(new_token), "accepted");
  ReplaceFile(jwks_, "{\"keys\": [ not json");  // a bad edit keeps the last good set
  EXPECT_EQ(Refusal(new_token), "accepted");
  ReplaceFile(jwks_, "{\"keys\": []}");  // every key removed: none verifies
  EXPECT_THAT(Refusal(new_token), HasSubstr("unknown key"));
  ReplaceFile(jwks_, Jwks({next}));
  EXPECT_EQ(Refusal(new_token), "accepted");
  ReplaceFile(jwks_, "");  // emptied
  EXPECT_THAT(Refusal(new_token), HasSubstr("unknown key"));
  ReplaceFile(jwks_, Jwks({next}));
  ASSERT_EQ(std::remove(jwks_.c_str()), 0);  // deleted
  EXPECT_THAT(Refusal(new_token), HasSubstr("unknown key"));
}

TEST(JwksTest, BadKeySetsSayWhatIsWrong) {
  TestKey rsa = NewTestKey("RS256", "a");
  nlohmann::json dup = {{"keys", {rsa.jwk, rsa.jwk}}};
  EXPECT_THAT(ParseJwks(dup.dump(), false).status().message(), HasSubstr("kid"));
  nlohmann::json wrong_alg = rsa.jwk;
  wrong_alg["alg"] = "HS256";
  EXPECT_THAT(ParseJwks(nlohmann::json{{"keys", {wrong_alg}}}.dump(), false).status().message(),
              HasSubstr("is not RS256"));
  nlohmann::json bad_point = NewTestKey("ES256", "b").jwk;
  bad_point["y"] = bad_point["x"];
  EXPECT_FALSE(ParseJwks(nlohmann::json{{"keys", {bad_point}}}.dump(), false).ok());
  EXPECT_FALSE(ParseJwks("{}", false).ok());
  EXPECT_FALSE(ParseJwks(R"({"keys":[{"kty":"RSA","kid":"x","n":"AQAB","e":"AQAB"}]})", false).ok());
}

}  // namespace
}  // namespace trix::service
