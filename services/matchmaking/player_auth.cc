#include "services/matchmaking/player_auth.h"

#include <errno.h>
#include <jwt.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/match.h"
#include "nlohmann/json.hpp"
#include "services/common/auth.h"

namespace trix::matchmaking {
namespace {

struct JwtFree {
  void operator()(jwt_t* j) const { jwt_free(j); }
};

bool AudienceMatches(jwt_t* jwt, const std::string& audience) {
  const char* single = jwt_get_grant(jwt, "aud");
  if (single != nullptr) return audience == single;
  char* json = jwt_get_grants_json(jwt, "aud");
  if (json == nullptr) return false;
  nlohmann::json aud = nlohmann::json::parse(json, nullptr, false);
  free(json);
  if (!aud.is_array()) return false;
  for (const auto& a : aud) {
    if (a.is_string() && a.get<std::string>() == audience) return true;
  }
  return false;
}

}  // namespace

PlayerAuth::PlayerAuth(PlayerAuthOptions options) : options_(std::move(options)) {}

std::string PlayerAuth::BearerToken(absl::string_view authorization) {
  constexpr absl::string_view kPrefix = "Bearer ";
  if (!absl::StartsWith(authorization, kPrefix)) return "";
  return std::string(authorization.substr(kPrefix.size()));
}

absl::Status PlayerAuth::CheckService(absl::string_view authorization) const {
  return service::CheckBearer(authorization, options_.service_token);
}

absl::StatusOr<Caller> PlayerAuth::Authenticate(absl::string_view authorization,
                                                absl::Time now) const {
  std::string token = BearerToken(authorization);
  if (token.empty()) {
    return absl::UnauthenticatedError("missing \"authorization: Bearer <token>\"");
  }
  if (!options_.service_token.empty() &&
      service::ConstantTimeEquals(token, options_.service_token)) {
    return Caller{.service = true};
  }
  absl::StatusOr<std::string> player = VerifyJwt(token, now);
  if (!player.ok()) return player.status();
  return Caller{.player_id = *player};
}

absl::StatusOr<std::string> PlayerAuth::VerifyJwt(const std::string& token,
                                                  absl::Time now) const {
  if (options_.jwt_algorithm.empty() || options_.jwt_key.empty()) {
    return absl::UnauthenticatedError("not the service token, and player tokens are off");
  }
  const jwt_alg_t expected =
      options_.jwt_algorithm == "RS256" ? JWT_ALG_RS256 : JWT_ALG_HS256;
  jwt_t* raw = nullptr;
  // With a key, jwt_decode checks the signature; the algorithm must still be ours
  // (else an RS256 public key could be used as an HS256 secret).
  if (jwt_decode(&raw, token.c_str(),
                 reinterpret_cast<const unsigned char*>(options_.jwt_key.data()),
                 static_cast<int>(options_.jwt_key.size())) != 0 ||
      raw == nullptr) {
    return absl::UnauthenticatedError("the player token is malformed or its signature is wrong");
  }
  std::unique_ptr<jwt_t, JwtFree> jwt(raw);
  if (jwt_get_alg(jwt.get()) != expected) {
    return absl::UnauthenticatedError("the player token uses another algorithm");
  }
  const int64_t t = absl::ToUnixSeconds(now);
  const int64_t leeway = absl::ToInt64Seconds(options_.leeway);
  errno = 0;
  long exp = jwt_get_grant_int(jwt.get(), "exp");
  if (errno != 0) return absl::UnauthenticatedError("the player token has no exp");
  if (t > exp + leeway) return absl::UnauthenticatedError("the player token expired");
  errno = 0;
  long nbf = jwt_get_grant_int(jwt.get(), "nbf");
  if (errno == 0 && t + leeway < nbf) {
    return absl::UnauthenticatedError("the player token is not valid yet");
  }
  if (!options_.issuer.empty()) {
    const char* iss = jwt_get_grant(jwt.get(), "iss");
    if (iss == nullptr || options_.issuer != iss) {
      return absl::UnauthenticatedError("the player token is from another issuer");
    }
  }
  if (!options_.audience.empty() && !AudienceMatches(jwt.get(), options_.audience)) {
    return absl::UnauthenticatedError("the player token is for another audience");
  }
  const char* sub = jwt_get_grant(jwt.get(), "sub");
  if (sub == nullptr || *sub == '\0') {
    return absl::UnauthenticatedError("the player token names no player (sub)");
  }
  return std::string(sub);
}

absl::StatusOr<std::string> ActingFor(const Caller& caller, const std::string& player_id) {
  if (caller.service) {
    if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
    // What a table seat takes (table.proto's SeatAssignment.player_id).
    if (player_id.size() > 128) {
      return absl::InvalidArgumentError("player_id is longer than 128 bytes");
    }
    return player_id;
  }
  if (!player_id.empty() && player_id != caller.player_id) {
    return absl::PermissionDeniedError("this player token may not act for that player");
  }
  return caller.player_id;
}

}  // namespace trix::matchmaking
