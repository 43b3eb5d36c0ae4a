// A JSON Web Key Set (RFC 7517), the login service's public keys: each key
// becomes the PEM public key (or the HS256 secret) that player_tokens.h hands to
// libjwt or OpenSSL. libjwt 1.10 reads no JWKS itself.
#ifndef TRIX_SERVICES_COMMON_JWKS_H_
#define TRIX_SERVICES_COMMON_JWKS_H_

#include <openssl/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trix::service {

// One key of the set, ready to verify with.
struct PlayerTokenKey {
  std::string kid;
  std::string alg;       // "RS256", "ES256", "EdDSA" or "HS256"
  std::string material;  // PEM public key (RS256, ES256, EdDSA), or the HS256 secret
};
// The keys of a JWKS document: INVALID_ARGUMENT naming the key and what is wrong.
absl::StatusOr<std::vector<PlayerTokenKey>> ParseJwks(absl::string_view json,
                                                      bool allow_hs256);

// The PEM (SubjectPublicKeyInfo) of the key's public half.
std::string PublicKeyPem(EVP_PKEY* key);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_JWKS_H_
