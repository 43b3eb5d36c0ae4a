// Service credentials: who a trusted caller is and what it may do.
//
// A credential is a name, the SHA-256 of its bearer token and a set of scopes
// (the exact strings below). The services that check credentials keep only the
// hashes, in a JSON file (a Kubernetes Secret) that is re-read when it changes:
//
//   {"credentials": [
//     {"name": "matchmaking", "sha256": "<64 hex digits>",
//      "scopes": ["tables:create", "tables:void", "ledger:hold", "ratings:read"]},
//     {"name": "matchmaking", "sha256": "<the next token's hash>", "scopes": [...]}
//   ]}
//
// Several entries may share a name: that is how a token is rotated (add the new
// one's hash, move the caller to it, remove the old one) with no restart. A
// presented token is hashed and compared with every entry in constant time.
//
// An entry with "holds_need_consent": true holds stakes (ledger:hold) only with
// the player's consent: the ratings service asks each HoldStake for that
// player's own token, so a thief of the credential cannot lock anyone's money.
//
// Under mutual TLS an entry may be bound to its caller's client certificate,
// `"client_cert": "matchmaking"`: its token then proves the credential only on a
// connection whose verified certificate names "matchmaking" (as its common name
// or a subject alternative name), so a token stolen without the certificate's
// private key is worth nothing.
//
//   auto creds = ServiceCredentials::Load({.file = path});
//   absl::StatusOr<std::string> who = (*creds)->Require(authorization, kTablesCreate);
#ifndef TRIX_SERVICES_COMMON_CREDENTIALS_H_
#define TRIX_SERVICES_COMMON_CREDENTIALS_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "services/common/reloading_file.h"

namespace trix::service {

// The scopes (docs/operations.md, "Service credentials and their scopes").
inline constexpr char kTablesCreate[] = "tables:create";      // CreateTable
inline constexpr char kTablesVoid[] = "tables:void";          // VoidTable
inline constexpr char kTablesRead[] = "tables:read";          // any player's tables, records
inline constexpr char kTablesWatch[] = "tables:watch";        // Watch past the per-address cap
inline constexpr char kLedgerWrite[] = "ledger:write";        // Credit, Debit
inline constexpr char kLedgerHold[] = "ledger:hold";          // HoldStake, KeepHold, ReleaseHold, AttachHold
inline constexpr char kLedgerRead[] = "ledger:read";          // any player's balance, statement
inline constexpr char kRatingsRead[] = "ratings:read";        // ratings, ladders, histories
inline constexpr char kBotsAdmin[] = "bots:admin";            // RegisterBot, RotateBotKey, RevokeBot
inline constexpr char kMatchmakingPlay[] = "matchmaking:play";  // matchmaking for any player
// Every scope, in the order above.
const std::vector<std::string>& AllScopes();

struct ServiceCredential {
  std::string name;
  std::array<unsigned char, 32> token_sha256{};
  std::vector<std::string> scopes;
  // When set: a name the caller's verified client certificate must carry.
  std::string client_cert;
  // The ratings service holds a stake for this caller only with the player's own
  // token as consent (HoldStakeRequest.consent): "holds_need_consent": true.
  bool holds_need_consent = false;

  bool Holds(absl::string_view scope) const;
};

// A credential for `token` (hashed here), e.g. the legacy single token.
ServiceCredential CredentialFor(std::string name, absl::string_view token,
                                std::vector<std::string> scopes,
                                std::string client_cert = "");
// The credentials file's entries: INVALID_ARGUMENT naming the entry and what is
// wrong (no name, a hash that is not 64 hex digits, an unknown scope).
absl::StatusOr<std::vector<ServiceCredential>> ParseCredentials(absl::string_view json);

// The verified caller.
struct ServiceCaller {
  std::string name;
  std::vector<std::string> scopes;
  bool holds_need_consent = false;  // ServiceCredential::holds_need_consent
  bool Holds(absl::string_view scope) const;
  // OK when it holds `scope`, else PERMISSION_DENIED naming it and the scope.
  absl::Status Allows(absl::string_view scope) const;
};

struct CredentialSources {
  std::string file;  // the credentials file; empty: only `fixed`
  std::vector<ServiceCredential> fixed = {};
  absl::Duration recheck = absl::Seconds(1);
};

class ServiceCredentials {
 public:
  // Reads the file now: its error when it is missing or does not parse.
  static absl::StatusOr<std::shared_ptr<const ServiceCredentials>> Load(
      CredentialSources sources);

  // The credential the "authorization: Bearer <token>" value proves, on a call
  // whose verified client certificate carries `certificate_names`
  // (tls.h PeerCertificateNames): UNAUTHENTICATED when there is none, it is
  // malformed or no credential's, or the credential is bound to a certificate
  // the call did not present.
  absl::StatusOr<ServiceCaller> Authenticate(
      absl::string_view authorization,
      const std::vector<std::string>& certificate_names = {}) const;
  // Authenticate, then PERMISSION_DENIED naming the credential and the missing
  // scope unless it holds `scope`.
  absl::StatusOr<ServiceCaller> Require(
      absl::string_view authorization, absl::string_view scope,
      const std::vector<std::string>& certificate_names = {}) const;

 private:
  explicit ServiceCredentials(CredentialSources sources) : sources_(std::move(sources)) {}

  const CredentialSources sources_;
  std::unique_ptr<ReloadingFile<std::vector<ServiceCredential>>> file_;
};

// The bearer token a service presents to others: the first line of `path` (a
// Secret's file), without the line end; INVALID_ARGUMENT when it is empty.
absl::StatusOr<std::string> ReadCredentialToken(const std::string& path);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_CREDENTIALS_H_
