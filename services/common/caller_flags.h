// The flags of who may call a service, and what they load: the service
// credentials (credentials.h) and, when --jwks_file is set, the player-token
// verifier (player_tokens.h). The same in the table, matchmaking and ratings
// services.
//
//   CallerFlags flags;
//   BindCallerFlags(config, &flags);
//   ... parse ...
//   absl::StatusOr<Callers> callers = LoadCallers(flags);
#ifndef TRIX_SERVICES_COMMON_CALLER_FLAGS_H_
#define TRIX_SERVICES_COMMON_CALLER_FLAGS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/common/config.h"
#include "services/common/credentials.h"
#include "services/common/player_tokens.h"

namespace trix::service {

struct CallerFlags {
  std::string credentials_file;  // --service_credentials
  // --service_token: the single token of earlier versions, a credential named
  // "legacy-service-token" with every scope, kept only so that a deployment moves
  // to scoped credentials by a rolling update.
  std::string legacy_token;
  PlayerTokenOptions player_tokens;  // --jwks_file, --jwt_issuer, ...
};

void BindCallerFlags(Config& config, CallerFlags* flags);

struct Callers {
  std::shared_ptr<const ServiceCredentials> credentials;
  std::shared_ptr<const PlayerTokens> player_tokens;  // null: player tokens off
};

// INVALID_ARGUMENT without --service_credentials or --service_token; the file's
// or the player tokens' error (e.g. --jwks_file without issuer or audience).
absl::StatusOr<Callers> LoadCallers(const CallerFlags& flags);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_CALLER_FLAGS_H_
