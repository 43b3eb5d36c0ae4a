// Secrets and their checks: seat tokens, ids, the player-token interface.
//
// A seat token is 256 bits from the operating system's CSPRNG (OpenSSL RAND_bytes),
// base64url-encoded. The server hands it out once, when the table is created, and
// keeps only its SHA-256 hash, so a leaked database does not let anyone act for a
// seat. Every comparison of a secret runs in constant time so that response
// timing reveals nothing about a near miss. Service credentials: credentials.h.
//
//   std::string token = NewSeatToken();
//   seat.token_hash = TokenHash(token);           // store this, never the token
//   if (TokenMatches(presented, seat.token_hash)) ...
#ifndef TRIX_SERVICES_COMMON_AUTH_H_
#define TRIX_SERVICES_COMMON_AUTH_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trix::service {

// 32 random bytes, base64url without padding (43 characters).
std::string NewSeatToken();
// A random (version 4) UUID in its text form, for table and game ids.
std::string NewUuid();
// Whether `text` has NewUuid's form: 8-4-4-4-12 lower-case hex digits.
bool IsUuid(absl::string_view text);
// A uniformly random 64-bit number (deal seeds).
uint64_t RandomUint64();
// `n` bytes from the cryptographic random generator (deal salts).
std::string RandomBytes(size_t n);

// SHA-256 of the token, lower-case hex (64 characters).
std::string TokenHash(absl::string_view token);
// Whether `a` equals `b`: the time taken depends only on the lengths.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);
// Whether `token` hashes to `stored_hash`, in constant time.
bool TokenMatches(absl::string_view token, absl::string_view stored_hash);

// Resolves a player token (the signed token a player gets from matchmaking) to
// the player id it proves: PlayerTokens (player_tokens.h) checks the login
// service's JWTs against a key set; without one, player tokens are not accepted
// and only seat tokens and service credentials prove who is calling.
class PlayerTokenVerifier {
 public:
  virtual ~PlayerTokenVerifier() = default;
  // The player id, or UNAUTHENTICATED when the token is not valid.
  virtual absl::StatusOr<std::string> PlayerOf(absl::string_view token) const = 0;
};

// The token of an "authorization: Bearer <token>" value, or "" when it has none.
std::string BearerToken(absl::string_view authorization);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_AUTH_H_
