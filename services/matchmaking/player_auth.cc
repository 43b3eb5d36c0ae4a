#include "services/matchmaking/player_auth.h"

namespace trix::matchmaking {

PlayerAuth::PlayerAuth(PlayerAuthOptions options) : options_(std::move(options)) {}

absl::Status PlayerAuth::CheckService(absl::string_view authorization, absl::string_view scope,
                                      const std::vector<std::string>& certificate_names) const {
  if (options_.credentials == nullptr) {
    return absl::UnauthenticatedError("matchmaking trusts no service credential");
  }
  return options_.credentials->Require(authorization, scope, certificate_names).status();
}

absl::StatusOr<Caller> PlayerAuth::Authenticate(
    absl::string_view authorization, const std::vector<std::string>& certificate_names) const {
  const std::string token = service::BearerToken(authorization);
  if (token.empty()) {
    return absl::UnauthenticatedError("missing \"authorization: Bearer <token>\"");
  }
  if (options_.credentials != nullptr) {
    absl::StatusOr<service::ServiceCaller> service =
        options_.credentials->Authenticate(authorization, certificate_names);
    if (service.ok()) {
      return Caller{.service = true, .credential = service->name, .scopes = service->scopes};
    }
  }
  if (options_.player_tokens == nullptr) {
    return absl::UnauthenticatedError(
        "not a service credential's token, and player tokens are off");
  }
  absl::StatusOr<std::string> player = options_.player_tokens->PlayerOf(token);
  if (!player.ok()) return player.status();
  return Caller{.player_id = *player};
}

absl::StatusOr<std::string> ActingFor(const Caller& caller, const std::string& player_id) {
  if (caller.service) {
    const service::ServiceCaller credential{.name = caller.credential, .scopes = caller.scopes};
    if (absl::Status s = credential.Allows(service::kMatchmakingPlay); !s.ok()) return s;
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
