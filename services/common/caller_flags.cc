#include "services/common/caller_flags.h"

#include "services/common/logging.h"

namespace trix::service {

void BindCallerFlags(Config& config, CallerFlags* flags) {
  config.Bind("service_credentials", &flags->credentials_file,
              "JSON file of the service credentials accepted here (names, SHA-256 of "
              "their tokens, scopes); re-read when it changes (required)");
  config.Bind("service_token", &flags->legacy_token,
              "legacy single token accepted with every scope; only while a deployment "
              "moves to --service_credentials by a rolling update");
  PlayerTokenOptions& p = flags->player_tokens;
  config.Bind("jwks_file", &p.jwks_file,
              "player tokens: the login service's key set (JWKS), re-read when it "
              "changes; empty: no player tokens");
  config.Bind("jwt_issuer", &p.issuer, "player tokens: the required iss (required)");
  config.Bind("jwt_audience", &p.audience,
              "player tokens: the audience aud must hold (required)");
  config.Bind("jwt_max_lifetime", &p.max_lifetime,
              "player tokens: the longest exp - iat accepted");
  config.Bind("jwt_leeway", &p.leeway, "player tokens: clock skew allowed");
  config.Bind("jwt_allow_hs256", &p.allow_hs256,
              "player tokens: accept HS256 (\"oct\") keys in the key set");
}

absl::StatusOr<Callers> LoadCallers(const CallerFlags& flags) {
  if (flags.credentials_file.empty() && flags.legacy_token.empty()) {
    return absl::InvalidArgumentError(
        "--service_credentials (MAMLAKA_SERVICE_CREDENTIALS) is required");
  }
  CredentialSources sources{.file = flags.credentials_file};
  if (!flags.legacy_token.empty()) {
    LogWarn("--service_token is accepted with every scope; move to --service_credentials");
    sources.fixed.push_back(
        CredentialFor("legacy-service-token", flags.legacy_token, AllScopes()));
  }
  absl::StatusOr<std::shared_ptr<const ServiceCredentials>> credentials =
      ServiceCredentials::Load(std::move(sources));
  if (!credentials.ok()) return credentials.status();
  Callers callers{.credentials = *credentials};
  if (!flags.player_tokens.jwks_file.empty()) {
    absl::StatusOr<std::shared_ptr<const PlayerTokens>> tokens =
        PlayerTokens::Open(flags.player_tokens);
    if (!tokens.ok()) return tokens.status();
    callers.player_tokens = *tokens;
  }
  return callers;
}

}  // namespace trix::service
