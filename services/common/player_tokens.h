// Player tokens: the JWTs the game's login service signs, checked against its key
// set (a JWKS file, re-read when it changes, so keys rotate with no restart).
//
// A token is accepted only when all of these hold:
//   - its header names a `kid` in the key set and the `alg` of that key: RS256
//     (RSA, at least 2048 bits), ES256 (EC P-256), EdDSA (Ed25519), or HS256 (an
//     "oct" key) only when `allow_hs256` is set. "none" and any algorithm other
//     than the chosen key's are refused, so a public key is never an HMAC secret;
//   - the signature verifies (libjwt for RS256, ES256 and HS256; OpenSSL for
//     EdDSA, which libjwt 1.10 does not know);
//   - `iss` is the issuer and `aud` (a string or a list) holds the audience;
//   - `exp` and `iat` are integers, `nbf` too when present; now is within
//     [nbf, exp] give or take `leeway`, `iat` is not in the future, and the token
//     lives (exp - iat) no longer than `max_lifetime`;
//   - `sub`, the player id, is a string of 1-128 bytes.
//
//   auto tokens = PlayerTokens::Open({.jwks_file = f, .issuer = "login.trix",
//                                     .audience = "trix"});
//   absl::StatusOr<std::string> player = (*tokens)->PlayerOf(token);
#ifndef TRIX_SERVICES_COMMON_PLAYER_TOKENS_H_
#define TRIX_SERVICES_COMMON_PLAYER_TOKENS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "services/common/auth.h"
#include "services/common/jwks.h"
#include "services/common/reloading_file.h"

namespace trix::service {

struct PlayerTokenOptions {
  std::string jwks_file;
  std::string issuer;
  std::string audience;
  absl::Duration max_lifetime = absl::Hours(24);
  absl::Duration leeway = absl::Seconds(30);
  bool allow_hs256 = false;
  absl::Duration recheck = absl::Seconds(1);  // how often the JWKS file is looked at
};

class PlayerTokens final : public PlayerTokenVerifier {
 public:
  // INVALID_ARGUMENT without a JWKS file, issuer or audience, or with a
  // lifetime that is not positive; the file's error when it does not load.
  static absl::StatusOr<std::shared_ptr<const PlayerTokens>> Open(PlayerTokenOptions options);

  absl::StatusOr<std::string> PlayerOf(absl::string_view token) const override {
    return PlayerOf(token, absl::Now());
  }
  // UNAUTHENTICATED, saying which check failed.
  absl::StatusOr<std::string> PlayerOf(absl::string_view token, absl::Time now) const;

 private:
  explicit PlayerTokens(PlayerTokenOptions options) : options_(std::move(options)) {}
  absl::StatusOr<std::string> CheckClaims(const nlohmann::json& claims, absl::Time now) const;

  const PlayerTokenOptions options_;
  std::unique_ptr<ReloadingFile<std::vector<PlayerTokenKey>>> keys_;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_PLAYER_TOKENS_H_
