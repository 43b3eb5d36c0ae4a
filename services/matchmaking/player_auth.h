// Who is calling matchmaking, from the "authorization: Bearer <token>" metadata:
// a service credential (credentials.h: a trusted backend or operator; it acts for
// any player with matchmaking:play and manages bots with bots:admin), a player
// token (player_tokens.h: a JWT of the game's login service, checked against its
// key set; `sub` is the player), or, for ServeBot, a bot key (checked by its
// SHA-256 against the bot accounts, in grpc_service.cc).
//
//   PlayerAuth auth({.credentials = creds, .player_tokens = tokens});
//   absl::StatusOr<Caller> caller = auth.Authenticate(metadata_value);
//   absl::StatusOr<std::string> player = ActingFor(*caller, request.player_id());
#ifndef TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_
#define TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "services/common/auth.h"
#include "services/common/credentials.h"

namespace trix::matchmaking {

struct PlayerAuthOptions {
  std::shared_ptr<const service::ServiceCredentials> credentials;     // null: none
  std::shared_ptr<const service::PlayerTokenVerifier> player_tokens;  // null: off
};

struct Caller {
  bool service = false;             // a service credential
  std::string credential;           // its name
  std::vector<std::string> scopes;  // its scopes
  std::string player_id;            // the player token's `sub`
};

class PlayerAuth {
 public:
  explicit PlayerAuth(PlayerAuthOptions options);

  // UNAUTHENTICATED for a missing or malformed value, or a token that is neither
  // a service credential's nor a valid player token. `certificate_names`: the
  // call's verified client certificate's (tls.h PeerCertificateNames), for
  // credentials bound to one.
  absl::StatusOr<Caller> Authenticate(
      absl::string_view authorization,
      const std::vector<std::string>& certificate_names = {}) const;
  // Whether `authorization` carries a service credential holding `scope`
  // (operator calls): UNAUTHENTICATED, or PERMISSION_DENIED naming the scope.
  absl::Status CheckService(absl::string_view authorization, absl::string_view scope,
                            const std::vector<std::string>& certificate_names = {}) const;

 private:
  PlayerAuthOptions options_;
};

// The player a request acts for: a credential with matchmaking:play may name
// anyone (INVALID_ARGUMENT when it names no one), one without it no one
// (PERMISSION_DENIED naming the scope); a player only themself (PERMISSION_DENIED
// otherwise).
absl::StatusOr<std::string> ActingFor(const Caller& caller, const std::string& player_id);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_PLAYER_AUTH_H_
