// Keys, key sets and signed player tokens for tests: real keys (OpenSSL), real
// signatures, any header or claims a test needs — including the malformed ones a
// verifier must refuse.
//
//   TestKey key = NewTestKey("EdDSA", "k1");
//   WriteFile(jwks_path, Jwks({key}));
//   std::string token = SignToken(key, GoodClaims("alice", now));
#ifndef TRIX_SERVICES_COMMON_TESTING_TEST_TOKENS_H_
#define TRIX_SERVICES_COMMON_TESTING_TEST_TOKENS_H_

#include <openssl/evp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace trix::service {

struct TestKey {
  std::string kid;
  std::string alg;                 // RS256, ES256, EdDSA or HS256
  std::shared_ptr<EVP_PKEY> pkey;  // the private key (not for HS256)
  std::string secret;              // HS256
  nlohmann::json jwk;              // the public JWK
};

TestKey NewTestKey(const std::string& alg, const std::string& kid);
// {"keys": [...]} of the keys' public JWKs.
std::string Jwks(const std::vector<TestKey>& keys);
// iss "login.trix", aud "trix", iat now, exp now + 10 minutes.
nlohmann::json GoodClaims(const std::string& player, absl::Time now);
// A JWT with this header (alg and kid default to the key's) and these claims,
// signed with `key` as `sign_alg` says (default: the key's own algorithm; "none"
// leaves the signature empty, "HS256" with an asymmetric key uses its public PEM as
// the secret).
std::string SignToken(const TestKey& key, const nlohmann::json& claims,
                      nlohmann::json header = nlohmann::json::object(),
                      const std::string& sign_alg = "");
// The payload written verbatim (e.g. a float nbf, which nlohmann would keep).
std::string SignRawToken(const TestKey& key, const std::string& header_json,
                         const std::string& payload_json, const std::string& sign_alg = "");
// Writes through a new file and a rename, as a Secret update does.
void ReplaceFile(const std::string& path, const std::string& contents);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_TESTING_TEST_TOKENS_H_
