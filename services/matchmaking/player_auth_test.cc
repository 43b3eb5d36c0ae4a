#include "services/matchmaking/player_auth.h"

#include <jwt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace trix::matchmaking {
namespace {

constexpr char kSecret[] = "a-shared-secret-of-the-login-service";
const absl::Time kNow = absl::FromUnixSeconds(1800000000);

struct Claims {
  std::string sub = "alice";
  std::string iss = "login.trix";
  std::string aud = "trix";
  int64_t exp = 1800000000 + 600;
  int64_t nbf = 0;
};

std::string Token(const Claims& c, const std::string& secret = kSecret,
                  jwt_alg_t alg = JWT_ALG_HS256) {
  jwt_t* jwt = nullptr;
  jwt_new(&jwt);
  if (!c.sub.empty()) jwt_add_grant(jwt, "sub", c.sub.c_str());
  if (!c.iss.empty()) jwt_add_grant(jwt, "iss", c.iss.c_str());
  if (!c.aud.empty()) jwt_add_grant(jwt, "aud", c.aud.c_str());
  if (c.exp != 0) jwt_add_grant_int(jwt, "exp", c.exp);
  if (c.nbf != 0) jwt_add_grant_int(jwt, "nbf", c.nbf);
  jwt_set_alg(jwt, alg, alg == JWT_ALG_NONE ? nullptr
                                            : reinterpret_cast<const unsigned char*>(
                                                  secret.data()),
              alg == JWT_ALG_NONE ? 0 : static_cast<int>(secret.size()));
  char* s = jwt_encode_str(jwt);
  std::string token = s == nullptr ? "" : s;
  free(s);
  jwt_free(jwt);
  return token;
}

class PlayerAuthTest : public ::testing::Test {
 protected:
  PlayerAuth auth_{{.service_token = "service-token",
                    .jwt_algorithm = "HS256",
                    .jwt_key = kSecret,
                    .issuer = "login.trix",
                    .audience = "trix",
                    .leeway = absl::ZeroDuration()}};
  absl::StatusCode Code(const std::string& token) {
    return auth_.Authenticate("Bearer " + token, kNow).status().code();
  }
};

TEST_F(PlayerAuthTest, AValidTokenNamesItsPlayer) {
  absl::StatusOr<Caller> caller = auth_.Authenticate("Bearer " + Token({}), kNow);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_FALSE(caller->service);
  EXPECT_EQ(caller->player_id, "alice");
}

TEST_F(PlayerAuthTest, TheServiceTokenActsForAnyone) {
  absl::StatusOr<Caller> caller = auth_.Authenticate("Bearer service-token", kNow);
  ASSERT_TRUE(caller.ok());
  EXPECT_TRUE(caller->service);
  EXPECT_EQ(*ActingFor(*caller, "bob"), "bob");
  EXPECT_EQ(ActingFor(*caller, "").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PlayerAuthTest, BadTokensAreUnauthenticated) {
  EXPECT_EQ(Code(Token({}, "another-secret")), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.exp = 1800000000 - 1})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.exp = 0})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.nbf = 1800000000 + 60})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.iss = "elsewhere"})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.aud = "other-game"})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({.sub = ""})), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Token({}, "", JWT_ALG_NONE)), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code("not.a.token"), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth_.Authenticate("", kNow).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth_.Authenticate("Basic abc", kNow).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(PlayerAuthTest, APlayerMayNotActForAnother) {
  Caller alice{.player_id = "alice"};
  EXPECT_EQ(*ActingFor(alice, ""), "alice");
  EXPECT_EQ(*ActingFor(alice, "alice"), "alice");
  EXPECT_EQ(ActingFor(alice, "bob").status().code(), absl::StatusCode::kPermissionDenied);
}

// A fresh RSA key pair as PEM (private, public).
std::pair<std::string, std::string> RsaKeys() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  auto pem = [](auto write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string s(data, static_cast<size_t>(n));
    BIO_free(bio);
    return s;
  };
  std::string priv = pem([&](BIO* b) {
    PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
  });
  std::string pub = pem([&](BIO* b) { PEM_write_bio_PUBKEY(b, key); });
  EVP_PKEY_free(key);
  return {priv, pub};
}

TEST(PlayerAuthRs256Test, ChecksTheSignatureWithThePublicKey) {
  auto [priv, pub] = RsaKeys();
  PlayerAuth auth({.jwt_algorithm = "RS256", .jwt_key = pub, .issuer = "login.trix",
                   .audience = "trix"});
  absl::StatusOr<Caller> caller =
      auth.Authenticate("Bearer " + Token({}, priv, JWT_ALG_RS256), kNow);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->player_id, "alice");
  auto [other_priv, other_pub] = RsaKeys();
  EXPECT_EQ(auth.Authenticate("Bearer " + Token({}, other_priv, JWT_ALG_RS256), kNow)
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
  // The public key used as an HMAC secret must not pass (algorithm confusion).
  EXPECT_EQ(auth.Authenticate("Bearer " + Token({}, pub, JWT_ALG_HS256), kNow)
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace trix::matchmaking
