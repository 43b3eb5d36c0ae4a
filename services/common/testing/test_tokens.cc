#include "services/common/testing/test_tokens.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/time/clock.h"
#include "services/common/jwks.h"

namespace trix::service {
namespace {

std::string B64(const std::string& bytes) { return absl::WebSafeBase64Escape(bytes); }

// The big-endian bytes, left-padded to `width` when given.
std::string BnParam(EVP_PKEY* key, const char* name, int width = 0) {
  BIGNUM* bn = nullptr;
  EVP_PKEY_get_bn_param(key, name, &bn);
  const int n = width > 0 ? width : BN_num_bytes(bn);
  std::string out(static_cast<size_t>(n), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), n);
  BN_free(bn);
  return out;
}

std::string Hmac(const std::string& secret, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return std::string(reinterpret_cast<char*>(mac), len);
}

std::string DigestSign(EVP_PKEY* key, const EVP_MD* md, const std::string& data) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t len = 0;
  EVP_DigestSignInit(ctx, nullptr, md, nullptr, key);
  EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(data.data()),
                 data.size());
  std::string sig(len, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                 reinterpret_cast<const unsigned char*>(data.data()), data.size());
  EVP_MD_CTX_free(ctx);
  sig.resize(len);
  return sig;
}

// DER ECDSA signature -> JWS's fixed-width r || s.
std::string RawEcdsa(const std::string& der) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
  std::string out(64, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(out.data()), 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(out.data()) + 32, 32);
  ECDSA_SIG_free(sig);
  return out;
}

std::string Sign(const TestKey& key, const std::string& alg, const std::string& data) {
  if (alg == "none") return "";
  if (alg == "HS256") {
    return Hmac(key.pkey ? PublicKeyPem(key.pkey.get()) : key.secret, data);
  }
  if (alg == "RS256") return DigestSign(key.pkey.get(), EVP_sha256(), data);
  if (alg == "ES256") return RawEcdsa(DigestSign(key.pkey.get(), EVP_sha256(), data));
  return DigestSign(key.pkey.get(), nullptr, data);  // EdDSA
}

}  // namespace

TestKey NewTestKey(const std::string& alg, const std::string& kid) {
  TestKey key{.kid = kid, .alg = alg};
  key.jwk = {{"kid", kid}};
  if (alg == "HS256") {
    key.secret = std::string(32, '\0');
    RAND_bytes(reinterpret_cast<unsigned char*>(key.secret.data()), 32);
    key.jwk.update({{"kty", "oct"}, {"k", B64(key.secret)}});
    return key;
  }
  EVP_PKEY* raw = alg == "RS256"   ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048})
                  : alg == "ES256" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                                   : EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  key.pkey.reset(raw, EVP_PKEY_free);
  if (alg == "RS256") {
    key.jwk.update({{"kty", "RSA"},
                    {"n", B64(BnParam(raw, OSSL_PKEY_PARAM_RSA_N))},
                    {"e", B64(BnParam(raw, OSSL_PKEY_PARAM_RSA_E))}});
  } else if (alg == "ES256") {
    key.jwk.update({{"kty", "EC"},
                    {"crv", "P-256"},
                    {"x", B64(BnParam(raw, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
                    {"y", B64(BnParam(raw, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}});
  } else {
    std::string x(32, '\0');
    size_t len = x.size();
    EVP_PKEY_get_raw_public_key(raw, reinterpret_cast<unsigned char*>(x.data()), &len);
    key.jwk.update({{"kty", "OKP"}, {"crv", "Ed25519"}, {"x", B64(x)}});
  }
  return key;
}

std::string Jwks(const std::vector<TestKey>& keys) {
  nlohmann::json doc = {{"keys", nlohmann::json::array()}};
  for (const TestKey& k : keys) doc["keys"].push_back(k.jwk);
  return doc.dump();
}

nlohmann::json GoodClaims(const std::string& player, absl::Time now) {
  const int64_t t = absl::ToUnixSeconds(now);
  return {{"sub", player}, {"iss", "login.trix"}, {"aud", "trix"},
          {"iat", t},      {"exp", t + 600}};
}

std::string SignToken(const TestKey& key, const nlohmann::json& claims,
                      nlohmann::json header, const std::string& sign_alg) {
  if (!header.contains("alg")) header["alg"] = sign_alg.empty() ? key.alg : sign_alg;
  if (!header.contains("kid")) header["kid"] = key.kid;
  header["typ"] = "JWT";
  return SignRawToken(key, header.dump(), claims.dump(), sign_alg);
}

std::string SignRawToken(const TestKey& key, const std::string& header_json,
                         const std::string& payload_json, const std::string& sign_alg) {
  const std::string signed_part = B64(header_json) + "." + B64(payload_json);
  const std::string alg = sign_alg.empty() ? key.alg : sign_alg;
  return signed_part + "." + B64(Sign(key, alg, signed_part));
}

void ReplaceFile(const std::string& path, const std::string& contents) {
  const std::string next = path + ".next";
  std::ofstream(next, std::ios::trunc) << contents;
  std::rename(next.c_str(), path.c_str());
}

}  // namespace trix::service
