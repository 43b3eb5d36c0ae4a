// Who is calling matchmaking, from the "authorization: Bearer <token>" metadata:
// the service token (a trusted backend or operator, acting for any player), a
// player token (a JWT from the game's login service, verified with libjwt: the
// configured algorithm only — HS256 with a shared secret or RS256 with a public key
// — then exp/nbf, issuer and audience; `sub` is the player), or, for ServeBot, a
// bot key (checked by its SHA-256 against the bot accounts).
//
//   PlayerAuth auth({.service_token = t, .jwt_algorithm = "HS256", .jwt_key = k,
//                    .issuer = "login.example", .audience = "trix"});
//   absl::StatusOr<Caller> caller = auth.Authenticate(metadata_value);
//   absl::StatusOr<std::string> player = ActingFor(*caller, request.player_id());
#ifndef TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_
#define TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trix::matchmaking {

struct PlayerAuthOptions {
  std::string service_token;
  std::string jwt_algorithm = "HS256";  // "HS256" or "RS256"; "" turns JWTs off
  std::string jwt_key;                  // the secret, or the PEM public key
  std::string issuer;                   // required `iss` (empty: not checked)
  std::string audience;                 // required in `aud` (empty: not checked)
  absl::Duration leeway = absl::Seconds(30);  // clock skew allowed on exp/nbf
};

struct Caller {
  bool service = false;   // the service token
  std::string player_id;  // the player token's `sub`
};

class PlayerAuth {
 public:
  explicit PlayerAuth(PlayerAuthOptions options);

  // UNAUTHENTICATED for a missing, malformed, bad, expired or not-yet-valid
  // token, or one for another issuer or audience.
  absl::StatusOr<Caller> Authenticate(absl::string_view authorization,
                                      absl::Time now = absl::Now()) const;
  // The bearer token itself ("" when the header is not "Bearer <token>").
  static std::string BearerToken(absl::string_view authorization);
  // Whether `authorization` carries the service token (operator calls).
  absl::Status CheckService(absl::string_view authorization) const;

 private:
  absl::StatusOr<std::string> VerifyJwt(const std::string& token, absl::Time now) const;
  PlayerAuthOptions options_;
};

// The player a request acts for: the service may name anyone (INVALID_ARGUMENT
// when it names no one); a player only themself (PERMISSION_DENIED otherwise).
absl::StatusOr<std::string> ActingFor(const Caller& caller, const std::string& player_id);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_
